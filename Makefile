# Multiverse: explore many paths of a web task at once, commit exactly one.
GO       ?= go
DATA_DIR ?= .multiverse
BIN      := bin

.PHONY: all deps build demo test test-short bench lint fuzz clean

all: build

## deps: install Chromium (Debian package), Node.js, the Playwright driver and Go modules (idempotent)
deps:
	@scripts/deps.sh

## build: build bin/orchestrator and bin/worker
build: deps
	@echo "build: compiling bin/orchestrator and bin/worker (the first time takes a few minutes: SQLite and the NATS server are compiled too)"
	$(GO) build -buildvcs=auto -o $(BIN)/orchestrator ./cmd/orchestrator
	$(GO) build -buildvcs=auto -o $(BIN)/worker ./cmd/worker

## demo: run the example task against the embedded demo site
demo: build
	$(BIN)/orchestrator demo --data-dir $(DATA_DIR)

## test: the whole suite, with real Chromium, embedded NATS JetStream and SQLite,
## then the decoders' fuzz targets (task files, bundles) for a short time
test: deps
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 25m ./...
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime 10s -fuzzminimizetime 2s ./task/
	$(GO) test -run '^$$' -fuzz '^FuzzRead$$' -fuzztime 10s -fuzzminimizetime 2s ./replay/bundle/

## test-short: unit tests only (no browser)
test-short:
	$(GO) test -short -count=1 ./...

## bench: Go benchmarks and the demo wall clock with 1 and 4 workers
bench: deps
	scripts/bench.sh

## lint: formatting and vet
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

## fuzz: run each fuzz target for a short time
fuzz:
	scripts/fuzz.sh 10s

clean:
	rm -rf $(BIN) $(DATA_DIR)
