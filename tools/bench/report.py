#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write web-bench.sh's report: report.md, results.csv and plots.

usage: report.py [--prefix PREFIX] RESULTS_DIR

Inputs, in RESULTS_DIR (what web-bench.sh wrote):
  run.env          shell-style key=value lines: the settings (quick, mem = R
                   in MiB, reps, phase lengths...), the machine, the
                   configurations in order (configs="none-R cc ...", and per
                   configuration label_KEY and mult_KEY: RAM in units of R,
                   KEY being the name with '-' as '_'), the guest runs in the order they
                   ran (runs="none-R.1 cc.1 ... none-R.2 ..."), per run
                   time_RK, status_RK, cpu_RK, load_RK (RK: the run's name
                   with '-' and '.' as '_'), and total_secs
  calibration.env  the disk throttle's calibration (cal_* keys)
  docset.summary, support.summary
                   the two content profiles, each ending in a "DOCSET ..." or
                   "SUPPORTSET ..." line of key=value fields
  docset.manifest, support.manifest
                   the sets' manifests, for the bound on what any cache
                   could read (bound.py; older runs have none: no section)
  logs/NAME.REP.log
                   each run's guest console: "BENCH config=NAME phase=PHASE
                   key=value..." once per phase (counters are deltas over the
                   phase, stored_pages, mem_used, ratio_pm, cached_kib and
                   zram_* its end), "BENCH-TS config=NAME phase=PHASE t=F ..."
                   every 5 s of a measured phase (counters cumulative since
                   the phase began), "BENCH error=...", "BENCH-VERIFY ...",
                   "BENCH-FIO ...", "BENCH-PRIME ..." (failures) and
                   "BENCH-STAT name=value" (ccache's statistics at the end)

Outputs, in RESULTS_DIR:
  report.md        the report: per measured workload the median [min-max]
                   over the repetitions, a verdict against the plain kernel
                   at R, disk reads per request, turnover; verification,
                   dm-cache on zram, time per run
  results.csv      one row per run and phase: every raw field and the
                   derived figures
  throughput.png   median throughput per workload, min-max whiskers
  ts-PHASE.png     each measured phase over time, every configuration and
                   repetition
PREFIX (default none) goes before each PNG's name, in report.md's links too,
e.g. "web-20261201-1200-" for the copy in Documentation/bench.

Prints the results section to stdout.  Exits 1, saying why on stderr, when a
guest failed (or fewer than reps ran), a phase counted an error or a
mismatch or had a non-zero rc, a guest printed a failure line, or a run
lacks a measured phase (or its -verify, or "end") that another run has or
whose length in run.env is not 0.
"""
import argparse
import csv
import math
import os
import shlex
import statistics
import sys
from dataclasses import dataclass, field

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bound  # noqa: E402  (tools/bench/bound.py, beside this file)

USER_HZ = 100
# CPU busy (%) in every guest of both configurations for a comparison at
# equal guest speed (equal_speed_section())
EQUAL_SPEED_BUSY = 90
STALLS = ('self-detected stall', 'rcu_preempt detected stalls', 'blocked for more than',
          'soft lockup')
FAILURE_LINES = ('BENCH-VERIFY ', 'BENCH-FIO ', 'BENCH-PRIME ')


@dataclass(frozen=True)
class Workload:
    """A measured phase: its BENCH phase name, title, and whether it is fio."""
    phase: str
    title: str
    fio: bool
    secs_key: str           # run.env key of its length: > 0 means it ran

    @property
    def unit(self):
        return 'MiB/s' if self.fio else 'req/s'

    @property
    def per(self):
        """What disk reads are counted per."""
        return 'MiB' if self.fio else 'req'

    @property
    def verify(self):
        return None if self.fio else f'{self.phase}-verify'


WORKLOADS = (
    Workload('nginx', 'Docset, nginx', False, 'web_secs'),
    Workload('apache', 'Docset, Apache (event MPM)', False, 'apache_secs'),
    Workload('support', 'Support set, nginx', False, 'support_secs'),
    Workload('fio-rand', 'fio, 4 KiB random reads', True, 'fio_secs'),
    Workload('fio-files', 'fio, whole files', True, 'fio_secs'),
)


@dataclass
class Run:
    """One guest: a repetition of a configuration."""
    name: str               # NAME.REP
    config: str
    rep: int
    status: object = 1
    time: object = None
    cpu: object = None
    load: object = None
    phases: dict = field(default_factory=dict)     # phase: {field: value}
    series: dict = field(default_factory=dict)     # phase: [BENCH-TS samples]
    derived: dict = field(default_factory=dict)    # phase: {figure: value}
    errors: list = field(default_factory=list)
    stats: dict = field(default_factory=dict)
    stalls: list = field(default_factory=list)

    @property
    def module(self):
        return 'module' in self.phases

    @property
    def dmz(self):
        return 'dmz' in self.phases


@dataclass
class Config:
    name: str
    label: str
    mult: int
    runs: list = field(default_factory=list)

    @property
    def budget(self):
        """MiB the configuration may spend on compressed pages, as the first
        of its runs whose guest got that far set it: ccache's pool limit
        (max_pool_percent of MemTotal) or zram's mem_limit; 0 for neither."""
        for r in self.runs:
            if r.dmz:
                return r.phases['dmz'].get('zram_limit_mib', 0)
            if r.module:
                pool = r.phases['module'].get('pool', 0)
                return round(r.phases.get('guest', {}).get('mem_kib', 0) * pool / 100 / 1024)
        return 0


@dataclass
class Spread:
    """A figure over the repetitions."""
    med: float
    lo: float
    hi: float
    n: int


# ---- parsing ----

def num(v):
    for conv in (int, float):
        try:
            return conv(v)
        except (TypeError, ValueError):
            pass
    return v


def read_env(path):
    """key=value words of a shell-style file (quotes and comments as sh)."""
    env = {}
    if not os.path.exists(path):
        return env
    with open(path) as f:
        for line in f:
            for tok in shlex.split(line, comments=True):
                k, eq, v = tok.partition('=')
                if eq:
                    env[k] = v
    return env


def read_summary(path):
    """A content summary's text and the fields of its last line."""
    if not os.path.exists(path):
        return None, {}
    with open(path) as f:
        text = f.read().rstrip('\n')
    last = text.splitlines()[-1].split() if text else []
    return text, dict(t.split('=', 1) for t in last[1:] if '=' in t)


def fields(words):
    return {k: num(v) for k, eq, v in (w.partition('=') for w in words.split()) if eq}


def read_log(run, path):
    """Fill run's phases, series, errors, stats and stalls from its console."""
    if not os.path.exists(path):
        run.errors.append('no console log')
        return
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\r\n')
            if any(k in line for k in STALLS):
                run.stalls.append(line.strip())
            elif line.startswith('BENCH-STAT '):
                k, _, v = line[11:].partition('=')
                run.stats[k] = num(v)
            elif line.startswith(FAILURE_LINES):
                run.errors.append(line)
            elif line.startswith('BENCH-TS '):
                kv = fields(line[9:])
                if 'phase' in kv and 't' in kv:
                    run.series.setdefault(kv['phase'], []).append(kv)
            elif line.startswith('BENCH '):
                kv = fields(line[6:])
                if 'error' in kv:
                    run.errors.append(line[6:])
                elif 'phase' in kv:
                    run.phases[kv['phase']] = kv
    for samples in run.series.values():
        samples.sort(key=lambda s: s['t'])


def turns(env):
    """How the run ordered its guests: "A B C, A B C..." (every turn alike,
    as older runs did) or "A B C, C B A..." (every other turn in reverse),
    from the order they ran in (runs=)."""
    order = {}
    for rn in env.get('runs', '').split():
        name, _, rep = rn.rpartition('.')
        order.setdefault(rep, []).append(name)
    seq = list(order.values())
    if len(seq) > 1 and len(seq[0]) > 1 and seq[1] == seq[0][::-1]:
        return 'A B C, C B A...'
    return 'A B C, A B C...'


def load(outdir, env):
    """The configurations, in order, each with its runs."""
    configs = {}
    for name in env.get('configs', '').split():
        key = name.replace('-', '_')
        configs[name] = Config(name, env.get(f'label_{key}', name),
                               int(env.get(f'mult_{key}', 1)))
    for rn in env.get('runs', '').split():
        name, _, rep = rn.rpartition('.')
        if name not in configs:     # not announced: keep it all the same
            configs[name] = Config(name, name, 1)
        rk = rn.replace('-', '_').replace('.', '_')
        run = Run(rn, name, int(rep), num(env.get(f'status_{rk}', 1)), num(env.get(f'time_{rk}')),
                  num(env.get(f'cpu_{rk}')), num(env.get(f'load_{rk}')))
        read_log(run, os.path.join(outdir, 'logs', f'{rn}.log'))
        run.derived = {ph: derive(p, run.module, env) for ph, p in run.phases.items()}
        configs[name].runs.append(run)
    set_speed(configs.values())
    return list(configs.values())


def set_speed(configs):
    """Each measured phase's guest speed: the run's median probe (over every
    measured phase of every run) over the phase's own, so 1 is this run's
    typical speed and 0.5 a guest that ran its fixed CPU job half as fast.
    Guests without probes (runs before it) get none."""
    phases = {w.phase for w in WORKLOADS}
    probes = [d['probe_ms'] for c in configs for r in c.runs
              for ph, d in r.derived.items() if ph in phases and d.get('probe_ms')]
    if not probes:
        return
    typical = statistics.median(probes)
    for c in configs:
        for r in c.runs:
            for ph, d in r.derived.items():
                if ph in phases and d.get('probe_ms'):
                    d['guest_speed'] = typical / d['probe_ms']


# ---- figures ----

def ratio(a, b):
    return a / b if b else None


def cpu_shares(p):
    """Shares of the guest's CPU time over a phase, ccache's (de)compression
    taken out of system time."""
    keys = ('cpu_user', 'cpu_nice', 'cpu_sys', 'cpu_idle', 'cpu_iowait', 'cpu_irq', 'cpu_softirq')
    ticks = sum(p.get(k, 0) for k in keys)
    if not ticks:
        return {}
    comp = p.get('compress_ns', 0) / 1e9 * USER_HZ
    decomp = p.get('decompress_ns', 0) / 1e9 * USER_HZ
    sys_all = p.get('cpu_sys', 0) + p.get('cpu_irq', 0) + p.get('cpu_softirq', 0)
    return {k: 100 * v / ticks for k, v in (
        ('cpu_user_pct', p.get('cpu_user', 0) + p.get('cpu_nice', 0)),
        ('cpu_sys_pct', max(sys_all - comp - decomp, 0)),
        ('cpu_compress_pct', comp),
        ('cpu_decompress_pct', decomp),
        ('cpu_iowait_pct', p.get('cpu_iowait', 0)),
        ('cpu_idle_pct', p.get('cpu_idle', 0)))}


def workload_figures(p, module):
    """Throughput, p99 and disk reads per request (web) or per MiB (fio)."""
    if 'fio_bw' in p:
        d = {'throughput': p['fio_bw'] / 2**20}
        per = p.get('fio_bytes', p['fio_bw'] * p.get('secs', 0)) / 2**20
        if 'fio_p99_ns' in p:
            d['p99_ms'] = p['fio_p99_ns'] / 1e6
    elif 'rps' in p:
        d = {'throughput': p['rps'], 'p99_ms': p.get('p99_ms')}
        per = p.get('requests', 0)
    else:
        return {}
    if per:
        disk_kib, miss_kib = p.get('disk_kib', 0), p.get('misses', 0) * 4
        d['disk_reads_per_unit'] = p.get('disk_ios', 0) / per
        if 'cpu_user' in p:
            d['user_ms_per_unit'] = (p['cpu_user'] + p.get('cpu_nice', 0)) * 1000 / USER_HZ / per
        d['disk_kib_per_unit'] = disk_kib / per
        if module:
            d['miss_kib_per_unit'] = miss_kib / per
            d['other_kib_per_unit'] = max(disk_kib - miss_kib, 0) / per
    return d


def throttle_use(d, env):
    """The share of the disk throttle's capacity a phase's reads used: the
    larger of its IOPS and its MiB/s against the throttle's (the
    calibration's; None without one).  The throttle is QEMU's, in real
    time, and counts writes too, which the measured phases barely have."""
    iops, bps = num(env.get('cal_iops')), num(env.get('cal_bps'))
    if not isinstance(iops, (int, float)) or not isinstance(bps, (int, float)) \
            or not iops or not bps or d.get('disk_iops') is None:
        return None
    return 100 * max(d['disk_iops'] / iops, d['disk_mibps'] * 2**20 / bps)


def derive(p, module, env):
    """Every figure of one phase of one run that the report or the CSV uses
    (none for the phases that only describe the guest)."""
    if 'secs' not in p:
        return {}
    secs = p.get('secs') or 0
    disk_kib, captures, cached = p.get('disk_kib', 0), p.get('captures', 0), p.get('cached_kib', 0)
    d = {'disk_mibps': ratio(disk_kib / 1024, secs), 'disk_iops': ratio(p.get('disk_ios', 0), secs)}
    if 'disk_busy_ms' in p:
        d['disk_busy_pct'] = ratio(p['disk_busy_ms'] / 10, secs)
    d['disk_use_pct'] = throttle_use(d, env)
    if 'disk_read_ms' in p:
        d['disk_read_ms_per_io'] = ratio(p['disk_read_ms'], p.get('disk_ios', 0))
    d.update(cpu_shares(p))
    d['probe_ms'] = p.get('probe_ms')
    d.update(workload_figures(p, module))
    if module:
        d['hit_ratio'] = ratio(p.get('hits', 0), p.get('hits', 0) + p.get('misses', 0))
        d['compress_us_per_page'] = ratio(p.get('compress_ns', 0) / 1000, captures)
        d['compress_ratio'] = p['ratio_pm'] / 1000 if p.get('ratio_pm') else None
        d['stored_mib'] = p.get('stored_pages', 0) * 4 / 1024
        d['mem_used_mib'] = p.get('mem_used', 0) / 2**20
    if 'dm_read_hits' in p:
        d['dm_hit_ratio'] = ratio(p['dm_read_hits'], p['dm_read_hits'] + p.get('dm_read_misses', 0))
    d['disk_mib'] = disk_kib / 1024
    d['captured_mib'] = captures * 4 / 1024
    d['page_cache_mib'] = cached / 1024
    d['turnover'] = ratio(disk_kib + captures * 4, cached)
    return {k: v for k, v in d.items() if v is not None}


def spread(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return None
    return Spread(statistics.median(vals), min(vals), max(vals), len(vals))


def values(cfg, phase, key):
    """A derived figure of every run of cfg that has the phase."""
    return [r.derived[phase][key] for r in cfg.runs
            if key in r.derived.get(phase, {})]


def over_runs(cfg, phase, key):
    return spread(values(cfg, phase, key))


def verdict(vals, ref_vals, is_ref):
    """faster / slower only when the repetitions do not overlap."""
    if is_ref:
        return 'reference'
    if not vals or not ref_vals:
        return '-'
    if len(vals) < 2 or len(ref_vals) < 2:
        return 'one run: no verdict'
    if min(vals) > max(ref_vals):
        return 'faster'
    if max(vals) < min(ref_vals):
        return 'slower'
    return 'within noise'


def compare(cfg, ref, phase, key='throughput'):
    """(verdict, median change in % or None) of cfg's throughput (or key)
    against ref's."""
    vals = values(cfg, phase, key)
    ref_vals = values(ref, phase, key) if ref else []
    word = verdict(vals, ref_vals, cfg is ref)
    change = None
    if vals and ref_vals and cfg is not ref and statistics.median(ref_vals):
        change = 100 * (statistics.median(vals) / statistics.median(ref_vals) - 1)
    return word, change


def reference(configs):
    """The plain kernel at R: none-R, or the first plain configuration at R."""
    for c in configs:
        if c.name == 'none-R':
            return c
    return next((c for c in configs if c.mult == 1 and c.label.startswith('plain')), None)


# ---- checks ----

def phase_failure(p):
    """Why a phase failed, or ''."""
    why = [f'{k.replace("fio_", "")} {p[k]}' for k in ('rc', 'errors', 'fio_errors', 'mismatches')
           if p.get(k)]
    if p.get('failed'):
        why.append('no result line')
    return ', '.join(why)


def expected_phases(env, runs):
    """The phases every run must have: a measured phase (and its
    verification) that some run has or whose length in run.env is not 0,
    and "end" when some run has it."""
    seen = set().union(*(r.phases for r in runs))
    need = []
    for w in WORKLOADS:
        if w.phase in seen or float(env.get(w.secs_key) or 0) > 0:
            need += [w.phase] + ([w.verify] if w.verify else [])
    return need + (['end'] if 'end' in seen else [])


def problems(env, configs):
    runs = [r for c in configs for r in c.runs]
    reps = int(env.get('reps', 1))
    bad = [f'{c.name}: {len(c.runs)} of {reps} repetitions ran' for c in configs
           if len(c.runs) < reps]
    need = expected_phases(env, runs)
    for r in runs:
        if r.status != 0:
            bad.append(f'{r.name}: the guest failed (boot.sh status {r.status})')
        bad += [f'{r.name}: {e}' for e in r.errors]
        bad += [f'{r.name}: no {ph} phase' for ph in need if ph not in r.phases]
        bad += [f'{r.name}: {ph}: {why}' for ph, p in r.phases.items()
                for why in [phase_failure(p)] if why]
    return bad


# ---- markdown ----

def fmt(v, spec=None):
    """A number for a table: '-' when unknown, about 3 significant digits."""
    if v is None:
        return '-'
    if isinstance(v, str):
        return v
    if spec:
        return format(v, spec)
    if isinstance(v, int):
        return str(v)
    a = abs(v)
    if a == 0:
        return '0'
    return format(v, '.0f' if a >= 100 else '.1f' if a >= 10 else '.2f' if a >= 0.1 else '.3f')


def fmt_spread(s, spec=None):
    if s is None:
        return '-'
    if s.n == 1:
        return fmt(s.med, spec)
    return f'{fmt(s.med, spec)} [{fmt(s.lo, spec)}-{fmt(s.hi, spec)}]'


def fmt_change(change):
    return '-' if change is None else f'{change:+.0f}%'


def med(s):
    return s.med if s else None


def table(head, rows):
    out = ['| ' + ' | '.join(head) + ' |',
           '|' + '|'.join('---' if i == 0 else '---:' for i in range(len(head))) + '|']
    out += ['| ' + ' | '.join(str(c) for c in r) + ' |' for r in rows]
    return '\n'.join(out) + '\n'


def g(env, key, default='?'):
    return env.get(key) or default


def command(env, target):
    """The run's command line, with the guests' kernel when it was not
    the default (CCDEV_KVER), and the make TARGET that runs the same, when
    one does: its only options were --quick and -r."""
    release, args = env.get('release', ''), g(env, 'cmd').split()
    series = next((s for s in ('6.12', '7') if release.startswith(s + '.')), '')
    make = [f'make {target}']
    opts = iter(args[1:])
    for a in opts:
        if a == '--quick':
            make.append('QUICK=1')
        elif a == '-r':
            make.append(f'REPS={next(opts, "?")}')
        elif a.startswith('--cluster') and target == 'bench-cluster':
            n = a.partition('=')[2] or next(opts, '?')
            make += [] if n == '2' else [f'SERVERS={n}']
        else:
            make = []
            break
    if make and series:
        make.append(f'KERNEL={series}')
    line = ' '.join(args)
    if series:
        line = f'CCDEV_KVER={release} {line}'
    return f'`{line}`' + (f' (what `{" ".join(make)}` runs)' if make else '')


def header(env, configs, docset, support):
    quick = env.get('quick') == '1'
    mem, reps = int(env['mem']), int(env.get('reps', 1))
    total = int(env.get('total_secs', 0))
    nruns = sum(len(c.runs) for c in configs)
    md = [f'# ccache web-serving benchmark{" (quick)" if quick else ""}: {g(env, "run_id")}\n',
          f'Command: {command(env, "bench-web")}  \n',
          f'Source: ccache at {g(env, "commit")}'
          + (' with uncommitted changes' if env.get('dirty') == '1' else '') + '  \n',
          f'Wall time: {total // 60} min {total % 60} s for {len(configs)} configurations x '
          f'{reps} repetitions ({nruns} guests, each fresh), calibration and content included.\n',
          '## Machine\n',
          f'- Host: {g(env, "host_cpu")}, {g(env, "host_cores")} cores, '
          f'{int(env.get("host_mem_kib", 0)) // 1024} MiB RAM, {g(env, "host_kernel")}',
          f'- Guests: Debian kernel {g(env, "release")} under {g(env, "qemu")}, TCG (no KVM), '
          f'multi-threaded, 2 vCPUs; R = {mem} MiB of RAM',
          f'- Servers: nginx {g(env, "nginx")}, Apache {g(env, "apache")} (event MPM), the host\'s '
          'binaries on a second disk; load generator: webload in the same guest\n']
    md += calibration(env)
    md.append('## Content\n')
    for name, (text, kv) in (('docset', docset), ('support set', support)):
        if text is None:
            continue
        md.append('```\n' + text + '\n```\n')
        if kv.get('pages'):
            md.append(f'The {name} takes {int(kv["pages"]) / 256:.0f} MiB in the page cache, '
                      f'{int(kv["pages"]) / 256 / mem:.1f}x R.\n')
    md.append(f'fio: one file of {g(env, "big_mib")} MiB (4 KiB random reads, '
              f'random_distribution=zipf:1.1) and {g(env, "small_n")} files of '
              f'{g(env, "small_kib")} KiB read whole (file_service_type=zipf:1.1), from the '
              'docset\'s bytes.  All on one ext4 data disk.\n')
    phases = [p for c in configs for r in c.runs for p in r.phases.values()]
    md += method(env, any('capture_ns' in p for p in phases),
                 any('vm_pgscan' in p for p in phases))
    md.append('## Configurations\n')
    md.append(table(['configuration', 'name', 'RAM MiB', 'budget MiB', 'setup', 'runs'],
                    [[c.label, c.name, mem * c.mult, c.budget or '-', setup(c), len(c.runs)]
                     for c in configs]))
    md.append('budget: the memory the configuration may spend on compressed pages (the ccache '
              f'pool\'s limit, zram\'s mem_limit).  Runs went in turns ({turns(env)}), each in '
              'a fresh guest.\n')
    return md


def guest_runs(env):
    """The guest runs' MB/s behind the median, when there were several."""
    runs = env.get('cal_guest_runs_mbps', '').split()
    if len(runs) < 2:
        return ''
    return f', the median of {len(runs)} guests ({", ".join(runs)} MB/s)'


def calibration(env):
    if 'cal_factor' not in env:
        return ['## Calibration\n', 'No calibration.env.\n']
    return [
        '## Calibration\n',
        'The guest runs under TCG, several times slower than the host, while QEMU\'s disk '
        'throttle runs in real time.  To keep the balance of a real server and its volume, '
        'the disk is slowed by the same factor as the CPU:\n',
        f'- host: `lzop` (LZO1X-1, the kernel\'s lzo) over '
        f'{int(env["cal_sample_bytes"]) / 2**20:.0f} MiB of the docset: '
        f'{float(env["cal_host_user_s"]):.3f} s of user CPU, **{env["cal_host_mbps"]} MB/s**',
        f'- guest: ccache compressing the same bytes page by page (offload=cpu): '
        f'{int(env["cal_guest_pages"])} pages in {int(env["cal_guest_ns"]) / 1e9:.2f} s of CPU, '
        f'{env["cal_guest_ns_per_page"]} ns/page, **{env["cal_guest_mbps"]} MB/s**'
        + guest_runs(env),
        f'- factor host/guest: **{env["cal_factor"]}**; measured {env["cal_date"]} on '
        f'{env["cal_host_cpu"]}',
        f'- model volume: AWS gp3 baseline, {int(env["cal_model_bps"]) / 2**20:.0f} MiB/s and '
        f'{env["cal_model_iops"]} IOPS; divided by the factor: the data disk is throttled to '
        f'**{int(env["cal_bps"]) / 2**20:.2f} MiB/s and {env["cal_iops"]} IOPS** (QEMU '
        'throttling, reads and writes together)\n']


def prefill_rate(env):
    """How fast the prefills read: runs before 9e1dbf6 lifted the throttle."""
    bps = int(env.get('prefill_bps') or 0)
    if not bps:
        return 'with the throttle lifted'
    return (f'with the disk throttled to {bps / 2**20:.1f} MiB/s, the rate one guest vCPU '
            'compresses at (the calibration\'s), its readers paused while ccache\'s '
            'compressor catches up')


def method(env, capture_timed, vm_counted):
    """capture_timed, vm_counted: the guests recorded capture_ns (since
    b1cadcf) and the vm_* counters."""
    apache = float(env.get('apache_secs') or 0) > 0
    return [
        '## Method\n',
        f'Every configuration runs {g(env, "reps")} times, each time in a fresh guest, the '
        'configurations in turns.  One guest runs, in this order: the docset served by nginx'
        + (' and by Apache' if apache else '') + ', the support set served by nginx, and '
        'the two fio jobs.  Each data set is first read ' + prefill_rate(env) + ': the docset '
        'and the support set from their least to their most popular file (`webload -P`), '
        f'then {g(env, "replay_secs")} s of their load (the replay), so that the page cache '
        'and ccache start with what a long Zipf load leaves there; fio\'s files in order, '
        f'and for the random job {g(env, "replay_secs")} s of the job itself.  '
        'Every warm-up and measured phase runs on the throttled disk.\n',
        f'- docset: webload with {g(env, "conns")} connections, {g(env, "session")} requests '
        f'per keep-alive session, Zipf exponent {g(env, "zipf")}; {g(env, "web_warm")} s '
        f'warm-up, {g(env, "web_secs")} s measured with nginx'
        + (f', {g(env, "apache_secs")} s with Apache (event MPM)' if apache else '')
        + '; every response body\'s length and CRC32C is compared with the manifest.',
        f'- support set: the same with nginx, Zipf exponent {g(env, "support_zipf")}, '
        f'{g(env, "support_secs")} s measured.',
        f'- verification: `webload -V` after each load, over {g(env, "verify_files")} of the '
        f'docset\'s {g(env, "docset_files")} files and {g(env, "support_verify")} of the '
        f'support set\'s {g(env, "support_files")}, each body compared with the manifest.',
        f'- fio: 2 jobs, psync, buffered, invalidate=0; {g(env, "fio_warm")} s warm-up, '
        f'{g(env, "fio_secs")} s measured: 4 KiB random reads over the big file '
        '(random_distribution=zipf:1.1), whole-file reads of the small ones '
        '(file_service_type=zipf:1.1).  Latencies: fio\'s completion latencies.',
        '- counters over each measured phase: disk reads from /proc/diskstats, CPU from '
        '/proc/stat, ccache\'s hits, misses, captures'
        + (', capture' if capture_timed else '') + ' and (de)compression time from '
        '/sys/kernel/mm/ccache, the page cache (Cached) from /proc/meminfo'
        + ('; reclaim\'s scanned and freed pages, faults and file refaults from '
           '/proc/vmstat (vm_* in the CSV)' if vm_counted else '')
        + '; the same every 5 s for the time series.\n']


def setup(c):
    """What a configuration runs, from its first run's module or dmz phase."""
    for r in c.runs:
        m, z = r.phases.get('module'), r.phases.get('dmz')
        if m:
            more = ''.join(f', {knob}={m[key]}' for key, knob in
                           (('sizing', 'pool_sizing'), ('boost', 'offload_boost_percent'))
                           if key in m)
            return (f'ccache, max_pool_percent {m.get("pool")}{more}, {m.get("compressor")}, '
                    f'offload={m.get("offload")}')
        if z:
            return (f'dm-cache of {z.get("cache_mib")} MiB on zram ({z.get("zram_disksize_mib")} '
                    f'MiB, limit {z.get("zram_limit_mib")} MiB), {z.get("block_kib")} KiB blocks')
    return 'plain kernel' if c.runs else '-'


def measured(configs):
    """The workloads some run measured."""
    return [w for w in WORKLOADS if any(w.phase in r.phases for c in configs for r in c.runs)]


def hit_cell(c, phase):
    cc = over_runs(c, phase, 'hit_ratio')
    if cc:
        return fmt(cc.med, '.2f')
    dm = over_runs(c, phase, 'dm_hit_ratio')
    return f'{fmt(dm.med, ".2f")} (dm-cache)' if dm else '-'


def fmt_turnover(v):
    return '-' if v is None else f'{v:.2f}x' if v < 1 else f'{v:.1f}x'


def turnover_cell(c, phase):
    return fmt_turnover(med(over_runs(c, phase, 'turnover')))


def workload_table(w, configs, ref):
    rows = []
    for c in configs:
        thr = over_runs(c, w.phase, 'throughput')
        if thr is None:
            continue
        word, change = compare(c, ref, w.phase)
        rows.append([c.label, thr.n, fmt_spread(thr), word, fmt_change(change)]
                    + [fmt(med(over_runs(c, w.phase, k))) for k in
                       ('disk_reads_per_unit', 'disk_kib_per_unit', 'miss_kib_per_unit',
                        'other_kib_per_unit')]
                    + [hit_cell(c, w.phase), fmt(med(over_runs(c, w.phase, 'p99_ms'))),
                       turnover_cell(c, w.phase)])
    return table(['configuration', 'runs', f'{w.unit} median [min-max]', 'verdict', 'vs plain R',
                  f'disk reads/{w.per}', f'disk KiB/{w.per}', f'KiB/{w.per}: ccache misses',
                  f'KiB/{w.per}: other', 'hit ratio', 'p99 ms', 'turnover'], rows)


def reading_note(ref):
    return (
        'How to read these tables: every figure is computed per run, then its median over '
        'the repetitions (throughput also gives [min-max]).  verdict: against '
        f'{ref.label if ref else "the plain kernel at R"}, **faster** when every repetition '
        'beat every one of the reference, **slower** when every one was below, else **within '
        'noise**; vs plain R: the change of the medians.  disk reads and KiB per request '
        '(fio: per MiB delivered) from /proc/diskstats; the KiB are split into **ccache '
        'misses** (4 KiB per ccache miss: file data ccache had seen evicted and could have '
        'served) and **other** (the rest: metadata, and data ccache never saw); hit ratio: '
        'ccache\'s hits / (hits + misses), for dm-cache on zram its read hits / (read hits + '
        'read misses); p99: the 99th percentile latency; turnover: (MiB read from the disk + '
        'MiB captured by ccache) / page cache at the end of the phase.\n')


def verdict_section(ws, configs, ref):
    """Each configuration's median throughput per workload with its verdict
    and change against the reference: the table the README quotes."""
    rows = []
    for c in configs:
        cells = []
        for w in ws:
            word, change = compare(c, ref, w.phase)
            m = med(over_runs(c, w.phase, 'throughput'))
            level = '' if m is None else f'{fmt(m)} {w.unit}: '
            cells.append(level + (word if change is None else f'{word}, {fmt_change(change)}'))
        rows.append([c.label] + cells)
    return ['### Verdicts\n', table(['configuration'] + [w.title for w in ws], rows)]


def against_section(ws, configs, base_of, title, note):
    """Each configuration against the one base_of(configuration) names (None,
    or the configuration itself: no row), under the verdict rule."""
    rows = []
    for c in configs:
        base = base_of(c)
        if base is None or base is c:
            continue
        cells = []
        for w in ws:
            word, change = compare(c, base, w.phase)
            cells.append(word if change is None else f'{word}, {fmt_change(change)}')
        rows.append([c.label, base.label] + cells)
    if not rows:
        return []
    return [f'### {title}\n', note + '\n',
            table(['configuration', 'against'] + [w.title for w in ws], rows)]


def same_ram_section(ws, configs, ref):
    """Configurations with more RAM than R against the plain kernel with the
    same RAM: what ccache costs when everything fits."""
    def plain(c):
        p = next((p for p in configs if p.mult == c.mult and p.label.startswith('plain')), None)
        return None if p is ref else p
    return against_section(
        ws, configs, plain, 'Against the plain kernel with the same RAM',
        'The same rule as above, against the plain kernel with as much RAM '
        '(more of the data fits in the page cache: what the pool costs there).')


def busy_pct(r, phase):
    """The share of a run's CPU time in a phase that was neither idle nor
    iowait, or None."""
    d = r.derived.get(phase, {})
    if 'cpu_idle_pct' not in d:
        return None
    return 100 - d['cpu_idle_pct'] - d.get('cpu_iowait_pct', 0)


def equal_speed_section(ws, configs):
    """Where every guest of a configuration and of the plain kernel with the
    same RAM kept its CPUs busy, their user time per second against each
    other: throughput at equal guest speed (Documentation/design.rst,
    "Guest speed")."""
    rows, compared = [], False
    for c in configs:
        base = next((p for p in configs if p.mult == c.mult and p.label.startswith('plain')),
                    None)
        if base is None or base is c:
            continue
        cells = []
        for w in ws:
            busy = [busy_pct(r, w.phase) for r in c.runs + base.runs if w.phase in r.derived]
            if not busy or None in busy:
                cells.append('-')
            elif min(busy) < EQUAL_SPEED_BUSY:
                cells.append(f'not CPU-bound ({min(busy):.1f}% busy)')
            else:
                word, change = compare(c, base, w.phase, 'cpu_user_pct')
                cells.append(word if change is None else f'{word}, {fmt_change(change)}')
                compared = True
        rows.append([c.label, base.label] + cells)
    if not compared:
        return []
    return ['### At equal guest speed\n',
            f'Where every guest of both kept its CPUs at least {EQUAL_SPEED_BUSY}% busy '
            '(neither idle nor in iowait), throughput is the user CPU time per second over '
            'the user time per request (MiB), and the latter is the same work in either '
            'configuration, at whatever speed the host ran the guest: so the user time '
            'per second compares them as if every guest had run at one speed.  The same '
            'rule as the verdicts, on the share of CPU time in user mode; where the share '
            'is lower, the configuration\'s other work (system time: ccache\'s among it) '
            'took the CPU.  It assumes only the host moves a server\'s user time per '
            'request; the guest speed table below shows whether the probes agree '
            '(Documentation/design.rst, "Guest speed").\n',
            table(['configuration', 'against'] + [w.title for w in ws], rows)]


def knob_section(ws, configs):
    """ccache's configurations with a knob changed against ccache's default
    settings with the same RAM, in the same run: what the knob does."""
    def defaults(c):
        name = 'cc' if c.mult == 1 else f'cc-{c.mult}R'
        if not c.label.startswith('ccache'):
            return None
        return next((d for d in configs if d.name == name), None)
    return against_section(
        ws, configs, defaults, 'Against ccache\'s default settings with the same RAM',
        'The same rule as above, against ccache with its default settings and as much '
        'RAM: what the changed knob does.')


def turnover_section(ws, configs):
    rows, notes = [], []
    for w in ws:
        span = []
        for c in configs:
            s = {k: med(over_runs(c, w.phase, k))
                 for k in ('disk_mib', 'captured_mib', 'page_cache_mib', 'turnover')}
            if s['page_cache_mib'] is None:
                continue
            rows.append([w.title, c.label, fmt(s['disk_mib']), fmt(s['captured_mib']),
                         fmt(s['page_cache_mib']), fmt_turnover(s['turnover'])])
            if s['turnover'] is not None:
                span.append((s['turnover'], c.label))
        if span:
            lo, hi = min(span), max(span)
            notes.append(f'{w.title} {fmt_turnover(lo[0])} ({lo[1]})'
                         + (f' to {fmt_turnover(hi[0])} ({hi[1]})' if hi != lo else ''))
    return ['### Turnover\n',
            'How much of the page cache each measured phase replaced: the MiB read from the '
            'disk plus the MiB ccache captured (pages evicted from the page cache and '
            'compressed), over the page cache at the phase\'s end.  Well below 1x, the phase '
            'measured a page cache that barely changed: its result depends on what the '
            'prefill left there more than on how each configuration replaces pages.  '
            + ('Turnover: ' + '; '.join(notes) + '.' if notes else '') + '\n',
            table(['workload', 'configuration', 'disk MiB read', 'MiB captured',
                   'page cache MiB', 'turnover'], rows)]


def cpu_section(ws, configs):
    rows = []
    for w in ws:
        for c in configs:
            if over_runs(c, w.phase, 'cpu_idle_pct') is None:
                continue
            rows.append([w.title, c.label]
                        + [fmt(med(over_runs(c, w.phase, k)), '.1f') for k in
                           ('cpu_user_pct', 'cpu_sys_pct', 'cpu_compress_pct',
                            'cpu_decompress_pct', 'cpu_iowait_pct', 'cpu_idle_pct',
                            'disk_busy_pct', 'disk_use_pct')]
                        + [fmt(med(over_runs(c, w.phase, 'disk_read_ms_per_io')), '.2f')]
                        + [fmt(med(over_runs(c, w.phase, k))) for k in
                           ('compress_us_per_page', 'stored_mib', 'mem_used_mib')]
                        + [fmt(med(over_runs(c, w.phase, 'compress_ratio')), '.3f')])
    return ['### CPU and the pool\n',
            table(['workload', 'configuration', 'user %', 'system %', 'compression %',
                   'decompression %', 'iowait %', 'idle %', 'disk busy %', 'disk use %',
                   'ms/read', 'compress µs/page', 'stored MiB',
                   'mem_used MiB', 'compressed/original'], rows),
            'Medians over the repetitions.  CPU: shares of both vCPUs\' time; system excludes '
            'the (de)compression time ccache counted.  disk busy: the share of the phase\'s '
            'time with a read or write in flight on the data disk (io_ticks of '
            '/proc/diskstats; - for runs before it was recorded).  A server whose '
            'CPUs idle while its disk is busy waits on the disk; one whose disk '
            'idles while its CPUs are busy does not, whatever iowait says.  But a throttled '
            'disk\'s reads do not wait until it nears its limit, so disk busy shows whether '
            'reads waited, not how near the limit is (Documentation/design.rst, "Disk '
            'use").  disk use: the larger of '
            'the phase\'s read IOPS and MiB/s as a share of the throttle\'s (above); near '
            '100% the disk is the limit.  ms/read: the '
            'data disk\'s reads\' time from issue to completion, over the reads (/proc/diskstats; '
            '- for runs before it was recorded).  '
            'compress µs/page: compress_ns / '
            'captures; stored: the original size of the pages in the pool, mem_used: what the '
            'pool takes (pool, staging buffers, metadata), both at the phase\'s end.\n']


def speed_section(ws, configs):
    """How fast each guest ran its fixed CPU job, beside the throughput and
    the user time per unit of work, per repetition: none without probes."""
    rows = []
    for w in ws:
        for c in configs:
            runs = [r for r in c.runs if 'user_ms_per_unit' in r.derived.get(w.phase, {})]
            if not runs:
                continue
            rows.append([w.title, c.label]
                        + [' '.join(fmt(r.derived[w.phase].get(k), spec) for r in runs)
                           for k, spec in (('guest_speed', '.2f'), ('throughput', None),
                                           ('user_ms_per_unit', '.2f'))])
    if not rows:
        return []
    return ['### Guest speed\n',
            table(['workload', 'configuration', 'guest speed', 'throughput',
                   'user ms per request or MiB'], rows),
            'Per repetition, in order.  guest speed: the run\'s median time for a fixed '
            'CPU-only job (MD5 of 4 MiB, timed before and after each phase) over this '
            'phase\'s (- for runs before it was timed); below 1 the host let this guest run '
            'slower than it let most.  The '
            'disk\'s throttle runs in the host\'s time, so a slow guest has a relatively '
            'fast disk, and a CPU-bound phase slows with it.  user ms: the servers\' (or '
            'fio\'s) own CPU time per unit of work, the same work whatever caches the '
            'files: it moves with the speed the guest had during the phase, and with '
            'anything else that slows user code (Documentation/design.rst, "Guest '
            'speed").\n']


def raw_median(runs, phase, key, scale=1):
    """The median of a BENCH field over the runs that have the phase."""
    s = spread([r.phases[phase].get(key) for r in runs if phase in r.phases])
    return s.med * scale if s else None


def dmz_section(ws, configs):
    """dm-cache on zram: its setup per run, then zram and dm-cache at the end
    of each measured phase."""
    md = []
    for c in configs:
        runs = [r for r in c.runs if r.dmz]
        if not runs:
            continue
        md.append(f'### dm-cache on zram ({c.name})\n')
        md.append(table(['run', 'cache MiB', 'zram disksize MiB', 'zram limit MiB', 'block KiB'],
                        [[r.name] + [fmt(r.phases['dmz'].get(k)) for k in
                                     ('cache_mib', 'zram_disksize_mib', 'zram_limit_mib',
                                      'block_kib')] for r in runs]))
        rows = [[w.title]
                + [fmt(raw_median(runs, w.phase, k, 1 / 1024)) for k in
                   ('zram_orig_kib', 'zram_compr_kib', 'zram_mem_kib', 'zram_limit_kib')]
                + [fmt(med(over_runs(c, w.phase, 'dm_hit_ratio')), '.2f')]
                + [fmt(raw_median(runs, w.phase, k)) for k in ('dm_promotions', 'dm_demotions',
                                                                'zram_failed_writes')]
                for w in ws if any(w.phase in r.phases for r in runs)]
        md.append(table(['workload', 'zram data MiB', 'zram compressed MiB', 'zram memory MiB',
                         'zram limit MiB', 'dm-cache read hit ratio', 'promotions', 'demotions',
                         'zram writes refused'], rows))
        md.append('zram\'s figures at the end of each measured phase (orig_data_size, '
                  'compr_data_size, mem_used_total, mem_limit; failed_writes, its writes '
                  'refused at mem_limit since it was set up: promotions dm-cache dropped), '
                  'medians over the repetitions; read hit ratio, promotions and demotions: '
                  'dm-cache\'s over the phase.\n')
    return md


def total(phases, key):
    return sum(p.get(key) or 0 for p in phases)


def verification_section(ws, configs):
    rows = []
    for c in configs:
        for w in ws:
            if w.fio:
                continue
            loads = [r.phases.get(w.phase) for r in c.runs if w.phase in r.phases]
            vers = [r.phases.get(w.verify) for r in c.runs if w.verify in r.phases]
            if not loads and not vers:
                continue
            rows.append([c.label, w.title, len(loads), total(loads, 'requests'),
                         total(loads, 'mismatches'), total(vers, 'requests'),
                         total(vers, 'mismatches'), total(vers, 'errors'),
                         fmt(med(spread([p.get('rps') for p in vers]))),
                         fmt(med(over_runs(c, w.verify, 'hit_ratio')), '.2f')])
    mism = sum(p.get('mismatches') or 0 for c in configs for r in c.runs
               for p in r.phases.values())
    return ['### Verification\n',
            table(['configuration', 'workload', 'runs', 'load responses checked',
                   'load mismatches', '-V files', '-V mismatches', '-V errors',
                   '-V files/s (median)', '-V ccache hit ratio'], rows),
            f'Sums over the repetitions.  Mismatches over the whole run, every phase: '
            f'**{mism}**.\n']


def contention(configs, env):
    """Say when the host slowed the guests: the comparison assumes it did not."""
    cores = int(env.get('host_cores') or 2)
    cal = float(env.get('cal_guest_ns_per_page') or 0) / 1000
    notes = []
    for r in (r for c in configs for r in c.runs):
        why = []
        if isinstance(r.load, float) and r.load > cores + 0.5:
            why.append(f'host load {r.load:.1f} on {cores} cores')
        slow = r.derived.get('nginx', {}).get('compress_us_per_page')
        if slow and cal and slow > 1.5 * cal:
            why.append(f'compression {slow / cal:.1f}x slower than at calibration')
        speeds = {ph: d['guest_speed'] for ph, d in r.derived.items() if 'guest_speed' in d}
        if speeds and min(speeds.values()) < 1 / 1.5:
            ph = min(speeds, key=speeds.get)
            why.append(f'its {ph} phase at {speeds[ph]:.2f} of the run\'s typical guest speed')
        if r.stalls:
            why.append('RCU stall warnings (vCPUs starved)')
        if why:
            notes.append(f'{r.name} ({", ".join(why)})')
    if not notes:
        return []
    return ['**The host was busy with other work during part of this run**, so some guests ran '
            'slower than calibrated while their disk kept its throttled speed: for them the '
            'disk was relatively faster than the model, which favours the plain kernel, and '
            'CPU-bound phases slowed down.  Affected: ' + '; '.join(notes) + '.\n']


def time_section(configs, env):
    mem = int(env['mem'])
    runs = sorted((r for c in configs for r in c.runs),
                  key=lambda r: env.get('runs', '').split().index(r.name))
    labels = {c.name: c.label for c in configs}
    rows = [[r.name, labels[r.config], mem * next(c.mult for c in configs if c.name == r.config),
             fmt(r.time, 'd') if isinstance(r.time, int) else fmt(r.time),
             fmt(r.cpu, 'd') if isinstance(r.cpu, int) else fmt(r.cpu),
             fmt(r.cpu / r.time, '.2f') if isinstance(r.cpu, (int, float))
             and isinstance(r.time, (int, float)) and r.time else '-',
             fmt(r.load, '.2f') if isinstance(r.load, (int, float)) else '-',
             ('ok' if r.status == 0 else f'failed ({r.status})')
             + (', vCPUs stalled' if r.stalls else '')] for r in runs]
    return ['### Time per run\n',
            table(['run', 'configuration', 'RAM MiB', 'wall time s', 'host CPU s',
                   'host cores used', 'host load (1-min, mean)', 'status'], rows),
            'In the order they ran.  wall time: boot.sh for the run; host CPU: what boot.sh and '
            'QEMU took; host load: the 1-minute load average sampled every 5 s, this guest\'s 2 '
            f'vCPU threads included, on {g(env, "host_cores")} cores.\n']


# ---- plots ----

@dataclass(frozen=True)
class Panel:
    """One subplot of a time-series figure: BENCH-TS fields, each
    (key, scale, line style), drawn as levels or as rates."""
    title: str
    lines: tuple
    rate: bool              # counters to difference, or levels
    web_only: bool = False
    ccache_only: bool = False


PANELS = (
    Panel('requests/s', (('requests', 1, '-'),), True, web_only=True),
    Panel('disk reads/s', (('disk_ios', 1, '-'),), True),
    Panel('disk read MiB/s', (('disk_kib', 1 / 1024, '-'),), True),
    Panel('ccache hits/s', (('hits', 1, '-'),), True, ccache_only=True),
    Panel('pool MiB: stored pages, original size (solid); memory used (dashed); '
          'target (dotted)',
          (('stored_pages', 4 / 1024, '-'), ('mem_used', 2**-20, '--'),
           ('pool_target', 2**-20, ':')), False, ccache_only=True),
    Panel('page cache MiB (Cached)', (('cached_kib', 1 / 1024, '-'),), False),
)


def points(samples, key, scale, rate):
    """(t, y) of one field: levels as sampled; counters as the difference of
    consecutive samples over the time between them, from (0, 0); a repeated
    sample is skipped."""
    # webload's responses are timed by webload itself (req_t): the guest's
    # 5 s clock and webload's drift apart
    tkey = 'req_t' if key == 'requests' else 't'
    pts = [(s.get(tkey, s['t']), s[key]) for s in samples if key in s]
    if rate:
        pts = [(t1, (v1 - v0) / (t1 - t0)) for (t0, v0), (t1, v1)
               in zip([(0, 0)] + pts, pts) if t1 > t0]
    return [t for t, _ in pts], [v * scale for _, v in pts]


def colours(plt, configs):
    cmap = plt.get_cmap('tab10')
    return {c.name: cmap(i % 10) for i, c in enumerate(configs)}


def plot_series(plt, path, w, configs, col):
    """One figure of stacked panels for a measured phase, if any run sampled
    it: one colour per configuration, repetition 1 solid, the others thin."""
    from matplotlib.lines import Line2D
    runs = [(c, r) for c in configs for r in c.runs if r.series.get(w.phase)]
    if not runs:
        return False
    panels = [p for p in PANELS if not (p.web_only and w.fio)]
    height = 1.6 * len(panels) + 1.2
    fig, axs = plt.subplots(len(panels), 1, sharex=True, figsize=(9, height))
    for ax, panel in zip(axs, panels):
        for c, r in runs:
            if panel.ccache_only and not r.module:
                continue
            first = r.rep == 1
            for key, scale, style in panel.lines:
                ax.plot(*points(r.series[w.phase], key, scale, panel.rate), color=col[c.name],
                        ls=style, lw=1.6 if first else 0.8, alpha=1 if first else 0.45,
                        marker='.' if first else None, ms=4)
        ax.set_title(panel.title, loc='left', fontsize=8.5)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=7)
    axs[-1].set_xlabel('seconds into the measured phase', fontsize=8)
    drawn = {c.name for c, _ in runs}
    handles = [Line2D([], [], color=col[c.name], lw=2, label=c.label)
               for c in configs if c.name in drawn]
    if any(r.rep != 1 for _, r in runs):
        handles += [Line2D([], [], color='grey', lw=1.6, label='repetition 1'),
                    Line2D([], [], color='grey', lw=0.8, alpha=0.45, label='other repetitions')]
    fig.suptitle(f'{w.title}: the measured phase, sampled every 5 s', fontsize=10,
                 y=1 - 0.08 / height)
    fig.legend(handles=handles, loc='upper center', ncol=3, fontsize=7.5, frameon=False,
               bbox_to_anchor=(0.5, 1 - 0.3 / height))
    fig.tight_layout()
    fig.subplots_adjust(top=1 - 0.9 / height)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def plot_throughput(plt, path, ws, configs, ref, col):
    from matplotlib.patches import Patch
    ncols = min(3, len(ws))
    nrows = math.ceil(len(ws) / ncols)
    fig, axs = plt.subplots(nrows, ncols, figsize=(3.8 * ncols, 3.1 * nrows + 0.8),
                            squeeze=False)
    for ax, w in zip(axs.flat, ws):
        for i, c in enumerate(configs):
            vals = values(c, w.phase, 'throughput')
            s = spread(vals)
            if s is None:
                continue
            ax.bar(i, s.med, color=col[c.name], alpha=0.8)
            ax.errorbar(i, s.med, yerr=[[s.med - s.lo], [s.hi - s.med]], color='black',
                        capsize=4, lw=1)
            ax.scatter([i] * len(vals), vals, s=9, color='black', zorder=3)
            ax.annotate(fmt(s.med), (i, s.hi), xytext=(0, 4), textcoords='offset points',
                        ha='center', fontsize=7)
        if ref and values(ref, w.phase, 'throughput'):
            ax.axhline(statistics.median(values(ref, w.phase, 'throughput')), color='grey',
                       ls='--', lw=0.8)
        ax.set_xticks(range(len(configs)))
        ax.set_xticklabels([c.name for c in configs], fontsize=7.5)
        ax.set_title(f'{w.title}, {w.unit}', fontsize=9)
        ax.tick_params(axis='y', labelsize=7)
        ax.set_ylim(0, ax.get_ylim()[1] * 1.08)     # room for the labels
    spare = list(axs.flat)[len(ws):]
    for ax in spare:
        ax.axis('off')
    fig.suptitle('Throughput: median (bar), min-max (whiskers), each repetition (dots); '
                 'dashed: the plain kernel at R', fontsize=9.5)
    handles = [Patch(color=col[c.name], alpha=0.8, label=f'{c.name}: {c.label}')
               for c in configs]
    if spare:       # in the empty cell
        spare[0].legend(handles=handles, loc='center', fontsize=8, frameon=False)
        fig.tight_layout(rect=(0, 0, 1, 0.96))
    else:
        fig.legend(handles=handles, loc='lower center', ncol=min(4, len(configs)),
                   fontsize=7.5, frameon=False)
        fig.tight_layout(rect=(0, 0.7 / (3.1 * nrows + 0.8), 1, 0.96))
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plots(outdir, prefix, ws, configs, ref):
    """Write the PNGs; {phase or 'throughput': file name} of those written."""
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        print('report: no matplotlib (python3-matplotlib): no plots', file=sys.stderr)
        return {}
    col = colours(plt, configs)
    made = {}
    if ws:
        made['throughput'] = f'{prefix}throughput.png'
        plot_throughput(plt, os.path.join(outdir, made['throughput']), ws, configs, ref, col)
    for w in ws:
        name = f'{prefix}ts-{w.phase}.png'
        if plot_series(plt, os.path.join(outdir, name), w, configs, col):
            made[w.phase] = name
    return made


# ---- results.csv ----

def write_csv(path, configs, mem):
    """One row per run and phase: who, the BENCH line's fields, then the
    derived figures."""
    rows, raw, derived = [], {}, {}
    for c in configs:
        for r in c.runs:
            for ph, p in r.phases.items():
                d = {k: round(v, 4) if isinstance(v, float) else v
                     for k, v in r.derived[ph].items()}
                raw.update(dict.fromkeys(p))
                derived.update(dict.fromkeys(d))
                rows.append({'run': r.name, 'config': c.name, 'label': c.label, 'rep': r.rep,
                             'ram_mib': mem * c.mult, 'budget_mib': c.budget, **p, **d})
    keys = list(dict.fromkeys(['run', 'config', 'label', 'rep', 'ram_mib', 'budget_mib',
                               *raw, *derived]))
    with open(path, 'w', newline='') as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)


