#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The report of a cluster benchmark run (web-bench.sh --cluster N).

usage: cluster-report.py [--prefix PREFIX] OUT_DIR

Reads OUT_DIR/run.env and each run's logs/RUN.cluster (the lines
web-bench.sh writes, see there) and writes OUT_DIR/report.md,
OUT_DIR/results.csv and the plots OUT_DIR/PREFIXthroughput.png and
OUT_DIR/PREFIXleave.png (publish.sh names them after the run).
Throughput verdicts follow report.py's rule (faster or slower only when
no repetition overlaps the reference's); the reference is the first
configuration.
"""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report as wb     # noqa: E402 (web-bench's report: parsing, verdicts)


def read_cluster(path):
    """One run's CLUSTER lines: phases, marks, HAProxy counts, routes,
    the leave phase's series and events."""
    r = {'phase': {}, 'mark': {}, 'haproxy': {}, 'route': {}, 'ts': [],
         'events': []}
    if not os.path.exists(path):
        return r
    with open(path, errors='replace') as f:
        for line in f:
            word, _, rest = line.rstrip('\n').partition(' ')
            if word == 'CLUSTER-ROUTE':
                state, path_, server = (rest.split() + ['', '', ''])[:3]
                r['route'].setdefault(state.split('=', 1)[1], {})[path_] = server
                continue
            kv = wb.fields(rest)
            if word == 'CLUSTER':
                r['phase'][kv.get('phase')] = kv
            elif word == 'CLUSTER-MARK':
                r['mark'][(kv.get('phase'), kv.get('server'))] = kv
            elif word == 'CLUSTER-HAPROXY':
                r['haproxy'][kv.pop('phase', None)] = kv
            elif word == 'CLUSTER-TS':
                r['ts'].append(kv)
            elif word == 'CLUSTER-EVENT':
                r['events'].append(kv)
    return r


def ratio(a, b):
    return a / b if a is not None and b else None


def median_of(vals):
    """The median of the known values, for a table ('-' without any)."""
    sp = wb.spread([v for v in vals if v is not None])
    return wb.fmt(sp.med) if sp else '-'


def servers_of(r):
    return sorted({s for (_, s) in r['mark']}, key=lambda s: int(s[3:]))


def delta(r, server, key):
    a, b = r['mark'].get(('start', server), {}), r['mark'].get(('end', server), {})
    if key not in a or key not in b:
        return None
    return b[key] - a[key]


def cpu_waiting(r, server):
    """The share of the server's CPU time spent idle or waiting for I/O
    over the measured phase: near 0, its CPU and not its disk was the
    limit.  From the busy ticks where the marks have them; else from the
    seconds between the marks, for the one vCPU the cluster's guests have
    and /proc/stat's USER_HZ of 100."""
    waiting = [delta(r, server, k) for k in ('cpu_idle', 'cpu_iowait')]
    if None in waiting:
        return None
    busy = delta(r, server, 'cpu_busy')
    if busy is not None:
        return ratio(sum(waiting), sum(waiting) + busy)
    return ratio(sum(waiting), 100 * (delta(r, server, 't') or 0))


def ms_per(count, req, unit):
    """@count of @unit milliseconds, per one of @req; None if unknown."""
    return None if count is None or not req else count * unit / req


