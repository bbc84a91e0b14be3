#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# "make dkms-deb" makes a Debian package holding what DKMS needs to build
# the module (/usr/src/ccache-VERSION: dkms.conf, Kbuild, the sources the
# Kbuild lists, no build products), ccachectl, the docs and the example
# configs; dpkg installs, removes and purges it in a throwaway root.  The
# maintainer scripts run there, chrooted, against a stand-in dkms that
# logs its arguments: postinst must hand the module to DKMS the way
# dh_dkms's does, prerm must remove it.  Nothing touches the host's dpkg
# database or DKMS (no --force-script-chrootless: that would run the
# scripts against the host's dkms).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=selftests/lib/tap.sh
. selftests/lib/tap.sh

command -v dpkg-deb >/dev/null || tap_skip_all "no dpkg-deb: not a Debian host"
top=$(mktemp -d "${TMPDIR:-/tmp}/ccache-package.XXXXXX") || exit 1
trap 'rm -rf "$top"' EXIT

version=$(sed -n 's/^#define CCACHE_VERSION "\(.*\)"$/\1/p' ccache/ccache.h)
pkg=ccache-dkms
deb=$top/dist/${pkg}_${version}_all.deb
usrc=/usr/src/ccache-$version
doc=/usr/share/doc/$pkg

# ---- the package ----
# SETUP=: the test installs nothing (make dkms-deb would install DKMS)
out=$(make -s --no-print-directory dkms-deb DIST="$top/dist" SETUP=: 2>&1)
check "make dkms-deb makes $(basename "$deb")" test -f "$deb"
[[ -f $deb ]] || { printf '%s\n' "$out" | tail -n 20 | sed 's/^/#   /'; tap_done; }

field() { dpkg-deb -f "$deb" "$1"; }
check_eq "Package" "$(field Package)" "$pkg"
check_eq "Version is CCACHE_VERSION" "$(field Version)" "$version"
check_eq "Architecture" "$(field Architecture)" all
check "Depends on dkms" grep -Eq '(^|, )dkms( |,|$)' <<<"$(field Depends)"

