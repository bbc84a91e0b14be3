#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the web benchmark's content: real files from Debian's documentation
# packages (HTML, CSS, JavaScript, images, JSON, text), laid out in
# SPECweb99's size classes with its request mix as the file counts:
#   class 0: < 1 KiB  35%     class 2: 10-100 KiB   14%
#   class 1: 1-10 KiB 50%     class 3: 100 KiB-1 MiB 1%
# until the set reaches SIZE_MIB.  Files are picked at random (fixed seed)
# within each class and copied unchanged; when a class runs out of real
# files, they are used again under another directory.  The layout is
#   OUT_DIR/www/dirNNNNN/NAME    100 files per directory, NAME the real
#                                file's name ("N-NAME" when two collide)
#   OUT_DIR/manifest             URL path, size, CRC32C: webload's input
#   OUT_DIR/summary              what the last lines printed say
# It prints a summary: size, files and pages, files per class, and the
# set's compressibility with lzop at its default level (LZO1X-1, as the
# kernel's lzo).  That ratio is for one stream over the concatenated files,
# not per 4 KiB page: the kernel compresses each page alone, with less
# history, and pages are rounded up, so ccache sees somewhat less.
#
# The packages are downloaded (apt-get download) and unpacked once into
# ${CCACHE_DEV_CACHE:-~/.cache/ccache-dev}/docset and reused.  An OUT_DIR
# already built with the same size and packages is left as it is.
#
# usage: build-docset.sh OUT_DIR SIZE_MIB
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build-docset.sh OUT_DIR SIZE_MIB}
mib=${2:?usage: build-docset.sh OUT_DIR SIZE_MIB}
while [[ $out == */ && $out != / ]]; do out=${out%/}; done
[[ $mib =~ ^[1-9][0-9]*$ ]] || { echo "build-docset: SIZE_MIB must be a whole number" >&2; exit 2; }
cache=${CCACHE_DEV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ccache-dev}/docset
per_dir=100
seed=19990101
# Debian 12's HTML documentation packages: 190 MiB to download, 3.3 GiB
# unpacked, 2.2 GiB of it web files under 1 MiB.  With 19,000 files of
# class 0 and 41,000 of class 1, sets above 490 MiB use some files twice.
packages=(
	rust-doc openjdk-17-doc python-pandas-doc ghc-doc scala-doc
	linux-doc-6.1 racket-doc erlang-doc libstdc++-12-doc
	qtbase5-doc-html python-scipy-doc libboost1.81-doc python3.11-doc
	llvm-15-doc python-django-doc cmake-doc libgtk-3-doc libglib2.0-doc
	postgresql-doc-15 nodejs-doc sphinx-doc clang-15-doc
)
stamp="size=$mib per_dir=$per_dir seed=$seed packages=${packages[*]}"

if [[ -d $out ]]; then
	if [[ -f $out/stamp && "$(cat "$out/stamp")" == "$stamp" && -f $out/summary ]]; then
		cat "$out/summary"
		exit 0
	fi
	if [[ ! -f $out/stamp && -n "$(ls -A "$out")" ]]; then
		echo "build-docset: $out exists and is not a docset: not touching it" >&2
		exit 1
	fi
fi

make -s -C "$here" webload

# download and unpack what is missing
mkdir -p "$cache/debs" "$cache/tree"
fetch=()
for p in "${packages[@]}"; do
	compgen -G "$cache/debs/${p}_*.deb" > /dev/null || fetch+=("$p")
