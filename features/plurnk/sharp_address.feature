@plurnk
Feature: Sharp edges of the target's scheme
  A target is scheme://address when it starts with a lowercase letter
  followed by letters, digits, +, . or - and then ://; anything else is a
  path. A scheme no one registered answers 501, whatever characters its
  name is made of.

  @§op-methods-op-dispatch
  Scenario Outline: a scheme name made of <what> is read as a scheme, and an unregistered one answers 501
    When the model emits <<READ(<target>)::READ
    Then the action answers 501

    Examples:
      | what                      | target        |
      | a letter a after the first | za://x       |
      | a letter z after the first | az://x       |
      | the digits 0 and 9        | a09://x       |
      | a plus sign               | svn+ssh://x   |
      | a dot                     | web.dav://x   |
      | a hyphen                  | x-y://x       |
      | the single letter z       | z://x         |
      | the single letter a       | a://x         |

  @§op-methods-op-dispatch @decision
  Scenario Outline: a target whose would-be scheme has <what> is a workspace path
    When the model emits <<READ(<target>)::READ
    Then the action answers 404 per Decision (§op-methods-op-dispatch)
    And the result reason mentions "<path> does not exist" per Decision (§telemetry-no-error-scheme)

    Examples:
      | what                    | target   | path            |
      | an upper-case first letter | Zz://x | file:///Zz:/x   |
      | a digit first           | 9a://x   | file:///9a:/x   |
      | an underscore           | x_y://x  | file:///x_y:/x  |

  @§op-methods-op-dispatch @decision
  Scenario: a workspace file holding NUL bytes is binary whatever its extension says, and READ answers 415
    Given the workspace holds the binary file notes.txt
    When the model emits <<READ(notes.txt)::READ
    Then the action answers 415 per Decision (§op-methods-op-dispatch)
