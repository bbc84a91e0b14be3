#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fio verify=crc32c on ext4 under memory pressure, with ccache loaded: every
# block read back matches its checksum (see progs/fio.sh).
# VM: mem=256 cpus=2 disk=ext4:512M timeout=180
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh
FS=ext4
# shellcheck source=selftests/progs/fio.sh
. ./progs/fio.sh
