# SPDX-License-Identifier: GPL-2.0
#
# rmem: remote RAM over RDMA as a block device.
#
#   make            build rmem.ko and rmemctl
#   make tests      build the C selftests (needs make deps)
#   make deps       install what is missing (Debian 12 packages)
#   make check      deps + build + boot the lab + run every selftest
#   make check-long the same with the long tests (rmem-suite: long) too
#   make check-debug the same on a KASAN/lockdep/kmemleak kernel built from
#                   linux-source-6.12 (DEBUG_KERNEL=6.1: 6.1; cached), plus
#                   the fault-injection tests
#   make demo       the main job step by step in the two-host lab
#   make bench      rmem vs nvme-rdma vs brd vs raw verbs (TOPO=one|two|both|scale|offpath|multi)
#   make bench-swap swap on rmem vs nvme-rdma vs zram vs brd under pressure
#   make lab-shell  boot the lab and get a shell in a VM
#   make lint       checkpatch --strict, kernel-doc and sparse on kernel code
#   make install    install the module (with depmod), rmemctl, man page

# Kernels to build for: KDIR= names one tree (KDIRS= several).  Without
# it, the running kernel if it has headers, else every installed Debian
# kernel with both image and headers (the lab kernels).  Each gets its
# build/<release>/rmem.ko.
ifdef KDIR
KDIRS := $(KDIR)
else
KDIRS := $(shell scripts/kernels.sh kdirs)
endif
# the kernels make check boots: LAB_KERNELS="6.1 6.12" (releases or
# prefixes of them) picks some; default: every lab kernel
LAB_KERNELS ?=

VERSION := $(shell cat VERSION)

PREFIX ?= /usr/local
DESTDIR ?=
LINUX_SRC := build/linux-src

CC ?= gcc
CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -Wno-unused-parameter -std=gnu11 -Iinclude/uapi \
	-DRMEM_VERSION=\"$(VERSION)\"
MNL_CFLAGS := $(shell pkg-config --cflags libmnl 2>/dev/null)
MNL_LIBS := $(shell pkg-config --libs libmnl 2>/dev/null || echo -lmnl)

RMEMCTL_SRCS := $(wildcard user/*.c)
RMEMCTL_HDRS := $(wildcard user/*.h) include/uapi/linux/rmem.h VERSION
KERNEL_SRCS := $(filter-out %.mod.c,$(wildcard kernel/*.c kernel/*.h kernel/*/*.c kernel/*/*.h)) \
	include/uapi/linux/rmem.h

.PHONY: all module tool tests deps check check-long check-debug debug-kernel debug-module bench-swap demo bench lab-shell lint checkpatch kernel-doc sparse \
	install clean print-kdir print-kver print-version check-kdir check-spec

# what a host needs: the module and the tool (the tests come with make check)
all: module tool

check-kdir:
	@test -n "$(strip $(KDIRS))" || { echo "No kernel headers found. Run 'make deps' or set KDIR=." >&2; exit 1; }

# "+": Kbuild runs under this make's jobserver (make -j, dkms)
module: check-kdir
	+@set -e; for k in $(KDIRS); do scripts/build-module.sh $$k; done

tool: user/rmemctl

user/rmemctl: $(RMEMCTL_SRCS) $(RMEMCTL_HDRS)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(MNL_CFLAGS) $(LDFLAGS) -o $@ $(RMEMCTL_SRCS) $(MNL_LIBS)

tests:
	$(MAKE) -C selftests

deps:
	@scripts/deps.sh

# every lab kernel (or those LAB_KERNELS names) gets its module and its run
check: deps
	@k="$$(scripts/kernels.sh lab $(LAB_KERNELS))"; \
	test -n "$$k" || { echo "no lab kernel$(if $(LAB_KERNELS), matches '$(LAB_KERNELS)'): make deps installs them" >&2; exit 1; }; \
	$(MAKE) tool tests module KDIRS="$$(for r in $$k; do printf '%s ' $$(scripts/kernels.sh kdir $$r); done)" && \
	LAB_KERNELS="$$k" selftests/run.sh $(T)

# make check and the tests left out of it for time (rmem-suite: long)
check-long:
	$(MAKE) check RMEM_SUITE=long

# The debug lane: a KASAN/lockdep kernel built from linux-source-$(DEBUG_KERNEL)
# (6.12 or 6.1), rmem.ko for it in build/<its release>/ like any other.
# 6.12 by default: 6.1's Soft-RoCE runs its requester and completer as
# separate tasks and under load read a page rmem had already completed
# (KASAN, see Documentation/lab.rst); 6.10 merged them.
DEBUG_KERNEL ?= 6.12

debug-kernel: deps
	scripts/debug-kernel.sh $(DEBUG_KERNEL)

debug-module: deps
	scripts/build-module.sh "$$(scripts/debug-kernel.sh $(DEBUG_KERNEL))/tree"

check-debug: deps
	$(MAKE) tool tests debug-module
	RMEM_LAB_KERNEL=$$(scripts/debug-kernel.sh --path $(DEBUG_KERNEL)) \
	RMEM_TEST_TIMEOUT=$${RMEM_TEST_TIMEOUT:-1500} LAB_MEM=$${LAB_MEM:-1536} \
		selftests/run.sh $(T)

# the kernel the lab boots (LAB_KERNEL, default the newest lab kernel) and
# its tree: demo, bench and lab-shell build the module for it first, so
# the lab never runs a stale one
LAB_KVER = $(shell scripts/kernels.sh lab $(LAB_KERNEL) | head -n 1)
LAB_KDIR = $(if $(LAB_KVER),$(shell scripts/kernels.sh kdir $(LAB_KVER)))

demo: deps
	$(MAKE) tool module KDIRS="$(LAB_KDIR)"
	selftests/demo.sh

# and, for the offpath part, the reference module without latency
# timestamps, histograms and request tracepoints (build/<release>-bare/)
bench: deps
	$(MAKE) tool module KDIRS="$(LAB_KDIR)"
	RMEM_VARIANT=bare scripts/build-module.sh "$(LAB_KDIR)"
	selftests/bench.sh $(TOPO)

bench-swap: deps
	$(MAKE) tool tests module KDIRS="$(LAB_KDIR)"
	selftests/bench_swap.sh

lab-shell:
	$(MAKE) tool module KDIRS="$(LAB_KDIR)"
	selftests/lab/shell.sh $(TOPO)

checkpatch: deps
	perl $(LINUX_SRC)/scripts/checkpatch.pl --strict --no-tree --quiet \
		-f $(KERNEL_SRCS)

kernel-doc: deps
	perl $(LINUX_SRC)/scripts/kernel-doc -none -v $(KERNEL_SRCS) 2>&1 | tee build/kernel-doc.log
	@! grep -E 'warning|error' build/kernel-doc.log

# sparse against every kernel built for (KDIR=: one)
sparse: check-kdir
	@mkdir -p build; for k in $(KDIRS); do \
		v=$$(scripts/kernels.sh kver $$k); \
		scripts/build-module.sh $$k C=2 CF="-D__CHECK_ENDIAN__" modules \
			> build/sparse-$$v.log 2>&1 || { cat build/sparse-$$v.log; exit 1; }; \
		if grep -E 'warning:|error:' build/sparse-$$v.log; then exit 1; fi; \
		echo "sparse: $$v: clean"; \
	done

lint: checkpatch kernel-doc sparse

print-kdir:
	@echo $(KDIRS)

print-kver:
	@for k in $(KDIRS); do scripts/kernels.sh kver $$k; done

print-version:
	@echo $(VERSION)

# DESTDIR stages everything (module included) under another root.  A
# kernel that signs its modules at install but whose key is not here (a
# distribution kernel's) installs rmem.ko unsigned, without sign-file errors.
INSTALL_MOD_PATH ?= $(DESTDIR)

install: module tool
	@set -e; for k in $(KDIRS); do \
		v=$$(scripts/kernels.sh kver $$k); \
		key=$$(sed -n 's/^CONFIG_MODULE_SIG_KEY="\{0,1\}\([^"]*\)"\{0,1\}$$/\1/p' $$k/include/config/auto.conf); \
		nosign=; [ -z "$$key" ] || [ -e "$$key" ] || [ -e "$$k/$$key" ] || nosign=CONFIG_MODULE_SIG_ALL=; \
		$(MAKE) -C $$k M=$(CURDIR)/build/$$v INSTALL_MOD_DIR=extra \
			INSTALL_MOD_PATH=$(INSTALL_MOD_PATH) $$nosign modules_install; \
		depmod -a $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $$v; \
	done
	install -D -m 0755 user/rmemctl $(DESTDIR)$(PREFIX)/sbin/rmemctl
	install -D -m 0644 Documentation/rmemctl.8 $(DESTDIR)$(PREFIX)/share/man/man8/rmemctl.8

# Debian packages in build/deb/: rmem-dkms (dkms builds the module on the
# target, for each kernel with headers) and rmemctl.  Builds no module here.
.PHONY: deb
deb:
	@scripts/build-deb.sh

# every per-kernel build (build/<release>/), not the lab's or the caches
clean:
	for d in build/*/kernel/Kbuild; do [ ! -e "$$d" ] || rm -rf "$${d%/kernel/Kbuild}"; done
	[ ! -d selftests ] || $(MAKE) -C selftests clean
	rm -f user/rmemctl
	rm -rf build/lab

check-spec:
	python3 scripts/check-spec.py
