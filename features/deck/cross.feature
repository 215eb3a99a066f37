@deck
Feature: Cross-capability primitives — Mission Board, Cipher, snippets, nEmacs

  Background:
    Given a graduated deck of "NEO" with 100 credits and reputation 99
    When the player presses "EVAL"

  @§deck-mission-board-read @decision
  Scenario: The board is readable and no mission is active
    # Fe's false is nil: the seed's #f, in the notation of another Lisp.
    When the player evaluates "(mission-active?)"
    Then the result is "nil"
    When the player evaluates "(list-length (car (mission-board-contracts)))"
    Then the result is "5"
    When the player evaluates "(car (mission-board-contract (car (car (mission-board-contracts)))))"
    Then the result is ":id"
    When the player evaluates "(is (car (car (mission-board-contracts))) (list-get (mission-board-contract (car (car (mission-board-contracts)))) 1))"
    Then the result is "t" per Decision (§deck-mission-board-read)
    When the player evaluates "(list-length (mission-board-contracts))"
    Then the result is "6" per Decision (§deck-mission-board-read)
    When the player evaluates "(is (car (car (mission-board-contracts))) (car (car (cdr (mission-board-contracts)))))"
    Then the result is "nil"

  @§deck-mission-board-read @decision
  Scenario: Every contract's threat is between 1 and 5, and at reputation 99 all six are listed
    When the player evaluates "(do (= lo 9) (= hi 0) (= l (mission-board-contracts)) (while l (= th (car (cdr (car l)))) (if (< th lo) (= lo th)) (if (< hi th) (= hi th)) (= l (cdr l))) (list (<= 1 lo) (<= hi 5)))"
    Then the result is "(t t)" per Decision (§deck-mission-board-read)
    When the player evaluates "(list-length (mission-board-contracts))"
    Then the result is "6" per Decision (§deck-mission-board-read)

  @§deck-mission-board-read @decision
  Scenario Outline: At reputation <rep> the board lists only the contracts of threat at most <limit>
    Given a graduated deck with reputation <rep> whose Mission Board is seeded with <seed>
    When the player presses "EVAL"
    And the player evaluates "(do (= hi 0) (= l (mission-board-contracts)) (while l (= th (car (cdr (car l)))) (if (< hi th) (= hi th)) (= l (cdr l))) (list (list-length (mission-board-contracts)) (<= hi <limit>)))"
    Then the result is "(<listed> t)" per Decision (§deck-mission-board-read)

    Examples:
      | seed | rep | limit | listed |
      | 1    | 9   | 2     | 4      |
      | 4    | 9   | 2     | 2      |
      | 4    | 10  | 3     | 4      |
      | 4    | 29  | 4     | 6      |

  @§deck-mission-board-blocked @decision
  Scenario Outline: Accepting or refreshing contracts is refused
    When the player evaluates "<call>"
    Then the result starts with "(error not-authorized outside-mission :fn <name>"
    And the result starts with "(error not-authorized outside-mission :fn <name> :message" per Decision (§deck-mission-board-blocked)

    Examples:
      | call                          | name                   |
      | (mission-accept! (quote c-1)) | mission-accept!        |
      | (mission-board-refresh!)      | mission-board-refresh! |

  @§deck-mission-board-read @decision
  Scenario Outline: A contract's description names its title, its threat and its phases
    Given a graduated deck whose Mission Board seed is <seed>
    When the player presses "EVAL"
    And the player evaluates "(mission-board-contract (car (car (mission-board-contracts))))"
    Then the result starts with "(:id "
    And the result contains ":title"
    And the result contains ":cipher-intro"
    And the result is "<contract>" per Decision (§deck-mission-board-read)

    Examples:
      | seed | contract |
      | 7    | (:id c-0618 :title \"Dead Drop\" :threat 1 :payout 300 :phases 4 :description \"Dead Drop: a threat-1 job in 4 phases.\" :cipher-intro \"Cipher: dead drop is listening.\") |
      | 8    | (:id c-0a28 :title \"Dead Drop\" :threat 1 :payout 300 :phases 2 :description \"Dead Drop: a threat-1 job in 2 phases.\" :cipher-intro \"Cipher: dead drop is listening.\") |

  @§deck-mission-board-read @decision
  Scenario Outline: The descriptor of each listed contract is that contract's: its id, threat, payout and phases
    # (id threat payout phase-count domains) and (:id … :title … :threat … :payout … :phases …),
    # both in the seed's order, describe one contract.
    Given a graduated deck whose Mission Board seed is <seed>
    When the player presses "EVAL"
    And the player evaluates "(list-length (mission-board-contracts))"
    Then the result is "<n>" per Decision (§deck-mission-board-read)
    When the player evaluates "(do (let at (fn (n l) (while (< 0 n) (= l (cdr l)) (= n (- n 1))) (car l))) (let ok t) (let l (mission-board-contracts)) (while l (let c (car l)) (let d (mission-board-contract (car c))) (if (not (and (is (at 0 c) (at 1 d)) (is (at 1 c) (at 5 d)) (is (at 2 c) (at 7 d)) (is (at 3 c) (at 9 d)))) (= ok nil)) (= l (cdr l))) ok)"
    Then the result is "t"

    Examples:
      | seed | n |
      | 7    | 3 |
      | 8    | 4 |

  @§deck-cipher-read @decision
  Scenario: Cipher is readable and cipher-generate is pure
    When the player evaluates "(cipher-seed)"
    Then the result is "6221057" per Decision (§deck-cipher-read)
    When the player evaluates "(is (cipher-generate :seed 7 :template :diagnostic) (cipher-generate :seed 7 :template :diagnostic))"
    Then the result is "t"
    When the player evaluates "(is (cipher-seed) (do (cipher-generate :seed 7 :template :diagnostic) (cipher-seed)))"
    Then the result is "t"
    When the player evaluates "(cipher-generate :seed 7 :template :diagnostic)"
    Then the result starts with "Diagnostic: " per Decision (§deck-cipher-read)
    # A template Cipher does not know is an error whose message quotes it: a quote inside
    # a string prints escaped, as Fe writes it.
    When the player evaluates "(cipher-generate :seed 7 :template :nosuch)"
    Then the result is a Lisp error
    And the result is "(error bad-template :template :nosuch :message \"unknown template \\":nosuch\\": want one of :operator-profile :phase-intro :diagnostic\")" per Decision (§deck-cipher-read)
    When the player evaluates "(cipher-seed)"
    Then the result is "6221057" per Decision (§deck-cipher-read)
    When the player evaluates "(list-length (car (cipher-vocabulary)))"
    Then the result is "3"
    When the player evaluates "(list-get (car (cipher-vocabulary)) 0)"
    Then the result is "cell" per Decision (§deck-cipher-read)
    # Whether list-get counts from 0 or from 1, three of the indexes 0 to 3 read the
    # three elements of a (term domain definition) triple: values, not nil.
    When the player evaluates "(do (= v (car (cipher-vocabulary))) (= n 0) (= i 0) (while (< i 4) (if (list-get v i) (= n (+ n 1))) (= i (+ i 1))) n)"
    Then the result is "3"

  @§deck-cipher-blocked
  Scenario: Cipher narration is mission-only
    When the player evaluates "(cipher-narrate \"hi\")"
    Then the result starts with "(error not-authorized outside-mission :fn cipher-narrate :message"

  @§deck-snippets @decision
  Scenario: A saved snippet loads back equal
    When the player evaluates "(snippet-save! (quote sq) (quote (fn (x) (* x x))))"
    Then the result is "nil"
    When the player evaluates "(car (car (snippet-list)))"
    Then the result is "sq"
    When the player evaluates "(snippet-list)"
    Then the result is "((sq x))" per Decision (§deck-snippets)
    When the player evaluates "(snippet-load (quote sq))"
    Then the result is "(fn (x) (* x x))"
    When the player evaluates "((eval (snippet-load (quote sq))) 6)"
    Then the result is "36"
    When the player evaluates "(snippet-save! (quote k) (quote (+ 1 2)))"
    And the player evaluates "(snippet-list)"
    Then the result is "((sq x) (k))" per Decision (§deck-snippets)
    When the player evaluates "(snippet-save! (quote g) \"hello world\")"
    And the player evaluates "(snippet-load (quote g))"
    Then the result is "hello world"

  @§deck-open-in-editor @decision
  Scenario: open-in-nemacs flushes history and opens the editor on the form
    When the player evaluates "(open-in-nemacs (quote (+ 1 2)))"
    Then the deck shows the NEMACS mode
    And the action bar shows key hints
    And row 1 reads "nEMACS ─ STRUCTURAL EDITOR" per Decision (§deck-text-mode)
    And row 24 reads "CAR descend · CDR sibling · CONS palette · EVAL run form · BACK exit" per Decision (§deck-text-mode)
    And the editor holds "(+ 1 2)"
    And the persisted history fits 512 bytes and holds 1 entries
    And SRAM holds no repl arena

  @§deck-open-in-editor @decision
  Scenario Outline: open-in-nemacs refuses a value with no structural form
    When the player evaluates "<value>"
    Then the result starts with "(error not-editable" per Decision (§deck-open-in-editor)
    And the deck shows the REPL mode per Decision (§deck-open-in-editor)

    Examples:
      | value                                                    |
      | (do (let l (list 1 2 3)) (setcdr (cdr (cdr l)) l) (open-in-nemacs l)) |
      | (do (let l (list 7)) (setcdr l l) (open-in-nemacs l))       |
      | (open-in-nemacs (cons 1 2))                              |
      | (open-in-nemacs (fn (x) x))                              |

  @§deck-open-in-editor @decision
  Scenario Outline: open-in-nemacs takes a form nested 200 deep and refuses one nested deeper
    When the player evaluates "(do (let l nil) (let i 0) (while (< i <n>) (= l (list l)) (= i (+ i 1))) (open-in-nemacs l))"
    Then the deck shows the <mode> mode per Decision (§deck-open-in-editor)

    Examples:
      | n   | mode   |
      | 200 | NEMACS |
      | 201 | REPL   |
      | 300 | REPL   |

  @§deck-clipboard
  Scenario: *clipboard* holds the last cut form and can be evaluated
    When the player composes "(+ 1 2)"
    And the player presses "NIL"
    Then the clipboard holds "(+ 1 2)"
    When the player evaluates "(eval *clipboard*)"
    Then the result is "3"

  @§deck-eval-from-editor @decision
  Scenario: EVAL in the editor uses a transient evaluator and records nothing
    When the player evaluates "(open-in-nemacs (quote (get-credits)))"
    And the player presses "EVAL"
    Then row 22 contains "100"
    And row 22 contains "=> 100" per Decision (§deck-eval-from-editor)
    And the deck shows the NEMACS mode
    And the persisted history fits 512 bytes and holds 1 entries
    And SRAM holds the editor arena with 16 KB

  @§deck-cipher-read @decision
  Scenario Outline: cipher-generate depends on its seed and template
    When the player evaluates "(cipher-generate :seed <seed> :template <template>)"
    Then the result is "<passage>" per Decision (§deck-cipher-read)

    Examples:
      | seed | template     | passage                                                       |
      | 7    | :diagnostic  | Diagnostic: contract nominal, seed nominal, cell unknown.     |
      | 8    | :diagnostic  | Diagnostic: phase nominal, handle nominal, arena unknown.     |
      | 7    | :phase-intro | Next phase: follow the contract past the seed; mind the cell. |

  @§deck-cipher-read
  Scenario Outline: The Cipher seed keeps all 24 bits across a power cycle
    Given a graduated deck whose Cipher seed is <seed>
    When the deck is powered off and on again
    And the player presses "EVAL"
    And the player evaluates "(cipher-seed)"
    Then the result is "<shown>"

    Examples:
      | seed     | shown        |
      | 16777215 | 1.677722e+07 |
      | 1        | 1            |

  @§deck-snippets @decision
  Scenario Outline: A snippet's name takes 1 to 63 bytes
    When the player evaluates "(snippet-save! \"<name>\" 1)"
    Then the result starts with "<result>" per Decision (§deck-snippets)

    Examples:
      | name     | result                                                  |
      | {n*63}   | nil                                                     |
      | {n*64}   | (error snippet-library-full :message \"snippets: name |


  @§deck-snippets @decision
  Scenario: A snippet refused for its name leaves the library as it was
    When the player evaluates "(snippet-save! (quote k) (quote (+ 1 2)))"
    And the player evaluates "(snippet-save! \"{n*64}\" 1)"
    Then the result starts with "(error snippet-library-full" per Decision (§deck-snippets)
    When the player evaluates "(eval (snippet-load (quote k)))"
    Then the result is "3"

  @§deck-clipboard @§deck-open-in-editor
  Scenario: nEmacs edits with the same keys, and a form it cuts is the REPL's *clipboard*
    When the player evaluates "(open-in-nemacs (quote (+ 1 2)))"
    And the player presses "CAR ATOM"
    Then row 22 shows the type symbol
    When the player presses "CDR NIL"
    Then the editor holds "(+ 2)"
    And the clipboard holds "1"
    When the player presses "BACK BACK"
    Then the deck shows the HOME mode
    When the player presses "EVAL"
    And the player evaluates "*clipboard*"
    Then the result is "1"
