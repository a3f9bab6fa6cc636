# btfinline developer targets. "make test" is the one test command: it
# installs what the tests compare against (scripts/setup) and runs them.
GO        ?= go
SHARED    ?= $(CURDIR)/../shared
export BTFI_SHARED := $(SHARED)
FUZZTIME  ?= 30s
BIN       := bin/btfinline

.PHONY: all build test vet fixtures fuzz bench bench-kernel check-kernel e2e clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/btfinline

test:
	@eval "$$(scripts/setup)" && $(GO) vet ./... && $(GO) test -count=1 ./...

vet:
	$(GO) vet ./...
	@command -v staticcheck >/dev/null && staticcheck ./... || echo "staticcheck not installed: go install honnef.co/go/tools/cmd/staticcheck@latest"

# Rebuild the checked-in objects from the C sources. Every Makefile in a
# testdata folder (testdata/<concern>/, <package>/testdata/) owns its fixtures.
fixtures:
	@eval "$$(scripts/setup)" && for m in $$(find . -path '*/testdata/*' -name Makefile -not -path '*/fuzz/*' | sort); do \
	  $(MAKE) -C $$(dirname $$m) || exit 1; \
	done

# Run every fuzz target for FUZZTIME each (make fuzz FUZZTIME=10m).
fuzz:
	@scripts/fuzz-all $(FUZZTIME)

# Benchmarks on the checked-in data; with the real kernel: make bench KERNEL=1.
bench:
	@eval "$$(scripts/setup)" && \
	if [ -n "$(KERNEL)" ]; then export BTFI_KERNEL_DATA=$$($(SHARED)/tools/kernel-data); fi && \
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Side-by-side timings against pahole, bpftool, perf and readelf on the
# Debian kernel (a markdown table; the README shows one).
bench-kernel:
	@scripts/bench-kernel

# Whole-kernel checks against the Debian 6.1 vmlinux and modules (slow).
check-kernel:
	@eval "$$(scripts/setup)" && export BTFI_KERNEL_DATA=$$($(SHARED)/tools/kernel-data) && \
	$(GO) test -count=1 -timeout 60m -run 'Kernel' ./...

clean:
	rm -rf bin
