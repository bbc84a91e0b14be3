# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Setup of the host tests that run ccfile (host/churn.sh, host/model.sh),
# sourced in selftests/ after lib/tap.sh: $ccfile, the tool as built by
# "make test-progs" (the test fails without it), and $top, a directory of
# the test's own for its files and their models ($CCFILE_MODELS, so that
# none is left in /tmp/ccmodel), removed when the test exits.

ccfile=$PWD/progs/ccfile
[[ -x $ccfile ]] || { echo "# no $ccfile: run make test-progs"; exit 1; }
top=$(mktemp -d "${TMPDIR:-/tmp}/ccfile-test.XXXXXX")
trap 'rm -rf "$top"' EXIT
export CCFILE_MODELS=$top/models
