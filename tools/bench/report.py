#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write web-bench.sh's report: results.csv, plots and report.md.

usage: report.py RESULTS_DIR

RESULTS_DIR holds what web-bench.sh wrote: run.env (the run's settings,
the machine, each configuration's wall time and boot.sh status),
calibration.env, docset.summary and logs/NAME.log, the console of each
configuration's guest with its "BENCH config=NAME phase=PHASE key=value..."
lines.  Exits 1 when a configuration failed, a response differed from the
manifest, or a phase is missing.
"""
import csv
import os
import shlex
import sys

USER_HZ = 100
WEB_PHASES = ('nginx', 'apache')


def read_env(path):
    env = {}
    with open(path) as f:
        for line in f:
            for tok in shlex.split(line, comments=True):
                if '=' in tok:
                    k, v = tok.split('=', 1)
                    env[k] = v
    return env


def num(v):
    try:
        return int(v)
    except (TypeError, ValueError):
        try:
            return float(v)
        except (TypeError, ValueError):
            return v


STALLS = ('self-detected stall', 'rcu_preempt detected stalls', 'blocked for more than',
          'soft lockup')


def read_log(path):
    """BENCH lines by phase, error lines, BENCH-STAT values, stall lines."""
    phases, errors, stats, stalls = {}, [], {}, []
    if not os.path.exists(path):
        return phases, ['no console log'], stats, stalls
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\r\n')
            if any(k in line for k in STALLS):
                stalls.append(line.strip())
            elif line.startswith('BENCH-STAT '):
                k, _, v = line[11:].partition('=')
                stats[k] = num(v)
            elif line.startswith(('BENCH-VERIFY ', 'BENCH-FIO ', 'BENCH-PRIME ')):
                errors.append(line)
            elif line.startswith('BENCH '):
                kv = dict(t.split('=', 1) for t in line[6:].split() if '=' in t)
                if 'error' in kv:
                    errors.append(line[6:])
                elif 'phase' in kv:
                    phases[kv['phase']] = {k: num(v) for k, v in kv.items()}
    return phases, errors, stats, stalls


def derive(p, mem_mib):
    """Rates and shares over one phase."""
    secs = p.get('secs') or 0
    d = {}
    if secs:
        d['disk_mibps'] = p.get('disk_kib', 0) / 1024 / secs
        d['disk_iops'] = p.get('disk_ios', 0) / secs
    hits, misses = p.get('hits', 0), p.get('misses', 0)
    d['hit_ratio'] = hits / (hits + misses) if hits + misses else None
    ticks = sum(p.get(k, 0) for k in ('cpu_user', 'cpu_nice', 'cpu_sys', 'cpu_idle',
                                      'cpu_iowait', 'cpu_irq', 'cpu_softirq'))
    if ticks:
        comp = p.get('compress_ns', 0) / 1e9 * USER_HZ
        decomp = p.get('decompress_ns', 0) / 1e9 * USER_HZ
        sys_all = p.get('cpu_sys', 0) + p.get('cpu_irq', 0) + p.get('cpu_softirq', 0)
        d['cpu_user_pct'] = 100 * (p.get('cpu_user', 0) + p.get('cpu_nice', 0)) / ticks
        d['cpu_compress_pct'] = 100 * comp / ticks
        d['cpu_decompress_pct'] = 100 * decomp / ticks
        d['cpu_sys_pct'] = 100 * max(sys_all - comp - decomp, 0) / ticks
        d['cpu_iowait_pct'] = 100 * p.get('cpu_iowait', 0) / ticks
        d['cpu_idle_pct'] = 100 * p.get('cpu_idle', 0) / ticks
    d['compress_us_per_page'] = (p['compress_ns'] / p['captures'] / 1000
                                 if p.get('captures') and p.get('compress_ns') else None)
    d['ratio'] = p['ratio_pm'] / 1000 if p.get('ratio_pm') else None
    d['mem_used_mib'] = p.get('mem_used', 0) / 2**20
    d['stored_mib'] = p.get('stored_pages', 0) * 4096 / 2**20
    d['mem_mib'] = mem_mib
    return d


def fmt(v, spec='.1f', none='-'):
    if v is None or v == '':
        return none
    if isinstance(v, str):
        return v
    return format(v, spec)


def pct(a, b):
    if not a or not b:
        return '-'
    return f'{100 * (a - b) / b:+.0f}%'


def table(head, rows):
    out = ['| ' + ' | '.join(head) + ' |',
           '|' + '|'.join('---' if i == 0 else '---:' for i in range(len(head))) + '|']
    out += ['| ' + ' | '.join(str(c) for c in r) + ' |' for r in rows]
    return '\n'.join(out)


def plots(outdir, configs, res, labels, env):
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        print('report: no matplotlib (python3-matplotlib): no plots', file=sys.stderr)
        return []
    made = []
    names = [c for c in configs if res[c]['phases']]
    xl = [labels[c].replace(', ', '\n').replace('ccache ', 'ccache\n') for c in names]

    def bars(ax, vals, title, ylabel, color):
        ax.bar(range(len(names)), [v or 0 for v in vals], color=color)
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(xl, fontsize=7)
        ax.set_title(title, fontsize=9)
        ax.set_ylabel(ylabel, fontsize=8)
        ax.tick_params(axis='y', labelsize=7)
        for i, v in enumerate(vals):
            if v:
                ax.annotate(f'{v:.0f}' if v >= 10 else f'{v:.1f}', (i, v), ha='center',
                            va='bottom', fontsize=6)

    def ph(c, phase, key):
        return res[c]['phases'].get(phase, {}).get(key)

    def dv(c, phase, key):
        return res[c]['derived'].get(phase, {}).get(key)

    fig, axs = plt.subplots(3, 1, figsize=(max(7, 1.1 * len(names)), 9))
    bars(axs[0], [ph(c, 'nginx', 'rps') for c in names], 'nginx: requests/s', 'req/s', '#4c72b0')
    bars(axs[1], [(ph(c, 'fio-rand', 'fio_bw') or 0) / 2**20 for c in names],
         'fio: 4 KiB random reads, zipf:1.1 over one file', 'MiB/s', '#55a868')
    bars(axs[2], [(ph(c, 'fio-files', 'fio_bw') or 0) / 2**20 for c in names],
         'fio: whole-file reads, file_service_type=zipf:1.1', 'MiB/s', '#c44e52')
    fig.suptitle('Throughput per configuration (higher is better)', fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, 'throughput.png'), dpi=110)
    plt.close(fig)
    made.append(('throughput.png', 'Throughput per configuration'))

    fig, ax = plt.subplots(figsize=(max(7, 1.1 * len(names)), 4))
    w = 0.27
    for i, (phase, color) in enumerate((('nginx', '#4c72b0'), ('fio-rand', '#55a868'),
                                        ('fio-files', '#c44e52'))):
        ax.bar([x + (i - 1) * w for x in range(len(names))],
               [dv(c, phase, 'disk_mibps') or 0 for c in names], w, label=phase, color=color)
    ax.axhline(int(env.get('cal_bps', 0)) / 2**20, color='grey', ls='--', lw=0.8,
               label='throttle')
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(xl, fontsize=7)
    ax.set_ylabel('disk reads, MiB/s', fontsize=8)
    ax.set_title('Disk read bandwidth during each measured phase (lower: fewer reads)', fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, 'disk.png'), dpi=110)
    plt.close(fig)
    made.append(('disk.png', 'Disk read bandwidth'))

    fig, ax = plt.subplots(figsize=(max(7, 1.1 * len(names)), 4))
    bottom = [0] * len(names)
    for key, lab, color in (('cpu_user_pct', 'user', '#4c72b0'),
                            ('cpu_sys_pct', 'system (other)', '#8172b2'),
                            ('cpu_compress_pct', 'compression', '#c44e52'),
                            ('cpu_decompress_pct', 'decompression', '#dd8452'),
                            ('cpu_iowait_pct', 'iowait', '#ccb974'),
                            ('cpu_idle_pct', 'idle', '#dddddd')):
        vals = [dv(c, 'nginx', key) or 0 for c in names]
        ax.bar(range(len(names)), vals, bottom=bottom, label=lab, color=color)
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(xl, fontsize=7)
    ax.set_ylabel('% of the guest\'s CPU time', fontsize=8)
    ax.set_ylim(0, 100)
    ax.set_title('CPU split during the nginx phase', fontsize=9)
    ax.legend(fontsize=7, loc='upper left', bbox_to_anchor=(1, 1))
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, 'cpu.png'), dpi=110)
    plt.close(fig)
    made.append(('cpu.png', 'CPU split'))

    sweep = [(0, 'none-R')] + [(p, f'cc{p}') for p in (20, 40, 60, 80)]
    sweep = [(p, c) for p, c in sweep if c in names]
    if sweep:
        fig, axs = plt.subplots(1, 3, figsize=(11, 3.6))
        for ax, (phase, key, scale, title) in zip(axs, (
                ('nginx', 'rps', 1, 'nginx req/s'),
                ('fio-rand', 'fio_bw', 2**-20, 'fio random MiB/s'),
                ('fio-files', 'fio_bw', 2**-20, 'fio files MiB/s'))):
            xs = [p for p, _ in sweep]
            ys = [(ph(c, phase, key) or 0) * scale for _, c in sweep]
            ax.plot(xs, ys, 'o-', color='#4c72b0', label='R: plain (0) and ccache')
            if 'none-2R' in names:
                ax.axhline((ph('none-2R', phase, key) or 0) * scale, color='#c44e52', ls='--',
                           label='plain kernel, 2R')
            ax.set_xlabel('max_pool_percent (0: no module)', fontsize=8)
            ax.set_title(title, fontsize=9)
            ax.set_xticks([0, 20, 40, 60, 80])
            ax.tick_params(labelsize=7)
            ax.set_ylim(bottom=0)
        axs[0].legend(fontsize=7)
        fig.suptitle('Pool-size sweep (lzo, offload=cpu, RAM R)', fontsize=10)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, 'pool.png'), dpi=110)
        plt.close(fig)
        made.append(('pool.png', 'Pool-size sweep'))
    return made


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.split('\n\n')[1])
    outdir = sys.argv[1]
    env = read_env(os.path.join(outdir, 'run.env'))
    env.update(read_env(os.path.join(outdir, 'calibration.env')))
    configs = env['configs'].split()
    mem = int(env['mem'])
    summary = open(os.path.join(outdir, 'docset.summary')).read().rstrip('\n')
    docset = dict(t.split('=', 1) for t in summary.splitlines()[-1].split()[1:])

    labels, res, bad = {}, {}, []
    for c in configs:
        conf = {}
        cf = os.path.join(outdir, 'logs', f'{c}.conf')
        if os.path.exists(cf):
            conf = read_env(cf)
        phases, errors, stats, stalls = read_log(os.path.join(outdir, 'logs', f'{c}.log'))
        key = c.replace('-', '_')
        mult = 2 if c.endswith('2R') else 1
        labels[c] = conf.get('label', c)
        res[c] = {'phases': phases, 'errors': errors, 'stats': stats, 'stalls': stalls,
                  'time': num(env.get(f'time_{key}')), 'status': num(env.get(f'status_{key}', 1)),
                  'cpu': num(env.get(f'cpu_{key}')), 'load': num(env.get(f'load_{key}')),
                  'mem': mem * mult,
                  'derived': {ph: derive(p, mem * mult) for ph, p in phases.items()}}
        r = res[c]
        if r['status'] != 0:
            bad.append(f'{c}: the guest failed (boot.sh status {r["status"]})')
        bad += [f'{c}: {e}' for e in errors]
        need = ['nginx', 'nginx-verify', 'fio-rand', 'fio-files']
        if 'replay_secs' in env:    # runs before the replay had none
            need.append('prefill-replay')
        if conf.get('apache') == '1':
            need += ['apache', 'apache-verify']
        need += [ph for ph, p in phases.items() if p.get('rc') and ph not in need]
        for ph in need:
            p = phases.get(ph)
            if p is None:
                bad.append(f'{c}: no {ph} phase')
            elif p.get('mismatches') or p.get('errors') or p.get('rc') or p.get('fio_errors'):
                bad.append(f'{c}: {ph}: rc {p.get("rc")}, {p.get("errors", p.get("fio_errors"))}'
                           f' errors, {p.get("mismatches", 0)} mismatches')

    # results.csv: one row per configuration and phase
    rows = []
    for c in configs:
        for ph, p in res[c]['phases'].items():
            row = {'config': c, 'label': labels[c], 'ram_mib': res[c]['mem']}
            row.update(p)
            row.update({k: (round(v, 4) if isinstance(v, float) else v)
                        for k, v in res[c]['derived'][ph].items()})
            rows.append(row)
    keys = []
    for row in rows:
        keys += [k for k in row if k not in keys]
    with open(os.path.join(outdir, 'results.csv'), 'w', newline='') as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)

    made = plots(outdir, configs, res, labels, env)

    def ph(c, phase, key):
        return res[c]['phases'].get(phase, {}).get(key)

    def dv(c, phase, key):
        return res[c]['derived'].get(phase, {}).get(key)

    ok = [c for c in configs if res[c]['phases'].get('nginx')]
    md = []
    quick = env.get('quick') == '1'
    md.append(f'# ccache web-serving benchmark{" (quick)" if quick else ""}: {env["run_id"]}\n')
    md.append(f'Command: `{env["cmd"]}`'
              + (' (what `make bench-web QUICK=1` runs)' if quick else ' (what `make bench-web` runs)')
              + '  \n')
    total = int(env.get('total_secs', 0))
    md.append(f'Wall time: {total // 60} min {total % 60} s for {len(configs)} configurations'
              f' (each in a fresh guest), calibration and content included.\n')

    md.append('## Machine\n')
    md.append(f'- Host: {env["host_cpu"]}, {env["host_cores"]} cores, '
              f'{int(env["host_mem_kib"]) // 1024} MiB RAM, {env["host_kernel"]}')
    md.append(f'- Guests: Debian kernel {env["release"]} under {env["qemu"]}, TCG (no KVM), '
              f'multi-threaded, 2 vCPUs; R = {mem} MiB of RAM (2R = {2 * mem} MiB)')
    md.append(f'- Servers: nginx {env["nginx"]}, Apache {env["apache"]} (event MPM), '
              f'the host\'s binaries on a second disk; load generator: webload in the same guest\n')

    md.append('## Calibration\n')
    md.append('The guest runs under TCG, several times slower than the host, while QEMU\'s disk '
              'throttle runs in real time.  To keep the balance of a real server and its '
              'volume, the disk is slowed by the same factor as the CPU:\n')
    md.append(f'- host: `lzop` (LZO1X-1, the kernel\'s lzo) over {int(env["cal_sample_bytes"]) / 2**20:.0f} MiB '
              f'of the docset: {float(env["cal_host_user_s"]):.3f} s of user CPU, '
              f'**{env["cal_host_mbps"]} MB/s**')
    md.append(f'- guest: ccache compressing the same bytes page by page (offload=cpu): '
              f'{int(env["cal_guest_pages"])} pages in {int(env["cal_guest_ns"]) / 1e9:.2f} s of CPU, '
              f'{env["cal_guest_ns_per_page"]} ns/page, **{env["cal_guest_mbps"]} MB/s**')
    md.append(f'- factor host/guest: **{env["cal_factor"]}**; measured {env["cal_date"]} '
              f'on {env["cal_host_cpu"]}')
    md.append(f'- model volume: AWS gp3 baseline, {int(env["cal_model_bps"]) / 2**20:.0f} MiB/s and '
              f'{env["cal_model_iops"]} IOPS; divided by the factor: the data disk is throttled to '
              f'**{int(env["cal_bps"]) / 2**20:.2f} MiB/s and {env["cal_iops"]} IOPS** '
              f'(QEMU throttling, reads and writes together)\n')

    md.append('## Content\n')
    md.append('```\n' + summary + '\n```\n')
    md.append(f'The docset takes {int(docset["pages"]) / 256:.0f} MiB in the page cache, '
              f'{int(docset["pages"]) / 256 / mem:.1f}x R.  fio: one file of {env["big_mib"]} MiB '
              f'(4 KiB random reads, random_distribution=zipf:1.1) and {env["small_n"]} files of '
              f'{env["small_kib"]} KiB read whole (file_service_type=zipf:1.1), from the '
              f'docset\'s bytes.  All on one ext4 data disk.\n')

    md.append('## Method\n')
    md.append(f'Each configuration boots a fresh guest with the same disks.  Each data set is '
              f'first read once with the throttle lifted (QMP): the docset from its least to its '
              f'most popular file (`webload -P`, the ranking the load uses), then '
              f'{env.get("replay_secs", "?")} s of the nginx load below (the replay), so that the '
              f'page cache and ccache start with what a long Zipf load leaves there; fio\'s files '
              f'in order.  The readers pause whenever ccache refused an evicted page for want of '
              f'a staging buffer, until the compressor (idle cycles only) caught up, as it does '
              f'at the throttled disk\'s pace.  Every warm-up and measured phase then runs on '
              f'the throttled disk.\n')
    md.append(f'- nginx: webload with {env["conns"]} connections (2 threads), {env["session"]} '
              f'requests per keep-alive session, Zipf exponent {env["zipf"]}; {env["web_warm"]} s '
              f'warm-up, {env["web_secs"]} s measured; every response body\'s length and CRC32C is '
              f'compared with the manifest (`webload -C`).')
    md.append(f'- verification: `webload -V` over {env["verify_files"]} of the '
              f'{env["docset_files"]} files, right after the load, so that part of them come '
              f'from ccache '
              + ('(all of them; a `-V` over every file also made the first read of the docset)'
                 if env.get('verify_all') == '1'
                 else '(every k-th line of the manifest; `--verify-all` verifies every file)')
              + ': each body is compared with the manifest.')
    md.append('- Apache (event MPM): the same load and verification, after nginx, in the '
              'configurations listed under "nginx and Apache".')
    md.append(f'- fio: 2 jobs, psync, buffered, invalidate=0; {env["fio_warm"]} s warm-up, '
              f'{env["fio_secs"]} s measured.')
    md.append('- counters over each measured phase: disk reads from /proc/diskstats, CPU from '
              '/proc/stat, compression and decompression time from ccache\'s '
              'offload/*/compress_ns and decompress_ns, hits and misses from '
              '/sys/kernel/mm/ccache.\n')

    md.append('## Results\n')
    if bad:
        md.append('**Problems:**\n')
        md += [f'- {b}' for b in bad]
        md.append('')
    ref = 'cc60' if 'cc60' in ok else next((c for c in ok if c.startswith('cc')), None)
    md.append(conclusions(ref, ok, res, labels, ph, dv, mem))
    md.append(contention(configs, res, labels, env))

    md.append('### Web serving (nginx)\n')
    rows = []
    for c in configs:
        rows.append([labels[c], res[c]['mem'], fmt(ph(c, 'nginx', 'rps')),
                     fmt(ph(c, 'nginx', 'mibps'), '.2f'), fmt(ph(c, 'nginx', 'p50_ms')),
                     fmt(ph(c, 'nginx', 'p99_ms')), fmt(ph(c, 'nginx', 'errors'), 'd'),
                     fmt(dv(c, 'nginx', 'disk_mibps'), '.2f'), fmt(dv(c, 'nginx', 'disk_iops'), '.0f'),
                     fmt(dv(c, 'nginx', 'hit_ratio'), '.2f'),
                     pct(ph(c, 'nginx', 'rps'), ph('none-R', 'nginx', 'rps')) if 'none-R' in ok else '-'])
    md.append(table(['configuration', 'RAM MiB', 'req/s', 'MiB/s', 'p50 ms', 'p99 ms', 'errors',
                     'disk read MiB/s', 'disk read IOPS', 'ccache hit ratio', 'req/s vs plain R'],
                    rows) + '\n')

    md.append('### fio\n')
    rows = []
    for c in configs:
        rows.append([labels[c]] + [
            v for phase in ('fio-rand', 'fio-files') for v in (
                fmt((ph(c, phase, 'fio_bw') or 0) / 2**20, '.2f') if ph(c, phase, 'fio_bw') is not None else '-',
                fmt(ph(c, phase, 'fio_iops'), '.0f'),
                fmt((ph(c, phase, 'fio_p50_ns') or 0) / 1e6, '.2f') if ph(c, phase, 'fio_p50_ns') is not None else '-',
                fmt((ph(c, phase, 'fio_p99_ns') or 0) / 1e6, '.2f') if ph(c, phase, 'fio_p99_ns') is not None else '-',
                fmt(dv(c, phase, 'disk_mibps'), '.2f'),
                fmt(dv(c, phase, 'hit_ratio'), '.2f'))])
    md.append(table(['configuration', 'rand MiB/s', 'rand IOPS', 'rand p50 ms', 'rand p99 ms',
                     'rand disk MiB/s', 'rand hit ratio', 'files MiB/s', 'files/s', 'files p50 ms',
                     'files p99 ms', 'files disk MiB/s', 'files hit ratio'], rows) + '\n')
    md.append('rand: 4 KiB buffered random reads, random_distribution=zipf:1.1, over one file '
              f'of {env["big_mib"]} MiB; files: whole-file reads of {env["small_kib"]} KiB over '
              f'{env["small_n"]} files, file_service_type=zipf:1.1 (IOPS = files/s).  '
              'Latencies are fio\'s completion latencies (clat).\n')

    md.append('### ccache and CPU (nginx phase)\n')
    rows = []
    for c in configs:
        d = res[c]['derived'].get('nginx', {})
        rows.append([labels[c], fmt(d.get('hit_ratio'), '.2f'),
                     fmt(d.get('compress_us_per_page'), '.0f'), fmt(d.get('ratio'), '.3f'), fmt(d.get('stored_mib') if c.startswith('cc') else None, '.0f'),
                     fmt(d.get('mem_used_mib') if c.startswith('cc') else None, '.0f'),
                     fmt(d.get('cpu_user_pct')), fmt(d.get('cpu_sys_pct')),
                     fmt(d.get('cpu_compress_pct')), fmt(d.get('cpu_decompress_pct')),
                     fmt(d.get('cpu_iowait_pct')), fmt(d.get('cpu_idle_pct'))])
    md.append(table(['configuration', 'hit ratio', 'compress µs/page', 'compressed/original',
                     'stored MiB',
                     'mem_used MiB', 'user %', 'system %', 'compression %', 'decompression %',
                     'iowait %', 'idle %'], rows) + '\n')
    md.append('hit ratio: hits / (hits + misses) of ccache over the phase; compress µs/page: '
              f'compress_ns / captures (the calibration measured {float(env["cal_guest_ns_per_page"]) / 1000:.0f} µs; '
              'more means the guest ran slower than when it was calibrated); compressed/original: '
              'compression_ratio_permille / 1000 at its end; mem_used: mem_used_bytes (pool, '
              'staging buffers, metadata).  CPU: shares of both vCPUs\' time; system excludes '
              'the compression and decompression time ccache counted.\n')

    md.append('### The pool: after the prefill and over the nginx phase\n')
    rows = []
    for c in configs:
        pool, guest = ph(c, 'module', 'pool'), ph(c, 'guest', 'mem_kib')
        if pool is None:
            continue
        limit = guest * pool / 100 / 1024 if guest else None
        def prefill(key):
            vals = [ph(c, p, key) for p in ('prefill-web', 'prefill-replay')]
            return None if None in vals else sum(vals)
        rows.append([labels[c], fmt(limit, '.0f'),
                     fmt(prefill('paused'), 'd'),
                     fmt(prefill('captures'), 'd'),
                     fmt(prefill('reject_staging_full'), 'd'),
                     fmt(dv(c, 'prefill-web', 'stored_mib'), '.0f'),
                     fmt(ph(c, 'prefill-replay', 'requests'), 'd'),
                     fmt(dv(c, 'prefill-replay', 'hit_ratio'), '.2f'),
                     fmt(dv(c, 'prefill-replay', 'stored_mib'), '.0f'),
                     fmt(ph(c, 'nginx', 'captures'), 'd'),
                     fmt(ph(c, 'nginx', 'reject_staging_full'), 'd'),
                     fmt(ph(c, 'nginx', 'reject_pool_limit'), 'd'),
                     fmt(ph(c, 'nginx', 'shrinker_frees'), 'd'),
                     fmt(ph(c, 'nginx', 'lru_evictions'), 'd'),
                     fmt(dv(c, 'nginx', 'stored_mib'), '.0f')])
    md.append(table(['configuration', 'pool limit MiB', 'prefill pauses', 'prefill captures',
                     'prefill staging full', 'stored MiB after the ordered read',
                     'replay requests', 'replay hit ratio', 'stored MiB after the replay',
                     'nginx captures', 'nginx staging full', 'nginx pool limit',
                     'nginx shrinker frees', 'nginx LRU evictions', 'stored MiB after nginx'],
                    rows) + '\n')
    md.append('pool limit: max_pool_percent of the guest\'s MemTotal (compressed bytes count '
              'against it, the staging buffers do not); staging full, pool limit: pages refused '
              'for want of a staging buffer or over the limit; the prefill (the ordered read and the '
              'replay) pauses its readers each time a page was refused for want of a staging '
              'buffer, until the compressor caught up.  Counts over the phase; stored MiB: '
              'original size of the stored pages at the phase\'s end.\n')

    md.append('### Verification\n')
    rows = []
    for c in configs:
        for srv in WEB_PHASES:
            load, ver = res[c]['phases'].get(srv), res[c]['phases'].get(f'{srv}-verify')
            if not load and not ver:
                continue
            rows.append([labels[c], srv,
                         fmt((load or {}).get('requests'), 'd'),
                         fmt((load or {}).get('mismatches'), 'd'),
                         fmt((ver or {}).get('requests'), 'd'),
                         fmt((ver or {}).get('mismatches'), 'd'),
                         fmt((ver or {}).get('errors'), 'd'),
                         fmt((ver or {}).get('rps')),
                         fmt(dv(c, f'{srv}-verify', 'hit_ratio'), '.2f')])
        pv = res[c]['phases'].get('prefill-verify')
        if pv:
            rows.append([labels[c], 'nginx, first read', '-', '-', fmt(pv.get('requests'), 'd'),
                         fmt(pv.get('mismatches'), 'd'), fmt(pv.get('errors'), 'd'),
                         fmt(pv.get('rps')), '-'])
    md.append(table(['configuration', 'server', 'load responses checked', 'load mismatches',
                     '-V files', '-V mismatches', '-V errors', '-V files/s', '-V ccache hit ratio'],
                    rows) + '\n')
    mism = sum((p.get('mismatches') or 0) for c in configs for p in res[c]['phases'].values())
    md.append(f'Mismatches over the whole run: **{mism}**.\n')

    ap = [c for c in configs if res[c]['phases'].get('apache')]
    if ap:
        md.append('### nginx and Apache (event MPM)\n')
        rows = []
        for c in ap:
            for srv in WEB_PHASES:
                rows.append([labels[c], srv, fmt(ph(c, srv, 'rps')), fmt(ph(c, srv, 'p50_ms')),
                             fmt(ph(c, srv, 'p99_ms')), fmt(ph(c, srv, 'errors'), 'd'),
                             fmt(dv(c, srv, 'disk_mibps'), '.2f'), fmt(dv(c, srv, 'hit_ratio'), '.2f')])
        md.append(table(['configuration', 'server', 'req/s', 'p50 ms', 'p99 ms', 'errors',
                         'disk read MiB/s', 'ccache hit ratio'], rows) + '\n')

    if made:
        md.append('### Plots\n')
        md += [f'![{t}]({f})\n' for f, t in made]

    md.append('### Time per configuration\n')
    md.append(table(['configuration', 'RAM MiB', 'wall time s', 'host CPU s', 'host cores used',
                     'host load (1-min, mean)', 'status'],
                    [[labels[c], res[c]['mem'], fmt(res[c]['time'], 'd'), fmt(res[c]['cpu'], 'd'),
                      fmt(res[c]['cpu'] / res[c]['time'] if isinstance(res[c]['cpu'], int)
                          and res[c]['time'] else None, '.2f'),
                      fmt(res[c]['load'], '.2f'),
                      ('ok' if res[c]['status'] == 0 else f'failed ({res[c]["status"]})')
                      + (', vCPUs stalled' if res[c]['stalls'] else '')]
                     for c in configs]) + '\n')
    md.append(f'wall time: boot.sh for the configuration, its small disks included (the data '
              f'disk\'s image is made once, before the first configuration, and each guest reads '
              f'it through an overlay of its own); host CPU: what boot.sh, mkfs and QEMU took; '
              f'host load: the 1-minute load average sampled every '
              f'5 s, this guest\'s 2 vCPU threads included, on {env["host_cores"]} cores.\n')
    md.append('Files: `results.csv` (every phase of every configuration, raw counters and '
              'derived rates), `logs/` (each guest\'s console, boot.sh\'s output, the throttle '
              'switches), `calibration.env`, `run.env`.\n')

    with open(os.path.join(outdir, 'report.md'), 'w') as f:
        f.write('\n'.join(md))
    text = '\n'.join(md)
    print(text[text.index('## Results'):text.index('### Plots') if made else None])
    if bad:
        print('report: ' + '\nreport: '.join(bad), file=sys.stderr)
    return 1 if bad else 0


def contention(configs, res, labels, env):
    """Say when the host slowed the guests: the comparison assumes it did not."""
    cores = int(env.get('host_cores', 2))
    cal = float(env['cal_guest_ns_per_page']) / 1000
    notes = []
    for c in configs:
        why = []
        if isinstance(res[c]['load'], float) and res[c]['load'] > cores + 0.5:
            why.append(f'host load {res[c]["load"]:.1f} on {cores} cores')
        slow = res[c]['derived'].get('nginx', {}).get('compress_us_per_page')
        if slow and slow > 1.5 * cal:
            why.append(f'compression {slow / cal:.1f}x slower than at calibration')
        if res[c]['stalls']:
            why.append('RCU stall warnings (vCPUs starved)')
        if why:
            notes.append(f'{labels[c]} ({", ".join(why)})')
    if not notes:
        return ''
    return ('**The host was busy with other work during part of this run**, so some guests ran '
            'slower than calibrated while their disk kept its throttled speed: for them the disk '
            'was relatively faster than the model, which favours the plain kernel, and CPU-bound '
            'phases slowed down.  Affected: ' + '; '.join(notes) + '.  Compare configurations '
            'with this in mind, or run again on an idle machine.\n')


def conclusions(ref, ok, res, labels, ph, dv, mem):
    """Plain sentences: ccache against the plain kernel at R and at 2R."""
    if not ref:
        return 'No ccache configuration completed: nothing to compare.\n'
    out = []
    lab = labels[ref]
    for base, what in (('none-R', f'the plain kernel with the same RAM (R = {mem} MiB)'),
                       ('none-2R', f'the plain kernel with twice the RAM (2R = {2 * mem} MiB)')):
        if base not in ok:
            continue
        parts = []
        for phase, key, unit, scale in (('nginx', 'rps', 'req/s', 1),
                                        ('fio-rand', 'fio_bw', 'MiB/s', 2**-20),
                                        ('fio-files', 'fio_bw', 'MiB/s', 2**-20)):
            a, b = ph(ref, phase, key), ph(base, phase, key)
            if a is None or b is None or not b:
                continue
            name = {'nginx': 'nginx', 'fio-rand': 'fio random 4 KiB', 'fio-files': 'fio whole files'}[phase]
            parts.append(f'{name} {a * scale:.1f} against {b * scale:.1f} {unit} '
                         f'({100 * a / b:.0f}%)')
        da, db = dv(ref, 'nginx', 'disk_mibps'), dv(base, 'nginx', 'disk_mibps')
        p99a, p99b = ph(ref, 'nginx', 'p99_ms'), ph(base, 'nginx', 'p99_ms')
        s = f'- **{lab} against {what}:** ' + '; '.join(parts) + '.'
        if da is not None and db is not None:
            s += f'  nginx read {da:.2f} MiB/s from the disk against {db:.2f}'
            if p99a is not None and p99b is not None:
                s += f', p99 latency {p99a:.0f} against {p99b:.0f} ms'
            s += '.'
        out.append(s)
    pools = [(c, ph(c, 'nginx', 'rps')) for c in ok if c in ('cc20', 'cc40', 'cc60', 'cc80')]
    if len(pools) > 1:
        best = max(pools, key=lambda x: x[1] or 0)
        out.append(f'- Pool sweep: nginx peaked with {labels[best[0]]} ({best[1]:.1f} req/s).')
    return '\n'.join(out) + '\n'


if __name__ == '__main__':
    sys.exit(main())
