# git-handoff. `make demo` runs the main job on a scratch repository;
# `make test` runs every test. Both need only Go and git.
GO      ?= go
PREFIX  ?= $(HOME)/.local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man/man1
# Where bash-completion, zsh and fish look for a command's completion (a
# user PREFIX: bash-completion's and fish's user directories; zsh wants
# the directory on $fpath). fish's goes where fish reads it at start, so
# that it also completes `git handoff` (see `git handoff completion fish`).
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
FISHCONFDIR ?= $(PREFIX)/share/fish/vendor_conf.d
# One binary with everything, man page included: the same as
# `go install ./cmd/git-handoff` makes.
BIN     := bin/git-handoff

.PHONY: build install dist dist-check test test-git race fuzz demo bench soak vet clean agent-tools sim sim-planted sim sim-planted

build: $(BIN) git-handoff.1

# CGO_ENABLED=0: a static binary starts its threads with the runtime's own
# clone, not glibc's pthread_create (about a millisecond a start here); the
# only cgo users would be os/user's passwd lookups, which have a pure-Go
# version.
#
# urfave_cli_no_docs leaves out urfave/cli's markdown and man page writers
# (git handoff man writes its own), and with them blackfriday, whose
# package init (tables of HTML entities) every start paid for: about a
# millisecond, on each of an agent's writes through the pre-tool hook.
# A plain `go install` works the same, only starts that much slower.
GOTAGS := urfave_cli_no_docs
$(BIN): FORCE
	CGO_ENABLED=0 $(GO) build -tags $(GOTAGS) -o $(BIN) ./cmd/git-handoff

git-handoff.1: $(BIN)
	$(abspath $(BIN)) man > $@

# The completions are named for git-handoff: bash-completion loads
# completions/git-handoff when git's own completion meets `git handoff`.
install: build
	install -d $(BINDIR) $(MANDIR) $(BASHCOMPDIR) $(ZSHCOMPDIR) $(FISHCONFDIR)
	install -m 0755 $(BIN) $(BINDIR)/git-handoff
	install -m 0644 git-handoff.1 $(MANDIR)/git-handoff.1
	$(abspath $(BIN)) completion bash > $(BASHCOMPDIR)/git-handoff
	$(abspath $(BIN)) completion zsh > $(ZSHCOMPDIR)/_git-handoff
	$(abspath $(BIN)) completion fish > $(FISHCONFDIR)/git-handoff.fish

# The release files in dist/ (scripts/dist.sh says what and how): archives
# for linux and darwin on amd64 and arm64, a .deb and an .rpm, SHA256SUMS
# and the Homebrew formula. The version is the tag's (git describe), or
# VERSION=vX.Y.Z. The packages are made by nfpm v2.48.0, pinned in
# packaging/tools/go.mod, a module of its own so that the project's go.mod
# keeps only what the binary needs, and go.sum there pins nfpm's bytes so
# that a later dist needs no network.
dist:
	./scripts/dist.sh

# make dist checked end to end in two copies of this tree tagged v1.2.3:
# the binary prints the tag, the packages put the files where Debian and
# Fedora look, the sums verify, and the two builds are the same bytes.
dist-check:
	./scripts/dist-check.sh