done
if [[ ${#fetch[@]} -gt 0 ]]; then
	echo "build-docset: downloading ${fetch[*]}" >&2
	sandbox=()
	[[ $EUID != 0 ]] || sandbox=(-o APT::Sandbox::User=root)
	(cd "$cache/debs" && apt-get -q "${sandbox[@]}" download "${fetch[@]}" >&2)
fi
for p in "${packages[@]}"; do
	[[ -d $cache/tree/$p ]] && continue
	debs=("$cache/debs/${p}"_*.deb)
	echo "build-docset: unpacking ${debs[-1]##*/}" >&2
	rm -rf "$cache/tree/$p.tmp"
	dpkg-deb -x "${debs[-1]}" "$cache/tree/$p.tmp"
	mv "$cache/tree/$p.tmp" "$cache/tree/$p"
done

tmp=$out.tmp
rm -rf "$tmp"
mkdir -p "$tmp/www"
trap 'rm -rf "$tmp"' EXIT

# candidates: regular files of web types, 1 byte to 1 MiB - 1, with plain
# names (they become URL paths); then the picks, in directory order
(cd "$cache/tree" && find "${packages[@]}" -type f -size +0c -size -1048576c \
	-regextype posix-extended \
	-iregex '.*/[A-Za-z0-9_][A-Za-z0-9._+-]*\.(html?|css|js|json|txt|xml|svg|png|jpe?g|gif|ico|woff2?)' \
	-printf '%s\t%p\n') | LC_ALL=C sort -t "$(printf '\t')" -k2,2 > "$tmp/candidates"
awk -F '\t' -v target=$((mib << 20)) -v per_dir=$per_dir -v seed=$seed '
	function rnd() {	# Park-Miller: exact in any awk
		seed = (seed * 16807) % 2147483647
		return seed
	}
	{
		c = $1 < 1024 ? 0 : $1 < 10240 ? 1 : $1 < 102400 ? 2 : 3
		n[c]++
		size[c, n[c]] = $1
		path[c, n[c]] = $2
	}
	END {
		share[0] = 35; share[1] = 50; share[2] = 14; share[3] = 1
		for (c = 0; c < 4; c++) {
			if (!n[c]) {
				print "build-docset: no candidate files of class " c > "/dev/stderr"
				exit 1
			}
			for (i = n[c]; i > 1; i--) {
				j = rnd() % i + 1
				s = size[c, i]; size[c, i] = size[c, j]; size[c, j] = s
				p = path[c, i]; path[c, i] = path[c, j]; path[c, j] = p
			}
		}
		# each pick from the class furthest below its share
		while (total < target) {
			best = -1
			for (c = 0; c < 4; c++) {
				d = share[c] * (files + 1) - 100 * cnt[c]
				if (best < 0 || d > bestd) {
					best = c
					bestd = d
				}
			}
			k = cnt[best] % n[best] + 1
			cnt[best]++
			total += size[best, k]
			dir = sprintf("dir%05d", int(files / per_dir))
			files++
			name = path[best, k]
			sub(/.*\//, "", name)
			if ((dir, name) in seen)
				name = files "-" name
			seen[dir, name] = 1
			print dir "\t" name "\t" path[best, k]
		}
	}' "$tmp/candidates" > "$tmp/picks"

# copy: one cp per directory, and one per renamed file
echo "build-docset: copying $(wc -l < "$tmp/picks") files" >&2
cur='' batch=()
flush() {
	[[ ${#batch[@]} -eq 0 ]] || cp -t "$tmp/www/$cur" "${batch[@]}"
	batch=()
}
while IFS=$'\t' read -r dir name src; do
	if [[ $dir != "$cur" ]]; then
		flush
		cur=$dir
		mkdir "$tmp/www/$dir"
	fi
	if [[ $name == "${src##*/}" ]]; then
		batch+=("$cache/tree/$src")
	else
		cp "$cache/tree/$src" "$tmp/www/$dir/$name"
	fi
done < "$tmp/picks"
flush
chmod -R u=rwX,go=rX "$tmp/www"

echo "build-docset: writing the manifest" >&2
"$here/webload" -M "$tmp/www" > "$tmp/manifest"
echo "build-docset: compressing the set with lzop" >&2
lzo=$(cd "$tmp/www" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 cat -- |
	lzop -c | wc -c)
unique=$(cut -f3 "$tmp/picks" | sort -u | wc -l)
awk -v lzo="$lzo" -v unique="$unique" -v packages=${#packages[@]} -v out="$out" '
	{
		c = $2 < 1024 ? 0 : $2 < 10240 ? 1 : $2 < 102400 ? 2 : 3
		n[c]++
		b[c] += $2
		files++
		bytes += $2
		pages += int(($2 + 4095) / 4096)
	}
	END {
		printf "docset: %.1f MiB in %d files under %s/www (%d pages of 4 KiB,", bytes / 1048576, files, out, pages
		printf " %.1f MiB in the page cache)\n", pages / 256
		printf "  from %d Debian documentation packages: %d distinct files, %d copies\n", packages, unique, files - unique
		split("<1 KiB|1-10 KiB|10-100 KiB|100 KiB-1 MiB", label, "|")
		for (c = 0; c < 4; c++)
			printf "  class %d %-14s %8d files (%4.1f%%) %8.1f MiB\n", c, "(" label[c + 1] "):", n[c], 100 * n[c] / files, b[c] / 1048576
		printf "  lzop, default level, one stream over the files: %.1f -> %.1f MiB, ratio %.3f (%.2fx)\n", bytes / 1048576, lzo / 1048576, lzo / bytes, bytes / lzo
		printf "DOCSET mib=%.1f files=%d class0=%d class1=%d class2=%d class3=%d pages=%d distinct=%d lzop_ratio=%.3f\n", bytes / 1048576, files, n[0], n[1], n[2], n[3], pages, unique, lzo / bytes
	}' "$tmp/manifest" > "$tmp/summary"
rm -f "$tmp/candidates" "$tmp/picks"
echo "$stamp" > "$tmp/stamp"
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
cat "$out/summary"
