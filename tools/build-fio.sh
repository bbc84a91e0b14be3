#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a lean, statically linked fio for the guests from the Debian source
# package of the host's release, and install it as $FIO_DEST.
#
# Debian's own fio links librbd, librados, libgfapi, libnbd and libpmem, 85
# MB of libraries with their dependencies: too much for an initramfs that
# lives in a small guest's RAM.  Built here with nothing but libc, fio is
# 5 MB and has what the tests use (psync, direct I/O, verify=crc32c).
# The source comes through a private deb-src list derived from the
# machine's own archive entry; the system's apt configuration is untouched.
# Does nothing when $FIO_DEST already exists.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${CCDEV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ccache-dev}
FIO_DEST=${FIO_DEST:-/usr/local/libexec/ccache-dev/fio}
work=$cache/fio
log=$work/build.log

# shellcheck source=tools/lib/msg.sh
. "$here/lib/msg.sh"
# shellcheck source=tools/lib/archive.sh
. "$here/lib/archive.sh"

[[ -x $FIO_DEST ]] && exit 0
msg "building a static fio from Debian's source package (log: $log)"
rm -rf "$work" && mkdir -p "$work/lists/partial" "$work/dl" "$work/src"
codename=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release)
with_suites "$(archive_stanza)" "$codename" |
	sed 's/^Types:.*/Types: deb-src/' >"$work/src.sources"

apt=(apt-get -q -o "Dir::Etc::SourceList=$work/src.sources"
	-o Dir::Etc::SourceParts=/nonexistent -o "Dir::State::Lists=$work/lists")
run() { logged "$log" "$@"; }
run "${apt[@]}" update
(cd "$work/dl" && run "${apt[@]}" source --download-only fio)
tarball=$(compgen -G "$work/dl/fio_*.orig.tar.*" | grep -v '\.asc$' | head -n 1) ||
	die "no fio source tarball in $work/dl"
run tar -xf "$tarball" -C "$work/src" --strip-components=1
cd "$work/src"
run ./configure --build-static --disable-native
run make -j"$(nproc)" fio
install -D -m 755 -s fio "$FIO_DEST"
msg "installed $("$FIO_DEST" --version) as $FIO_DEST"
rm -rf "$work/src" "$work/lists"
