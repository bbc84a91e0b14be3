#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The long fsx run on ext4: two fsx processes of 500000 operations each (one
# million on the filesystem) with mmap, truncate and hole punching, beside
# a compressible-data churn that writes with O_DIRECT too (30 s rounds a
# minute apart), their cgroups reclaimed all along (see progs/fsx.sh).
# Full run only.
# VM: mem=256 cpus=2 disk=ext4:512M timeout=10800
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh
FS=ext4
# a debug kernel runs several times slower (tools/vm/boot.sh): as many
# times fewer operations there, for its checkers; the million is the stock
# kernels'
ops=$((500000 / ${CCACHE_SLOWDOWN:-1}))
reclaim_s=1
churn_pause_s=60
# no mapreads: fsx leaks their mappings (progs/fsx.sh)
mapread=0
# shellcheck source=selftests/progs/fsx.sh
. ./progs/fsx.sh
