# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Copying a host program or a guest kernel's modules into a guest's root:
# the guest runs the host's own binaries, so each goes in with the shared
# libraries ldd names, at the same paths.  Used for the base initramfs
# (tools/vm/initramfs.sh), by tests' host-side steps that add a program
# only their guest needs (selftests/prep/) and by the web benchmark's
# tools disk (tools/bench/web-bench.sh).

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

# copy_modules ROOT GUEST RELEASE MODULE...: the kernel modules MODULE...
# of GUEST's tree (a kernel from tools/kernels.sh) with what they depend on
# under ROOT/lib/modules/RELEASE, and a modules.dep for that subset, so
# that "modprobe -d ROOT MODULE" loads them in a guest; modules built into
# the kernel are skipped
copy_modules() {
	local root=$1 guest=$2 release=$3 m ko rel
	shift 3
	mkdir -p "$root/lib/modules/$release"
	cp "$guest/lib/modules/$release"/modules.{order,builtin,builtin.modinfo} \
		"$root/lib/modules/$release/"
	for m; do
		modprobe -d "$guest" -S "$release" --show-depends "$m" 2>/dev/null || true
	done | awk '$1 == "insmod" { print $2 }' | sort -u | while read -r ko; do
		rel=${ko#"$guest"}
		mkdir -p "$root$(dirname "$rel")"
		cp "$ko" "$root$rel"
	done
	depmod -b "$root" "$release"
}