def per_server(r):
    """Each server's figures over the measured phase."""
    out = {}
    for s in servers_of(r):
        req = (r['haproxy'].get('end', {}).get(s, 0) -
               r['haproxy'].get('start', {}).get(s, 0))
        ios, kib = delta(r, s, 'disk_ios'), delta(r, s, 'disk_kib')
        hits, misses = delta(r, s, 'hits'), delta(r, s, 'misses')
        end = r['mark'].get(('end', s), {})
        cns, dns = delta(r, s, 'compress_ns'), delta(r, s, 'decompress_ns')
        # why pages ccache saw evicted were not there to serve: dropped
        # for a full staging area, refused at the pool's limit, or given
        # back to reclaim (None from runs that did not record them)
        out[s] = {
            'staging_full': delta(r, s, 'reject_staging_full'),
            'pool_limit': delta(r, s, 'reject_pool_limit'),
            'shrinker_frees': delta(r, s, 'shrinker_frees'),
            'cpu_waiting': cpu_waiting(r, s),
            # CPU per response: busy ticks (USER_HZ, 10 ms), and the part
            # of it ccache's compressions and decompressions took
            'cpu_ms_per_req': ms_per(delta(r, s, 'cpu_busy'), req, 10),
            'codec_ms_per_req': ms_per(None if cns is None or dns is None
                                       else cns + dns, req, 1e-6),
            'requests': req,
            'disk_reads_per_req': ratio(ios, req),
            'disk_kib_per_req': ratio(kib, req),
            'hit_ratio': ratio(hits, (hits or 0) + (misses or 0)),
            'page_cache_mib': end.get('cached_kib', 0) / 1024 if end else None,
            'stored_mib': end.get('stored_pages', 0) * 4 / 1024 if end else None,
            'pool_mib': end.get('mem_used', 0) / 2**20 if end else None,
        }
    return out


def routes(r, leaving):
    """URIs asked, and how many moved between the route probes."""
    up, maint, ready = (r['route'].get(k, {}) for k in ('up', 'maint', 'ready'))
    moved_out = [p for p in up if maint.get(p) != up[p]]
    return {
        'asked': len(up),
        'on_leaving': sum(1 for p in up if up[p] == leaving),
        'moved_out': len(moved_out),
        'moved_not_leaving': sum(1 for p in moved_out if up[p] != leaving),
        'back': sum(1 for p in up if ready.get(p) == up[p]),
        'failed': sum(1 for m in (up, maint, ready) for s in m.values()
                      if s in ('none', '')),
    }


class Run:
    def __init__(self, name, cfg, rep, status, r):
        self.name, self.cfg, self.rep, self.status, self.r = name, cfg, rep, status, r
        m = r['phase'].get('measured', {})
        v = r['phase'].get('verify', {})
        # responses that were not errors (a 503 while no server was up
        # comes back fast and would count as throughput)
        ok = (m.get('requests', 0) or 0) - (m.get('errors', 0) or 0)
        self.rps = ok / m['seconds'] if status == 0 and m.get('seconds') else None
        self.p99 = m.get('p99_ms')
        self.errors = (m.get('errors', 0) or 0) + (v.get('errors', 0) or 0)
        self.mismatches = (m.get('mismatches', 0) or 0) + (v.get('mismatches', 0) or 0)
        self.responses = (m.get('requests', 0) or 0) + (v.get('requests', 0) or 0)
        self.servers = per_server(r)
        total_req = sum(s['requests'] for s in self.servers.values())
        total_ios = sum(delta(r, s, 'disk_ios') or 0 for s in self.servers)
        self.disk_per_req = ratio(total_ios, total_req)


def load(outdir):
    env = wb.read_env(os.path.join(outdir, 'run.env'))
    env.update(wb.read_env(os.path.join(outdir, 'calibration.env')))
    configs = env.get('configs', '').split()
    runs = {c: [] for c in configs}
    for rn in env.get('runs', '').split():
        name, _, rep = rn.rpartition('.')
        rk = rn.replace('-', '_').replace('.', '_')
        r = read_cluster(os.path.join(outdir, 'logs', f'{rn}.cluster'))
        runs.setdefault(name, []).append(
            Run(rn, name, int(rep), wb.num(env.get(f'status_{rk}', 1)), r))
    return env, configs, runs


def label(env, c):
    return env.get(f"label_{c.replace('-', '_')}", c)


