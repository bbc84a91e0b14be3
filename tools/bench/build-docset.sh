#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the web benchmark's content: real files from Debian 12's packages,
# in size classes with a share of the files in each, until the set reaches
# SIZE_MIB.  Two profiles:
#
# docset (the default): SPECweb99-like pages.  Files of web types (HTML,
#   CSS, JavaScript, images, JSON, text) from Debian's documentation
#   packages, in SPECweb99's size classes with its request mix as the
#   file counts:
#     class 0: < 1 KiB  35%     class 2: 10-100 KiB   14%
#     class 1: 1-10 KiB 50%     class 3: 100 KiB-1 MiB 1%
# support: like SPECweb2005's Support workload, downloads of larger files,
#   with contents mixed like the Silesia corpus (programs and libraries,
#   source, text, XML, data) whose LZO ratio is about 0.41.  Files of any
#   type but already-compressed ones, in three classes:
#     class 0: 16-100 KiB 60%   class 1: 100 KiB-1 MiB 35%   class 2: 1-4 MiB 5%
#   (our shares: most downloads are small, and half the bytes are in the
#   files of 1-4 MiB).
#
# Files are picked at random (fixed seed) within each class and copied
# unchanged; when a class runs out of real files, they are used again
# under another directory.  The layout is
#   OUT_DIR/www/dirNNNNN/NAME    100 files per directory, NAME the real
#                                file's name ("N-NAME" when two collide)
#   OUT_DIR/manifest             URL path, size, CRC32C: webload's input
#   OUT_DIR/summary              what the last lines printed say
#   OUT_DIR/stamp                the profile, size, seed and packages
# It prints a summary: size, files and pages, files per class, and the
# set's compressibility with lzop at its default level (LZO1X-1, as the
# kernel's lzo).  That ratio is for one stream over the concatenated files,
# not per 4 KiB page: the kernel compresses each page alone, with less
# history, and pages are rounded up, so ccache sees somewhat less.
#
# The packages are downloaded (apt-get download) and unpacked once into
# ${CCDEV_CACHE:-~/.cache/ccache-dev}/PROFILE and reused.  An OUT_DIR
# already built with the same profile, size and packages is left as it is.
#
# usage: build-docset.sh [--profile docset|support] OUT_DIR SIZE_MIB
set -euo pipefail

usage='usage: build-docset.sh [--profile docset|support] OUT_DIR SIZE_MIB'
profile=docset
if [[ ${1-} == --profile ]]; then
	profile=${2:?$usage}
	shift 2
fi
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?$usage}
mib=${2:?$usage}
while [[ $out == */ && $out != / ]]; do out=${out%/}; done
[[ $mib =~ ^[1-9][0-9]*$ ]] || { echo "build-docset: SIZE_MIB must be a whole number" >&2; exit 2; }
per_dir=100
seed=19990101
# Per profile: the packages; the size classes, class c holding files of
# edges[c] to edges[c + 1] - 1 bytes and shares[c]% of the files; which
# names to take (-iregex over the path: plain names, as they become URL
# paths); the words the summary uses.
case $profile in
docset)
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
	edges=(1 1024 10240 102400 1048576)
	shares=(35 50 14 1)
	labels='<1 KiB|1-10 KiB|10-100 KiB|100 KiB-1 MiB'
	names=(-iregex '.*/[A-Za-z0-9_][A-Za-z0-9._+-]*\.(html?|css|js|json|txt|xml|svg|png|jpe?g|gif|ico|woff2?)')
	what='Debian documentation packages'
	tag=DOCSET
	;;
