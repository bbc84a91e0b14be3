#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Hostile input: every knob is written with negative, huge, non-numeric,
# empty, overlong and binary values, by root and by an unprivileged user.
# Every such write must fail, leave the knob's value as it was, and log
# nothing above warning level; the statistics refuse every write; the
# write-only flush file refuses every such value too (flush.sh checks
# that a refused write drops nothing) and cannot be read.
# VM: mem=192 timeout=240
. ./lib/tap.sh

P=/sys/module/ccache/parameters
S=/sys/kernel/mm/ccache
tried=0 refused=0

check "modprobe ccache" /sbin/modprobe ccache
dmesg -c > /dev/null

# the values, one file each (binary ones cannot live in shell variables)
V=/tmp/hostile
mkdir -p $V
printf '%s' -1 > $V/negative
printf '%s' -2147483649 > $V/negative-huge
printf '%s' 99999999999999999999 > $V/huge
printf '%s' 4294967296 > $V/u32-overflow
printf '%s' 18446744073709551617 > $V/u64-overflow
printf '%s' abc > $V/word
printf '%s' 1x > $V/trailing-junk
printf '%s' 0x10 > $V/hex
printf '%s' 1e3 > $V/exponent
printf '' > $V/empty
printf ' ' > $V/space
printf '\n' > $V/newline
printf '%s\n%s' lzo zstd > $V/two-lines
printf '%%s%%n%%p' > $V/format
printf '%s' ../lzo > $V/path
head -c 300 /dev/zero | tr '\0' a > $V/overlong
head -c 4096 /dev/zero | tr '\0' 7 > $V/page
head -c 8192 /dev/zero | tr '\0' 1 > $V/two-pages
printf '\001\377\000zz' > $V/binary
printf '\000' > $V/nul
head -c 64 /dev/urandom > $V/random

# try KNOB VALUE-FILE [USER]: one hostile write, as root or as USER; a
# check that it failed and the knob kept its value.  An empty file makes
# no write(2) at all: then only the value is checked.
try() {
	before=$(cat "$P/$1")
	if [ -n "${3:-}" ]; then
		su -s /bin/sh "$3" -c "cat $V/$2 > $P/$1" 2>/dev/null
	else
		sh -c "cat $V/$2 > $P/$1" 2>/dev/null
	fi
	st=$?
	after=$(cat "$P/$1")
	if [ -s "$V/$2" ]; then
		tried=$((tried + 1))
		[ $st -eq 0 ] || refused=$((refused + 1))
	else
		st=1	# nothing was written
	fi
	[ $st -ne 0 ] && [ "$after" = "$before" ]
	tap_result $? "$1 <- $2${3:+ (as $3)}: refused, value kept"
	[ $st -ne 0 ] || echo "#   the write succeeded: '$before' -> '$after'"
}

for k in "$P"/*; do
	k=${k##*/}
	for v in "$V"/*; do
		v=${v##*/}
		try "$k" "$v"
	done
done

# unprivileged: every knob refuses even a valid value (its own)
grep -q '^nobody:' /etc/passwd ||
	echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >> /etc/passwd
if su -s /bin/sh nobody -c true 2>/dev/null; then
	for k in "$P"/*; do
		k=${k##*/}
		cat "$P/$k" > "$V/current-$k"
		try "$k" "current-$k" nobody
		try "$k" huge nobody
	done
else
	tap_skip "writes as an unprivileged user" "su cannot switch users here"
fi

# the statistics take no write, from root either
controls=
for f in "$S"/* "$S"/offload/*/*; do
	[ -f "$f" ] || continue
	if [ "$(stat -c %a "$f")" = 200 ]; then
		controls="$controls $f"
		continue
	fi
	tried=$((tried + 1))
	if sh -c "echo 0 > $f" 2>/dev/null; then
		tap_result 1 "${f#"$S"/} refuses writes"
	else
		refused=$((refused + 1))
		tap_result 0 "${f#"$S"/} refuses writes"
	fi
done

# the write-only files: every hostile value refused, as root and as an
# unprivileged user; no read, from root either
check "the write-only flush file exists" test -f "$S/flush"
for f in $controls; do
	name=${f#"$S"/}
	for v in "$V"/*; do
		case ${v##*/} in current-*) continue ;; esac	# valid knob values
		[ -s "$v" ] || continue	# an empty file makes no write(2)
		tried=$((tried + 1))
		if sh -c "cat $v > $f" 2>/dev/null; then
			tap_result 1 "$name <- ${v##*/}: refused"
		else
			refused=$((refused + 1))
			tap_result 0 "$name <- ${v##*/}: refused"
		fi
	done
	if su -s /bin/sh nobody -c true 2>/dev/null; then
		check_fails "$name <- 1 (as nobody): refused" \
			su -s /bin/sh nobody -c "echo 1 > $f"
	else
		tap_skip "$name <- 1 (as nobody): refused" "su cannot switch users here"
	fi
	check_fails "$name cannot be read" cat "$f"
done

if dmesg -r 2>/dev/null | grep -q '^<[0-7]>'; then
	check_fails "nothing from ccache logged above warning level" \
		sh -c "dmesg -r | grep -E '^<[0-3]>.*ccache'"
	echo "# ccache logged $(dmesg | grep -c 'ccache: .*rejected') rejections (rate limited)"
else
	tap_skip "nothing from ccache logged above warning level" \
		"dmesg -r shows no levels here"
fi
check "the module still works: rmmod ccache" /sbin/rmmod ccache
echo "# hostile input: $tried writes tried, $refused refused"
echo "SUMMARY hostile_writes=$tried hostile_refused=$refused"
tap_done
