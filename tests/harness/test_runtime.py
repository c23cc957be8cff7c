"""Server and browser lifecycle: started on demand, gone after close or interpreter exit."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import os, sys
sys.path.insert(0, {root!r})
import officegym
from officegym.seed_data.store import WorldStore
from tests.harness.envs import hello_task

def chromium_children():
    mine, found = {{os.getpid()}}, []
    changed = True
    procs = {{}}
    for pid in os.listdir('/proc'):
        if pid.isdigit():
            try:
                stat = open(f'/proc/{{pid}}/stat').read()
                cmd = open(f'/proc/{{pid}}/cmdline', 'rb').read().replace(b'\\0', b' ').decode()
            except OSError:
                continue
            state, ppid = stat.rsplit(')', 1)[1].split()[:2]
            if state != 'Z':
                procs[int(pid)] = (int(ppid), cmd)
    while changed:
        changed = False
        for pid, (ppid, cmd) in procs.items():
            if ppid in mine and pid not in mine:
                mine.add(pid); changed = True
    return sorted(
        p for p in mine if p != os.getpid() and 'chrom' in procs.get(p, (0, ''))[1]
    )

env = officegym.make(hello_task(WorldStore({home!r}).golden(0, 'tiny')), home={home!r})
env.reset(seed=0)
print('RUNNING', *chromium_children(), flush=True)
if {close}:
    env.close()
    print('AFTER', *chromium_children(), flush=True)
"""


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def run_script(store, close: bool) -> list[str]:
    code = SCRIPT.format(root=str(ROOT), home=str(store.home), close=close)
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.splitlines()


def test_close_leaves_no_browser_process(store):
    lines = run_script(store, close=True)
    running = lines[0].split()[1:]
    assert running, "the environment should have started Chromium"
    assert lines[1].split() == ["AFTER"]
    assert not [pid for pid in running if alive(int(pid))]


def test_interpreter_exit_without_close_leaves_no_browser_process(store):
    lines = run_script(store, close=False)
    running = [int(pid) for pid in lines[0].split()[1:]]
    assert running
    assert not [pid for pid in running if alive(pid)]
