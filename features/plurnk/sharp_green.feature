@plurnk
Feature: Sharpened checks — token counts stored at write on every write path
  A channel's token count is taken with the model's tokenizer when the
  content is written, whatever op writes it: an EDIT, a COPY into a new
  entry, or a run writing its own scratch. The scripted tokenizers here
  count one token per 5 or 3 characters, so a count taken with the
  ceil(length/4) fallback estimate (10 for forty characters) shows.

  @§tokenomics-tokens-stored-at-write
  Scenario Outline: a COPY stores the destination's count with the model's tokenizer, not the estimate
    Given the provider's tokenizer counts one token per <chars> characters
    And the model will reply:
      """
      <<PLAN:write, then copy:PLAN
      <<EDIT(known:///forty.md):0123456789012345678901234567890123456789:EDIT
      <<COPY(known:///forty.md):known:///copy.md:COPY
      <<SEND[200]:copied:SEND
      """
    When the user starts a loop with the prompt "Write forty characters and copy them"
    Then the body channel of known:///copy.md stored <tokens> tokens

    Examples:
      | chars | tokens |
      | 5     | 8      |
      | 3     | 14     |

  @§tokenomics-tokens-stored-at-write @§run-scheme-scratch
  Scenario Outline: a run's scratch stores its count with the model's tokenizer, not the estimate
    Given every model of the session counts one token per <chars> characters
    And run "main" will emit:
      """
      <<PLAN:note:PLAN
      <<EDIT(run:///notes.md):0123456789012345678901234567890123456789:EDIT
      <<SEND[200]:noted:SEND
      """
    When the client starts run "main" with the prompt "go"
    Then the session's entry run://main/notes.md reads "0123456789012345678901234567890123456789"
    And the session's entry run://main/notes.md stored <tokens> tokens

    Examples:
      | chars | tokens |
      | 5     | 8      |
      | 3     | 14     |

  @§tokenomics-tokens-stored-at-write
  Scenario Outline: a log row stores its count with the model's tokenizer, not the estimate
    Given the provider's tokenizer counts one token per <chars> characters
    And the model will reply:
      """
      <<PLAN:write:PLAN
      <<EDIT(known:///forty.md):0123456789012345678901234567890123456789:EDIT
      <<SEND[102]:written:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<READ(known:///forty.md)::READ
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "Write forty characters"
    Then the row log:///1/2/1 of the model run stored <tokens> tokens

    Examples:
      | chars | tokens |
      | 5     | 9      |
      | 3     | 15     |
