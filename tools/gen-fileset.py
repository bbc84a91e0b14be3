#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a deterministic, compressible file set: text-like files of mixed
sizes, as a web site's documentation tree would hold.

usage: gen-fileset.py DIR MIB [SEED]

LZO compresses the output to roughly 40-50% of its size.  The same
arguments always give the same bytes, so runs can be compared.
"""
import os
import random
import sys


def main():
    out, mib = sys.argv[1], int(sys.argv[2])
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    words = ["".join(rng.choice("etaoinshrdlucmfwypvbgkqjxz")
                     for _ in range(rng.randint(2, 11)))
             for _ in range(250)]
    weights = [1.0 / (rank + 1) ** 1.3 for rank in range(len(words))]
    # a pool of paragraphs keeps generation fast; files draw from it
    pool = ['<p class="c%d">%s</p>\n' % (
        rng.randint(0, 9), " ".join(rng.choices(words, weights, k=rng.randint(8, 60))))
        for _ in range(5000)]
    total, n = mib << 20, 0
    os.makedirs(out, exist_ok=True)
    while total > 0:
        # SPECweb99-like size classes: many small files, a few large ones
        size = min(total, rng.choice([2, 6, 12, 60, 120, 600]) << 10)
        size = max(size, 1) + rng.randint(0, 4095)
        text = []
        length = 0
        while length < size:
            line = rng.choice(pool)
            text.append(line)
            length += len(line)
        path = os.path.join(out, "d%03d" % (n % 64), "f%06d.html" % n)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write("".join(text)[:size])
        total -= size
        n += 1


if __name__ == "__main__":
    main()
