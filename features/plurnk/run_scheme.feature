@plurnk
Feature: the run:// scheme — spawn, irc, terminate, collect, cap, fork, scratch
  A session is one world shared by its runs; each run is its own log. A run
  reaches its sisters through run:// addresses: EDIT spawns a new sister
  with a prompt, SEND hands an existing one a message, COPY branches a run
  into a new sister, KILL ends one. Whenever a loop ends, every sister
  finds a folded SEND from run://<name> in its log carrying what that loop
  delivered. Paths under a run name are that run's private scratch.

  Each run below has its own scripted model; the doc strings are what that
  model emits, turn by turn.

  @§run-scheme-spawn @§run-scheme-collect
  Scenario: a spawned sister starts with an empty log and the prompt, and its answer comes back folded
    Given run "main" will emit:
      """
      <<PLAN:delegate the count:PLAN
      <<EDIT(run://scout):Count the files in the project.:EDIT
      <<SEND[202]:waiting for scout:SEND
      """
    And run "scout" will emit:
      """
      <<PLAN:answer:PLAN
      <<SEND[200]:There are three files.:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:report:PLAN
      <<SEND[200]:scout counted three:SEND
      """
    When the client starts run "main" with the prompt "How many files?"
    Then the session holds 2 runs
    And run "main"'s log holds an open EDIT run://scout with status 201
    And run "scout" has 1 loop, the last with status 200
    And packet 1 of run "scout" contains "Count the files in the project."
    And packet 1 of run "scout" does not contain "How many files?"
    And run "main"'s log holds a folded SEND run://scout with status 200 reading "There are three files."
    And run "main" has 1 loop, the last with status 200

  @§run-scheme-spawn
  Scenario: a run cannot spawn itself, by its name or as run://.
    Given run "main" will emit:
      """
      <<PLAN:try to clone myself:PLAN
      <<EDIT(run://.):again:EDIT
      <<EDIT(run://main):again:EDIT
      <<SEND[200]:gave up:SEND
      """
    When the client starts run "main" with the prompt "go"
    Then run "main"'s row log:///1/1/1 is EDIT run://. with status 400
    And run "main"'s row log:///1/1/2 is EDIT run://main with status 400
    And the session holds 1 run

  @§run-scheme-spawn
  Scenario: a spawn needs a run name: not empty, not the reserved plurnk, no glob or path characters
    Given run "main" will emit:
      """
      <<PLAN:try odd names:PLAN
      <<EDIT(run://):nameless:EDIT
      <<EDIT(run://plurnk):reserved:EDIT
      <<EDIT(run://a*b):glob:EDIT
      <<EDIT(run://ok):fine:EDIT
      <<SEND[202]:waiting:SEND
      """
    And run "ok" will emit:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the client starts run "main" with the prompt "go"
    Then run "main"'s row log:///1/1/1 is EDIT run:// with status 400
    And run "main"'s row log:///1/1/2 is EDIT run://plurnk with status 400
    And run "main"'s row log:///1/1/3 is EDIT run://a*b with status 400
    And run "main"'s row log:///1/1/4 is EDIT run://ok with status 201
    And the session holds 2 runs

  @§run-scheme-irc @decision
  Scenario: SEND to a busy sister reaches it in its next turn
    Given run "main" will emit:
      """
      <<PLAN:start a helper and brief it:PLAN
      <<EDIT(run://helper):Wait for the brief.:EDIT
      <<SEND(run://helper):The brief is in known:///brief.md:SEND
      <<SEND[202]:waiting:SEND
      """
    And run "helper" will emit:
      """
      <<PLAN:acknowledge:PLAN
      <<SEND[200]:got the brief:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:ok:SEND
      """
    When the client starts run "main" with the prompt "go"
    Then run "main"'s log holds an open SEND run://helper with status 200
    And run "helper"'s log holds an open SEND run://main with status 102 reading "The brief is in known:///brief.md" per Decision (§run-scheme-irc)
    And packet 1 of run "helper" contains "The brief is in known:///brief.md"

  @§run-scheme-irc @§actor-boundary-passive-wake
  Scenario: SEND to an idle sister wakes it; a name with no run is 404
    Given run "main" will emit:
      """
      <<PLAN:spawn:PLAN
      <<EDIT(run://helper):Say hello.:EDIT
      <<SEND[202]:waiting:SEND
      """
    And run "helper" will emit:
      """
      <<PLAN:hello:PLAN
      <<SEND[200]:hello:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:ask again, and ask a ghost:PLAN
      <<SEND(run://helper):Say it again.:SEND
      <<SEND(run://ghost):Anyone?:SEND
      <<SEND[200]:asked:SEND
      """
    And run "helper" will emit:
      """
      <<PLAN:again:PLAN
      <<SEND[200]:hello again:SEND
      """
    When the client starts run "main" with the prompt "go"
    Then run "main"'s row log:///1/2/3 is SEND run://ghost with status 404
    And run "helper" has 2 loops, the last with status 200
    And packet 2 of run "helper" contains "Say it again."
    And the model of run "helper" was called 2 times

  @§run-scheme-terminate @§run-scheme-collect
  Scenario: KILL ends a running sister with 499, tears down its streams, and the reason comes back
    Given host commands are accepted without asking
    And the command "crawl" prints "page 1\n" on stdout after 100 ms
    And the command "crawl" never exits
    And run "main" will emit:
      """
      <<PLAN:start a crawler:PLAN
      <<EDIT(run://crawler):Crawl the site.:EDIT
      <<SEND[202]:waiting:SEND
      """
    And run "crawler" will emit:
      """
      <<PLAN:crawl in the background:PLAN
      <<EXEC[sh]:crawl:EXEC
      <<SEND[202]:crawling:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:that is enough:PLAN
      <<KILL(run://crawler)::KILL
      <<KILL(run://nobody)::KILL
      <<SEND[200]:stopped the crawler:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:nothing else:PLAN
      <<SEND[200]:nothing else:SEND
      """
    When the client starts run "main" with the prompt "go"
    And the run stream sh:///1/1/1 is still running
    And the client injects "Stop the crawl." into run "main"
    And the client injects "Anything else?" into run "main"
    Then run "main"'s row log:///1/2/2 is KILL run://crawler with status 200
    And run "main"'s row log:///1/2/3 is KILL run://nobody with status 404
    And run "crawler" has 1 loop, the last with status 499
    And the run stream sh:///1/1/1 ended with 499
    And run "main"'s log holds a folded SEND run://crawler with status 499 reading "killed by run://main" per Decision (§run-scheme-collect)
    And the session was notified loop/terminated for loop 1 of run "crawler" with status 499

  @§run-scheme-terminate
  Scenario: a run may end itself with run://.
    Given run "main" will emit:
      """
      <<PLAN:stop myself:PLAN
      <<KILL(run://.)::KILL
      <<SEND[102]:still talking:SEND
      """
    When the client starts run "main" with the prompt "go"
    Then run "main" has 1 loop, the last with status 499
    And the model of run "main" was called 1 time

  @§run-scheme-collect @decision
  Scenario: every way a loop ends reaches the sisters, with the deliverable or the reason
    Given the operator sets PLURNK_SESSION_RUNS_MAX_ACTIVE to -1
    And run "main" will emit:
      """
      <<PLAN:spawn three:PLAN
      <<EDIT(run://quitter):Give up.:EDIT
      <<EDIT(run://finisher):Finish.:EDIT
      <<EDIT(run://broken):Fail.:EDIT
      <<SEND[202]:waiting:SEND
      """
    And run "quitter" will emit:
      """
      <<PLAN:give up:PLAN
      <<SEND[499]:cannot do it:SEND
      """
    And run "finisher" will emit:
      """
      <<PLAN:finish:PLAN
      <<SEND[200]:finished:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:wait more:PLAN
      <<SEND[202]:waiting:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:wait more:PLAN
      <<SEND[202]:waiting:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:wait more:PLAN
      <<SEND[202]:waiting:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:wait more:PLAN
      <<SEND[202]:waiting:SEND
      """
    And run "finisher" will emit:
      """
      <<PLAN:report:PLAN
      <<SEND[200]:still finished:SEND
      """
    When the client starts run "main" with the prompt "go"
    Then run "main"'s log holds a folded SEND run://quitter with status 499 reading "SEND[499]" per Decision (§run-scheme-collect)
    And run "main"'s log holds a folded SEND run://finisher with status 200 reading "finished"
    And run "main"'s log holds a folded SEND run://broken with status 500
    When the client injects "anything new?" into run "finisher"
    Then run "finisher"'s log holds a folded SEND run://quitter with status 499 reading "SEND[499]" per Decision (§run-scheme-collect)

  @§run-scheme-cap
  Scenario: a spawn past the active-run cap fails at once with 508, and irc is not capped
    Given the operator sets PLURNK_SESSION_RUNS_MAX_ACTIVE to 2
    And run "main" will emit:
      """
      <<PLAN:spawn two:PLAN
      <<EDIT(run://one):Wait.:EDIT
      <<EDIT(run://two):Wait.:EDIT
      <<SEND(run://one):Hello.:SEND
      <<SEND[202]:waiting:SEND
      """
    And run "one" will emit:
      """
      <<PLAN:park:PLAN
      <<SEND[202]:parked:SEND
      """
    When the client starts run "main" with the prompt "go"
    Then run "main"'s row log:///1/1/1 is EDIT run://one with status 201
    And run "main"'s row log:///1/1/2 is EDIT run://two with status 508
    And run "main"'s row log:///1/1/3 is SEND run://one with status 200
    And the session holds 2 runs

  @§run-scheme-cap
  Scenario: a fork past the active-run cap fails at once with 508 like a spawn, and one under it goes through
    Given the operator sets PLURNK_SESSION_RUNS_MAX_ACTIVE to 2
    And run "main" will emit:
      """
      <<PLAN:branch twice:PLAN
      <<COPY(run://.):Wait.:COPY
      <<COPY(run://.):Wait too.:COPY
      <<SEND[202]:waiting:SEND
      """
    And run "main-2" will emit:
      """
      <<PLAN:park:PLAN
      <<SEND[202]:parked:SEND
      """
    When the client starts run "main" with the prompt "go"
    Then run "main"'s row log:///1/1/1 is COPY run://main-2 with status 201
    And run "main"'s row log:///1/1/2 is COPY run://. with status 508
    And the session holds 2 runs

  @§run-scheme-cap
  Scenario: -1 switches the cap off
    Given the operator sets PLURNK_SESSION_RUNS_MAX_ACTIVE to -1
    And run "main" will emit:
      """
      <<PLAN:spawn three:PLAN
      <<EDIT(run://a):Wait.:EDIT
      <<EDIT(run://b):Wait.:EDIT
      <<EDIT(run://c):Wait.:EDIT
      <<SEND[202]:waiting:SEND
      """
    When the client starts run "main" with the prompt "go"
    Then run "main"'s row log:///1/1/3 is EDIT run://c with status 201
    And the session holds 4 runs

  @§run-scheme-collect @decision
  Scenario: a sister that gave up while its command still ran is done only when the command ends, and then wakes the run that spawned it
    Given host commands are accepted without asking
    And the command "build" prints "built\n" on stdout after 2000 ms
    And the command "build" exits after 2000 ms
    And run "main" will emit:
      """
      <<PLAN:delegate the build:PLAN
      <<EDIT(run://worker):Build it.:EDIT
      <<SEND[202]:waiting for the worker:SEND
      """
    And run "worker" will emit:
      """
      <<PLAN:start the build and give up:PLAN
      <<EXEC[sh]:build:EXEC
      <<SEND[499]:cannot wait for it:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:collect:PLAN
      <<SEND[200]:the worker is done:SEND
      """
    When the client starts run "main" with the prompt "go"
    Then run "worker" has 1 loop, the last with status 499
    And run "main" has 1 loop, the last with status 202
    When 3000 ms pass on the session clock
    Then run "main" has 1 loop, the last with status 200 per Decision (§run-scheme-collect)
    And the model of run "main" was called 2 times per Decision (§run-scheme-collect)

  @§send-premature-terminate @§run-scheme-spawn
  Scenario: a spawn and SEND[200] in one emission: the run just spawned is live, so the SEND is downgraded until it is done
    Given run "main" will emit:
      """
      <<PLAN:delegate and declare victory:PLAN
      <<EDIT(run://worker):Do the work.:EDIT
      <<SEND[200]:delegated:SEND
      """
    And run "worker" will emit:
      """
      <<PLAN:work:PLAN
      <<SEND[200]:worked:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:wait for the worker:PLAN
      <<SEND[202]:waiting for the worker:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:the worker is done:PLAN
      <<SEND[200]:done:SEND
      """
    When the client starts run "main" with the prompt "go"
    Then packet 2 of run "main" contains "Attempted termination with active streams or child runs."
    And run "main" has 1 loop, the last with status 200
    And the model of run "main" was called 3 times
