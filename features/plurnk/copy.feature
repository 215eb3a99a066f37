@plurnk
Feature: COPY
  COPY is orchestrated by the engine over the schemes' read and write, the
  same way within one scheme and across two. Its signal decides the
  destination's tags.

  @§copy-cross-scheme-copy
  Scenario: a COPY from known to unknown answers 201
    Given the entry known:///q.md contains "Who founded Rome?"
    When the model emits <<COPY(known:///q.md):unknown:///rome.md:COPY
    Then the action answers 201
    And the body channel of unknown:///rome.md holds "Who founded Rome?"
    And the body channel of known:///q.md holds "Who founded Rome?"

  @§copy-cross-scheme-copy
  Scenario: a COPY destination written with a host names the same entry as its path form
    Given the entry known:///q.md contains "Who founded Rome?"
    When the model emits <<COPY(known:///q.md):unknown://rome/founders.md:COPY
    Then the action answers 201
    And the body channel of unknown:///rome/founders.md holds "Who founded Rome?"

  @§copy-cross-scheme-copy
  Scenario: a COPY from a project file into known answers 201 through the same path
    Given the workspace file src/app.go contains "package main\n"
    When the model emits <<COPY(src/app.go):known:///app.go:COPY
    Then the action answers 201
    And the body channel of known:///app.go holds "package main\n"

  @§copy-cross-scheme-copy @decision
  Scenario: a COPY into a channel that does not accept the source's mimetype answers 415
    Given the exec output sh:///1/1/2 has streamed "ok\n" on stdout and is still active
    When the model emits <<COPY(sh:///1/1/2):known:///log.md:COPY
    Then the action answers 201
    And the body channel of known:///log.md holds "ok\n"
    When the model emits <<COPY(known:///log.md):known:///other.md#symbols:COPY
    Then the action answers 415 per Decision (§copy-cross-scheme-copy)
    And the entry known:///other.md does not exist per Decision (§copy-cross-scheme-copy)

  @§copy-signal-replaces-source-tags
  Scenario: a COPY with tags gives the destination exactly those tags
    Given the entry known:///a.md contains "text" tagged "draft, mine"
    When the model emits <<COPY[archive](known:///a.md):known:///b.md:COPY
    Then the action answers 201
    And the entry known:///b.md has tags "archive"
    And the entry known:///a.md has tags "draft, mine"

  @§copy-no-signal-carries-source-tags
  Scenario Outline: a COPY with no tags carries the source's tags
    Given the entry known:///a.md contains "text" tagged "draft, mine"
    When the model emits <emission>
    Then the action answers 201
    And the entry known:///b.md has tags "draft, mine"

    Examples:
      | emission                                   |
      | <<COPY(known:///a.md):known:///b.md:COPY   |
      | <<COPY[](known:///a.md):known:///b.md:COPY |