# Unit, scenario and concurrency tests, plus the fuzz seed corpora (go test
# runs every Fuzz target's seeds as ordinary tests). The agent CLIs the
# end-to-end tests drive are installed first where npm is present; without
# it those tests skip. Tests of what only newer gits do (hooks from config,
# git >= 2.54) also run the git named in GIT_HANDOFF_TEST_NEWEST_GIT (CI:
# scripts/newest-git.sh's) and skip without one.
#
# The tests run with -json through internal/testreport, which prints what
# plain go test would (each package's line, the output of failed tests,
# build errors) and then the ten slowest tests and packages, so that a slow
# run says where its time went. TESTJSON (a file outside the clone; none
# by default) keeps the whole stream for a closer look:
# `go run ./internal/testreport -quiet -sub -n 30 < $TESTJSON`.
#
# RACE=1 (CI) folds make race into make test rather than running those
# packages twice: RACEPKGS run under the race detector instead of without
# it (their tests in RACEPKGSKIP, which the detector only slows, without
# it, as before), then make race's in-process races and agenthook. Every
# test still runs, with Debian's git, in one report; race costs cgo.
#
# RACE=1 is five go test runs (one set of flags each). The last three are
# short, and each would end with one package alone on the machine (its
# last package, then the next run's build): they run one after another
# beside the race run instead, their JSON kept in a file and put into the
# report when the race run is done, so that a core is seldom idle
# (issue 35: this stage was 1,030 s of CI's 20 minutes). A run's stream
# stays whole: testreport reads one run's lines at a time.
TESTJSON ?=
RACE ?=
test: SHELL := /bin/bash
test: .SHELLFLAGS := -o pipefail -c
test: vet agent-tools
	@{ s=0; \
	if [ -z "$(RACE)" ]; then \
		$(GO) test -count=1 -timeout 40m -json ./... || s=1; \
	else \
		race=$$($(GO) list $(RACEPKGS)) && plain=$$($(GO) list ./... | grep -vxF "$$race") || exit 2; \
		echo "make test RACE=1: $(RACEPKGS) under -race"; \
		$(GO) test -count=1 -timeout 40m -json $$plain || s=1; \
		side=$$(mktemp) || exit 2; \
		{ t=0; \
		$(GO) test -count=1 -timeout 20m -json -run '$(RACEPKGSKIP)' $(RACEPKGSKIPIN) || t=1; \
		$(GO) test -count=1 -timeout 20m -json -race -run '$(RACEINPROCTESTS)' $(RACEINPROC) || t=1; \
		$(GO) test -count=1 -timeout 20m -json -race -skip '$(RACESKIP)' ./agenthook || t=1; \
		exit $$t; } >"$$side" & \
		$(GO) test -count=1 -timeout 40m -json -race -skip '$(RACEPKGSKIP)' $(RACEPKGS) || s=1; \
		wait $$! || s=1; \
		cat "$$side"; rm -f "$$side"; \
	fi; exit $$s; \
	} | $(GO) run ./internal/testreport -n 10 $(if $(TESTJSON),-o $(TESTJSON))

