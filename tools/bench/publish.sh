#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Put a web-bench.sh run's report into Documentation/bench: report.py
# writes it again with the plots named web-RUN_ID-*.png, and the report,
# its plots and results.csv are copied as web-RUN_ID.md, web-RUN_ID-*.png
# and web-RUN_ID.csv; a --cluster run's (cluster-report.py) as
# cluster-RUN_ID.*.  The logs stay in the run's directory.
#
# usage: publish.sh RUN_DIR
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
dst=$(cd "$here/../../Documentation/bench" && pwd)
run=${1:?usage: publish.sh RUN_DIR}
id=$(sed -n 's/^run_id=\([^ ]*\).*/\1/p' "$run/run.env")
[[ -n $id ]] || { echo "publish: no run_id in $run/run.env" >&2; exit 1; }
py=python3
[[ ! -x /usr/bin/python3 ]] || py=/usr/bin/python3	# Debian's, with matplotlib
kind=web report=report.py
if grep -q '^cluster=[1-9]' "$run/run.env"; then
	kind=cluster report=cluster-report.py
fi
# a report that fails (a mismatch, a failed guest) is published all the
# same: it says why
"$py" "$here/$report" --prefix "$kind-$id-" "$run" > /dev/null || true
sed "s/\`results.csv\`/\`$kind-$id.csv\`/" "$run/report.md" > "$dst/$kind-$id.md"
cp "$run/results.csv" "$dst/$kind-$id.csv"
cp "$run/$kind-$id"-*.png "$dst/"
echo "$dst/$kind-$id.md"
