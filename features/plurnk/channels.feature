@plurnk
Feature: Channels
  An entry has named channels. An EDIT writes exactly one of them, chosen by
  the target's #fragment or else the scheme's default channel. A channel's
  state is metadata and never blocks a read.

  @§per-entry-channels-edit-writes-only-body
  Scenario: an EDIT of the default channel leaves the other channels untouched
    Given the entry known:///capital.md contains "Paris"
    And the entry known:///capital.md#symbols contains "[\"Paris\"]"
    When the model emits <<EDIT(known:///capital.md):Paris, France:EDIT
    Then the action answers 200
    And the body channel of known:///capital.md holds "Paris, France"
    And the symbols channel of known:///capital.md holds "[\"Paris\"]"

  @§per-entry-channels-edit-writes-only-body
  Scenario: an EDIT of a named channel writes only that channel
    Given the entry known:///capital.md contains "Paris"
    When the model emits <<EDIT(known:///capital.md#symbols):["Paris"]:EDIT
    Then the action answers 200
    And the symbols channel of known:///capital.md holds "[\"Paris\"]"
    And the body channel of known:///capital.md holds "Paris"

  @§channel-selection-unknown-channel-400
  Scenario: a fragment naming a channel the scheme does not declare answers 400
    Given the entry known:///capital.md contains "Paris"
    When the model emits <<EDIT(known:///capital.md#stdout):Paris:EDIT
    Then the action answers 400
    And the result reason mentions "no channel \"stdout\"" per Decision (§telemetry-no-error-scheme)
    And the entry known:///capital.md has no stdout channel

  @§channel-selection-fragment-on-nonexistent-404
  Scenario: a non-default channel of a missing entry answers 404, the default channel creates it
    When the model emits <<EDIT(known:///new.md#symbols):[]:EDIT
    Then the action answers 404
    And the entry known:///new.md does not exist
    When the model emits <<EDIT(known:///new.md):hello:EDIT
    Then the action answers 201

  @§channel-selection-fragment-on-nonexistent-404 @decision
  Scenario: a non-default channel of an existing entry is created by its first EDIT
    Given the entry known:///capital.md contains "Paris"
    When the model emits <<EDIT(known:///capital.md#symbols):[]:EDIT
    Then the action answers 200 per Decision (§channel-selection-fragment-on-nonexistent-404)
    And the symbols channel of known:///capital.md holds "[]" per Decision (§channel-selection-fragment-on-nonexistent-404)

  @§channel-state-state-is-metadata
  Scenario: a READ returns what an active stream has accumulated so far
    Given the exec output sh:///1/1/2 has streamed "building\n" on stdout and is still active
    Then the stdout channel of sh:///1/1/2 is active
    When the model emits <<READ(sh:///1/1/2#stdout)::READ
    Then the action answers 200
    And the result content is:
      """
      1:\tbuilding
      """
    And the result mimetype is "text/plain"

  @§channel-state-state-is-metadata
  Scenario: a READ of a closed stream returns its content just the same
    Given the exec output sh:///1/1/2 has streamed "ok\n" on stdout and is still active
    And the exec output sh:///1/1/2 has closed
    When the model emits <<READ(sh:///1/1/2)::READ
    Then the action answers 200
    And the result content is:
      """
      1:\tok
      """

  @§chunk-accumulation-chunks-accumulate
  Scenario: chunks are appended as they arrive and readable before the stream closes
    Given the exec output sh:///1/1/2 has streamed "compiling\n" on stdout and is still active
    When the model emits <<READ(sh:///1/1/2)::READ
    Then the result content is:
      """
      1:\tcompiling
      """
    When the exec output sh:///1/1/2 streams "linking\n" on stdout
    And the exec output sh:///1/1/2 streams "warning: unused\n" on stderr
    And the model emits <<READ(sh:///1/1/2)::READ
    Then the action answers 200
    And the result content is:
      """
      1:\tcompiling
      2:\tlinking
      """
    And the stdout channel of sh:///1/1/2 is active
    When the model emits <<READ(sh:///1/1/2#stderr)::READ
    Then the result content is:
      """
      1:\twarning: unused
      """

  @§channel-state-schemes-own-state-transitions
  Scenario: ops never move a channel's state; the stream's scheme does
    Given the exec output sh:///1/1/2 has streamed "partial\n" on stdout and is still active
    When the model emits <<READ(sh:///1/1/2):/part/:READ
    And the model emits <<COPY(sh:///1/1/2):known:///partial.md:COPY
    Then the action answers 201
    And the stdout channel of sh:///1/1/2 is active
    And the body channel of known:///partial.md is static
    When the exec output sh:///1/1/2 fails
    Then the stdout channel of sh:///1/1/2 is errored
    And the stderr channel of sh:///1/1/2 is errored
    When the model emits <<READ(sh:///1/1/2)::READ
    Then the action answers 200
    And the result content is:
      """
      1:\tpartial
      """

  @§channel-state-schemes-own-state-transitions
  Scenario: the model cannot write a stream's channels
    Given the exec output sh:///1/1/2 has streamed "out\n" on stdout and is still active
    When the model emits <<EDIT(sh:///1/1/2):forged:EDIT
    Then the action answers 403
    And the stdout channel of sh:///1/1/2 holds "out\n"
    And the stdout channel of sh:///1/1/2 is active
