#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run a report writer as a host without python3-matplotlib would.

usage: noplots.py SCRIPT ARG...

Runs SCRIPT with ARGs as its command line, "import matplotlib" raising
ImportError: the host tests check the reports without plots, which is
faster and the same on every host.
"""
import runpy
import sys

if len(sys.argv) < 2:
    sys.exit(__doc__.strip().splitlines()[2])
sys.modules['matplotlib'] = None        # import matplotlib raises ImportError
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name='__main__')
