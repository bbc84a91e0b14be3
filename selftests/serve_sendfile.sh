#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Re-reads through sendfile(2) after eviction are served by ccache with
# byte-identical data and fewer disk reads (see progs/serve.sh).
# VM: mem=192 cpus=2 disk=ext4:512M timeout=120
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh
HOW='sendfile'
# shellcheck source=selftests/progs/serve.sh
. ./progs/serve.sh
