#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fsx and a compressible-data churn on ext4, their cgroups reclaimed all along,
# with ccache loaded: no read may differ from the model (see progs/fsx.sh).
# VM: mem=256 cpus=2 disk=ext4:512M timeout=180
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh
FS=ext4
# shellcheck source=selftests/progs/fsx.sh
. ./progs/fsx.sh
