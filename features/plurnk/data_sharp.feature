@plurnk
Feature: Tier 3a — edges of the grammar, the address fold and the budget tables
  A statement names its target once; a target written with an authority
  folds into the scheme's path namespace and is never a run; rows of equal
  weight keep their log order in the heaviest-entries table; a statement
  re-emitted in the log keeps its heredoc suffix.

  Background:
    Given the model's context window is 100000 tokens

  @§op-methods-op-dispatch
  Scenario: a statement with two target slots is refused with the parse error, and nothing runs
    Given the entry known:///a.md contains "alpha"
    And the model will reply:
      """
      <<PLAN:look:PLAN
      <<KILL(known:///a.md)(known:///b.md)::KILL
      <<SEND[102]:next:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then the log section of packet 2 contains "second (target) slot" per Decision (§provider-surface-generate)
    And the log section of packet 2 does not contain "KILL 200" per Decision (§render-rule-find-renders-result)

  @§scheme-address-namespace-fold
  Scenario: SEND[410] at a target written with an authority deletes the entry, as at the folded path
    Given the entry known:///a.md contains "alpha"
    When the model emits <<SEND[410](known://a.md)::SEND
    Then the action answers 200
    And the entry known:///a.md does not exist

  @§tokenomics-largest-entries
  Scenario: rows of equal weight keep their log order in the heaviest-entries table
    Given the entry known:///a.md contains "alpha"
    And the model will reply:
      """
      <<PLAN:read twice:PLAN
      <<READ(known:///a.md)::READ
      <<READ(known:///a.md)::READ
      <<SEND[102]:next:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then the budget section of packet 2 contains "| log:///1/1/1/READ | 20 |\n| log:///1/1/2/READ | 20 |" per Decision (§tokenomics-largest-entries)

  @§render-rule-find-renders-result
  Scenario: a re-emitted statement keeps the suffix of its heredoc tag
    Given the entry known:///a.md contains "alpha"
    And the model will reply:
      """
      <<PLAN:drop it:PLAN
      <<KILLx(known:///a.md)::KILLx
      <<SEND[102]:next:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "drop"
    Then the log section of packet 2 contains "* log:///1/1/1/KILL 200 known:///a.md\n<<KILLx(known:///a.md)::KILLx\n" per Decision (§render-rule-find-renders-result)

  @§matcher-result-read-returns-lines
  Scenario: an xpath attribute match names the line of the attribute itself, not of an earlier mention of its name
    Given the workspace file page.html contains "<html>\n<body>\n<a title=\"by href\"\n  href=\"/y\">y</a>\n</body>\n</html>"
    When the model emits <<READ(page.html)://a/@href:READ
    Then the action answers 200
    And the result content holds the line "4:\t  href=\"/y\">y</a>"
    And the result content is "4:\t  href=\"/y\">y</a>\n" per Decision (§matcher-result-read-returns-lines)

  @§ext-mimetype-extension-mimetype
  Scenario: a .json file is read as JSON even when its text would parse as XML
    Given the workspace file data.json contains "<a>\n<b>x</b>\n</a>"
    When the model emits <<READ(data.json)://b:READ
    Then the action answers 203

  @§op-methods-op-dispatch
  Scenario: a READ that fans out over a glob answers with the row of its last item
    Given the entry known:///a.md contains "alpha"
    And the entry known:///b.md contains "beta"
    When the model emits <<READ(known:///*.md)::READ
    Then the action answers 200
    And the action's log row records status 200 for known:///b.md

  @§matcher-result-read-returns-lines
  Scenario: an xpath match of a namespaced attribute names the attribute's own line
    Given the workspace file doc.xml contains "<root xmlns:x=\"urn:x\">\n<a\n  x:href=\"/z\">z</a>\n</root>"
    When the model emits <<READ(doc.xml)://a/@*[local-name()='href']:READ
    Then the action answers 200
    And the result content holds the line "3:\t  x:href=\"/z\">z</a>"
    And the result content is "3:\t  x:href=\"/z\">z</a>\n" per Decision (§matcher-result-read-returns-lines)

  @§op-methods-op-dispatch
  Scenario: a run:// target with a path is scratch storage, not a run: the entry engine hands it to the scheme registry
    When the model emits <<SEND[410](run://scout/notes.md)::SEND
    Then the action answers 501
    And the result reason mentions "no handler for scheme" per Decision (§telemetry-no-error-scheme)
    When the model emits <<SEND(run://scout)::SEND
    Then the action answers 501
    And the result reason mentions "SEND to a run is handled by the engine loop" per Decision (§telemetry-no-error-scheme)

  @§scheme-address-namespace-fold
  Scenario: a scheme name may hold any lowercase letter: an unregistered one answers 501
    When the model emits <<READ(fizz:///a.md)::READ
    Then the action answers 501
    And the result reason mentions "fizz" per Decision (§telemetry-no-error-scheme)

  @§find-scope-prefix-filter
  Scenario Outline: a <op> target whose path glob does not compile answers 400
    Given the entry known:///a.md contains "a"
    When the model emits <<<op>(known:///<glob>)::<op>
    Then the action answers 400

    Examples:
      | op   | glob  |
      | FIND | a[    |
      | READ | *[.md |

  @§matcher-result-read-returns-lines
  Scenario: xpath sees the text of XML elements
    Given the workspace file doc.xml contains "<root>\n<b>x</b>\n<b>y</b>\n</root>"
    When the model emits <<READ(doc.xml)://b[text()='y']:READ
    Then the action answers 200
    And the result content holds the line "3:\t<b>y</b>"
    And the result content is "3:\t<b>y</b>\n" per Decision (§matcher-result-read-returns-lines)

  @§methods-log-read
  Scenario: a turn-0 row is read by its coordinate like any other
    Given the model will reply:
      """
      <<PLAN:read the prompt row:PLAN
      <<READ(log:///1/0/1)::READ
      <<SEND[102]:next:SEND
      """
    And the model will reply:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the user starts a loop with the prompt "look"
    Then the log section of packet 2 contains "* log:///1/1/1/READ 200 log:///1/0/1" per Decision (§render-rule-find-renders-result)

  @§matcher-result-read-returns-lines
  Scenario: an xpath match of the document itself returns its source lines
    Given the workspace file doc.xml contains "<root>\n<b>x</b>\n</root>"
    When the model emits <<READ(doc.xml)://root/..:READ
    Then the action answers 200
    And the result content holds the line "1:\t<root>"
    And the result content holds the line "3:\t</root>"
