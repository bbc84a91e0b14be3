# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Copying a host program into a guest's root: the guest runs the host's
# own binaries, so each goes in with the shared libraries ldd names, at
# the same paths.  Used for the base initramfs (tools/vm/initramfs.sh)
# and by tests' host-side steps that add a program only their guest needs
# (selftests/prep/).

# copy_program ROOT PATH: PATH (symlinks followed) and its libraries under
# ROOT; libraries already there are kept
copy_program() {
	local lib
	mkdir -p "$1$(dirname "$2")"
	cp -L "$2" "$1$2"
	for lib in $(ldd "$2" 2>/dev/null | grep -o '/[^ ]*' || true); do
		mkdir -p "$1$(dirname "$lib")"
		cp -Ln "$lib" "$1$lib"
	done
}
