#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What a page cache and a pool of given sizes would read under webload.

usage: tiers.py [-z ZIPF] [-s SEED] [-n REQUESTS] [-p POLICY] [-a KIB]
                MANIFEST CACHE:POOL:RATIO...

A model of the two tiers ccache makes, to tell what the memory could do
from what the code does with it.  Requests are drawn as webload draws
them (bound.py: each on its own, file RANK of webload's ranking with
weight 1 / (RANK + 1)^ZIPF; the draws themselves are Python's, seeded,
which under that model changes nothing but the sample).  A request reads
its whole file:

- the page cache holds CACHE MiB of file data, least recently used file
  out first;
- a file it lets go enters the pool, POOL MiB of memory at RATIO of a
  page's size per page stored (the pool's mem_used over its stored bytes
  in a report), oldest entry out first, so that it holds POOL / RATIO
  MiB of data;
- a request that misses the page cache is served from the pool if its
  file is there, which moves it back to the page cache (ccache's get is
  exclusive), else from the disk.

POLICY lru is that.  POLICY freq lets a file into a full pool only when
it was asked for more often than every entry it would displace, counts
halved every ten pool-fulls of requests (TinyLFU's admission, with exact
counts): the best-known online answer to a popularity curve, to see how
much a smarter pool could gain over an LRU of what the page cache lets go.

The first half of the requests warms the tiers; the second is measured
(a warning says when the first half did not fill them: raise -n).
For each CACHE:POOL:RATIO it prints the data held, the disk and pool KiB
per request, the least any cache holding that much data could read
(bound.py) and the modelled figure over it, and with -a KIB (a measured
disk KiB per request, e.g. the plain kernel's in a report) the modelled
figure over KIB.  Left out, each of which only adds reads: metadata,
readahead, the server's own pages, the kernel's two LRU lists, a file's
pages leaving the page cache one by one, and pages the pool refuses or
drops when compression cannot keep up.
"""
import collections
import random
import sys

from bound import (PAGE, against_cell, against_heading, asked_pages,
                   best_hits, load_arguments, popularity, read_manifest)

MIB_PAGES = 2**20 // PAGE


def parse_tiers(spec):
    """CACHE:POOL:RATIO as (cache MiB, pool MiB, ratio)."""
    try:
        cache, pool, ratio = (float(x) for x in spec.split(':'))
    except ValueError:
        sys.exit(f'tiers.py: "{spec}" is not CACHE:POOL:RATIO')
    if cache < 0 or pool < 0 or not 0 < ratio <= 1:
        sys.exit(f'tiers.py: "{spec}": MiB at least 0, RATIO in (0, 1]')
    return cache, pool, ratio


class Pool:
    """The pool: files by age, oldest first, and the pages they hold."""

    def __init__(self, pages, policy, counts):
        self.room = pages
        self.used = 0
        self.files = collections.OrderedDict()
        self.policy = policy
        self.counts = counts

    def take(self, f):
        """Serve file @f if held (it leaves the pool): its pages, or 0."""
        n = self.files.pop(f, 0)
        self.used -= n
        return n

    def offer(self, f, n):
        """A file of @n pages the page cache let go."""
        victims, free = [], self.room - self.used
        for v, vn in self.files.items():
            if free >= n:
                break
            victims.append(v)
            free += vn
        if free < n:
            return
        if (self.policy == 'freq' and victims and
                any(self.counts[f] <= self.counts[v] for v in victims)):
            return
        for v in victims:
            self.used -= self.files.pop(v)
        self.files[f] = n
        self.used += n


def model(files, tiers, policy, requests, seed):
    """(disk pages, pool pages) per measured request for one tiers tuple,
    and whether the warm-up filled both tiers."""
    cache_mib, pool_mib, ratio = tiers
    chances = [c for c, _ in files]
    pages = [p for _, p in files]
    cache_room = int(cache_mib * MIB_PAGES)
    pool_room = int(pool_mib * MIB_PAGES / ratio)
    counts = collections.Counter()
    pool = Pool(pool_room, policy, counts)
    cache, cached = collections.OrderedDict(), 0
    # counts halve every ten pool-fulls of requests (pages a request asks)
    halve = max(1, int(10 * pool_room / asked_pages(files)))
    draws = random.Random(seed).choices(range(len(files)), chances,
                                        k=requests)
    disk = served = 0
    full = True
    for i, f in enumerate(draws):
        measured = i >= requests // 2
        if i == requests // 2:
            # as full as whole files let them be: within the largest one
            most = max(pages)
            full = (cached > cache_room - most and
                    pool.used > pool.room - most)
        counts[f] += 1
        if (i + 1) % halve == 0:
            for k in list(counts):
                counts[k] //= 2
                if not counts[k]:
                    del counts[k]
        if f in cache:
            cache.move_to_end(f)
            continue
        got = pool.take(f)
        if measured:
            served += got
            disk += pages[f] - got
        cache[f] = pages[f]
        cached += pages[f]
        while cached > cache_room:
            v, vn = cache.popitem(last=False)
            cached -= vn
            pool.offer(v, vn)
    n = requests - requests // 2
    return disk / n, served / n, full


def main():
    p = load_arguments(__doc__)
    p.add_argument('-n', type=int, default=400000, dest='requests')
    p.add_argument('-p', choices=('lru', 'freq'), default='lru',
                   dest='policy')
    p.add_argument('tiers', nargs='+', type=parse_tiers)
    a = p.parse_args()
    if a.requests < 2:
        sys.exit('tiers.py: -n must be at least 2')
    files = popularity(read_manifest(a.manifest), a.zipf, a.seed)
    asked = asked_pages(files)
    kib = PAGE / 1024
    print(f'{a.manifest}: {len(files)} files, zipf {a.zipf}, seed {a.seed}, '
          f'{a.requests} requests, policy {a.policy}: '
          f'{asked * kib:.1f} KiB per request')
    print(f'{"cache MiB":>9} {"pool MiB":>8} {"ratio":>6} {"data MiB":>8} '
          f'{"disk KiB/req":>12} {"pool KiB/req":>12} {"least":>6} '
          f'{"over least":>10}'
          + against_heading(a.against))
    for tiers in a.tiers:
        cache_mib, pool_mib, ratio = tiers
        disk, served, full = model(files, tiers, a.policy, a.requests,
                                   a.seed)
        if not full:
            print(f'tiers.py: {cache_mib:g}:{pool_mib:g}:{ratio:g}: the '
                  'first half of the requests did not fill the tiers, so '
                  'cold misses count: raise -n', file=sys.stderr)
        data = cache_mib + pool_mib / ratio
        least = asked - best_hits(files, int(data * MIB_PAGES))
        over = f'{disk / least:10.2f}' if least > 0 else f'{"-":>10}'
        line = (f'{cache_mib:9g} {pool_mib:8g} {ratio:6g} {data:8.1f} '
                f'{disk * kib:12.2f} {served * kib:12.2f} '
                f'{least * kib:6.2f} {over}')
        print(line + against_cell(disk * kib, a.against))


if __name__ == '__main__':
    main()
