#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build fsx, the file-system exerciser (Rust port, crates.io), with the
# patches in tools/patches/fsx-*.patch, and install it as $FSX_DEST.
#
# fsx 0.3.2 leaks a mapping per mapped read (see the patch): a long run
# ends in ENOMEM, and slows down long before.  The source comes from
# crates.io through cargo's own registry configuration; the build uses the
# crate's Cargo.lock.  Does nothing when $FSX_DEST exists and was built
# from this version and these patches ($FSX_DEST.stamp), and skips with a
# message when there is no cargo (the fsx tests then skip).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${CCDEV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ccache-dev}
FSX_DEST=${FSX_DEST:-/usr/local/libexec/ccache-dev/fsx}
version=0.3.2
work=$cache/fsx
log=$work/build.log

# shellcheck source=tools/lib/msg.sh
. "$here/lib/msg.sh"

stamp=$( { echo "$version"; cat "$here"/patches/fsx-*.patch; } | sha256sum)
[[ -x $FSX_DEST && $(cat "$FSX_DEST.stamp" 2>/dev/null) == "$stamp" ]] && exit 0
cargo=$(command -v cargo || echo "$HOME/.cargo/bin/cargo")
if [[ ! -x $cargo ]]; then
	msg "no cargo, so no fsx: the fsx tests will skip"
	exit 0
fi
msg "building fsx $version with tools/patches/fsx-*.patch (log: $log)"
rm -rf "$work" && mkdir -p "$work/src"
run() { logged "$log" "$@"; }

# a manifest that depends on fsx, for cargo vendor to fetch its source
cat >"$work/Cargo.toml" <<EOT
[package]
name = "fetch-fsx"
version = "0.0.0"
edition = "2021"
[dependencies]
fsx = "=$version"
EOT
touch "$work/src/main.rs"
(cd "$work" && run "$cargo" vendor --versioned-dirs vendor)
crate=$work/vendor/fsx-$version
for p in "$here"/patches/fsx-*.patch; do
	(cd "$crate" && run patch -p1 --no-backup-if-mismatch -i "$p")
done
run "$cargo" install --locked --root "$work/root" --path "$crate"
install -D -m 755 -s "$work/root/bin/fsx" "$FSX_DEST"
echo "$stamp" >"$FSX_DEST.stamp"
msg "installed fsx $version (patched) as $FSX_DEST"
rm -rf "$work/vendor" "$work/root" "$work/target"
