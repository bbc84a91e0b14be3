#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How likely two full runs of make bench-web are to agree on a verdict.

usage: agreement.py [-r REPS] [-t FACTOR] [-m MARGIN] [-n TRIALS] CSV...

Reads the results.csv of two or more runs (or their published copies,
Documentation/bench/web-*.csv), all of the same benchmark.  For each
measured workload and configuration it estimates, from those runs:

  change   the mean over the runs of (median / plain R's median - 1)
  sd       the spread of one repetition: the standard deviation of each
           repetition's throughput relative to its run's mean, pooled over
           the runs (log scale)

It then draws runs from that model (each repetition lognormal around its
configuration's level), judges each with report.py's verdict() and prints,
per cell, the chance of each verdict and the chance that two independent
runs give the same one, and the chance that two runs agree on every cell.

  -r REPS    repetitions per configuration in the runs drawn (default: as
             in the CSVs)
  -t FACTOR  measured phases FACTOR times as long, modelled as sd divided
             by sqrt(FACTOR): the best case, true only if the spread is
             sampling noise within a phase rather than differences between
             guests
  -m MARGIN  also ask the change of the medians to be at least MARGIN (a
             fraction, e.g. 0.05) for faster or slower: a rule report.py
             does not have, to see what one would change
  -n TRIALS  runs drawn per cell (default 20000)

The draws are seeded: the same CSVs and flags print the same figures.
"""
import argparse
import collections
import csv
import math
import random
import statistics
import sys

from report import WORKLOADS, verdict

REFERENCE = 'none-R'


def load(paths):
    """{(phase, config): {csv path: [throughput of each repetition]}}"""
    phases = {w.phase for w in WORKLOADS}
    cells = collections.defaultdict(lambda: collections.defaultdict(list))
    for path in paths:
        with open(path, newline='') as f:
            for row in csv.DictReader(f):
                if row['phase'] in phases and row.get('throughput'):
                    cells[(row['phase'], row['config'])][path].append(float(row['throughput']))
    return cells


def pooled_sd(runs):
    """One repetition's relative spread, pooled over the runs (log scale)."""
    devs, groups = [], 0
    for vals in runs.values():
        logs = [math.log(v) for v in vals]
        mean = statistics.fmean(logs)
        devs += [x - mean for x in logs]
        groups += 1
    dof = len(devs) - groups
    return math.sqrt(sum(d * d for d in devs) / dof) if dof > 0 else None


def judge(rng, change, sd, ref_sd, reps, margin):
    cfg = [math.exp(rng.gauss(math.log1p(change), sd)) for _ in range(reps)]
    ref = [math.exp(rng.gauss(0.0, ref_sd)) for _ in range(reps)]
    word = verdict(cfg, ref, False)
    if word in ('faster', 'slower') and \
            abs(statistics.median(cfg) / statistics.median(ref) - 1) < margin:
        word = 'within noise'
    return word


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('-r', '--reps', type=int)
    ap.add_argument('-t', '--longer', type=float, default=1.0)
    ap.add_argument('-m', '--margin', type=float, default=0.0)
    ap.add_argument('-n', '--trials', type=int, default=20000)
    ap.add_argument('csv', nargs='+')
    args = ap.parse_args()
    if len(args.csv) < 2:
        sys.exit('agreement.py: give the CSV files of at least two runs')

    cells = load(args.csv)
    rng = random.Random(25)
    words = ('faster', 'within noise', 'slower')
    print(f'{len(args.csv)} runs; repetitions drawn: {args.reps or "as measured"}; '
          f'phases x{args.longer:g}; margin {100 * args.margin:g}%')
    print(f'{"workload":10} {"configuration":10} {"change":>8} {"sd":>6} {"ref sd":>6} '
          + ' '.join(f'{w:>12}' for w in words) + f' {"two agree":>10}')
    everything = 1.0
    for w in WORKLOADS:
        ref = cells.get((w.phase, REFERENCE))
        if not ref:
            continue
        ref_sd = pooled_sd(ref)
        for (phase, config), runs in sorted(cells.items()):
            if phase != w.phase or config == REFERENCE:
                continue
            both = [p for p in runs if p in ref]
            sd = pooled_sd(runs)
            if len(both) < 2 or sd is None or ref_sd is None:
                continue
            change = statistics.fmean(statistics.median(runs[p]) / statistics.median(ref[p]) - 1
                                      for p in both)
            reps = args.reps or min(len(runs[p]) for p in both)
            scale = math.sqrt(args.longer)
            counts = collections.Counter(
                judge(rng, change, sd / scale, ref_sd / scale, reps, args.margin)
                for _ in range(args.trials))
            chance = {k: counts[k] / args.trials for k in words}
            agree = sum(p * p for p in chance.values())
            everything *= agree
            print(f'{w.phase:10} {config:10} {100 * change:+7.1f}% {100 * sd:5.1f}% '
                  f'{100 * ref_sd:5.1f}% ' + ' '.join(f'{chance[k]:12.2f}' for k in words)
                  + f' {agree:10.2f}')
    print(f'two runs agree on every cell: {everything:.2f}')


if __name__ == '__main__':
    main()
