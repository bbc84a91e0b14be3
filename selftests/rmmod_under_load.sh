#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ccache unloads safely under load, 6 times (5 on a debug kernel; see
# progs/lifecycle.sh): each compressor twice.  long/lifecycle.sh repeats
# it 100 times in the full run.
# VM: mem=256 cpus=2 disk=ext4:512M disk=xfs:512M timeout=400
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

cycles=6
! cc_debug_kernel || cycles=5
# shellcheck source=selftests/progs/lifecycle.sh
. ./progs/lifecycle.sh
