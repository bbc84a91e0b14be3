#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The documentation cannot fall behind the code: every knob of
# ccache/params.c (module_param_cb) and every statistic and control file
# of ccache/sysfs.c (its tables, the offload backends' included) is named
# as ``NAME`` in Documentation/admin-guide/ccache.rst and has a "What:"
# entry in Documentation/ABI/testing/sysfs-kernel-mm-ccache; every
# offload backend is named in the guide; every .rst file under
# Documentation/ is valid reStructuredText.  The guest test
# selftests/abi.sh checks the ABI file against the loaded module.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=selftests/lib/tap.sh
. selftests/lib/tap.sh

guide=Documentation/admin-guide/ccache.rst
abi=Documentation/ABI/testing/sysfs-kernel-mm-ccache
S=/sys/kernel/mm/ccache
P=/sys/module/ccache/parameters

for f in "$guide" "$abi" ccache/params.c ccache/sysfs.c; do
	[[ -r $f ]] || { tap_result 1 "$f is there"; tap_done; }
done

knobs=$(sed -n 's/^module_param_cb(\([a-z0-9_]*\),.*/\1/p' ccache/params.c)
# the statistics: version, the counters and derived values, the rejections
# (CCACHE_REJECTS(foo, FOO) is reject_foo), and the offload backends'
# counters (one of them is written out as a string)
stats=$(sed -n 's/.*__ATTR_RO(\([a-z0-9_]*\)).*/\1/p
	s/^[[:space:]]*CCACHE_\(COUNTER\|DERIVED\)(\([a-z0-9_]*\)),.*/\2/p
	s/^[[:space:]]*CCACHE_REJECTS(\([a-z0-9_]*\),.*/reject_\1/p' ccache/sysfs.c)
backend_stats=$(sed -n 's/^[[:space:]]*CCACHE_KSPU_COUNTER(\([a-z0-9_]*\)),.*/\1/p
	s/^[[:space:]]*{ "\([a-z0-9_]*\)", 0, kspu_[a-z_]* },.*/\1/p' ccache/sysfs.c)
# the write-only control files: { "NAME", ACTION } in ccache_ctl_attrs
controls=$(sed -n 's/^[[:space:]]*{ "\([a-z0-9_]*\)", ccache_[a-z0-9_]* },.*/\1/p' ccache/sysfs.c)
backends=$(sed -n 's/^[[:space:]]*\.name = "\([a-z0-9_-]*\)",.*/\1/p' spu-offload/*.c)

# the sources really were read: as many as they define today, at least
check "9 knobs found in ccache/params.c" test "$(wc -w <<<"$knobs")" -ge 9
check "22 statistics found in ccache/sysfs.c" test "$(wc -w <<<"$stats")" -ge 22
check "8 backend statistics found in ccache/sysfs.c" \
	test "$(wc -w <<<"$backend_stats")" -ge 8
check "1 control file found in ccache/sysfs.c" test "$(wc -w <<<"$controls")" -ge 1
check "3 offload backends found in spu-offload/" test "$(wc -w <<<"$backends")" -ge 3

# missing DESC WORD...: one check; the words not found become comments
missing() {
	local desc=$1
	shift
	tap_result $(($# > 0)) "$desc"
	[[ $# -eq 0 ]] || printf '#   missing: %s\n' "$*"
}

# in_guide NAME...: those not named as ``NAME`` in the guide
in_guide() {
	local n
	for n in "$@"; do
		grep -qF "\`\`$n\`\`" "$guide" || echo "$n"
	done
}

# in_abi DIR NAME...: the NAMEs without a "What:" entry for DIR/NAME
in_abi() {
	local dir=$1 n
	shift
	for n in "$@"; do
		grep -qE "^What:[[:space:]]+${dir}/${n}[[:space:]]*\$" "$abi" || echo "$n"
	done
}

# shellcheck disable=SC2046,SC2086 # lists of names
{
	missing "every knob is in the admin guide" $(in_guide $knobs)
	missing "every statistic is in the admin guide" $(in_guide $stats)
	missing "every control file is in the admin guide" $(in_guide $controls)
	missing "every backend statistic is in the admin guide" \
		$(in_guide $backend_stats)
	missing "every offload backend is in the admin guide" \
		$(in_guide $backends)
	missing "every knob has a What: entry" $(in_abi "$P" $knobs)
	missing "every statistic has a What: entry" $(in_abi "$S" $stats)
	missing "every control file has a What: entry" $(in_abi "$S" $controls)
	missing "every backend statistic has a What: entry" \
		$(in_abi "$S/offload/<backend>" $backend_stats)
}

# valid reStructuredText, if docutils is installed (Sphinx-only roles
# would be errors here: the documents use none)
docutils=yes
python3 -c 'import docutils' 2>/dev/null || docutils=
for doc in $(find Documentation -name '*.rst' | sort); do
	if [[ -z $docutils ]]; then
		tap_skip "$doc is valid reStructuredText" "no python3 docutils"
		continue
	fi
	out=$(python3 - "$doc" <<-'EOF' 2>&1
		import io, sys
		import docutils.core
		err = io.StringIO()
		with open(sys.argv[1], encoding="utf-8") as f:
		    docutils.core.publish_doctree(f.read(), settings_overrides={
		        "warning_stream": err, "report_level": 2, "halt_level": 5})
		sys.stdout.write(err.getvalue())
		sys.exit(1 if err.getvalue() else 0)
	EOF
	)
	status=$?
	tap_result $status "$doc is valid reStructuredText"
	[[ $status -eq 0 ]] || printf '%s\n' "$out" | sed 's/^/#   /'
done
tap_done