support)
	# Binary packages (amd64 here) standing in for Silesia's files: 185 MiB
	# to download, 1.2 GiB unpacked, 5,450 candidate files in 580 MiB but
	# only 87 of 1-4 MiB, so sets above 380 MiB use some of those twice
	# (above 580 MiB, some others too).  By bytes a set is 45% ELF programs
	# and libraries (lzop ratio 0.48, most of the 1-4 MiB class: a support
	# site's downloads are mostly programs and drivers), 35% source and
	# text (0.32), 20% XML, data, translations and Lisp bytecode; 0.41 in
	# all.  The ratio rests on the mix (adding libboost1.81-dev's headers,
	# 0.16, or unicode-cldr-core's XML, 0.21, takes it to 0.37) and moves
	# by about 0.01 with which 1-4 MiB files are picked.
	packages=(
		# programs and shared libraries (Silesia's mozilla, ooffice)
		libreoffice-core	# office suite's libraries, like ooffice
		libvtk9.1		# 130 C++ libraries of 0.1-4 MiB
		samba-libs		# Samba's libraries (Silesia has its source)
		coreutils		# a hundred small programs
		llvm-15			# compiler tools of 0.1-4 MiB
		binutils-x86-64-linux-gnu	# linkers and object tools
		libperl5.36		# libperl and Perl's compiled modules
		vlc-plugin-base gstreamer1.0-plugins-bad	# media plugins
		gimp			# an image editor and its plug-ins
		libqt5gui5		# Qt's GUI library plugins
		mariadb-server-core	# a database server, its SQL help tables
		# source and text (Silesia's samba, dickens, webster)
		golang-1.19-src		# Go's standard library and tests
		rust-src		# Rust's standard library
		libstdc++-12-dev	# C++ headers
		perl-modules-5.36 libpython3.11-stdlib	# Perl and Python code
		libgtk-3-dev		# C headers, GTK's introspection XML
		wamerican-huge miscfiles	# word lists (web2: Webster's 2nd)
		wordnet-base		# the WordNet English dictionary, as text
		fortunes		# English prose and quotations
		# XML (Silesia's xml)
		docbook-xsl		# XSL stylesheets
		libgirepository1.0-dev	# GLib's introspection XML
		shared-mime-info	# the MIME database's XML
		opencv-data		# trained classifiers as XML
		# data (Silesia's nci, osdb, sao, mr, x-ray)
		unicode-data		# the Unicode character database's tables
		ieee-data		# the IEEE's registries (OUI) as text and CSV
		iso-codes		# JSON tables and their translations (.mo)
		libopenbabel7		# chemistry library and data (Silesia's nci)
		ncbi-data		# NCBI's sequence data and tables
		fonts-freefont-ttf	# TrueType fonts: binary, less compressible
		emacs-common		# byte-compiled Lisp: programs of another kind
	)
	edges=(16384 102400 1048576 4194304)
	shares=(60 35 5)
	labels='16-100 KiB|100 KiB-1 MiB|1-4 MiB'
	# any type but the compressed ones: they would not be Silesia-like
	names=(-iregex '.*/[A-Za-z0-9_][A-Za-z0-9._+-]*'
		! -iregex '.*\.(gz|tgz|bz2|xz|lz|lzma|zst|zip|jar|7z|png|gif|jpe?g|webp|woff2?|ogg|oga|mp3|flac|pdf)')
	what='Debian packages'
	tag=SUPPORTSET
	;;
*)
	echo "build-docset: no profile $profile: docset or support" >&2
	exit 2
	;;
esac
cache=${CCDEV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ccache-dev}/$profile
# the docset's stamp is the one it always had (no profile=): docsets
# built before profiles are not rebuilt
stamp="size=$mib per_dir=$per_dir seed=$seed packages=${packages[*]}"
[[ $profile == docset ]] || stamp="profile=$profile $stamp"

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

# awk, for the picks and the summary: the class of a size
classes='BEGIN { ne = split(edges, edge, " "); nc = ne - 1 }
	function class(sz,   c) {
		for (c = 0; c + 2 < ne && sz >= edge[c + 2]; c++)
			;
		return c
	}'

# candidates: regular files of the profile's names and sizes; then the
# picks, in directory order
(cd "$cache/tree" && find "${packages[@]}" -type f -size +$((edges[0] - 1))c -size -"${edges[-1]}"c \
	-regextype posix-extended "${names[@]}" \
	-printf '%s\t%p\n') | LC_ALL=C sort -t "$(printf '\t')" -k2,2 > "$tmp/candidates"
awk -F '\t' -v target=$((mib << 20)) -v per_dir=$per_dir -v seed=$seed \
	-v edges="${edges[*]}" -v shares="${shares[*]}" "$classes"'
	function rnd() {	# Park-Miller: exact in any awk
		seed = (seed * 16807) % 2147483647
		return seed
	}
	{
		c = class($1)
		n[c]++
		size[c, n[c]] = $1
		path[c, n[c]] = $2
	}
	END {
		split(shares, share, " ")
		for (c = 0; c < nc; c++) {
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
			for (c = 0; c < nc; c++) {
				d = share[c + 1] * (files + 1) - 100 * cnt[c]
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
awk -v lzo="$lzo" -v unique="$unique" -v packages=${#packages[@]} -v out="$out" \
	-v edges="${edges[*]}" -v labels="$labels" -v profile="$profile" \
	-v what="$what" -v tag="$tag" "$classes"'
	{
		c = class($2)
		n[c]++
		b[c] += $2
		files++
		bytes += $2
		pages += int(($2 + 4095) / 4096)
	}
	END {
		printf "%s: %.1f MiB in %d files under %s/www (%d pages of 4 KiB,", profile, bytes / 1048576, files, out, pages
		printf " %.1f MiB in the page cache)\n", pages / 256
		printf "  from %d %s: %d distinct files, %d copies\n", packages, what, unique, files - unique
		split(labels, label, "|")
		for (c = 0; c < nc; c++)
			printf "  class %d %-14s %8d files (%4.1f%%) %8.1f MiB\n", c, "(" label[c + 1] "):", n[c], 100 * n[c] / files, b[c] / 1048576
		printf "  lzop, default level, one stream over the files: %.1f -> %.1f MiB, ratio %.3f (%.2fx)\n", bytes / 1048576, lzo / 1048576, lzo / bytes, bytes / lzo
		printf "%s mib=%.1f files=%d", tag, bytes / 1048576, files
		for (c = 0; c < nc; c++)
			printf " class%d=%d", c, n[c]
		printf " pages=%d distinct=%d lzop_ratio=%.3f\n", pages, unique, lzo / bytes
	}' "$tmp/manifest" > "$tmp/summary"
rm -f "$tmp/candidates" "$tmp/picks"
echo "$stamp" > "$tmp/stamp"
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
cat "$out/summary"
