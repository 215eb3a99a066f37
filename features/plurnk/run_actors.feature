@plurnk
Feature: the actor boundary and the machine processes of runs
  Each run is an actor whose packet is its own log and nothing else. Work
  crosses from one run to another only as a delta of a shared entry or as
  an inject aimed at one run. A fork is a new run of the same session: a
  copy of its source's log over the same shared world.

  Each run below has its own scripted model; the doc strings are what that
  model emits, turn by turn.

  @§actor-boundary-isolation
  Scenario: a run's packet holds its own rows and none of its sister's
    Given run "main" will emit:
      """
      <<PLAN:think aloud:PLAN
      <<SEND[102]:main muses about zebras:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:delegate:PLAN
      <<EDIT(run://scout):Count the files.:EDIT
      <<SEND[202]:waiting for scout:SEND
      """
    And run "scout" will emit:
      """
      <<PLAN:count:PLAN
      <<SEND[102]:scout ponders giraffes:SEND
      """
    And run "scout" will emit:
      """
      <<PLAN:answer:PLAN
      <<SEND[200]:three files:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:report:PLAN
      <<SEND[200]:scout counted three:SEND
      """
    When the client starts run "main" with the prompt "How many files?"
    Then run "main" has 1 loop, the last with status 200
    And packet 2 of run "main" contains "main muses about zebras"
    And packet 2 of run "scout" contains "scout ponders giraffes"
    And packet 2 of run "scout" does not contain "zebras"
    And packet 2 of run "scout" does not contain "How many files?"
    And packet 3 of run "main" does not contain "giraffes"

  @§actor-boundary-origin-not-filter
  Scenario: rows of every origin in the run's own log render: plurnk's foist, plurnk's delta and the model's own
    Given run "main" will emit:
      """
      <<PLAN:delegate:PLAN
      <<EDIT(run://scout):Count the files.:EDIT
      <<SEND[202]:waiting for scout:SEND
      """
    And run "scout" will emit:
      """
      <<PLAN:answer:PLAN
      <<SEND[200]:three files:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:report:PLAN
      <<SEND[200]:scout counted three:SEND
      """
    When the client starts run "main" with the prompt "How many files?"
    Then run "main"'s log holds a folded SEND run://scout with status 200 reading "three files"
    And packet 2 of run "main" contains "* log:///1/0/1/EDIT 201 plurnk:///prompt/1 origin=plurnk (folded)" per Decision (§render-rule-find-renders-result)
    And packet 2 of run "main" contains "* log:///1/2/1/SEND 200 run://scout origin=plurnk (folded)" per Decision (§run-scheme-collect)
    And packet 2 of run "main" contains "* log:///1/1/2/SEND 202\n:::\nwaiting for scout\n:::" per Decision (§render-rule-find-renders-result)

  @§actor-boundary-two-doors @§actor-boundary-no-mutex
  Scenario: a shared write reaches the sister as a folded, attributed delta; an inject lands in one run only
    Given run "main" will emit:
      """
      <<PLAN:delegate:PLAN
      <<EDIT(run://scout):Watch the notes.:EDIT
      <<SEND[202]:waiting:SEND
      """
    And run "scout" will emit:
      """
      <<PLAN:write:PLAN
      <<EDIT(known:///notes.md):scout was here:EDIT
      <<SEND[202]:waiting for word:SEND
      """
    And run "scout" will emit:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:heard you:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:finish:PLAN
      <<SEND[200]:finished:SEND
      """
    When the client starts run "main" with the prompt "Start."
    And the client injects "only for scout" into run "scout"
    Then run "scout" has 1 loop, the last with status 200
    And packet 2 of run "scout" contains "only for scout"
    And packet 2 of run "main" does not contain "only for scout"
    And run "main"'s log holds a folded EDIT known:///notes.md with status 201
    And packet 2 of run "main" does not contain "scout was here"

  @§machine-processes-fork-copies-the-log
  Scenario: a fork of another run is that run's child and starts with a copy of its rows, fold bits included
    Given run "main" will emit:
      """
      <<PLAN:delegate:PLAN
      <<EDIT(run://scout):Note two things.:EDIT
      <<SEND[202]:waiting:SEND
      """
    And run "scout" will emit:
      """
      <<PLAN:note:PLAN
      <<EDIT(known:///one.md):one:EDIT
      <<EDIT(known:///two.md):two:EDIT
      <<FOLD(log:///1/1/1)::FOLD
      <<SEND[202]:noted, waiting:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:branch the scout:PLAN
      <<COPY(run://scout):try it another way:COPY
      <<SEND[202]:waiting for the branch:SEND
      """
    And run "scout-2" will emit:
      """
      <<PLAN:other way:PLAN
      <<SEND[200]:tried:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the client starts run "main" with the prompt "Go."
    And the client injects "branch now" into run "main"
    Then run "main"'s log holds an open COPY run://scout-2 with status 201
    And run "scout-2"'s parent is run "scout" with origin "model"
    And run "scout-2"'s log holds a folded EDIT known:///one.md with status 201
    And run "scout-2"'s log holds an open EDIT known:///two.md with status 201
    And run "scout"'s log holds a folded EDIT known:///one.md with status 201
    And run "scout-2"'s row log:///1/1/2 is EDIT known:///two.md with status 201
    And packet 1 of run "scout-2" contains "try it another way"

  @§machine-processes-fork-shares-the-world
  Scenario: a fork copies no entry; the branch writes into the world its source reads
    Given run "main" will emit:
      """
      <<PLAN:note then branch:PLAN
      <<EDIT(known:///a.md):from main:EDIT
      <<COPY(run://.):write b:COPY
      <<SEND[202]:waiting for the branch:SEND
      """
    And run "main-2" will emit:
      """
      <<PLAN:write:PLAN
      <<EDIT(known:///b.md):from the branch:EDIT
      <<SEND[200]:wrote b:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:read:PLAN
      <<READ(known:///b.md)::READ
      <<SEND[200]:read b:SEND
      """
    When the client starts run "main" with the prompt "Go."
    Then run "main-2"'s parent is run "main" with origin "model"
    And run "main" has 1 loop, the last with status 200
    And the session holds 2 entries of the known scheme
    And run "main"'s log holds an open READ known:///b.md with status 200
    And the session's entry known:///a.md reads "from main"

  @§machine-processes-fork-copies-the-log @decision
  Scenario: the reserved plurnk run and a run that does not exist cannot be forked: 404, and no run is made
    Given run "main" will emit:
      """
      <<PLAN:branch what cannot be branched:PLAN
      <<COPY(run://plurnk):act as the runtime:COPY
      <<COPY(run://ghost):haunt:COPY
      <<SEND[200]:tried:SEND
      """
    When the client starts run "main" with the prompt "go"
    Then run "main"'s row log:///1/1/1 is COPY run://plurnk with status 404 per Decision (§machine-processes-fork-copies-the-log)
    And run "main"'s row log:///1/1/2 is COPY run://ghost with status 404 per Decision (§machine-processes-fork-copies-the-log)
    And the session holds 1 run per Decision (§machine-processes-fork-copies-the-log)
