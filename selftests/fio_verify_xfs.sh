#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fio verify=crc32c on xfs under memory pressure, with ccache loaded: every
# block read back matches its checksum (see progs/fio.sh).
# VM: mem=256 cpus=2 disk=xfs:512M timeout=180
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh
FS=xfs
# shellcheck source=selftests/progs/fio.sh
. ./progs/fio.sh
