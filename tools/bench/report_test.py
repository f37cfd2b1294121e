#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""report_test.py - the report on a made-up run that lacks figures.

usage: report_test.py

A run whose guest brought back F2's rows alone (dwq_bench.ko absent,
dwqctl bench and dwq-ubench failed): the report must name every other
figure as not measured, in its summary and in the line that counts the
targets met, and --publish must refuse to write the page of the latest
results, which would count only the targets of the figures it has.
Prints one "ok"/"not ok" line per check and exits 1 if any failed.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the tree
from tapcheck import Checks  # noqa: E402
FIGURES = ['F1', 'F2', 'F2b', 'F3', 'F4a', 'F4b', 'F4c', 'F5', 'F6', 'F7',
           'F7b', 'F8', 'F9']
F2 = {'noop_ioctl_x2': 1000, 'dwq_single': 1200,
      'timerfd_create_settime_close': 5000, 'dwq_batch64': 200}

check = Checks()


def main():
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, 'raw')
        out = os.path.join(tmp, 'out')
        docs = os.path.join(tmp, 'docs')
        os.makedirs(os.path.join(raw, 'bench'))
        with open(os.path.join(raw, 'bench', 'status.txt'), 'w') as f:
            f.write('kernel=absent\nuser=1\nubench=1\n')
        with open(os.path.join(raw, 'bench', 'user.jsonl'), 'w') as f:
            for variant, ns in F2.items():
                f.write(json.dumps({'type': 'bench', 'figure': 'F2',
                                    'variant': variant, 'unit': 'ns/op',
                                    'median': ns, 'min': ns - 100,
                                    'max': ns + 100, 'reps': 5}) + '\n')
        open(os.path.join(raw, 'bench', 'ubench.jsonl'), 'w').close()
        p = subprocess.run([sys.executable, os.path.join(HERE, 'report'),
                            '--publish', docs, raw, out],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        said = p.stdout
        check(p.returncode == 1, f'--publish of a partial run exits 1 (exit {p.returncode})',
              said)
        check(not os.path.exists(os.path.join(docs, 'results.md')),
              '--publish of a partial run writes no results.md', said)
        missing = [f for f in FIGURES if f != 'F2']
        check(f'not published: no rows for {", ".join(missing)}' in said,
              'the refusal names every figure without rows', said)
        try:
            with open(os.path.join(out, 'summary.md')) as f:
                summary = f.read()
        except OSError as e:
            summary = str(e)
        check(all(f'| {f} | | | | not measured | |' in summary for f in missing) and
              '| F2 | | | | not measured' not in summary,
              'the summary has a "not measured" row for each figure without rows, '
              'none for F2', summary)
        check(f'3 of 3 targets met; no rows for {", ".join(missing)}' in summary,
              'the count of targets met says which figures it leaves out', summary)
    return check.status()


if __name__ == '__main__':
    sys.exit(main())
