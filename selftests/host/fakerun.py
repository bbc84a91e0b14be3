#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Make up a results directory of tools/bench/web-bench.sh for report.py.

usage: fakerun.py OUTDIR [-r REPS] [-t CONFIG[:PHASE]=V1,V2...]...
                  [--mismatch RUN] [--drop RUN:PHASE] [--status RUN=N] [--error RUN]
                  [--empty RUN] [--2r] [--probe RUN:PHASE=MS]
                  [--busy CONFIG:PHASE=U1,U2...]

What a quick run writes (run.env, calibration.env, docset.summary,
support.summary, logs/NAME.REP.log), in the same format, deterministic:
configurations none-R (plain kernel), cc (ccache, max_pool_percent 20) and
dmz (dm-cache on zram), with --2r also none-2R and cc-2R (2R of RAM),
REPS repetitions (3) in turns; in each guest a
prefill, the measured phases nginx, support (each with its -verify),
fio-rand and fio-files, 20 s each, then end; apache_secs=0.

Throughput (req/s, fio: MiB/s) is 100 unless -t gives one value per
repetition, for PHASE or for every measured phase of CONFIG.  Per request
(fio: per MiB delivered) every measured phase reads the disk 1.5 times and
30 KiB, and ccache counts 10 hits and 5 misses (20 KiB: the other 10 KiB
are not its misses).

