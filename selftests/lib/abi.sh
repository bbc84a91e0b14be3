# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Names from Documentation/ABI/testing/sysfs-kernel-mm-ccache, for the
# tests that hold the module (abi.sh, in a guest) and the admin guide
# (host/docs.sh) to it: the names come from there, never from the C code.

# abi_whats FILE: the paths of FILE's What: entries, without a trailing
# slash; "<backend>" stands for each directory of offload/
abi_whats() {
	sed -n 's/^What:[[:space:]]*//p' "$1" | sed 's/[[:space:]]*$//; s|/$||'
}

# abi_files FILE: the What: paths that name a file, not a directory (an
# entry for a directory ends in a slash)
abi_files() {
	sed -n 's/^What:[[:space:]]*\(.*[^/[:space:]]\)[[:space:]]*$/\1/p' "$1"
}

# abi_backends FILE: the offload backends that FILE's offload/ entry
# lists ("One directory per offload backend (A, B, C)"), one a line
abi_backends() {
	sed -n 's/.*One directory per offload backend (\([^)]*\)).*/\1/p' "$1" |
		tr -d ' ' | tr ',' '\n'
}
