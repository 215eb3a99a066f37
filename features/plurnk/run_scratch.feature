@plurnk
Feature: fork and run-scope scratch
  COPY(run://<src>) branches a run: the branch gets a copy of the source's
  log and of its scratch, re-owned, and carries on with the COPY's body as
  its prompt, while the session's entries stay one shared set. Scratch
  (run://<owner>/<path>, run:/// for one's own) is written only by its
  owner, read by anyone who names it, and catalogued only for its owner.

  @§run-scheme-fork @§run-scheme-fork-scratch @decision
  Scenario: a fork copies the log and the scratch, shares the world, and diverges
    Given run "main" will emit:
      """
      <<PLAN:note, share, branch:PLAN
      <<EDIT(run:///notes.md):draft one:EDIT
      <<EDIT(known:///shared.md):one shared page:EDIT
      <<COPY(run://.):Try the other approach.:COPY
      <<SEND[202]:waiting for the branch:SEND
      """
    And run "main-2" will emit:
      """
      <<PLAN:read my inherited notes and the shared page, then rewrite my notes:PLAN
      <<READ(run:///notes.md)::READ
      <<READ(known:///shared.md)::READ
      <<EDIT(run:///notes.md):draft two:EDIT
      <<SEND[200]:the other approach works:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:branch reported:SEND
      """
    When the client starts run "main" with the prompt "go"
    Then run "main"'s row log:///1/1/3 is COPY run://main-2 with status 201 per Decision (§run-scheme-fork)
    And run "main-2"'s row log:///1/1/1 is EDIT run://main/notes.md with status 201
    And run "main-2"'s row log:///1/1/2 is EDIT known:///shared.md with status 201
    And run "main-2" has 2 loops, the last with status 200 per Decision (§run-scheme-fork)
    And packet 1 of run "main-2" contains "Try the other approach."
    And run "main-2"'s log holds an open READ run://main-2/notes.md with status 200 reading "1:\tdraft one\n"
    And run "main-2"'s log holds an open READ known:///shared.md with status 200
    And run "main-2"'s log holds an open EDIT run://main-2/notes.md with status 200
    And the session's entry run://main-2/notes.md reads "draft two"
    And the session's entry run://main/notes.md reads "draft one"
    And run "main" has 1 loop, the last with status 200
    And run "main"'s log has no FIND run:///**

  @§run-scheme-fork-scratch
  Scenario: a fork copies its source's scratch and no sister's
    Given run "main" will emit:
      """
      <<PLAN:start a writer:PLAN
      <<EDIT(run://writer):Write your plan.:EDIT
      <<SEND[202]:waiting:SEND
      """
    And run "writer" will emit:
      """
      <<PLAN:write:PLAN
      <<EDIT(run:///plan.md):step one:EDIT
      <<SEND[200]:plan written:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:branch:PLAN
      <<COPY(run://.):Write a plan of your own.:COPY
      <<SEND[202]:waiting for the branch:SEND
      """
    And run "main-2" will emit:
      """
      <<PLAN:write my own plan:PLAN
      <<EDIT(run:///plan.md):my step:EDIT
      <<SEND[200]:planned:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:done:PLAN
      <<SEND[200]:done:SEND
      """
    When the client starts run "main" with the prompt "go"
    Then run "main-2"'s log holds an open EDIT run://main-2/plan.md with status 201
    And the session's entry run://main-2/plan.md reads "my step"
    And the session's entry run://writer/plan.md reads "step one"

  @§run-scheme-scratch @§run-scheme-find-perspective @decision
  Scenario: a sister's scratch can be read and found by name but not written, and is catalogued only for its owner
    Given run "main" will emit:
      """
      <<PLAN:start a writer:PLAN
      <<EDIT(run://writer):Write your plan.:EDIT
      <<SEND[202]:waiting:SEND
      """
    And run "writer" will emit:
      """
      <<PLAN:write:PLAN
      <<EDIT(run:///plan.md):step one:EDIT
      <<SEND[200]:plan written:SEND
      """
    And run "main" will emit:
      """
      <<PLAN:look at the writer's notes:PLAN
      <<READ(run://writer/plan.md)::READ
      <<EDIT(run://writer/plan.md):hijacked:EDIT
      <<FIND(run://writer/**)::FIND
      <<FIND(run:///**)::FIND
      <<SEND[200]:read it:SEND
      """
    And run "writer" will emit:
      """
      <<PLAN:check my catalog:PLAN
      <<SEND[200]:still one step:SEND
      """
    When the client starts run "main" with the prompt "go"
    Then run "main"'s log holds an open READ run://writer/plan.md with status 200 reading "1:\tstep one\n"
    And run "main"'s log holds a folded EDIT run://writer/plan.md with status 403
    And run "main"'s log holds an open FIND run://writer/** with status 200 reading "run://writer/plan.md\n" per Decision (§run-scheme-scratch)
    And run "main"'s log holds an open FIND run://main/** with status 204
    And the session's entry run://writer/plan.md reads "step one"
    When the client injects "Anything new?" into run "writer"
    Then run "writer"'s log holds an open FIND run:///** with status 200 reading "run://writer/plan.md\n" per Decision (§run-scheme-scratch)
    And run "writer"'s row log:///2/0/3 is FIND run:///** with status 200
    And run "main"'s log has no FIND run:///**

  @§run-scheme-find-perspective @decision
  Scenario: a FIND of scratch whose pattern is no glob answers 400 and the turn goes on
    Given run "main" will emit:
      """
      <<PLAN:note, then look with a broken pattern:PLAN
      <<EDIT(run:///notes.md):one:EDIT
      <<FIND(run:///[notes)::FIND
      <<FIND(run:///*.md)::FIND
      <<SEND[200]:looked:SEND
      """
    When the client starts run "main" with the prompt "go"
    Then run "main"'s log holds a folded FIND run://main/[notes with status 400
    And run "main"'s log holds an open FIND run://main/*.md with status 200 reading "run://main/notes.md\n" per Decision (§run-scheme-scratch)
    And run "main" has 1 loop, the last with status 200
