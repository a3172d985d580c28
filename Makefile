# git-handoff. `make demo` runs the main job on a scratch repository;
# `make test` runs every test. Both need only Go and git.
GO      ?= go
PREFIX  ?= $(HOME)/.local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man/man1
BIN     := bin/git-handoff

.PHONY: build install test race fuzz demo bench vet clean

build: $(BIN) git-handoff.1

$(BIN): FORCE
	$(GO) build -o $(BIN) ./cmd/git-handoff

git-handoff.1: $(BIN)
	./$(BIN) man > $@

install: build
	install -d $(BINDIR) $(MANDIR)
	install -m 0755 $(BIN) $(BINDIR)/git-handoff
	install -m 0644 git-handoff.1 $(MANDIR)/git-handoff.1

# Unit, scenario and concurrency tests, plus the fuzz seed corpora (go test
# runs every Fuzz target's seeds as ordinary tests).
test: vet
	$(GO) test -count=1 ./...

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo 'gofmt needed'; exit 1; }

race:
	$(GO) test -count=1 -race ./refstore/... ./baton/... ./handoff/... ./cmd/...

# Coverage-guided fuzzing beyond the seeds; FUZZTIME per target.
FUZZTIME ?= 30s
fuzz:
	$(GO) test ./refstore -run '^$$' -fuzz '^FuzzComponent$$' -fuzztime $(FUZZTIME)
	$(GO) test ./refstore -run '^$$' -fuzz '^FuzzDecodeComponent$$' -fuzztime $(FUZZTIME)
	$(GO) test ./baton -run '^$$' -fuzz '^FuzzDecodeBaton$$' -fuzztime $(FUZZTIME)

demo: $(BIN)
	./scripts/demo.sh $(CURDIR)/$(BIN)

bench: $(BIN)
	./bench/run.sh $(CURDIR)/$(BIN)

clean:
	rm -rf bin git-handoff.1 bench/out

FORCE:
