# SPDX-License-Identifier: GPL-2.0
#
# rmem: remote RAM over RDMA as a block device.
#
#   make            build rmem.ko and rmemctl
#   make tests      build the C selftests (needs make deps)
#   make deps       install what is missing (Debian 12 packages)
#   make check      deps + build + boot the lab + run every selftest
#   make check-debug the same on a KASAN/lockdep/kmemleak kernel built from
#                   linux-source-6.1 (cached), plus the fault-injection tests
#   make demo       the main job step by step in the two-host lab
#   make bench      rmem vs nvme-rdma vs brd vs raw verbs (TOPO=one|two|both)
#   make bench-swap swap on rmem vs nvme-rdma vs zram vs brd under pressure
#   make lab-shell  boot the lab and get a shell in a VM
#   make lint       checkpatch --strict, kernel-doc and sparse on kernel code
#   make install    install the module (with depmod), rmemctl, man page

# Kernel to build against: the running kernel's headers when it has them,
# else the newest Debian kernel whose image and headers are both installed
# (the one the lab boots).
KVER_RUNNING := $(shell uname -r)
ifneq ($(wildcard /lib/modules/$(KVER_RUNNING)/build/Makefile),)
KDIR ?= /lib/modules/$(KVER_RUNNING)/build
else
KDIR ?= $(shell scripts/debian-kdir.sh)
endif
KVER = $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)

PREFIX ?= /usr/local
DESTDIR ?=
LINUX_SRC := build/linux-src

CC ?= gcc
CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -Wno-unused-parameter -std=gnu11 -Iinclude/uapi
MNL_CFLAGS := $(shell pkg-config --cflags libmnl 2>/dev/null)
MNL_LIBS := $(shell pkg-config --libs libmnl 2>/dev/null || echo -lmnl)

RMEMCTL_SRCS := $(wildcard user/*.c)
RMEMCTL_HDRS := $(wildcard user/*.h) include/uapi/linux/rmem.h
KERNEL_SRCS := $(filter-out %.mod.c,$(wildcard kernel/*.c kernel/*.h)) include/uapi/linux/rmem.h

.PHONY: all module tool tests deps check check-debug debug-kernel debug-module bench-swap demo bench lab-shell lint checkpatch kernel-doc sparse \
	install clean print-kdir print-kver check-kdir check-spec

# what a host needs: the module and the tool (the tests come with make check)
all: module tool

check-kdir:
	@test -f "$(KDIR)/Makefile" || { echo "No kernel headers at KDIR='$(KDIR)'. Run 'make deps' or set KDIR=." >&2; exit 1; }

module: check-kdir
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

tool: user/rmemctl

user/rmemctl: $(RMEMCTL_SRCS) $(RMEMCTL_HDRS)
	$(CC) $(CFLAGS) $(MNL_CFLAGS) -o $@ $(RMEMCTL_SRCS) $(MNL_LIBS)

tests:
	$(MAKE) -C selftests

deps:
	@scripts/deps.sh

check: deps
	$(MAKE) all tests
	selftests/run.sh $(T)

# The debug lane: rmem.ko is built out of tree against the debug kernel in
# build/debug (the normal kernel/rmem.ko stays as it is).
DEBUG_MOD := $(CURDIR)/build/debug/mod

debug-kernel: deps
	scripts/debug-kernel.sh

debug-module: deps
	@dk=$$(scripts/debug-kernel.sh) && \
	rm -rf $(DEBUG_MOD) && mkdir -p $(DEBUG_MOD)/kernel && \
	cp Kbuild $(DEBUG_MOD)/ && cp -r include $(DEBUG_MOD)/ && \
	cp kernel/Kbuild kernel/*.[ch] $(DEBUG_MOD)/kernel/ && \
	$(MAKE) -C $$dk/tree M=$(DEBUG_MOD) modules

check-debug: deps
	$(MAKE) all tests debug-module
	RMEM_LAB_KERNEL=$$(scripts/debug-kernel.sh --path) \
	RMEM_KO=$(DEBUG_MOD)/kernel/rmem.ko \
	RMEM_TEST_TIMEOUT=$${RMEM_TEST_TIMEOUT:-1500} LAB_MEM=$${LAB_MEM:-1536} \
		selftests/run.sh $(T)

demo: deps
	$(MAKE) all
	selftests/demo.sh

bench: deps
	$(MAKE) all
	selftests/bench.sh $(TOPO)

bench-swap: deps
	$(MAKE) all tests
	selftests/bench_swap.sh

lab-shell: all
	selftests/lab/shell.sh $(TOPO)

checkpatch: deps
	perl $(LINUX_SRC)/scripts/checkpatch.pl --strict --no-tree --quiet \
		-f $(KERNEL_SRCS)

kernel-doc: deps
	perl $(LINUX_SRC)/scripts/kernel-doc -none -v $(KERNEL_SRCS) 2>&1 | tee build/kernel-doc.log
	@! grep -E 'warning|error' build/kernel-doc.log

sparse: check-kdir
	$(MAKE) -C $(KDIR) M=$(CURDIR) C=2 CF="-D__CHECK_ENDIAN__" modules 2>&1 | tee build/sparse.log
	@! grep -E 'warning:|error:' build/sparse.log

lint: checkpatch kernel-doc sparse

print-kdir:
	@echo $(KDIR)

print-kver:
	@echo $(KVER)

# DESTDIR stages everything (module included) under another root.
INSTALL_MOD_PATH ?= $(DESTDIR)

install: module tool
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_DIR=extra \
		INSTALL_MOD_PATH=$(INSTALL_MOD_PATH) modules_install
	depmod -a $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $(KVER)
	install -D -m 0755 user/rmemctl $(DESTDIR)$(PREFIX)/sbin/rmemctl
	install -D -m 0644 Documentation/rmemctl.8 $(DESTDIR)$(PREFIX)/share/man/man8/rmemctl.8

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C selftests clean
	rm -f user/rmemctl
	rm -rf build/lab

check-spec:
	python3 scripts/check-spec.py
