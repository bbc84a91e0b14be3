#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host-side steps of the cluster benchmark (web-bench.sh --cluster).

usage: cluster.py up SOCK N SECS        wait until N servers are UP, idle
       cluster.py counts SOCK           responses per server so far
       cluster.py state SOCK SERVER STATE   set a server's state
       cluster.py series SOCK SECS OUT  responses per server, every second
       cluster.py route URL MANIFEST N [DIR]   the server of N paths

SOCK is HAProxy's admin socket ("stats socket ... level admin"), its
backend the admin guide's "static".  up also waits until no server has a
request in flight: with hash-balance-factor, one still busy with a past
load sends the next requests for its URIs to another.  counts prints "SERVER=N" words: the
responses each server sent (hrsp_1xx to hrsp_other of "show stat").
state takes ready, drain or maint.  series appends "CLUSTER-TS t=SECS
SERVER=N..." lines to OUT for SECS seconds.  route requests every k-th
path of MANIFEST (about N of them; a path is a line's first word) under
URL, one at a time, and prints "PATH SERVER": the X-Server header HAProxy
adds (selftests/lib/cluster.sh), "none" when the request failed, "bad"
when DIR is given and the body differs from the file at PATH under DIR.
"""
import csv
import http.client
import io
import socket
import sys
import time
import urllib.request

BACKEND = 'static'
RESPONSES = ('hrsp_1xx', 'hrsp_2xx', 'hrsp_3xx', 'hrsp_4xx', 'hrsp_5xx',
             'hrsp_other')


def command(sock, line):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock)
    s.sendall(line.encode() + b'\n')
    out = b''
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        out += chunk
    s.close()
    return out.decode()


def servers(sock):
    """The backend's servers, each a dict of "show stat"'s columns."""
    text = command(sock, 'show stat').lstrip('# ')
    return [r for r in csv.DictReader(io.StringIO(text))
            if r.get('pxname') == BACKEND and r.get('svname') not in
            ('BACKEND', 'FRONTEND')]


def counts(sock):
    return {r['svname']: sum(int(r[k] or 0) for k in RESPONSES)
            for r in servers(sock)}


def words(d):
    return ' '.join(f'{k}={v}' for k, v in sorted(d.items()))


def route(url, manifest, n, ref):
    """Print the server of about n of manifest's paths (see the top)."""
    with open(manifest) as f:
        paths = [line.split()[0] for line in f if line.strip()]
    for path in paths[::max(1, len(paths) // n)]:
        name = path.lstrip('/')
        try:
            r = urllib.request.urlopen(url.rstrip('/') + '/' + name,
                                       timeout=30)
            body, server = r.read(), r.headers.get('X-Server', 'none')
        except (OSError, http.client.HTTPException):
            print(path, 'none')
            continue
        if ref:
            with open(ref[0] + '/' + name, 'rb') as f:
                if f.read() != body:
                    server = 'bad'
        print(path, server)
    return 0


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    cmd, sock = argv[1], argv[2]
    if cmd == 'up':
        want, end = int(argv[3]), time.time() + float(argv[4])
        while time.time() < end:
            try:
                rows = servers(sock)
                up = [r for r in rows if r['status'].startswith('UP')]
                if len(up) >= want and not any(int(r['scur'] or 0) for r in rows):
                    return 0
            except OSError:
                pass
            time.sleep(0.5)
        return 1
    if cmd == 'counts':
        print(words(counts(sock)))
        return 0
    if cmd == 'state':
        out = command(sock, f'set server {BACKEND}/{argv[3]} state {argv[4]}')
        if out.strip():
            sys.exit(f'cluster.py: {out.strip()}')
        return 0
    if cmd == 'series':
        start = time.time()
        with open(argv[4], 'a') as f:
            while time.time() - start < float(argv[3]):
                time.sleep(1)
                print(f'CLUSTER-TS t={time.time() - start:.1f}',
                      words(counts(sock)), file=f, flush=True)
        return 0
    if cmd == 'route':
        return route(argv[2], argv[3], int(argv[4]), argv[5:])
    sys.exit(__doc__)


if __name__ == '__main__':
    sys.exit(main(sys.argv))
