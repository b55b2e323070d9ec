"""The store lock (issue 30): a second run on a store stops with one line naming the holder
(exit 2), read-only commands need no lock, and a lock left by a killed process is taken over."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mcboost_cli.runner.lock import StoreBusy, lock_path, read_holder, store_lock

from .test_cli import invoke, mirror_env  # noqa: F401  (a fixture)
from .test_committed_results import NOISE

REPO = Path(__file__).resolve().parents[1]


HOLD = textwrap.dedent("""\
    import sys, time
    from mcboost_cli.runner.lock import store_lock
    with store_lock(sys.argv[1], command="mcboost run holder.yaml"):
        print("held", flush=True)
        time.sleep(120)
""")


def _holder(store: Path) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(store)], stdout=subprocess.PIPE,
                            text=True, cwd=REPO)
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_second_take_in_one_process_is_refused(tmp_path):
    store = tmp_path / "s.sqlite"
    with store_lock(store, command="first"):
        assert read_holder(store)["pid"] == os.getpid()
        with pytest.raises(StoreBusy, match=f"pid {os.getpid()}"):
            with store_lock(store):
                pass
    assert not lock_path(store).exists()          # released and removed at the end
    with store_lock(store):                       # and free again
        pass


def test_lock_held_by_another_process_then_taken_over_when_it_is_killed(tmp_path):
    store = tmp_path / "s.sqlite"
    proc = _holder(store)
    try:
        with pytest.raises(StoreBusy) as err:
            with store_lock(store):
                pass
        message = str(err.value)
        assert f"pid {proc.pid}" in message and "mcboost run holder.yaml" in message
        assert "\n" not in message
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    # The killed holder left its lock file (naming a pid that is gone); it does not block.
    assert read_holder(store)["pid"] == proc.pid
    with store_lock(store, command="next"):
        assert read_holder(store)["pid"] == os.getpid()


@pytest.mark.slow
def test_second_run_on_a_store_stops_naming_the_holder(tmp_path, mirror_env):
    cfg = tmp_path / "noise.yaml"
    cfg.write_text(NOISE)
    store, out = tmp_path / "s.sqlite", tmp_path / "out"
    proc = _holder(store)
    try:
        r = invoke(["run", str(cfg), "-j", "1", "-q", "--store", str(store),
                    "--results-dir", str(out)], tmp_path)
        assert r.exit_code == 2, r.output
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: result store")
        assert f"pid {proc.pid}" in lines[0] and "Traceback" not in r.output
        assert not (out / "cells.csv").exists()                  # nothing ran or was written
        # Read-only commands need no lock.
        r = invoke(["run", str(cfg), "--dry-run", "--store", str(store)], tmp_path)
        assert r.exit_code == 0 and "0 done" in r.stdout, r.output
        r = invoke(["report", str(cfg), "--store", str(store), "--results-dir", str(out)],
                   tmp_path)
        assert r.exit_code == 0, r.output
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
