#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print where ccache stands on each kernel: the README's table.

usage: standing.py REPORT.csv...

Each REPORT.csv is the results.csv of one web-bench.sh run as
tools/bench/publish.sh copies it to Documentation/bench/ (web-STAMP.csv),
normally one run per kernel.  Prints one Markdown table with a column per
run (headed by its guests' kernel and the report's name) and two rows per
measured workload: ccache's default settings against the plain kernel
with R, and with 2R against the plain kernel with 2R, when the run had
both.  Each cell gives the two medians and report.py's verdict (faster or
slower only when every repetition agrees) with the change of the medians,
so that the README quotes the reports and never a figure typed by hand
(selftests/host/standing.sh holds the README to this output).

Exits 1, saying why, when a file is missing or has no run of the plain
kernel with R.
"""

import csv
import os
import sys

from report import WORKLOADS, Config, Run, compare, fmt, fmt_change, med, over_runs, table

# (ccache's configuration, the plain kernel's it is held to, row label)
PAIRS = (('cc', 'none-R', 'R'), ('cc-2R', 'none-2R', '2R'))


def load_csv(path):
    """(kernel, {config name: Config}) of a results.csv: each run's
    throughput per measured phase, as report.py derived it."""
    configs, runs, kernel = {}, {}, None
    with open(path, newline='') as f:
        for row in csv.DictReader(f):
            name = row['config']
            c = configs.setdefault(name, Config(name, row['label'], 1))
            r = runs.get(row['run'])
            if r is None:
                r = runs[row['run']] = Run(row['run'], name, int(row['rep']))
                c.runs.append(r)
            if row.get('kernel') and row['phase'] == 'guest':
                kernel = kernel or row['kernel']
            if row.get('throughput'):
                r.derived[row['phase']] = {'throughput': float(row['throughput'])}
    return kernel, configs


def cell(c, ref, w):
    """'ccache / plain unit: verdict, change' for workload w, or '-'."""
    if c is None or ref is None:
        return '-'
    mine, theirs = (med(over_runs(x, w.phase, 'throughput')) for x in (c, ref))
    if mine is None:
        return '-'
    word, change = compare(c, ref, w.phase)
    text = f'{fmt(mine)} / {fmt(theirs)} {w.unit}: {word}'
    return text if change is None else f'{text}, {fmt_change(change)}'


def main(paths):
    if not paths:
        sys.exit(__doc__.strip().splitlines()[2])
    runs = []
    for path in paths:
        try:
            kernel, configs = load_csv(path)
        except OSError as e:
            sys.exit(f'standing: {e}')
        if 'none-R' not in configs:
            sys.exit(f'standing: {path} has no run of the plain kernel with R (none-R)')
        name = os.path.splitext(os.path.basename(path))[0]
        runs.append((f'{kernel or "?"} ({name})', configs))
    rows = []
    for w in WORKLOADS:
        for mine, theirs, ram in PAIRS:
            cells = [cell(cs.get(mine), cs.get(theirs), w) for _, cs in runs]
            if any(x != '-' for x in cells):
                rows.append([w.title, f'ccache / plain kernel, both {ram}'] + cells)
    sys.stdout.write(table(['workload', 'configurations'] + [h for h, _ in runs], rows))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
