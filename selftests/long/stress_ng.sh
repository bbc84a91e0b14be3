#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The long stress-ng run: its verifying file stressors for 10 minutes on
# ext4 and 10 on xfs (2 and 2 on a debug kernel) under memory pressure,
# with ccache loaded (see progs/stressng.sh).  Full run only.
# VM: mem=320 cpus=2 disk=ext4:1G disk=xfs:1G timeout=2400 prepare=prep/stress_ng.sh
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh
secs=600
! cc_debug_kernel || secs=120
# shellcheck source=selftests/progs/stressng.sh
. ./progs/stressng.sh