RUN is NAME.REP: --mismatch counts a mismatch (rc 0) in its nginx-verify,
--drop leaves out its PHASE, --status gives its guest's status, --error adds
"BENCH error=nginx did not start" to its console, --empty leaves its console
empty (a guest that died at boot).  Every phase's CPU probe took 300 ms
but the one --probe gives.  A phase's CPU time is 4,000 ticks, 400 user,
600 system, the rest idle or iowait (25% busy); --busy gives CONFIG's
PHASE U user ticks per repetition and the rest system time (100% busy).
"""
import argparse
import os

CONFIGS = (('none-R', 'plain kernel, R'), ('cc', 'ccache, default settings'),
           ('dmz', "dm-cache on zram, ccache's budget"))
MEASURED = ('nginx', 'support', 'fio-rand', 'fio-files')
SECS = 20
TS_KEYS = ('disk_ios', 'disk_kib', 'hits', 'misses', 'captures', 'stored_pages', 'mem_used',
           'cached_kib')
MEM_KIB = 210640        # the guest's MemTotal at R = 256 MiB: ccache's budget 41 MiB

ap = argparse.ArgumentParser()
ap.add_argument('out')
ap.add_argument('-r', '--reps', type=int, default=3)
ap.add_argument('-t', '--throughput', action='append', default=[])
ap.add_argument('--mismatch', default='')
ap.add_argument('--drop', default='')
ap.add_argument('--status', default='')
ap.add_argument('--error', default='')
ap.add_argument('--empty', default='')
ap.add_argument('--2r', dest='two_r', action='store_true')
ap.add_argument('--probe', default='=')
ap.add_argument('--busy', action='append', default=[])
a = ap.parse_args()
if a.two_r:
    CONFIGS += (('none-2R', 'plain kernel, 2R'), ('cc-2R', 'ccache, default settings, 2R'))
probe_at, _, probe_ms = a.probe.partition('=')
busy = {}
for spec in a.busy:
    key, _, vals = spec.partition('=')
    busy[key] = [int(v) for v in vals.split(',')]
thr = {}
for spec in a.throughput:
    key, _, vals = spec.partition('=')
    name, _, only = key.partition(':')
    for ph in [only] if only else MEASURED:
        thr[name, ph] = [float(v) for v in vals.split(',')]


def kv(d):
    return ' '.join(f'{k}={v}' for k, v in d.items())


def counters(kind, units, frac=1.0):
    """The deltas of a phase that delivered units requests or MiB, frac of
    them (the BENCH-TS samples are cumulative); the levels at its end."""
    n = units * frac
    d = dict(disk_ios=int(n * 1.5), disk_kib=int(n * 30), disk_busy_ms=int(15225 * frac),
             disk_read_ms=int(n * 1.5 * 4),
             cpu_user=400, cpu_nice=0,
             cpu_sys=600, cpu_idle=2000, cpu_iowait=1000, cpu_irq=0, cpu_softirq=0)
    cc = kind == 'cc'
    d.update(hits=int(n * 10) if cc else 0, misses=int(n * 5) if cc else 0,
             captures=int(n * 4) if cc else 0, compress_ns=int(n * 4e5) if cc else 0,
             decompress_ns=int(n * 2e5) if cc else 0, stored_pages=30000 if cc else 0,
             mem_used=40 << 20 if cc else 0, ratio_pm=330 if cc else 0, cached_kib=80000)
    if kind == 'dmz':
        d.update(dm_read_hits=int(n * 3), dm_read_misses=int(n), dm_demotions=20,
                 dm_promotions=30, zram_orig_kib=84000, zram_compr_kib=28000,
                 zram_mem_kib=30000, zram_limit_kib=41984)
    return d


def guest(name, rep):
    """The console of run name.rep."""
    kind, rn = name.split('-')[0], f'{name}.{rep}'
    log = ['[    0.000000] Linux version 6.1.0-56-amd64 (fake)']
    if kind == 'cc':
        log.append(f'BENCH config={name} phase=module pool=20 offload=cpu compressor=lzo')
    if kind == 'dmz':
        log.append(f'BENCH config={name} phase=dmz cache_mib=82 zram_disksize_mib=82 '
                   'zram_limit_mib=41 block_kib=64 budget_pct=20')
    log.append(f'BENCH config={name} phase=guest mem_kib={MEM_KIB} cpus=2 kernel=6.1.0-56-amd64')
    if rn == a.error:
        log.append('BENCH error=nginx did not start')

    def phase(ph, work, units, secs=SECS + 0.3):
        if a.drop == f'{rn}:{ph}':
            return
        for i in range(1, 5) if ph in MEASURED else ():
            ts = {'req_t': f'{i * 5:.2f}', 'requests': int(units * i / 4)} \
                if 'rps' in work else {}
            c = counters(kind, units, i / 4)
            ts.update({k: c[k] for k in TS_KEYS})
            log.append(f'BENCH-TS config={name} phase={ph} t={i * 5 + 0.1:.1f} {kv(ts)}')
        probe = probe_ms if f'{rn}:{ph}' == probe_at else 300
        c = counters(kind, units)
        if f'{name}:{ph}' in busy:
            user = busy[f'{name}:{ph}'][rep - 1]
            c.update(cpu_user=user, cpu_sys=4000 - user, cpu_idle=0, cpu_iowait=0)
        log.append(f'BENCH config={name} phase={ph} secs={secs} {kv(work)} '
                   f'probe_ms={probe} {kv(c)}')

    def web(rps, n, mismatches=0):
        return dict(server='nginx', rc=0, requests=n, bytes=n * 10000, errors=0,
                    mismatches=mismatches, seconds=f'{SECS:.3f}', rps=f'{rps:.1f}',
                    mibps=f'{rps * 10000 / 2**20:.2f}', p50_ms=80.0, p90_ms=160.0,
                    p99_ms=250.0, max_ms=900.0)

    phase('prefill-web', dict(rc=0, paused=3, primed=47662, bytes=461375036), 0, 22.7)
    for ph in MEASURED:
        v = thr.get((name, ph), [100] * a.reps)[rep - 1]
        if ph.startswith('fio'):
            bw = int(v * 2**20)
            phase(ph, dict(rc=0, fio_bytes=bw * SECS, fio_bw=bw, fio_iops=f'{v * 256:.1f}',
                           fio_p50_ns=20000, fio_p99_ns=18000000, fio_errors=0), v * SECS)
            continue
        phase(ph, web(v, int(v * SECS)), v * SECS)
        mism = int(rn == a.mismatch and ph == 'nginx')
        phase(f'{ph}-verify', web(50, 1000, mism), 1000)
    phase('end', {}, 0, 0.1)
    if kind == 'cc':
        log += ['BENCH-STAT hits=16870', 'BENCH-STAT stored_pages=30000']
    return log


os.makedirs(f'{a.out}/logs', exist_ok=True)
runs = [(name, rep) for rep in range(1, a.reps + 1) for name, _ in CONFIGS]
env = ['cmd="tools/bench/web-bench.sh --quick"',
       f'run_id=20261201-120000-fake quick=1 mem=256 reps={a.reps} conns=64 session=100',
       'zipf=0.8 support_zipf=0.4 replay_secs=15 web_warm=5',
       f'web_secs={SECS} apache_secs=0 support_secs={SECS} fio_warm=5 fio_secs={SECS}',
       'verify_all=0 verify_files=1000 docset_files=47662 support_verify=41 support_files=2634',
       'big_mib=512 small_n=4096 small_kib=128 release=6.1.0-56-amd64',
       'host_cpu="AMD EPYC" host_cores=2 host_mem_kib=24684096 host_kernel="Linux 6.18"',
       'qemu="QEMU emulator version 7.2.22" nginx="nginx/1.22.1" apache="Apache/2.4.71"',
       f'configs="{" ".join(n for n, _ in CONFIGS)}"']
env += [f'label_{n.replace("-", "_")}="{label}" '
        f'mult_{n.replace("-", "_")}={2 if n.endswith("-2R") else 1}'
        for n, label in CONFIGS]
env.append(f'runs="{" ".join(f"{n}.{r}" for n, r in runs)}"')
for name, rep in runs:
    rn = f'{name}.{rep}'
    with open(f'{a.out}/logs/{rn}.log', 'w') as f:
        f.write('' if rn == a.empty else '\n'.join(guest(name, rep)) + '\n')
    st, _, n = a.status.partition('=')
    k = rn.replace('-', '_').replace('.', '_')
    env.append(f'time_{k}=180 status_{k}={n if st == rn else 0} cpu_{k}=170 load_{k}=1.25')
env.append(f'total_secs={180 * len(runs) + 20}')
with open(f'{a.out}/run.env', 'w') as f:
    f.write('\n'.join(env) + '\n')
with open(f'{a.out}/calibration.env', 'w') as f:
    f.write('cal_date="2026-12-01T11:00Z" cal_kernel=6.1.0-56-amd64 cal_host_cpu="AMD EPYC"\n'
            'cal_sample_bytes=402653184 cal_host_user_s=0.524 cal_host_mbps=768.4\n'
            'cal_guest_pages=19411 cal_guest_ns=2147483647 cal_guest_ns_per_page=123144\n'
            'cal_guest_mbps=33.26 cal_factor=23.10 cal_model_bps=131072000\n'
            'cal_model_iops=3000 cal_bps=5673568 cal_iops=129\n')
with open(f'{a.out}/docset.summary', 'w') as f:
    f.write('docset: 440.0 MiB in 47662 files (made up)\n'
            'DOCSET mib=440.0 files=47662 class0=16681 class1=23831 class2=6673 class3=477 '
            'pages=144635 distinct=47662 lzop_ratio=0.269\n')
with open(f'{a.out}/support.summary', 'w') as f:
    f.write('support: 563.0 MiB in 2634 files (made up)\n'
            'SUPPORTSET mib=563.0 files=2634 class0=1580 class1=922 class2=132 '
            'pages=145415 distinct=2589 lzop_ratio=0.410\n')
