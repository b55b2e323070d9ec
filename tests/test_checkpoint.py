"""Mid-fit checkpoint files (runner.checkpoint). That a resumed fit gives the uninterrupted
numbers is checked for every algorithm in test_estimator_checks.py and end to end, through a
SIGKILL, in test_cli.py."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading
import time

import numpy as np

from mcboost_cli.runner import checkpoint
from mcboost_cli.runner.cells import DONE, Cell, CellResult
from mcboost_cli.runner.checkpoint import FORMAT, CheckpointDir, FitCheckpoint
from mcboost_cli.runner.execute import run_cells
from mcboost_cli.runner.executors import SerialExecutor
from mcboost_cli.runner.store import ResultStore


def test_save_then_load_round_trips_and_leaves_no_temporary_file(tmp_path):
    ck = FitCheckpoint(tmp_path / "a" / "x.ckpt", every_seconds=0)
    state = {"kept": 3, "scores": [np.arange(6.0).reshape(2, 3) / 7]}
    ck.save("fp", state)
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["x.ckpt", "x.json"]
    again = FitCheckpoint(tmp_path / "a" / "x.ckpt")
    got = again.load("fp")
    assert got["kept"] == 3 and again.resumed_round == 3
    np.testing.assert_array_equal(got["scores"][0], state["scores"][0])
    assert again.seconds_before >= 0.0
    assert again.elapsed() >= again.seconds_before


def _dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_temporary_files_of_killed_saves_are_removed(tmp_path):
    # A kill while saving leaves <name>.<host>.<pid>.tmp (or <name>.<pid>.tmp, as older
    # versions wrote). Those of processes that are gone are removed by the next save of the
    # file and when a run starts (CheckpointDir.remove_stale_temps); those of live processes,
    # and of other hosts sharing the folder, are left alone.
    root = tmp_path / "checkpoints"
    (root / "prefix").mkdir(parents=True)
    host, dead, alive = checkpoint._HOST, _dead_pid(), os.getppid()
    stale = [root / f"k1.ckpt.{host}.{dead}.tmp", root / f"k1.json.{dead}.tmp",
             root / f"k2.ckpt.{dead}.tmp", root / "prefix" / f"p.prefix.{host}.{dead}.tmp"]
    kept = [root / f"k1.ckpt.{host}.{alive}.tmp", root / f"k2.ckpt.otherhost.{dead}.tmp",
            root / "notes.txt.123.tmp"]
    for p in stale + kept:
        p.write_bytes(b"torn")
    FitCheckpoint(root / "k1.ckpt", every_seconds=0).save("fp", {"kept": 1})
    assert not stale[0].exists() and not stale[1].exists()     # the saved file's own
    assert stale[2].exists() and stale[3].exists()             # others: at the run's start
    assert CheckpointDir(root).remove_stale_temps() == 2
    assert not any(p.exists() for p in stale) and all(p.exists() for p in kept)


def _cpu_work():
    """A fixed amount of CPU work (its CPU time does not depend on the machine's load)."""
    acc = 0
    for i in range(2_000_000):
        acc += i * i
    return acc


def test_cpu_time_counts_the_fit_thread_only_and_carries_over_a_resume(tmp_path):
    p = tmp_path / "x.ckpt"
    ck = FitCheckpoint(p, every_seconds=0)
    # Sleeping costs the fit no CPU time, though its wall-clock time grows.
    wall0, cpu0 = ck.elapsed(), ck.elapsed_cpu()
    time.sleep(0.2)
    assert ck.elapsed() - wall0 >= 0.2 and ck.elapsed_cpu() - cpu0 < 0.05
    # Another thread's work (a Dask worker's other fit) does not count; the fit's own does.
    cpu1 = ck.elapsed_cpu()
    other = threading.Thread(target=_cpu_work)
    other.start()
    other.join()
    cpu2 = ck.elapsed_cpu()
    _cpu_work()
    cpu3 = ck.elapsed_cpu()
    assert cpu2 - cpu1 < 0.5 * (cpu3 - cpu2)
    assert cpu3 <= ck.elapsed()
    ck.save("fp", {"kept": 4})
    again = FitCheckpoint(p)
    again.load("fp")
    assert again.cpu_before >= cpu3 and again.elapsed_cpu() >= again.cpu_before


def test_a_checkpoint_without_cpu_time_leaves_it_unknown(tmp_path):
    # Files of mcboost versions that did not record the CPU time still resume the fit.
    p = tmp_path / "x.ckpt"
    p.write_bytes(pickle.dumps({"format": FORMAT, "fingerprint": "fp", "seconds": 12.5,
                                "state": {"kept": 2}}))
    ck = FitCheckpoint(p, every_seconds=0)
    assert ck.load("fp") == {"kept": 2} and ck.seconds_before == 12.5
    assert ck.cpu_before is None and ck.elapsed_cpu() is None
    ck.save("fp", {"kept": 3})
    again = FitCheckpoint(p)
    again.load("fp")
    assert again.elapsed_cpu() is None and again.seconds_before >= 12.5


def test_progress_reads_the_summary_or_an_older_checkpoint(tmp_path):
    d = CheckpointDir(tmp_path, every_seconds=0)
    assert d.progress("k") is None                                   # no checkpoint
    ck = d.for_cell("k")
    _cpu_work()
    ck.save("fp", {"kept": 7})
    got = d.progress("k")
    assert got["rounds"] == 7 and got["seconds"] > 0 and got["cpu_seconds"] > 0
    assert (tmp_path / "k.json").exists()
    # A summary of another save (killed between the two writes) is not believed.
    summary = (tmp_path / "k.json").read_text()
    ck.save("fp", {"kept": 8})
    (tmp_path / "k.json").write_text(summary)
    assert d.progress("k")["rounds"] == 8
    # A checkpoint of an older mcboost has no summary: read from the checkpoint itself.
    (tmp_path / "k.json").unlink()
    (tmp_path / "k.ckpt").write_bytes(pickle.dumps(
        {"format": FORMAT, "fingerprint": "fp", "seconds": 12.5, "state": {"kept": 9}}))
    assert d.progress("k") == {"rounds": 9, "seconds": 12.5, "cpu_seconds": None}
    (tmp_path / "k.ckpt").write_bytes(b"torn")
    assert d.progress("k") == {}
    ck.save("fp", {"kept": 10})
    assert d.discard(["k"]) == 1
    assert d.progress("k") is None and list(tmp_path.iterdir()) == []


def test_foreign_torn_or_old_files_are_ignored(tmp_path):
    p = tmp_path / "x.ckpt"
    FitCheckpoint(p).save("fp", {"kept": 2})
    assert FitCheckpoint(p).load("other fingerprint") is None
    p.write_bytes(b"\x80\x05not a pickle")
    ck = FitCheckpoint(p)
    assert ck.load("fp") is None and ck.resumed_round == 0
    p.write_bytes(pickle.dumps({"format": FORMAT + 1, "fingerprint": "fp", "seconds": 1.0,
                                "state": {"kept": 2}}))
    assert FitCheckpoint(p).load("fp") is None
    assert FitCheckpoint(tmp_path / "missing.ckpt").load("fp") is None


def test_due_follows_the_interval(tmp_path):
    assert FitCheckpoint(tmp_path / "x", every_seconds=0).due()
    assert not FitCheckpoint(tmp_path / "x", every_seconds=3600).due()


class _SlowToPickle:
    """A state part whose writing takes 0.1 s (as a state of gigabytes does)."""

    def __reduce__(self):
        time.sleep(0.1)
        return (_SlowToPickle, ())


def test_a_slow_save_spaces_out_the_next_ones(tmp_path):
    # Writing may take at most 1/SAVE_BUDGET of the fit: after a 0.1 s save the next one
    # waits >= 2 s, though the interval asked for is 1 ms; quick saves keep the interval.
    ck = FitCheckpoint(tmp_path / "x.ckpt", every_seconds=0.001)
    ck.save("fp", {"kept": 1})
    time.sleep(1.0)
    assert ck.due()
    ck.save("fp", {"kept": 2, "big": _SlowToPickle()})
    time.sleep(0.05)
    assert not ck.due()
    # every_seconds=0 (after every round) is kept as it is.
    ck0 = FitCheckpoint(tmp_path / "y.ckpt", every_seconds=0)
    ck0.save("fp", {"kept": 2, "big": _SlowToPickle()})
    assert ck0.due()


def _cell(mode):
    return Cell(experiment="e", dataset="d", protocol="five_fold", fold=0, noise_rate=0.0, seed=0,
                algorithm="fake", algorithm_version="1", params=(("mode", mode),))


def _work(cell):
    if cell.params_dict["mode"] == "fail":
        raise ValueError("boom")
    return CellResult(key=cell.key, status=DONE, selected_round=1, train_error=0.0,
                      valid_error=0.0, test_error=0.0, n_rounds=1,
                      curves={"train": [0.0], "valid": [0.0], "test": [0.0]}, extra={})


def test_run_cells_removes_the_checkpoint_of_done_cells_only(tmp_path):
    ok, bad = _cell("ok"), _cell("fail")
    cks = CheckpointDir(tmp_path / "checkpoints")
    for c in (ok, bad):
        cks.for_cell(c.key).save("fp", {"kept": 1})
    assert cks.keys() == sorted([ok.key, bad.key])
    with ResultStore(tmp_path / "s.sqlite") as store:
        s = run_cells([ok, bad], store, _work, SerialExecutor(), progress="quiet",
                      checkpoints=cks)
    assert (s.done, s.failed) == (1, 1)
    assert cks.keys() == [bad.key]      # a failed fit keeps its state for --retry-failed
    assert cks.discard([bad.key, ok.key]) == 1 and cks.keys() == []