listing=$(dpkg-deb -c "$deb")
# paths: the files and links the package holds, as /path
paths=$(awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' <<<"$listing")
for f in "$usrc/dkms.conf" "$usrc/Kbuild" "$usrc/LICENSE" "$usrc/ccache/main.c" \
	/usr/sbin/ccachectl /etc/modprobe.d/ccache.conf \
	"$doc/copyright" "$doc/README.md" "$doc/README.Debian" \
	"$doc/examples/modules-load.d/ccache.conf"; do
	check "holds $f" grep -qxF "$f" <<<"$paths"
done
missing=$(sed -n 's/^\t\([a-z_-]*\/[a-z_]*\)\.o.*/\1.c/p' Kbuild | while read -r c; do
	grep -qxF "$usrc/$c" <<<"$paths" || echo "$c"
done)
check_eq "holds every source Kbuild lists" "$missing" ""
check_eq "holds no build products" \
	"$(grep -E '\.(o|ko|mod|cmd)$|\.mod\.c$|Module\.symvers|modules\.order' <<<"$paths")" ""
check_eq "holds nothing outside /usr/src, /usr/sbin, /usr/share/doc, /etc/modprobe.d" \
	"$(grep -Ev "^($usrc/|/usr/sbin/ccachectl$|$doc/|/etc/modprobe\.d/ccache\.conf$)" <<<"$paths")" ""
check "ccachectl is root's, mode 755" \
	grep -Eq '^-rwxr-xr-x root/root .* \./usr/sbin/ccachectl$' <<<"$listing"
check_eq "every file is root's" "$(awk '$2 != "root/root"' <<<"$listing")" ""
check_eq "/etc/modprobe.d/ccache.conf is a conffile" \
	"$(dpkg-deb -I "$deb" conffiles)" /etc/modprobe.d/ccache.conf
check_eq "dkms.conf in the package names version $version" \
	"$(dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ".$usrc/dkms.conf" |
		sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p')" "$version"

# ---- the example configs ----
conf=packaging/modprobe.d/ccache.conf
check_eq "$conf sets nothing (comments only)" "$(grep -Ev '^[[:space:]]*(#|$)' "$conf")" ""
# the knobs modprobe can set: not the read-only ones (mode 0444)
unexplained=$(grep -v '0444);$' ccache/params.c |
	sed -n 's/^module_param_cb(\([a-z_]*\),.*/\1/p' | while read -r k; do
	grep -q "^# $k: " "$conf" && grep -q "^#options ccache .*\<$k=" "$conf" || echo "$k"
done)
check_eq "$conf explains and shows every knob of ccache/params.c" "$unexplained" ""
check_eq "packaging/modules-load.d/ccache.conf loads ccache" \
	"$(grep -Ev '^[[:space:]]*(#|$)' packaging/modules-load.d/ccache.conf)" ccache

# ---- dpkg, in a throwaway root ----
if ((EUID != 0)); then
	tap_skip "dpkg installs the package in a throwaway root" "needs root (dpkg chroots for the scripts)"
	tap_done
fi
root=$top/root
log=/dkms.log
mkdir -p "$root/bin" "$root/usr/sbin" "$root/usr/lib/dkms" "$root/var/lib/dpkg/info" \
	"$root/var/lib/dpkg/updates" "$root/tmp"
touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
# the root's one program: a static busybox as /bin/sh
[[ -f /bin/busybox ]] && cp /bin/busybox "$root/bin/sh"
if ! chroot "$root" /bin/sh -c true 2>/dev/null; then
	tap_skip "dpkg installs the package in a throwaway root" \
		"no static /bin/busybox to run the scripts (tools/setup.sh installs busybox-static)"
	tap_done
fi
# the stand-ins log each call as "NAME [ARG]..."; "dkms status" says
# installed, so that prerm removes
stand_in() { # PATH NAME [SHELL LINE]
	printf '#!/bin/sh\n{ printf %s; printf " [%%s]" "$@"; echo; } >>%s\n%s\n' \
		"$2" "$log" "${3:-}" >"$root$1"
	chmod 755 "$root$1"
}
stand_in /usr/sbin/dkms dkms \
	"[ \"\$1\" != status ] || echo \"ccache/$version, 6.1.0-1-amd64, x86_64: installed\""
stand_in /usr/lib/dkms/common.postinst common.postinst

# shellcheck disable=SC2317 # called through run_check
dpkg_root() { dpkg --root="$root" --log="$top/dpkg.log" --force-depends "$@"; }
status_of() { dpkg-query --root="$root" -W -f='${Status}' "$pkg" 2>/dev/null; }
# dkms_log: the stand-ins' calls, "; " between them
dkms_log() { sed ':a;N;$!ba;s/\n/; /g' "$root$log" 2>/dev/null; }

run_check "dpkg -i (postinst chrooted, stand-in dkms)" dpkg_root -i "$deb"
check_eq "dpkg -s: installed" "$(status_of)" "install ok installed"
for f in "$usrc/dkms.conf" "$usrc/Kbuild" "$usrc/ccache/main.c" /usr/sbin/ccachectl \
	/etc/modprobe.d/ccache.conf "$doc/examples/modules-load.d/ccache.conf"; do
	check "installed $f" test -f "$root$f"
done
check_eq "postinst: DKMS's common.postinst, as dh_dkms calls it" "$(dkms_log)" \
	"common.postinst [ccache] [$version] [/usr/share/$pkg] [] []"
: >"$root$log"
run_check "dpkg -r" dpkg_root -r "$pkg"
check_eq "prerm: dkms remove -m ccache -v $version --all" "$(dkms_log)" \
	"dkms [status] [-m] [ccache] [-v] [$version]; dkms [remove] [-m] [ccache] [-v] [$version] [--all]"
check_eq "dpkg -s after -r: config-files" "$(status_of)" "deinstall ok config-files"
check "dpkg -r removed $usrc" test ! -e "$root$usrc"
check "dpkg -r kept the conffile" test -f "$root/etc/modprobe.d/ccache.conf"
run_check "dpkg -P" dpkg_root -P "$pkg"
check "dpkg -P removed the conffile" test ! -e "$root/etc/modprobe.d/ccache.conf"

# a DKMS without Debian's common.postinst: the plain commands
rm "$root/usr/lib/dkms/common.postinst"
: >"$root$log"
run_check "dpkg -i without common.postinst" dpkg_root -i "$deb"
check_eq "postinst: dkms add, dkms autoinstall" "$(dkms_log)" \
	"dkms [add] [-m] [ccache] [-v] [$version]; dkms [autoinstall]"
tap_done
