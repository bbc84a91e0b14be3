# SPDX-License-Identifier: GPL-2.0
#
# ccache: the entry point for users and developers (Kbuild lists the objects).
#
#   make [KVER=RELEASE|SERIES] [KDIR=DIR] [CCDEV_FAULT_INJECT=y]
#                   build ccache.ko (=y: a test build, as make check's)
#   make check      run the test suite in guests on the default kernel (6.1;
#                   KERNEL=6.12, 7 or 6.1-debug for another)
#   make check-full the same with every offload backend through every core
#                   test (selftests/variants) and the long runs (long/)
#   make check-debug make check on the debug kernel (KASAN, lockdep,
#                   kmemleak...), built first unless cached (FULL=1:
#                   make check-full on it)
#   make matrix     make check-full on 6.1, 6.12, 7.x and the debug kernel
#   make demo       show ccache at work in a guest (KERNEL= as for check)
#   make bench-offload  capture cost and streaming rate per offload backend
#   make bench-web  web (nginx, Apache) and fio benchmark, ccache against the
#                   plain kernel, report in ~/.cache/ccache-dev/bench/runs
#                   (QUICK=1: three configurations once, under 12 minutes;
#                   REPS=N: N repetitions of each, default 3; KERNEL= as
#                   for check)
#   make bench-cluster  N guests (SERVERS=N, default 2) behind HAProxy on the
#                   host, round-robin against URI hashing, with and without
#                   ccache (QUICK=1, REPS=N, KERNEL= as above; FULL_DISK=1:
#                   each server the whole calibrated disk, not its share)
#   make walkthrough  packaging/README.rst's walk-through in a guest
#                   (selftests/walkthrough.sh: the DKMS package, perf)
#   make shell      a shell in a guest with ccache loaded
#   make lint       checkpatch --strict and shellcheck
#   make install    install into /lib/modules/RELEASE and run depmod, then
#                   install-tools (DESTDIR=ROOT: into another root)
#   make install-tools  ccachectl (SBINDIR=) and the modprobe.d example
#   make dkms-src   the DKMS source tree, dist/ccache-VERSION
#   make dkms-deb   the Debian package dist/ccache-dkms_VERSION_all.deb
#   make clean
#
# KVER takes a full release (6.1.0-56-amd64) or a series (6.1, 6.12, 7,
# 6.1-debug: tools/debug-kernel.sh's kernel).
# With neither KVER nor KDIR: the running kernel when its headers are
# installed, else the newest installed headers.  check, matrix, demo,
# bench-*, walkthrough, shell and dkms-deb install what they need first,
# each for its own purpose (tools/setup.sh --for; SETUP=: skips it).

KERNELS := tools/kernels.sh
SETUP ?= tools/setup.sh
SRC := $(CURDIR)
DEBUG_KERNEL := tools/debug-kernel.sh

# The version has one definition, CCACHE_VERSION in ccache/ccache.h.
VERSION := $(shell sed -n 's/^.define CCACHE_VERSION "\(.*\)"$$/\1/p' ccache/ccache.h)
# make install: ccachectl goes to SBINDIR (the package's is /usr/sbin)
SBINDIR ?= /usr/local/sbin
# make dkms-src / dkms-deb: everything DKMS needs to build the module
DIST := dist
DKMS_SRC := $(DIST)/ccache-$(VERSION)
DKMS_FILES := Kbuild LICENSE \
	$(sort $(wildcard ccache/*.[ch] crypto/*.[ch] spu-offload/*.[ch] include/*.h))
DEB_PKG := ccache-dkms
DEB := $(DIST)/$(DEB_PKG)_$(VERSION)_all.deb

ifeq ($(KDIR),)
ifeq ($(KVER),)
ifneq ($(wildcard /lib/modules/$(shell uname -r)/build/Makefile),)
override KVER := $(shell uname -r)
else
override KVER := $(patsubst /usr/src/linux-headers-%/Module.symvers,%, \
	$(lastword $(shell ls -v /usr/src/linux-headers-*/Module.symvers 2>/dev/null)))
endif
else ifeq ($(findstring -,$(KVER:%-debug=%)),)
override KVER := $(shell $(KERNELS) resolve $(KVER))
endif
endif

# the project's own builds treat warnings as errors (see Kbuild)
export CCDEV_WERROR ?= y
# CCDEV_FAULT_INJECT=y: a test build, with the test-only fault_inject
# knob (Kbuild); make check, check-full and walkthrough build one, the rest
# build for users.  selftests/run.sh refuses a build without it.
export CCDEV_FAULT_INJECT

.PHONY: all modules test-modules test-progs check check-full check-debug matrix demo bench-offload \
	bench-web bench-cluster walkthrough shell lint install install-tools dkms-src dkms-deb clean