def plots(outdir, prefix, env, configs, runs):
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    made = []
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for i, c in enumerate(configs):
        vals = [r.rps for r in runs[c] if r.rps is not None]
        if not vals:
            continue
        s = wb.spread(vals)
        ax.bar(i, s.med, yerr=[[s.med - s.lo], [s.hi - s.med]], capsize=4)
    ax.set_xticks(range(len(configs)))
    ax.set_xticklabels([label(env, c) for c in configs], fontsize=8)
    ax.set_ylabel('aggregate requests/s (median, min-max)')
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, prefix + 'throughput.png'), dpi=100)
    plt.close(fig)
    made.append(prefix + 'throughput.png')
    leave = [r for c in configs for r in runs[c] if r.r['ts']]
    if leave:
        r = leave[-1]
        fig, ax = plt.subplots(figsize=(7, 3.5))
        ts = r.r['ts']
        for s in sorted({k for t in ts for k in t if k.startswith('web')}):
            xs = [b['t'] for a, b in zip(ts, ts[1:])]
            ys = [(b.get(s, 0) - a.get(s, 0)) / max(b['t'] - a['t'], 0.1)
                  for a, b in zip(ts, ts[1:])]
            ax.plot(xs, ys, label=s)
        for e in r.r['events']:
            ax.axvline(e['t'], color='grey', linestyle=':')
        ax.set_xlabel(f'seconds ({r.name}: a server leaves, then comes back)')
        ax.set_ylabel('responses/s per server')
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, prefix + 'leave.png'), dpi=100)
        plt.close(fig)
        made.append(prefix + 'leave.png')
    return made


