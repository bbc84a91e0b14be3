#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The documentation cannot fall behind the module: every file that
# Documentation/ABI/testing/sysfs-kernel-mm-ccache documents (knobs,
# statistics, control files, the offload backends' counters) and every
# offload backend its offload/ entry lists is named as ``NAME`` in
# Documentation/admin-guide/ccache.rst; every .rst file under
# Documentation/ is valid reStructuredText.  The guest test
# selftests/abi.sh holds the ABI file to the loaded module, both ways.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=selftests/lib/tap.sh
. selftests/lib/tap.sh
# shellcheck source=selftests/lib/abi.sh
. selftests/lib/abi.sh

guide=Documentation/admin-guide/ccache.rst
abi=Documentation/ABI/testing/sysfs-kernel-mm-ccache
P=/sys/module/ccache/parameters

for f in "$guide" "$abi"; do
	[[ -r $f ]] || { tap_result 1 "$f is there"; tap_done; }
done

files=$(abi_files "$abi")
knobs=$(sed -n "s|^$P/||p" <<<"$files")
others=$(grep -v "^$P/" <<<"$files" | sed 's|.*/||' | sort -u)
backends=$(abi_backends "$abi")
check "the ABI file documents knobs" test -n "$knobs"
check "the ABI file documents statistics" test -n "$others"
check "the ABI file lists the offload backends" test -n "$backends"

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

# shellcheck disable=SC2046,SC2086 # lists of names
{
	missing "every knob is in the admin guide" $(in_guide $knobs)
	missing "every statistic and control file is in the admin guide" \
		$(in_guide $others)
	missing "every offload backend is in the admin guide" \
		$(in_guide $backends)
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
