# anchorage — every target runs from a clean checkout with only the Go module proxy.
GO        ?= go
FUZZTIME  ?= 30s
FUZZMINIMIZE ?= 0
REPORTTMP := reports/tmp
# make report TARGET=name (with the driver variables of features/README.md, and
# FEATURES=TestFeatures/<system> to run one system) records another target's run
# under reports/targets/name; reports/matrix.{md,html} puts all runs side by side.
TARGET    ?= reference
FEATURES  ?= TestFeatures
REPORTOUT := $(if $(filter reference,$(TARGET)),reports,reports/targets/$(TARGET))

.PHONY: test report mutate mutate-diff mutate-shard mutate-merge vary fuzz fuzz-long bench golden lint e2e ci

## test: vet and run every Go test (features, guard, properties, units); @wip scenarios are skipped.
## It prints its wall time (goal: under 60 s on the 2-core machine; a printed figure, never a timed test).
test:
	@start=$$(date +%s); \
	$(GO) vet ./... && $(GO) test -timeout 30m ./...; status=$$?; \
	echo "make test: $$(( $$(date +%s) - start )) s wall (goal < 60 s)"; exit $$status

## report: run every feature against the reference implementations and write reports/coverage.*
## (a progress line per system while it runs; each failing scenario's assertion and replay line once);
## it prints its wall time (goal: under 60 s on the 2-core machine; a printed figure, never a timed test)
report:
	@mkdir -p $(REPORTTMP) $(REPORTOUT) && rm -f $(REPORTTMP)/cucumber-*.json $(REPORTTMP)/go-test.log  # keeps e2e's screenshots
	@echo "building the report command, then the features (on a fresh machine the first build takes minutes); log: $(REPORTTMP)/go-test.log"
	@$(GO) build -o $(REPORTTMP)/report ./reports/cmd/report
	@start=$$(date +%s); ANCHORAGE_REPORT_DIR=$(CURDIR)/$(REPORTTMP) $(GO) test -json -timeout 30m ./features -count=1 -run '$(FEATURES)' 2>&1 \
	  | $(REPORTTMP)/report watch -log $(REPORTTMP)/go-test.log; \
	status=$$?; \
	$(REPORTTMP)/report -results $(REPORTTMP) -out $(REPORTOUT) -target $(TARGET) -test-exit $$status; \
	status=$$?; $(GO) run ./reports/cmd/matrix -reports reports || status=1; \
	echo "make report: $$(( $$(date +%s) - start )) s wall (goal < 60 s)"; exit $$status

## mutate: put small bugs into impl/ and check that each system's features reject them → reports/mutation.json,
## then refresh the report's strength columns. MUTATE_FLAGS passes flags (e.g. MUTATE_FLAGS="-system chatlog -n 20").
MUTATE_FLAGS ?=
mutate:
	$(GO) run ./reports/cmd/mutate $(MUTATE_FLAGS)
	@$(MAKE) --no-print-directory report

## mutate-diff: every mutant on the lines of impl/ added or modified since BASE (a git revision, default HEAD~1;
## the working tree and new files count), no sampling; prints each survivor → reports/tmp/mutation-diff.json
BASE ?= HEAD~1
mutate-diff:
	$(GO) run ./reports/cmd/mutate -diff $(BASE) $(MUTATE_FLAGS)

## mutate-shard: one job of a full run, SHARD=i/n (every covered mutant, the i-th of n parts by code key)
## → reports/tmp/mutation-shard-i-of-n.json; mutate-merge merges those files into reports/mutation.json and
## refreshes the report (.github/workflows/anchorage.yml runs the shards as a job matrix)
mutate-shard:
	@test -n "$(SHARD)" || { echo "make mutate-shard: set SHARD=i/n, e.g. SHARD=3/32"; exit 2; }
	$(GO) run ./reports/cmd/mutate -all -shard $(SHARD) $(MUTATE_FLAGS)
mutate-merge:
	$(GO) run ./reports/cmd/mutate -merge -out reports/mutation.json reports/tmp/mutation-shard-*.json
	@$(MAKE) --no-print-directory report

## vary: specificity, the mirror of mutate: run each system's features against the reference with all its
## spec-permitted variations on (impl/vary), judged as another target; a failing scenario is a false rejection,
## printed with the variation behind it. VARY_FLAGS passes flags (e.g. VARY_FLAGS="-system jace").
VARY_FLAGS ?=
vary:
	$(GO) run ./reports/cmd/vary $(VARY_FLAGS)

## fuzz: run every fuzz target under fuzz/ for FUZZTIME each (default 30s), from its directory so that the
## engine's output streams, and print each campaign's rate. FUZZMINIMIZE=0 keeps the engine fuzzing instead of
## minimizing every new input for up to a minute (a crashing input is still saved, unminimized).
fuzz:
	@set -e; for dir in $$($(GO) list -f '{{.Dir}}' ./fuzz/...); do \
	  for target in $$(cd $$dir && $(GO) test -list '^Fuzz' | grep '^Fuzz' || true); do \
	    echo "== $${dir#$(CURDIR)/} $$target ($(FUZZTIME))"; \
	    { cd $$dir && $(GO) test -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) 2>&1; echo "exit $$?"; } \
	      | awk -f $(CURDIR)/fuzz/rate.awk; \
	  done; \
	done

## fuzz-long: the same campaigns, 10 minutes each unless FUZZTIME says otherwise
fuzz-long:
	@$(MAKE) --no-print-directory fuzz FUZZTIME=$(if $(filter command line environment,$(origin FUZZTIME)),$(FUZZTIME),10m)

## bench: every benchmark (speed and memory targets live here, never in timed tests)
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## golden: regenerate the golden files, then show what changed for review
golden:
	ANCHORAGE_UPDATE_GOLDEN=1 $(GO) test ./... > /dev/null || true
	@git --no-pager diff --stat -- golden
	@git --no-pager diff -- golden | head -200
	@git status --short -- golden

## lint: gofmt must have nothing to say
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

## e2e: end-to-end tests that need something outside the process (a real browser; npm packages for the report's checks)
e2e:
	$(GO) test -count=1 -tags e2e -run 'E2E' -v ./impl/chatlog/ ./reports/coverage/

## ci: what .ci/run does
ci: lint test report
