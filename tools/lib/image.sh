# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Filesystem images for guest disks (tools/vm/boot.sh, and web-bench.sh,
# which makes its data disk once for every configuration).

# fs_image FS SIZE IMG [DIR]: make IMG, SIZE bytes (truncate's units), an
# FS (ext4, xfs or raw) filesystem; ext4 gets DIR's files at mkfs time.
# Every inode table and the journal are written now, not lazily by the
# guest, whose disk may be throttled.
fs_image() {
	local from=()
	[[ -z ${4:-} ]] || from=(-d "$4")
	truncate -s "$2" "$3"
	case $1 in
	ext4) mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "${from[@]}" "$3" ;;
	xfs) mkfs.xfs -q -f "$3" ;;
	esac
}
