# SPDX-License-Identifier: GPL-2.0
#
# ccache: the entry point for users and developers (Kbuild lists the objects).
#
#   make [KVER=RELEASE|SERIES] [KDIR=DIR]   build ccache.ko
#   make check      run the test suite in guests on the default kernel (6.1)
#   make matrix     build and run the whole suite on 6.1, 6.12 and 7.x
#   make demo       show ccache at work in a guest
#   make bench-offload  capture cost and streaming rate per offload backend
#   make shell      a shell in a guest with ccache loaded
#   make lint       checkpatch --strict and shellcheck
#   make install    install into /lib/modules/RELEASE and run depmod
#   make clean
#
# KVER takes a full release (6.1.0-56-amd64) or a series (6.1, 6.12, 7).
# With neither KVER nor KDIR: the running kernel when its headers are
# installed, else the newest installed headers.  check, matrix, demo and
# shell install what they need first (tools/setup.sh).

KERNELS := tools/kernels.sh
SETUP := tools/setup.sh
SRC := $(CURDIR)

ifeq ($(KDIR),)
ifeq ($(KVER),)
ifneq ($(wildcard /lib/modules/$(shell uname -r)/build/Makefile),)
override KVER := $(shell uname -r)
else
override KVER := $(patsubst /usr/src/linux-headers-%/Module.symvers,%, \
	$(lastword $(shell ls -v /usr/src/linux-headers-*/Module.symvers 2>/dev/null)))
endif
else ifeq ($(findstring -,$(KVER)),)
override KVER := $(shell $(KERNELS) resolve $(KVER))
endif
endif

# the project's own builds treat warnings as errors (see Kbuild)
export CCACHE_WERROR ?= y

.PHONY: all modules test-modules test-progs check matrix demo bench-offload \
	shell lint install clean

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

check:
	@$(SETUP)
	@$(MAKE) --no-print-directory KVER=6.1 modules test-modules test-progs
	@selftests/run.sh -k $$($(KERNELS) resolve 6.1)

matrix:
	@$(SETUP) --all
	@$(MAKE) --no-print-directory test-progs
	@set -e; for s in 6.1 6.12 7; do \
		$(MAKE) --no-print-directory KVER=$$s modules test-modules; \
		selftests/run.sh -k $$($(KERNELS) resolve $$s); \
	done

demo:
	@$(SETUP)
	@$(MAKE) --no-print-directory KVER=6.1 modules
	@tools/demo.sh

bench-offload:
	@$(SETUP)
	@$(MAKE) --no-print-directory KVER=6.1 modules test-modules
	@tools/offload-bench.sh

shell:
	@$(SETUP)
	@$(MAKE) --no-print-directory KVER=6.1 modules
	@tools/vm/boot.sh -i -d ext4:1G

lint:
	@selftests/host/lint.sh

install:
	$(MAKE) -C $(or $(KDIR),/lib/modules/$(KVER)/build) M=$(SRC) modules_install
	depmod -a $(KVER)

clean:
	rm -rf .tmp_versions
	find . selftests/modules -maxdepth 2 \( -name '*.o' -o -name '*.ko' -o -name '*.mod' \
		-o -name '*.mod.c' -o -name '.*.cmd' -o -name '*.symvers' -o -name '*.order' \
		-o -name '.*.d' \) -delete