# ---- the report ----

def held_pages(p):
    """Pages of data a configuration held in memory at a phase's end: its
    page cache (the initramfs and the guest's other files included), the
    original size of what ccache's pool and zram held."""
    return (p.get('cached_kib', 0) + p.get('stored_pages', 0) * 4
            + p.get('zram_orig_kib', 0)) // 4


def bound_section(ws, configs, outdir, env):
    """Each web workload's disk KiB per request against the least any cache
    holding as much data could leave (bound.py), from the manifests
    web-bench.sh copied into outdir (none in older runs: no section)."""
    sets = {'nginx': ('docset', 'zipf'), 'apache': ('docset', 'zipf'),
            'support': ('support', 'support_zipf')}
    rows, pop = [], {}
    for w in ws:
        if w.phase not in sets:
            continue
        name, zkey = sets[w.phase]
        path = os.path.join(outdir, f'{name}.manifest')
        if not os.path.exists(path) or zkey not in env:
            continue
        if (name, zkey) not in pop:
            files = bound.popularity(bound.read_manifest(path), float(env[zkey]), 1)
            pop[(name, zkey)] = (files, bound.asked_pages(files))
        files, asked = pop[(name, zkey)]
        for c in configs:
            held, least, over = [], [], []
            for r in c.runs:
                p, d = r.phases.get(w.phase), r.derived.get(w.phase, {})
                if p is None or 'disk_kib_per_unit' not in d:
                    continue
                pages = held_pages(p)
                kib = (asked - bound.best_hits(files, pages)) * 4
                held.append(pages * 4 / 1024)
                least.append(kib)
                over.append(ratio(d['disk_kib_per_unit'], kib))
            if least:
                rows.append([w.title, c.label, fmt(statistics.median(held)),
                             fmt(statistics.median(least)),
                             fmt(med(over_runs(c, w.phase, 'disk_kib_per_unit'))),
                             fmt(med(spread(over)), '.2f')])
    if not rows:
        return []
    return ['### Against the least any cache could read\n',
            'webload draws each request on its own, so no cache serves more of a request, '
            'on average, than one holding the most popular files\' pages, as many as fit '
            '(`tools/bench/bound.py`).  data in memory: what the configuration held at the '
            'phase\'s end, its page cache (the guest\'s own files included) and the original '
            'size of the pages its pool or zram held; least: the disk KiB per request such a '
            'cache leaves; over the least: the measured figure over it, per run (1 would be '
            'no cache could do better with that much data).  Medians over the repetitions.\n',
            table(['workload', 'configuration', 'data in memory MiB', 'least disk KiB/req',
                   'disk KiB/req', 'over the least'], rows)]


def report(env, configs, docset, support, made, bad, outdir):
    ref = reference(configs)
    ws = measured(configs)
    md = header(env, configs, docset, support)
    md.append('## Results\n')
    if bad:
        md += ['**Problems:**\n'] + [f'- {b}' for b in bad] + ['']
    md += contention(configs, env)
    md += verdict_section(ws, configs, ref)
    md += same_ram_section(ws, configs, ref)
    md += equal_speed_section(ws, configs)
    md += knob_section(ws, configs)
    if 'throughput' in made:
        md.append(f'![Throughput per workload]({made["throughput"]})\n')
    md.append(reading_note(ref))
    for w in ws:
        md += [f'### {w.title}\n', workload_table(w, configs, ref)]
        if w.phase in made:
            md.append(f'![{w.title} over time]({made[w.phase]})\n')
    md += turnover_section(ws, configs)
    md += bound_section(ws, configs, outdir, env)
    md += speed_section(ws, configs)
    md += cpu_section(ws, configs)
    md += dmz_section(ws, configs)
    md += verification_section(ws, configs)
    md += time_section(configs, env)
    md.append('Files: `results.csv` (every phase of every run: raw counters and derived '
              'figures), `logs/` (each guest\'s console, boot.sh\'s output, the throttle '
              'switches), `calibration.env`, `run.env`.\n')
    return '\n'.join(md)


def main():
    ap = argparse.ArgumentParser(description='Write web-bench.sh\'s report.')
    ap.add_argument('--prefix', default='', help='put before each PNG\'s name')
    ap.add_argument('outdir', metavar='RESULTS_DIR')
    args = ap.parse_args()
    outdir = args.outdir
    env = read_env(os.path.join(outdir, 'run.env'))
    env.update(read_env(os.path.join(outdir, 'calibration.env')))
    if 'mem' not in env:
        sys.exit(f'report: no run.env with mem= in {outdir}')
    configs = load(outdir, env)
    bad = problems(env, configs)
    write_csv(os.path.join(outdir, 'results.csv'), configs, int(env['mem']))
    made = plots(outdir, args.prefix, measured(configs), configs, reference(configs))
    text = report(env, configs, read_summary(os.path.join(outdir, 'docset.summary')),
                  read_summary(os.path.join(outdir, 'support.summary')), made, bad, outdir)
    with open(os.path.join(outdir, 'report.md'), 'w') as f:
        f.write(text)
    print(text[text.index('## Results'):text.index('### Time per run')])
    if bad:
        print('report: ' + '\nreport: '.join(bad), file=sys.stderr)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
