#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side of the stress-ng tests (their "# VM: prepare=" line; boot.sh
# runs it as "stress_ng.sh RELEASE STAGE" before the guest boots): puts
# the host's stress-ng, with its libraries, into that guest only (about
# 30 MB: too much for every guest's initramfs, see
# tools/vm/guest-programs).  Without it, the guest finds
# selftests/.prep/stress-ng.skip saying why.
set -euo pipefail

stage=${2:?usage: stress_ng.sh RELEASE STAGE}
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tools/lib/program.sh
. "$top/tools/lib/program.sh"

mkdir -p "$stage/selftests/.prep"
if [[ -x /usr/bin/stress-ng ]]; then
	copy_program "$stage" /usr/bin/stress-ng
else
	echo "no /usr/bin/stress-ng on the host (tools/setup.sh installs it)" \
		> "$stage/selftests/.prep/stress-ng.skip"
fi