def main(outdir, prefix=''):
    env, configs, runs = load(outdir)
    if not configs:
        sys.exit('cluster-report: no configurations in run.env')
    ref = configs[0]
    ref_vals = [r.rps for r in runs[ref] if r.rps is not None]
    n = env.get('cluster', '?')
    cpus = env.get('cl_cpus', '1')
    cal_kib = int(wb.num(env.get('cal_bps', 0)) or 0) >> 10
    disk_kib = int(wb.num(env.get('disk_bps', 0)) or 0) >> 10
    if 'disk_bps' not in env:   # runs before the per-vCPU share
        disk = "throttled as in `make bench-web` (the calibration below)"
    else:
        disk = (f"throttled to {disk_kib} KiB/s and {env.get('disk_iops', '?')} IOPS, "
                + ("the whole calibrated rate (--full-disk)"
                   if env.get('full_disk') == '1' else
                   f"{cpus}/{env.get('bench_cpus', '2')} of the calibrated rate: "
                   "the share of its vCPUs, so that it keeps the single guest's "
                   "balance of CPU and disk"))
    shares = [env[k] for k in sorted(env) if k.startswith('share_files_')]
    if shares:
        primed = ("with round-robin with the whole docset, with URI hashing with the "
                  "files the hash sends it (HAProxy asked for each path beforehand: "
                  f"{', '.join(shares)} files)")
    else:
        primed = "with the whole docset"
    md = [f"# ccache cluster benchmark: {env.get('run_id', '?')}\n",
          f"Command: {wb.command(env, 'bench-cluster')}  \n",
          f"Source: ccache at {env.get('commit', '?')}"
          f"{' (with uncommitted changes)' if env.get('dirty') == '1' else ''}  \n",
          f"Wall time: {int(wb.num(env.get('total_secs', 0))) // 60} min for "
          f"{len(configs)} configurations x {env.get('reps', '?')} repetitions.\n",
          '## Setup\n',
          f"- Host: {env.get('host_cpu', '?')}, {env.get('host_cores', '?')} cores, "
          f"{env.get('host_kernel', '?')}; {env.get('haproxy', 'HAProxy')}; "
          f"load generator webload on the host, {env.get('conns', '?')} connections, "
          f"{env.get('session', '?')} requests per session, Zipf {env.get('zipf', '?')} over the docset.",
          f"- {n} guests, each Debian {env.get('release', '?')} under QEMU TCG, "
          f"{cpus} vCPU{'s' if cpus != '1' else ''} and "
          f"{env.get('mem', '?')} MiB of RAM, its own copy of the data disk ({disk}), "
          "nginx serving the docset; reached through QEMU user networking on loopback "
          "ports.",
          "- HAProxy runs the admin guide's recipe (\"Clusters\": `balance uri`, "
          "`hash-type consistent`, `hash-balance-factor 150`, health checks every 2 s), "
          "its addresses changed; round-robin replaces the three balance lines with "
          "`balance roundrobin`.",
          f"- Each guest primes its page cache (and pool) as `make bench-web` does, {primed}, then "
          f"{env.get('cl_warm', '?')} s of load warm up and {env.get('cl_secs', '?')} s are "
          "measured; every response body's length and CRC32C is checked, then a sample of "
          "files is verified (webload -V).  Counters per server over the measured phase: "
          "responses from HAProxy's statistics, disk reads from the guest's /proc/diskstats, "
          "ccache's hits and misses.",
          f"- Calibration: data disk {cal_kib} KiB/s for `make bench-web`'s guest of "
          f"{env.get('bench_cpus', '2')} vCPUs (calibration.env).\n",
          '## Throughput\n']
    rows = []
    for c in configs:
        vals = [r.rps for r in runs[c] if r.rps is not None]
        s = wb.spread(vals)
        change = None
        if s and ref_vals and c != ref:
            change = (s.med / wb.spread(ref_vals).med - 1) * 100
        bad = sum(r.mismatches for r in runs[c])
        errs = sum(r.errors for r in runs[c])
        rows.append([label(env, c), len(runs[c]), wb.fmt_spread(s),
                     wb.verdict(vals, ref_vals, c == ref), wb.fmt_change(change),
                     median_of([r.disk_per_req for r in runs[c]]),
                     median_of([r.p99 for r in runs[c]]),
                     sum(r.responses for r in runs[c]), errs, bad])
    md.append(wb.table(['configuration', 'runs', 'req/s median [min-max]',
                        f'verdict against {label(env, ref)}', 'change of medians',
                        'disk reads/req', 'p99 ms', 'responses checked', 'errors',
                        'mismatches'], rows))
    md.append('Aggregate requests/s through HAProxy, answered without an error.  verdict: '
              '**faster** when every repetition beat every one of the reference, **slower** '
              'when every one was below, else within noise.  errors: responses with an error '
              "status (HAProxy's 504 when a server took longer than the recipe's 30 s "
              "`timeout server`); mismatches: bodies that differ from the file.\n")
    for c in configs[1:]:
        vals = [r.rps for r in runs[c] if r.rps is not None]
        if vals and ref_vals:
            md.append(f'- {label(env, c)} against {label(env, ref)}: '
                      f'{wb.spread(vals).med / wb.spread(ref_vals).med:.2f}x the median, '
                      f'its slowest repetition {min(vals) / max(ref_vals):.2f}x the '
                      "reference's fastest.")
    md.append('')
    made = plots(outdir, prefix, env, configs, runs)
    if prefix + 'throughput.png' in made:
        md.append(f'![Aggregate requests/s]({prefix}throughput.png)\n')
    md.append('## Each server\n')
    rows = []
    for c in configs:
        names = sorted({s for r in runs[c] for s in r.servers}, key=lambda s: int(s[3:]))
        for s in names:
            def m(key):
                return median_of([r.servers[s][key] for r in runs[c] if s in r.servers])
            rows.append([label(env, c), s, m('requests'), m('disk_reads_per_req'),
                         m('disk_kib_per_req'), m('hit_ratio'), m('page_cache_mib'),
                         m('stored_mib'), m('pool_mib'), m('staging_full'),
                         m('pool_limit'), m('shrinker_frees'), m('cpu_waiting'),
                         m('cpu_ms_per_req'), m('codec_ms_per_req')])
    md.append(wb.table(['configuration', 'server', 'responses', 'disk reads/req',
                        'disk KiB/req', 'ccache hit ratio', 'page cache MiB',
                        'stored MiB', 'pool MiB', 'staging full', 'pool limit',
                        'shrinker frees', 'CPU idle or iowait', 'CPU ms/req',
                        'ccache (de)compression ms/req'], rows))
    md.append('Medians over the repetitions, measured phase; page cache, stored and pool at '
              "its end.  hit ratio: ccache's hits / (hits + misses).  staging full, pool "
              'limit: pages ccache dropped because its staging area was full (compression '
              'behind), and refused at its limit; shrinker frees: entries given back to '
              'reclaim (pages; - from runs that did not record them).  CPU idle or iowait: '
              "the share of the server's CPU time idle or waiting for I/O; near 0 its CPU, "
              'not its disk, was the limit.  CPU ms/req: its busy CPU time per response; '
              "ccache (de)compression ms/req: the part of it ccache's offload backends "
              'spent compressing and decompressing (- from runs that did not record it).\n')
    leave_rows = []
    for c in configs:
        for r in runs[c]:
            if not r.r['route']:
                continue
            leaving = f'web{n}'
            x = routes(r.r, leaving)
            lv = r.r['phase'].get('leave', {})
            leave_rows.append([r.name, x['asked'], x['on_leaving'], x['moved_out'],
                               x['moved_not_leaving'], x['back'], x['failed'],
                               lv.get('errors', '-'), lv.get('mismatches', '-')])
    if leave_rows:
        md.append('## A server leaves and comes back\n')
        md.append(f'With URI hashing, web{n} is set to maintenance a third into a load of '
                  f"{env.get('leave_secs', '?')} s and back to ready at two thirds; then, with "
                  f"no load, each of {env.get('route_uris', '?')} URIs is requested with all "
                  f'servers up, with web{n} out and with it back, and the server that answered '
                  'is noted.  Only the URIs that were on the leaving server should move, and all '
                  'should come back, but for the bound on loads: with `hash-balance-factor` a '
                  "request goes to the next server on the ring when its own still counts the "
                  "previous request's connection.\n")
        md.append(wb.table(['run', 'URIs asked', f'on web{n}', f'moved while web{n} out',
                            'of them from another server', 'back on their server after',
                            'failed requests', 'load errors', 'load mismatches'], leave_rows))
        if prefix + 'leave.png' in made:
            md.append(f'![Responses per server while one leaves]({prefix}leave.png)\n')
    with open(os.path.join(outdir, 'report.md'), 'w') as f:
        f.write('\n'.join(md) + '\n')
    with open(os.path.join(outdir, 'results.csv'), 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['run', 'config', 'rep', 'status', 'rps', 'p99_ms', 'errors',
                    'mismatches', 'server', 'responses', 'disk_reads_per_req',
                    'disk_kib_per_req', 'hit_ratio', 'page_cache_mib', 'stored_mib',
                    'pool_mib', 'staging_full', 'pool_limit', 'shrinker_frees',
                    'cpu_waiting', 'cpu_ms_per_req', 'codec_ms_per_req'])
        for c in configs:
            for r in runs[c]:
                for s, d in sorted(r.servers.items()):
                    w.writerow([r.name, c, r.rep, r.status, r.rps, r.p99, r.errors,
                                r.mismatches, s, d['requests'], d['disk_reads_per_req'],
                                d['disk_kib_per_req'], d['hit_ratio'],
                                d['page_cache_mib'], d['stored_mib'], d['pool_mib'],
                                d['staging_full'], d['pool_limit'],
                                d['shrinker_frees'], d['cpu_waiting'],
                                d['cpu_ms_per_req'], d['codec_ms_per_req']])
    # an error status is the cluster's answer (HAProxy's 504 after its
    # 30 s server timeout): counted, not a failure of the run
    failed = [r.name for c in configs for r in runs[c]
              if r.status != 0 or r.mismatches]
    if failed:
        print('cluster-report: failed or mismatched runs: ' + ' '.join(failed),
              file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    args = sys.argv[1:]
    pre = ''
    if args[:1] == ['--prefix'] and len(args) == 3:
        pre, args = args[1], args[2:]
    if len(args) != 1:
        sys.exit(__doc__)
    sys.exit(main(args[0], pre))
