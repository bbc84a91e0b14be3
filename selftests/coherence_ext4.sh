#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Coherence on ext4: truncate, extend, punch hole, zero range, collapse and
# insert range, O_DIRECT write, buffered overwrite, rename-over, inode cache
# eviction and drop_caches, each while the file's old pages sit in ccache,
# each followed by reads that must match a model (see progs/coherence.sh).
# VM: mem=192 cpus=2 disk=ext4:512M timeout=150
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh
FS=ext4
# shellcheck source=selftests/progs/coherence.sh
. ./progs/coherence.sh