all: modules

modules:
ifneq ($(KDIR),)
	$(MAKE) -C $(KDIR) M=$(SRC) modules
else
	@test -n "$(KVER)" || { echo "No kernel headers found: run $(SETUP) or pass KVER= / KDIR="; exit 1; }
	@echo "Building ccache.ko for $(KVER)"
	@rm -f ccache.ko	# a 7.x build copies its .ko in: never keep another kernel's
	@$(KERNELS) kbuild $(KVER) $(SRC) modules
endif

# test-only modules loaded by some selftests
test-modules:
	@rm -f selftests/modules/*.ko
	@$(KERNELS) kbuild $(KVER) $(SRC)/selftests/modules modules

# test-only programs run in guests (static binaries)
test-progs:
	@$(MAKE) --no-print-directory -C selftests/progs

# KERNEL: a series (6.1, 6.12, 7) or 6.1-debug, tools/debug-kernel.sh's
# kernel (built first when not cached, up to an hour); the guests' kernel
# of check, demo and the benchmarks.  Setup installs the other series'
# kernels when asked for one.
KERNEL ?= 6.1
SETUP_KERNELS = $(if $(filter 6.1 6.1-debug,$(KERNEL)),,--all)
GUEST_KVER = CCDEV_KVER=$$($(KERNELS) resolve $(KERNEL))

check check-full:
	@$(SETUP) $(SETUP_KERNELS) --for check \
		$(if $(filter 6.1-debug,$(KERNEL)),--for debug)
	@$(if $(filter 6.1-debug,$(KERNEL)),$(DEBUG_KERNEL) >/dev/null)
	@# one release for the build and the guests, though the archive may
	@# offer a newer one meanwhile (an apt-get update by anything else)
	@rel=$$($(KERNELS) resolve $(KERNEL)) && \
	$(MAKE) --no-print-directory KVER=$$rel CCDEV_FAULT_INJECT=y \
		modules test-modules test-progs && \
	selftests/run.sh $(if $(filter check-full,$@),-f) -k $$rel

check-debug:
	@$(MAKE) --no-print-directory $(if $(filter-out 0,$(FULL)),check-full,check) KERNEL=6.1-debug

matrix:
	@set -e; for k in 6.1 6.12 7 6.1-debug; do \
		$(MAKE) --no-print-directory check-full KERNEL=$$k; \
	done

demo:
	@$(SETUP) $(SETUP_KERNELS) --for guest
	@$(MAKE) --no-print-directory KVER=$(KERNEL) modules
	@$(GUEST_KVER) tools/demo.sh

bench-offload:
	@$(SETUP) --for guest
	@$(MAKE) --no-print-directory KVER=6.1 modules test-modules
	@tools/offload-bench.sh

bench-web:
	@$(SETUP) $(SETUP_KERNELS) --for bench
	@$(MAKE) --no-print-directory KVER=$(KERNEL) modules
	@$(GUEST_KVER) tools/bench/web-bench.sh $(if $(filter-out 0,$(QUICK)),--quick) $(if $(REPS),-r $(REPS))

bench-cluster:
	@$(SETUP) $(SETUP_KERNELS) --for bench
	@$(MAKE) --no-print-directory KVER=$(KERNEL) modules
	@$(GUEST_KVER) tools/bench/web-bench.sh --cluster $(or $(SERVERS),2) \
		$(if $(filter-out 0,$(QUICK)),--quick) $(if $(REPS),-r $(REPS)) \
		$(if $(filter-out 0,$(FULL_DISK)),--full-disk)

walkthrough:
	@$(SETUP) --for walkthrough
	@$(MAKE) --no-print-directory KVER=6.1 CCDEV_FAULT_INJECT=y modules test-modules test-progs
	@selftests/run.sh -k $$($(KERNELS) resolve 6.1) walkthrough.sh

shell:
	@$(SETUP) --for guest
	@$(MAKE) --no-print-directory KVER=6.1 modules
	@tools/vm/boot.sh -i -d ext4:1G

lint:
	@selftests/host/lint.sh

# DESTDIR=ROOT installs everything into ROOT, INSTALL_MOD_PATH=ROOT (as in
# kbuild) only the module; depmod then writes ROOT's modules.dep.
INSTALL_MOD_PATH ?= $(DESTDIR)
MOD_ROOT := $(if $(INSTALL_MOD_PATH),$(abspath $(INSTALL_MOD_PATH)))
install:
ifneq ($(KVER),)
	@# builds for every kernel share ccache.ko: install only the right one
	@modinfo -F vermagic ccache.ko 2>/dev/null | grep -q '^$(KVER) ' || \
		{ echo "ccache.ko is not built for $(KVER): run make KVER=$(KVER)"; exit 1; }
endif
	@# make check leaves a test build: never install its fault_inject knob
	@! modinfo -F parm ccache.ko 2>/dev/null | grep -q '^fault_inject:' || \
		{ echo "ccache.ko is a test build (fault_inject): run make$(if $(KVER), KVER=$(KVER)) first"; exit 1; }
ifneq ($(KDIR)$(wildcard /lib/modules/$(KVER)/build/Makefile),)
	$(MAKE) -C $(or $(KDIR),/lib/modules/$(KVER)/build) M=$(SRC) \
		INSTALL_MOD_PATH=$(MOD_ROOT) modules_install
else
	@# headers only in kernels.sh's build root (7.x here): what
	@# modules_install does, without signing
	install -D -m 644 ccache.ko $(MOD_ROOT)/lib/modules/$(KVER)/extra/ccache.ko
endif
	depmod -a $(if $(MOD_ROOT),-b $(MOD_ROOT)) $(KVER)
	$(call install-tools,$(DESTDIR),$(SBINDIR))

# $(call install-tools,ROOT,SBINDIR): ccachectl, and the modprobe.d example
# (comments only) unless the admin already has one.  Not the modules-load.d
# file: loading at boot is the admin's choice (packaging/README.rst).
install-tools = install -D -m 755 tools/ccachectl $(1)$(2)/ccachectl && \
	{ test -e $(1)/etc/modprobe.d/ccache.conf || install -D -m 644 \
		packaging/modprobe.d/ccache.conf $(1)/etc/modprobe.d/ccache.conf; }
install-tools:
	$(call install-tools,$(DESTDIR),$(SBINDIR))

# the tree that goes to /usr/src/ccache-VERSION: sources, Kbuild, dkms.conf
dkms-src:
	@test -n "$(VERSION)" || { echo "no CCACHE_VERSION in ccache/ccache.h"; exit 1; }
	@rm -rf $(DKMS_SRC)
	@for f in $(DKMS_FILES); do install -D -m 644 $$f $(DKMS_SRC)/$$f || exit; done
	@sed 's/@VERSION@/$(VERSION)/g' dkms.conf > $(DKMS_SRC)/dkms.conf
	@echo "DKMS source tree: $(DKMS_SRC)"

# A Debian package built with dpkg-deb alone (no debhelper): the DKMS
# source tree, ccachectl, the docs and examples, and maintainer scripts
# that do what dh_dkms's do.
DEB_ROOT := $(DIST)/deb
DEB_DOC := $(DEB_ROOT)/usr/share/doc/$(DEB_PKG)
dkms-deb: dkms-src
	@$(SETUP) --for package
	@rm -rf $(DEB_ROOT) $(DEB)
	@mkdir -p $(DEB_ROOT)/usr/src $(DEB_ROOT)/DEBIAN
	@cp -R $(DKMS_SRC) $(DEB_ROOT)/usr/src/
	@$(call install-tools,$(DEB_ROOT),/usr/sbin)
	@install -D -m 644 README.md $(DEB_DOC)/README.md
	@install -D -m 644 packaging/README.rst $(DEB_DOC)/README.Debian
	@install -D -m 644 packaging/copyright $(DEB_DOC)/copyright
	@install -D -m 644 packaging/modules-load.d/ccache.conf \
		$(DEB_DOC)/examples/modules-load.d/ccache.conf
	@for f in postinst prerm; do \
		sed 's/@VERSION@/$(VERSION)/g' packaging/$$f > $(DEB_ROOT)/DEBIAN/$$f || exit; \
	done
	@echo /etc/modprobe.d/ccache.conf > $(DEB_ROOT)/DEBIAN/conffiles
	@chmod -R u=rwX,go=rX $(DEB_ROOT)
	@chmod 755 $(DEB_ROOT)/DEBIAN/postinst $(DEB_ROOT)/DEBIAN/prerm
	@sed -e 's/@VERSION@/$(VERSION)/g' \
		-e "s/@SIZE@/$$(du -sk --exclude=DEBIAN $(DEB_ROOT) | cut -f1)/" \
		packaging/control > $(DEB_ROOT)/DEBIAN/control
	@SOURCE_DATE_EPOCH=$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct 2>/dev/null || date +%s)} \
		dpkg-deb --build --root-owner-group $(DEB_ROOT) $(DEB) >/dev/null
	@echo "Debian package: $(DEB)"

clean:
	rm -rf $(DIST)
	rm -rf .tmp_versions
	find . selftests/modules -maxdepth 2 \( -name '*.o' -o -name '*.ko' -o -name '*.mod' \
		-o -name '*.mod.c' -o -name '.*.cmd' -o -name '*.symvers' -o -name '*.order' \
		-o -name '.*.d' \) -delete
