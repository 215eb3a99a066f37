@plurnk
Feature: EDIT
  An EDIT writes one channel of one entry and says what it did: 201 when it
  created the entry, 200 when it changed it, 304 when it changed nothing.
  Tags only accumulate, and an empty body clears the channel.

  @§edit-status-201-200
  Scenario: creating an entry answers 201, changing it answers 200 on the same entry
    When the model emits <<EDIT(known:///notes.md):first draft:EDIT
    Then the action answers 201
    When the model emits <<EDIT(known:///notes.md):second draft:EDIT
    Then the action answers 200 on the same entry as before
    And the body channel of known:///notes.md holds "second draft"

  @§edit-noop-304
  Scenario: an EDIT with identical content and no new tag answers 304
    Given the entry known:///notes.md contains "same words" tagged "draft"
    When the model emits <<EDIT[draft](known:///notes.md):same words:EDIT
    Then the action answers 304
    When the model emits <<EDIT[final](known:///notes.md):same words:EDIT
    Then the action answers 200
    And the entry known:///notes.md has tags "draft, final"

  @§edit-null-clears
  Scenario: an EDIT with a null body clears the channel
    Given the entry known:///notes.md contains "line one\nline two"
    When the model emits <<EDIT(known:///notes.md)::EDIT
    Then the action answers 200
    And the body channel of known:///notes.md holds ""
    When the model emits <<READ(known:///notes.md)::READ
    Then the action answers 200
    And the result content is empty

  @§edit-tags-additive
  Scenario: tags given in the signal are added, never removed
    Given the entry known:///notes.md contains "x" tagged "alpha, beta"
    When the model emits <<EDIT[gamma](known:///notes.md):y:EDIT
    Then the action answers 200
    And the entry known:///notes.md has tags "alpha, beta, gamma"
    When the model emits <<EDIT(known:///notes.md):z:EDIT
    Then the entry known:///notes.md has tags "alpha, beta, gamma"

  @§edit-status-201-200 @decision
  Scenario: EDIT with <L> splices lines into existing content
    Given the entry known:///list.md contains "a\nb\nc\n"
    When the model emits <<EDIT(known:///list.md)<2>:B:EDIT
    Then the action answers 200
    And the body channel of known:///list.md holds "a\nB\nc\n"
    When the model emits <<EDIT(known:///list.md)<0>:top:EDIT
    Then the body channel of known:///list.md holds "top\na\nB\nc\n" per Decision (§edit-status-201-200)
    When the model emits <<EDIT(known:///list.md)<-1>:end:EDIT
    Then the body channel of known:///list.md holds "top\na\nB\nc\nend\n" per Decision (§edit-status-201-200)
    When the model emits <<EDIT(known:///list.md)<2,3>:x\ny\nz:EDIT
    Then the body channel of known:///list.md holds "top\nx\ny\nz\nc\nend\n" per Decision (§edit-status-201-200)
    When the model emits <<EDIT(known:///list.md)<2,4>::EDIT
    Then the action answers 200
    And the body channel of known:///list.md holds "top\nc\nend\n" per Decision (§edit-status-201-200)
    When the model emits <<EDIT(known:///list.md)<2>:c:EDIT
    Then the action answers 304 per Decision (§edit-status-201-200)
    When the model emits <<EDIT(known:///list.md)<9>:far:EDIT
    Then the action answers 416 per Decision (§edit-status-201-200)
    And the body channel of known:///list.md holds "top\nc\nend\n" per Decision (§edit-status-201-200)

  @§edit-status-201-200
  Scenario: EDIT with <L> on an entry that does not exist creates it with the body
    When the model emits <<EDIT(known:///new.md)<5>:first line:EDIT
    Then the action answers 201
    And the body channel of known:///new.md holds "first line"
