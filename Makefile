# btfinline developer targets. "make test" is the one test command (CI runs
# exactly it): it installs what the tests compare against (scripts/setup),
# checks formatting, vet and staticcheck, runs the unit tests, then the
# whole-kernel checks on four kernel builds (check-kernel) and the qemu
# end-to-end runs on 6.1 and 6.12, x86-64 and arm64 (e2e-all).
GO        ?= go
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2
GOIMPORTS ?= $(GO) run golang.org/x/tools/cmd/goimports@v0.52.0
SHARED    ?= $(CURDIR)/../shared
export BTFI_SHARED := $(SHARED)
FUZZTIME  ?= 30s
BIN       := bin/btfinline

.PHONY: all build test unit lint vet fixtures fuzz bench bench-kernel check-kernel e2e e2e-arm64 e2e-6.12 e2e-arm64-6.12 e2e-all check-kbuild cframe-table clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/btfinline

test: lint unit check-kernel e2e-all

# The whole-kernel tests (TestKernel*, and TestBig* on large real files) need
# the kernel data or time: check-kernel
# runs them, with every build present (under CI a missing one fails).
unit:
	@eval "$$(scripts/setup)" && $(GO) test -count=1 -skip '^Test(Kernel|Big)' ./...

# goimports: the standard library in one group, everything else after it.
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@out=$$($(GOIMPORTS) -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "goimports needed (imports grouped as goimports does):"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	@# The encoder and the inspector build off Linux too (the tracer and the
	@# guest program are Linux's): macOS and FreeBSD as build hosts.
	GOOS=darwin $(GO) vet ./...
	GOOS=freebsd $(GO) vet ./...
	$(STATICCHECK) ./...

vet: lint

# Rebuild the checked-in objects from the C sources. Every Makefile in a
# package's testdata folder owns that package's fixtures; cmd/demo holds
# the object the demo embeds and e2e/kmod the test module of the e2e run.
fixtures:
	@eval "$$(scripts/setup)" && for m in $$( { find . -path '*/testdata/*' -name Makefile -not -path '*/fuzz/*'; echo ./cmd/demo/Makefile; echo ./e2e/kmod/Makefile; } | sort); do \
	  $(MAKE) -C $$(dirname $$m) || exit 1; \
	done

# Run every fuzz target for FUZZTIME each (make fuzz FUZZTIME=10m).
fuzz:
	@scripts/fuzz-all $(FUZZTIME)

# Benchmarks on the checked-in data; with the real kernel: make bench KERNEL=1.
bench:
	@eval "$$(scripts/setup)" && \
	if [ -n "$(KERNEL)" ]; then BTFI_KERNEL_DATA=$$($(SHARED)/tools/kernel-data) || exit 1; export BTFI_KERNEL_DATA; fi && \
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Side-by-side timings against pahole, bpftool, perf and readelf on the
# Debian kernel (a markdown table; the README shows one).
bench-kernel:
	@scripts/bench-kernel

# Whole-kernel checks on four builds (slow): Debian 12's 6.1 for x86-64
# (../shared/tools/kernel-data) and arm64 (scripts/kernel-data-arm64) and
# Debian 13's 6.12 for x86-64 (kernel-data trixie) and arm64
# (scripts/kernel-data-arm64 6.12). A failed download fails the target.
# BTFI_UPDATE_FIGURES=1 rewrites docs/figures from the run.
check-kernel:
	@eval "$$(scripts/setup)" && \
	BTFI_KERNEL_DATA=$$($(SHARED)/tools/kernel-data) || { echo "check-kernel: kernel-data failed" >&2; exit 1; }; \
	BTFI_KERNEL_DATA_ARM64=$$(scripts/kernel-data-arm64) || { echo "check-kernel: kernel-data-arm64 failed" >&2; exit 1; }; \
	BTFI_KERNEL_DATA_TRIXIE=$$($(SHARED)/tools/kernel-data trixie) || { echo "check-kernel: kernel-data trixie failed" >&2; exit 1; }; \
	BTFI_KERNEL_DATA_ARM64_TRIXIE=$$(scripts/kernel-data-arm64 6.12) || { echo "check-kernel: kernel-data-arm64 6.12 failed" >&2; exit 1; }; \
	export BTFI_KERNEL_DATA BTFI_KERNEL_DATA_ARM64 BTFI_KERNEL_DATA_TRIXIE BTFI_KERNEL_DATA_ARM64_TRIXIE && \
	$(GO) test -count=1 -timeout 80m -run '^Test(Kernel|Big)' ./...

# End-to-end on the real Debian 6.1 kernel under qemu: kprobes at the test
# module's inline sites checked against the values it prints, and the kernel
# asked to accept kprobes at ~7,800 vmlinux inline sites (e2e/README.md).
# E2E_RESOLVER=perf swaps btfinline for the perf/DWARF stand-in.
e2e:
	@e2e/run.sh

# The same on the arm64 build of that kernel (qemu-system-aarch64 -M virt,
# TCG): arm64 registers, frame-base fetches and traceability rules.
e2e-arm64:
	@E2E_ARCH=arm64 e2e/run.sh

# The same on Debian 13's 6.12 kernel (gcc 14), the test module built for
# it in a Debian 13 root (scripts/e2e-kbuild 6.12-x86_64).
e2e-6.12:
	@E2E_KERNEL=6.12 e2e/run.sh

# The same on Debian 13's arm64 6.12 kernel (ftrace call ops), the module
# cross-built by gcc 14 in a Debian 13 root (scripts/e2e-kbuild 6.12-arm64).
e2e-arm64-6.12:
	@E2E_ARCH=arm64 E2E_KERNEL=6.12 e2e/run.sh

# The four runs above, as make test runs them: prepared one by one, then
# booted two at a time (scripts/e2e-all).
e2e-all:
	@scripts/e2e-all

# The experimental CFrame format against SFrame and .eh_frame on seven
# real binaries: sizes, counts and one lookup benchmark run, compared
# with internal/cframe/testdata (docs/cframe.md; BTFI_UPDATE=1 records new figures).
cframe-table:
	@scripts/cframe-table

# The kbuild series (kbuild/): Debian's linux-source-6.1 patched (or, with
# KBUILD_VERSION=6.12, Debian 13's linux-source-6.12 with
# kbuild/patches-6.12), a small kernel built with
# CONFIG_DEBUG_INFO_BTF_INLINE, its failure modes, and a qemu boot where
# btfinline reads only /sys/kernel/btf and /proc/kallsyms
# (kbuild/README.md). Not in "make test": a kernel build.
check-kbuild:
	@scripts/check-kbuild

clean:
	rm -rf bin