# The git matrix (issue 23): the scenarios, the store's suites, teamsync
# and the hooks under the git in GIT (a bin directory; default: the one on PATH) in
# FORMAT: files, reftable, sha256 or reftable-sha256. Every `git init` and `git clone` the
# tests run takes its formats from GIT_DEFAULT_REF_FORMAT and
# GIT_DEFAULT_HASH (git >= 2.45 honours both, 2.39 only the hash), and
# TestMatrix and TestScriptsMatrix fail unless the tests really run that
# git in those formats. CI builds the newest git with
# scripts/newest-git.sh, which prints its GIT. -timeout: on a loaded
# 2-core machine the scenarios alone took more than go test's default
# 10 minutes, and testscript then fails whichever scripts are running.
# SUITES picks among the suites (all by default): store (refstore and the
# record conformance suite), sync (teamsync), hooks and scripts (the
# scenarios); TestMatrix always runs.
#
# MATRIXSCRIPTS names the scenarios a row runs (make test runs them all):
# those where git itself, not git-handoff's own logic, is what can differ
# between gits and formats: every sync through a bare remote, the hooks git
# runs, gc and packed refs, linked worktrees, snapshot trees, signatures,
# hostile ref names, unreadable and misplaced refs, the worktree binding (a
# symbolic ref), and the brief's first-parent log; formats is the row's own
# check (testdata/matrix). The others (JSON goldens, pull requests against
# the fake GitHub, plugins, briefs' budgets, eligibility) run the same store
# calls, which the store suite checks per row. MATRIXSCRIPTS=. runs all.
# MATRIXSKIP: refstore's push of thousands of refs in several pushes,
# whose split is refstore's own, the same on every git (make test runs
# it), and teamsync's retention of thousands, which runs no git at all.
GIT    ?= $(dir $(shell command -v git))
FORMAT ?= files
SUITES ?= store sync hooks scripts
MATRIXSCRIPTS ?= formats|sync_.*|hooks_.*|init_remote_check|end_unpushed|snapshot_travel|baton_worktree_gc|baton_bad_records|baton_many_misplaced|baton_names|baton_signed|baton_end_start|baton_superseded_retired|session_start_end|session_restore|baton_brief_merge_log
MATRIXSKIP ?= ^(TestPushOfThousandsGoesInChunks|TestRetentionOfThousands)$$
test-git:
	@case "$(FORMAT)" in \
	files) refs=files hash=sha1 ;; \
	reftable) refs=reftable hash=sha1 ;; \
	sha256) refs=files hash=sha256 ;; \
	reftable-sha256) refs=reftable hash=sha256 ;; \
	*) echo "make test-git: FORMAT=files|reftable|sha256|reftable-sha256, not $(FORMAT)" >&2; exit 2 ;; \
	esac; \
	git="$(abspath $(GIT))"; \
	echo "test-git: $$("$$git/git" --version) ($$git), $(FORMAT)"; \
	export PATH="$$git:$$PATH" GIT_HANDOFF_TEST_GIT="$$git/git" GIT_HANDOFF_TEST_FORMAT=$(FORMAT) \
		GIT_DEFAULT_REF_FORMAT=$$refs GIT_DEFAULT_HASH=$$hash; \
	pkgs=./internal/gittest scripts=; \
	for s in $(SUITES); do case $$s in \
	store) pkgs="$$pkgs ./refstore/... ./archive" ;; sync) pkgs="$$pkgs ./teamsync" ;; hooks) pkgs="$$pkgs ./hooks" ;; scripts) scripts=1 ;; \
	*) echo "make test-git: SUITES from store, sync, hooks, scripts; not $$s" >&2; exit 2 ;; \
	esac; done; \
	$(GO) test -count=1 -timeout 30m -skip '$(MATRIXSKIP)' $$pkgs; a=$$?; b=0; \
	if [ -n "$$scripts" ]; then \
		$(GO) test -count=1 -timeout 30m -run '^(TestScripts|TestScriptsMatrix)$$/^($(MATRIXSCRIPTS))$$' ./cmd/git-handoff; b=$$?; \
	fi; \
	[ $$a = 0 ] && [ $$b = 0 ]

agent-tools:
	./scripts/agent-tools.sh --if-npm

# Developers run agents on macOS as often as on Linux: vetting the darwin
# build (which type-checks every file its build tags select, tests too)
# keeps it compiling, though only Linux runs the tests here.
vet:
	$(GO) vet ./...
	GOOS=darwin GOARCH=arm64 $(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo 'gofmt needed'; exit 1; }

