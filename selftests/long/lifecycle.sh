#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Lifecycle: 100 cycles (10 on a debug kernel) of load, I/O, a switch of
# compressor and pool size while loaded, and unload under load, with fsx
# running beside it all along; memory comes back to its level after the
# last unload (Slab within 4 MiB, MemFree within 8 MiB; see
# progs/lifecycle.sh).  Full run only.
# VM: mem=256 cpus=2 disk=ext4:512M disk=xfs:512M timeout=3600
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

cycles=100
! cc_debug_kernel || cycles=10
retune=1
with_fsx=1
# shellcheck source=selftests/progs/lifecycle.sh
. ./progs/lifecycle.sh
