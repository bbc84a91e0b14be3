#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# stress-ng's verifying file stressors on ext4 and xfs under memory
# pressure, with ccache loaded: no failure, and ccache served pages (see
# progs/stressng.sh).  30 s per filesystem, 120 on a debug kernel (there
# 60 s had 37 hits in one run and none in another: the stressors were
# still laying out their files).  A short soak: every stressor runs,
# verifies, and goes through ccache on both filesystems; the soak itself
# is long/stress_ng.sh's, 10 minutes per filesystem in the full run.
# VM: mem=320 cpus=2 disk=ext4:1G disk=xfs:1G timeout=420 prepare=prep/stress_ng.sh
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh
secs=30
! cc_debug_kernel || secs=120
# shellcheck source=selftests/progs/stressng.sh
. ./progs/stressng.sh