# The race detector where goroutines share memory in one process:
# - RACEPKGS, whole: the packages whose own code starts goroutines (go
#   statements: refstore's readers, teamsync, hooks, ghpr, the fake model)
#   or serves requests concurrently (webui's HTTP server, mcpserver's).
#   Left to make test (RACEPKGSKIP): mcpserver's Inspector and process
#   race, and hooks' shims checked against the binary, which only drive
#   other processes (the detector cannot see into another program);
#   refstore's push of thousands of refs and teamsync's tests whose cost
#   is their number, not a path of their own: the retention of 6,000
#   records, twelve rounds of same-second syncs, a bulk push by pattern
#   and claims over git daemon (every sync runs the goroutine teamsync
#   has, the remote asked while the refs here are listed, and every other
#   sync test runs it under the detector); and the join's laws and
#   properties, pure functions of records that start no goroutine and
#   share nothing.
# - RACEINPROC, only RACEINPROCTESTS: packages with no goroutine of their
#   own (handoff, session, prown, archive), whose callers (the servers
#   above) run them concurrently; their tests that race goroutines in one
#   process are what the detector can add to make test.
# - agenthook without the real agents' end-to-end tests (RACESKIP), which
#   only drive other programs. cmd/git-handoff's concurrency tests race
#   processes, not goroutines.
RACEPKGS ?= ./refstore/... ./teamsync ./hooks ./mcpserver ./webui ./ghpr/... ./internal/fakemodel
RACEPKGSKIP ?= ^(TestInspector|TestClaimRaceProcesses|TestPushOfThousandsGoesInChunks|TestRetentionOfThousands|TestSyncKeepsBatonWrittenInTheSameSecond|TestBulkPushByPattern|TestOverGitDaemon|TestJoinLaws|TestJoinProperties|TestJoinAnyOrder|TestShimTrailersMatchGitHandoff)$$
# The packages holding RACEPKGSKIP's tests, which make test RACE=1 runs
# without the detector.
RACEPKGSKIPIN ?= ./mcpserver ./refstore ./teamsync ./hooks
RACEINPROC ?= ./handoff ./session ./prown ./archive
RACEINPROCTESTS ?= InOneProcess|AtOnce|Concurrent|Race|SwitchGuard
RACESKIP ?= ^(TestAgents|TestClaude|TestReplacing|TestCopilot|TestCodex|TestOpenCode)
race:
	$(GO) test -count=1 -timeout 60m -race -skip '$(RACEPKGSKIP)' $(RACEPKGS)
	$(GO) test -count=1 -timeout 20m -race -run '$(RACEINPROCTESTS)' $(RACEINPROC)
	$(GO) test -count=1 -timeout 20m -race -skip '$(RACESKIP)' ./agenthook

# Coverage-guided fuzzing beyond the seeds: every Fuzz target go test
# lists, FUZZTIME each, so a new target needs no line here.
FUZZTIME ?= 30s
fuzz:
	@for pkg in $$($(GO) list ./...); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "fuzz: $$pkg $$f"; \
			$(GO) test $$pkg -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) || exit 1; \
		done; \
	done

demo: $(BIN)
	./scripts/demo.sh $(CURDIR)/$(BIN)

bench: $(BIN)
	GO=$(GO) ./bench/run.sh $(CURDIR)/$(BIN)

# The figures of "nothing lost, nothing delivered twice": real git-handoff
# processes on four clones of one remote that stalls and refuses at random,
# the status page and MCP server writing too, gc --prune=now alongside, then kill -9
# trials (bench/soak/README.md). Every figure's goal is 0; -strict fails
# the target otherwise.
SOAKFLAGS ?= -duration 60s -procs 8 -kill 200 -strict
soak: $(BIN)
	$(GO) run ./bench/soak -bin $(abspath $(BIN)) $(SOAKFLAGS)

# The deterministic simulation (package sim, issue 35): SEED picks the run
# (default: from the time), STEPS its length. It prints each fault kind's
# count and a summary line; a violation prints the seed and a shrunk step
# list and fails. sim-planted plants each defect (built with -tags
# simdefects) and prints whether the simulation found it.
SEED  ?= $(shell date +%s)
STEPS ?= 10000
SIMFLAGS ?=
sim:
	$(GO) run ./sim/cmd/sim -seed $(SEED) -steps $(STEPS) $(SIMFLAGS)

PLANTED_STEPS ?= 1500
sim-planted:
	$(GO) run -tags simdefects ./sim/cmd/sim -planted -seed $(SEED) -steps $(PLANTED_STEPS) -no-crash

clean:
	rm -rf bin git-handoff.1 bench/out dist

FORCE:
