#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Switch a guest's disk throttle when the guest asks for it.

tools/bench/web-bench.sh runs this next to each guest.  It follows the
guest's console log; for every line

    BENCH-THROTTLE seq=N on|off

it sets the data disk's QEMU throttle (block_set_io_throttle through the
QMP socket) to BPS and IOPS ("on") or to the prefill's rate ("off":
--prefill-bps, by default none), then grows the small raw
acknowledgement disk to N+1 MiB (block_resize), which the guest sees in
/sys/block/vdc/size.  It ends when QEMU closes the socket.

usage: throttle.py [--load FILE] [--prefill-bps BPS] QMP_SOCKET CONSOLE_LOG
                   BPS IOPS [DRIVE ACK_DRIVE]
(drives are boot.sh's -drive ids: d0 the first -d disk, d2 the third)
"""
import json
import re
import select
import socket
import sys
import time

REQUEST = re.compile(r'^BENCH-THROTTLE seq=(\d+) (on|off)\s*$')


def log(msg):
    print(f'throttle: {time.strftime("%H:%M:%S")} {msg}', flush=True)


class Qmp:
    def __init__(self, path, timeout):
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        self.buf = b''
        self.read_message()             # the greeting
        self.execute('qmp_capabilities')

    def read_message(self):
        """One JSON message; None when QEMU closed the socket."""
        while b'\n' not in self.buf:
            data = self.sock.recv(65536)
            if not data:
                return None
            self.buf += data
        line, self.buf = self.buf.split(b'\n', 1)
        return json.loads(line)

    def execute(self, command, **arguments):
        msg = {'execute': command}
        if arguments:
            msg['arguments'] = arguments
        self.sock.sendall(json.dumps(msg).encode() + b'\n')
        while True:
            reply = self.read_message()
            if reply is None:
                raise EOFError('QEMU closed the QMP socket')
            if 'return' in reply:
                return reply['return']
            if 'error' in reply:
                raise RuntimeError(f'{command}: {reply["error"].get("desc")}')
            # an event: skip it

    def closed(self, wait):
        """True once QEMU has closed the socket; swallows events."""
        ready, _, _ = select.select([self.sock], [], [], wait)
        if not ready:
            return False
        data = self.sock.recv(65536)
        if not data:
            return True
        self.buf += data
        while b'\n' in self.buf:
            self.buf = self.buf.split(b'\n', 1)[1]
        return False


def sample_load(path):
    with open('/proc/loadavg') as f, open(path, 'a') as out:
        out.write(f.read().split()[0] + '\n')


def main():
    args = sys.argv[1:]
    load, next_sample, prefill_bps = None, 0, 0
    while args[:1] in (['--load'], ['--prefill-bps']) and len(args) > 1:
        if args[0] == '--load':
            load = args[1]
        else:
            prefill_bps = int(args[1])
        args = args[2:]
    if len(args) not in (4, 6):
        sys.exit(__doc__.split('\n\n')[-1])
    path, console, bps, iops = args[:4]
    drive, ack = args[4:6] if len(args) == 6 else ('d0', 'd2')
    qmp = Qmp(path, 600)
    log(f'connected; "on" is {bps} B/s, {iops} IOPS on {drive}, '
        f'"off" {prefill_bps or "unlimited"} B/s')
    offset = 0
    pending = b''
    while not qmp.closed(0.1):
        if load and time.monotonic() >= next_sample:
            sample_load(load)
            next_sample = time.monotonic() + 5
        try:
            with open(console, 'rb') as f:
                f.seek(offset)
                data = f.read()
        except FileNotFoundError:
            continue
        offset += len(data)
        pending += data
        *lines, pending = pending.split(b'\n')
        for raw in lines:
            m = REQUEST.match(raw.decode(errors='replace').rstrip('\r'))
            if not m:
                continue
            seq, state = int(m.group(1)), m.group(2)
            on = state == 'on'
            limits = {'bps': int(bps) if on else prefill_bps,
                      'iops': int(iops) if on else 0}
            try:
                qmp.execute('block_set_io_throttle', device=drive,
                            bps_rd=0, bps_wr=0, iops_rd=0, iops_wr=0, **limits)
                qmp.execute('block_resize', device=ack, size=(seq + 1) << 20)
            except (RuntimeError, EOFError) as e:
                log(f'seq {seq} {state}: {e}')
                continue
            log(f'seq {seq}: throttle {state}')
    log('QEMU exited')


if __name__ == '__main__':
    try:
        main()
    except KeyboardInterrupt:
        pass
    except OSError as e:
        log(f'{e}')
        sys.exit(1)
