@plurnk
Feature: Mimetype handlers
  Mimetype handlers run while the packet is assembled, never when a scheme
  writes content.

  @§mimetype-schemes-do-not-invoke-handlers
  Scenario: writing content calls no mimetype handler; assembling the packet does
    Given a text/markdown mimetype handler that counts its calls
    When the model emits <<EDIT(known:///notes.md):one\ntwo:EDIT
    Then the action answers 201
    When the model emits <<COPY(known:///notes.md):known:///copy.md:COPY
    Then the action answers 201
    And the mimetype handler has been called 0 times
    When the packet is assembled
    Then the mimetype handler has been called 2 times
