@plurnk
Feature: Tier 3a — ops dispatch, the scheme contract and channels
  Each statement goes to the scheme that owns its target, by op; COPY and
  MOVE are the engine's own orchestration over the schemes' load, save and
  remove. A scheme's manifest says who may write it and which channels it
  has; a target names one channel, its fragment's or the default.

  @§op-methods-op-dispatch
  Scenario Outline: each op reaches the scheme of its target, whatever the scheme
    Given the entry known:///a.md contains "alpha\nbeta"
    And the workspace file notes/a.md contains "gamma\ndelta\n"
    When the model emits <emission>
    Then the action answers <status>
    And the action's log row records status <status> for <target>

    Examples:
      | emission                                      | status | target              |
      | <<READ(known:///a.md)<2>::READ                | 200    | known:///a.md       |
      | <<READ(notes/a.md)<2>::READ                   | 200    | /notes/a.md         |
      | <<EDIT(known:///a.md):new:EDIT                | 200    | known:///a.md       |
      | <<EDIT(notes/a.md):new:EDIT                   | 200    | /notes/a.md         |
      | <<FIND(known:///**)::FIND                     | 200    | known:///**         |
      | <<KILL(unknown:///absent.md)::KILL            | 404    | unknown:///absent.md |
      | <<OPEN(known:///a.md)::OPEN                   | 501    | known:///a.md       |

  @§op-methods-op-dispatch
  Scenario: COPY and MOVE work over schemes that implement only load, save and remove
    Given a scheme "vault" whose handler throws while listing
    And the entry known:///a.md contains "alpha"
    When the model emits <<COPY(known:///a.md):vault:///a.md:COPY
    Then the action answers 201
    And the body channel of vault:///a.md holds "alpha"
    When the model emits <<MOVE(vault:///a.md):unknown:///a.md:MOVE
    Then the action answers 201
    And the entry vault:///a.md does not exist
    And the body channel of unknown:///a.md holds "alpha"

  @§send-dispatch-entry-schemes-501-on-non-410
  Scenario Outline: a directed SEND other than 410 at an entry scheme answers 501 and leaves the entry
    Given the entry known:///a.md contains "alpha"
    When the model emits <<SEND[<code>](known:///a.md)::SEND
    Then the action answers 501
    And the body channel of known:///a.md holds "alpha"

    Examples:
      | code |
      | 200  |
      | 409  |
      | 411  |
      | 499  |

  @§send-dispatch-entry-schemes-501-on-non-410
  Scenario: SEND[410] at an entry scheme deletes it
    Given the entry known:///a.md contains "alpha"
    When the model emits <<SEND[410](known:///a.md)::SEND
    Then the action answers 200
    And the entry known:///a.md does not exist

  @§scheme-surface-writableby-403
  Scenario: a writer outside writableBy is refused 403, the handler is not called, and the refusal is the row
    Given a scheme "vault" writable only by plurnk whose handler throws
    When the model emits <<EDIT(vault:///notes.md):forged:EDIT
    Then the action answers 403
    And the action's log row records status 403 for vault:///notes.md
    When the model emits <<EDIT(plurnk:///notes.md):forged:EDIT
    Then the action answers 403
    And the action's log row records status 403 for plurnk:///notes.md
    And the entry plurnk:///notes.md does not exist

  @§channels-channels-append-only
  Scenario: a stream's chunks are appended to its channel and read whole at the turn boundary
    When the exec output sh:///1/1/2 streams "one\n" on stdout
    And the exec output sh:///1/1/2 streams "two\n" on stdout
    And the exec output sh:///1/1/2 streams "oops\n" on stderr
    Then the stdout channel of sh:///1/1/2 holds "one\ntwo\n"
    And the stderr channel of sh:///1/1/2 holds "oops\n"
    When the model emits <<READ(sh:///1/1/2)::READ
    Then the result content is:
      """
      1:\tone
      2:\ttwo
      """

  @§channel-mimetype-cross-mimetype-415
  Scenario Outline: COPY and MOVE into a channel that pins another mimetype answer 415 and coerce nothing
    Given the exec output sh:///1/1/2 has streamed "plain words\n" on stdout and is still active
    And the entry known:///notes.md contains "# title"
    When the model emits <emission>
    Then the action answers 415
    And the entry known:///sym.md does not exist
    And the body channel of known:///notes.md holds "# title"

    Examples:
      | emission                                               |
      | <<COPY(sh:///1/1/2#stdout):known:///sym.md#symbols:COPY |
      | <<COPY(known:///notes.md):known:///sym.md#symbols:COPY |
      | <<MOVE(known:///notes.md):known:///sym.md#symbols:MOVE |

  @§channel-mimetype-cross-mimetype-415
  Scenario: COPY of JSON content into a channel that pins application/json is accepted
    Given the entry known:///data.json contains "[1,2]"
    When the model emits <<COPY(known:///data.json):known:///sym.md#symbols:COPY
    Then the action answers 201
    And the symbols channel of known:///sym.md holds "[1,2]"

  @§channel-selection-fragmentless-targets-default-channel
  Scenario: without a fragment the target is the scheme's default channel
    Given the exec output sh:///1/1/2 has streamed "out\n" on stdout and is still active
    And the exec output sh:///1/1/2 streams "err\n" on stderr
    When the model emits <<READ(sh:///1/1/2)::READ
    Then the result content is "1:\tout\n"
    When the model emits <<EDIT(known:///a.md):words:EDIT
    Then the body channel of known:///a.md holds "words"
    And the entry known:///a.md has no symbols channel

  @§channel-selection-fragment-selects-named-channel
  Scenario: a fragment selects the channel of that name
    Given the exec output sh:///1/1/2 has streamed "out\n" on stdout and is still active
    And the exec output sh:///1/1/2 streams "err\n" on stderr
    When the model emits <<READ(sh:///1/1/2#stderr)::READ
    Then the result content is "1:\terr\n"
    Given the entry known:///a.md contains "words"
    When the model emits <<EDIT(known:///a.md#symbols):["main"]:EDIT
    Then the action answers 200
    And the symbols channel of known:///a.md holds "[\"main\"]"
    And the body channel of known:///a.md holds "words"

  @§channel-selection-fragmentless-targets-default-channel
  Scenario: a COPY naming no channel carries every channel the destination declares; a fragment or <L> carries one
    Given the entry known:///a.md contains "words"
    And the model emits <<EDIT(known:///a.md#symbols):["main"]:EDIT
    When the model emits <<COPY(known:///a.md):known:///b.md:COPY
    Then the action answers 201
    And the body channel of known:///b.md holds "words"
    And the symbols channel of known:///b.md holds "[\"main\"]"
    When the model emits <<COPY(known:///a.md)<1>:known:///c.md:COPY
    Then the action answers 201
    And the body channel of known:///c.md holds "words\n"
    And the entry known:///c.md has no symbols channel
    When the model emits <<COPY(known:///a.md#body):known:///d.md:COPY
    Then the action answers 201
    And the entry known:///d.md has no symbols channel

  @§machine-processes-run-is-its-log
  Scenario: <L> on OPEN of a glob of rows keeps only those results
    When the model emits <<READ(known:///absent-1.md)::READ
    And the model emits <<READ(known:///absent-2.md)::READ
    And the model emits <<READ(known:///absent-3.md)::READ
    Then the model's log row log:///1/1/2 is folded
    When the model emits <<OPEN(log:///1/1/*)<2>::OPEN
    Then the action answers 200
    And the model's log row log:///1/1/1 is folded
    And the model's log row log:///1/1/2 is open
    And the model's log row log:///1/1/3 is folded
    When the model emits <<OPEN(log:///1/1/*)<5>::OPEN
    Then the action answers 416 per Decision (§machine-processes-run-is-its-log)
    And the model's log row log:///1/1/1 is folded
    And the model's log row log:///1/1/3 is folded

  @§op-methods-op-dispatch
  Scenario: KILL reaches the owning scheme's remove; its failure is the action's 500 and the entry stays
    Given a scheme "vault" whose removal fails with a plain error
    And the entry vault:///a.md contains "kept"
    When the model emits <<KILL(vault:///a.md)::KILL
    Then the action answers 500
    And the action's log row records status 500 for vault:///a.md
    And the body channel of vault:///a.md holds "kept"

  @§read-read-content
  Scenario: a line mark written with a zero fraction is still a whole line number
    Given the entry known:///list.md contains "a\nb\nc\n"
    When the model emits <<READ(known:///list.md)<2.0>::READ
    Then the action answers 200
    And the result content is "2:\tb\n"
    When the model emits <<READ(known:///list.md)<1.5>::READ
    Then the action answers 400
