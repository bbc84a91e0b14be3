# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The machine's own Debian archive entry, for scripts that need another
# suite or the source packages: entries are derived from it, so no mirror
# host name is ever written into the repository.  Needs die() from the
# sourcing script.

APT_DIR=/etc/apt/sources.list.d

# The deb822 stanza of the machine's main Debian archive (the one that
# carries the host's own codename), so derived entries use its mirror/keys.
archive_stanza() {
	local codename f
	codename=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release)
	for f in "$APT_DIR"/*.sources; do
		[[ $f == */ccache-* ]] && continue
		awk -v s="$codename" 'BEGIN { RS = ""; FS = "\n" } {
			for (i = 1; i <= NF; i++) if ($i ~ /^Suites:/) {
				n = split($i, w, /[ \t]+/)
				for (j = 2; j <= n; j++) if (w[j] == s) { print; found = 1; exit }
			}
		} END { exit !found }' "$f" && return
	done
	die "no deb822 entry for '$codename' in $APT_DIR/*.sources"
}

# with_suites STANZA "SUITE...": the stanza with its Suites: line replaced
with_suites() { awk -v s="$2" '/^Suites:/ { $0 = "Suites: " s } 1' <<<"$1"; }
