#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The fewest disk reads any cache could leave a webload run, by its memory.

usage: bound.py [-z ZIPF] [-s SEED] [-r RATIO]... [-a KIB] MANIFEST MIB...

webload picks every request on its own (the independent reference model):
file RANK of a fixed random permutation of MANIFEST's files (its splitmix64
shuffle, seed SEED, as webload -s) with weight 1 / (RANK + 1)^ZIPF.  Then
what a cache holds when a request comes cannot depend on that request, so
the expected pages a request finds in memory are at most those of the
cache that holds the most requested pages: the most popular files' pages
first, as many as fit (a page of file i is asked for with file i's
chance, so filling in that order is the best use of each page of room).
No replacement policy, page cache or compressed pool, does better on
average; metadata, readahead beyond the request and the pages a server
needs for itself only add reads.

For each MIB, memory that holds cached file data, and each RATIO, the
memory a page takes compressed over its size (1: the page cache alone),
it prints the bound's byte hit ratio and the least disk KiB per request
(pages of 4 KiB, a file's last page rounded up), and with -a KIB (a
measured run's disk KiB per request, e.g. the plain kernel's in a
report) that least over KIB: a target below it is out of any cache's
reach with that memory.

  -z ZIPF   webload's -z (default 0.8; the support profile's is 0.4)
  -s SEED   webload's -s (default 1, web-bench.guest's)
  -r RATIO  compressed size over page size, repeatable (default 1 and 0.41:
            the page cache, and LZO over one stream, better than a pool of
            single pages gets)
  -a KIB    a measured disk KiB per request to compare with
"""
import argparse
import sys

PAGE = 4096
MASK = (1 << 64) - 1


def splitmix64(state):
    """webload.c's rnd(): the next state and value."""
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def ranking(n, seed):
    """webload.c's shuffle() of 0..n-1: popular[rank] is a file index."""
    popular = list(range(n))
    state = seed & MASK
    for i in range(n, 1, -1):
        state, r = splitmix64(state)
        j = r % i
        popular[i - 1], popular[j] = popular[j], popular[i - 1]
    return popular


def read_manifest(path):
    """The file sizes of a manifest, in its order (as webload reads it)."""
    sizes = []
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            if line.startswith('#') or not line.strip():
                continue
            fields = line.split()
            if len(fields) != 3 or not fields[0].startswith('/'):
                sys.exit(f'{path}:{lineno}: not "PATH SIZE CRC32C"')
            sizes.append(int(fields[1]))
    if not sizes:
        sys.exit(f'{path}: no files')
    return sizes


def popularity(sizes, zipf, seed):
    """(chance, pages) per file, the most requested first."""
    weights = [(rank + 1) ** -zipf for rank in range(len(sizes))]
    total = sum(weights)
    return [(w / total, -(-sizes[i] // PAGE))
            for w, i in zip(weights, ranking(len(sizes), seed))]


def asked_pages(files):
    """Expected pages a request asks for."""
    return sum(chance * pages for chance, pages in files)


def best_hits(files, room):
    """Expected pages per request in the best cache of ROOM pages."""
    hits = 0.0
    for chance, pages in files:
        if room <= 0:
            break
        held = min(pages, room)
        hits += chance * held
        room -= held
    return hits


def load_arguments(doc):
    """A parser for @doc's tool with the options that name a load: -z ZIPF,
    -s SEED, -a KIB and MANIFEST (tiers.py takes them too)."""
    p = argparse.ArgumentParser(
        description=doc.split('\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('-z', type=float, default=0.8, dest='zipf')
    p.add_argument('-s', type=int, default=1, dest='seed')
    p.add_argument('-a', type=float, dest='against')
    p.add_argument('manifest')
    return p


def against_heading(against):
    """The heading of the column of a figure over -a KIB, if given."""
    return f' {"over " + format(against, "g"):>10}' if against else ''


def against_cell(kib, against):
    """That column's cell for @kib, if -a KIB was given."""
    return f' {kib / against:10.2f}' if against else ''


def main():
    p = load_arguments(__doc__)
    p.add_argument('-r', type=float, action='append', dest='ratios')
    p.add_argument('mib', type=float, nargs='+')
    a = p.parse_args()
    ratios = a.ratios or [1.0, 0.41]
    if any(not 0 < r <= 1 for r in ratios) or any(m < 0 for m in a.mib):
        sys.exit('bound.py: RATIO must be in (0, 1], MIB at least 0')
    files = popularity(read_manifest(a.manifest), a.zipf, a.seed)
    asked = asked_pages(files)
    total = sum(pages for _, pages in files)
    print(f'{a.manifest}: {len(files)} files, {total} pages, '
          f'zipf {a.zipf}, seed {a.seed}: '
          f'{asked * PAGE / 1024:.1f} KiB per request')
    print(f'{"memory MiB":>10} {"ratio":>6} {"data MiB":>9} '
          f'{"byte hits":>9} {"least disk KiB/req":>18}'
          + against_heading(a.against))
    for mib in a.mib:
        for ratio in ratios:
            room = int(mib * 1024 * 1024 / PAGE / ratio)
            hits = best_hits(files, room)
            kib = (asked - hits) * PAGE / 1024
            line = (f'{mib:10g} {ratio:6g} {min(room, total) * PAGE / 2**20:9.1f}'
                    f' {hits / asked:9.3f} {kib:18.1f}')
            print(line + against_cell(kib, a.against))


if __name__ == '__main__':
    main()
