#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The long fsx run on xfs: two fsx processes of 500000 operations each
# (one million on the filesystem; 12000 each on a debug kernel) with
# mmap, truncate and hole punching, beside a compressible-data churn
# that writes with O_DIRECT too (30 s rounds a minute apart), their
# cgroups reclaimed all along (see progs/fsx.sh).  Full run only.
# VM: mem=256 cpus=2 disk=xfs:512M timeout=10800
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh
FS=xfs
long=1
# shellcheck source=selftests/progs/fsx.sh
. ./progs/fsx.sh
