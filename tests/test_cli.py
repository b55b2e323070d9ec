"""The command line end to end: tiny configs on real data through the loopback mirror, bad
inputs (one line, exit 2, store untouched), determinism across --jobs, resume after SIGKILL."""

from __future__ import annotations

import json
import os
import pickle
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from mcboost_cli.cli import main

TINY = """\
experiment: tiny
title: Tiny
datasets: [car]
folds: [0, 1]
noise_rates: [0.0, 0.1]
algorithms:
  - algorithm: samme
    label: SAMME
    params: {n_rounds: 25}
    grid: {max_depth: [1, 2]}
  - algorithm: adaboost_mh
    label: AdaBoost.MH
    params: {n_rounds: 15, max_depth: 2}
  - algorithm: adaboost_m1
    params: {n_rounds: 10, max_depth: 1}
"""


def invoke(args, cwd: Path):
    runner = CliRunner()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return runner.invoke(main, args, catch_exceptions=False)
    finally:
        os.chdir(old)


@pytest.fixture
def mirror_env(uci_mirror, monkeypatch):
    monkeypatch.setenv("MCBOOST_MIRROR", uci_mirror)
    return uci_mirror


def write(tmp_path: Path, text: str, name="c.yaml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_run_report_and_dry_run(tmp_path, mirror_env):
    cfg = write(tmp_path, TINY)
    r = invoke(["run", str(cfg), "--jobs", "1", "-q"], tmp_path)
    assert r.exit_code == 0, r.output
    assert "SAMME" in r.stdout and "AdaBoost.MH" in r.stdout and "label noise 0.1" in r.stdout
    out = tmp_path / "results" / "tiny"
    for name in ("results.md", "results.csv", "results.tex"):
        assert (out / name).stat().st_size > 0
    csv = pd.read_csv(out / "results.csv")
    assert set(csv["algorithm"]) == {"SAMME", "AdaBoost.MH", "adaboost_m1"}
    assert (csv["n"] == 2).all()
    samme = csv[csv["algorithm"] == "SAMME"]
    assert ((samme["mean"] > 0) & (samme["mean"] < 30)).all()       # car: far below chance

    # The store holds one row per cell: 1 dataset × 2 noise × 2 folds × (2 + 1 + 1) settings.
    con = sqlite3.connect(out / "cells.sqlite")
    assert con.execute("select count(*), count(distinct key) from results").fetchone() == (16, 16)
    con.close()

    # A second run computes nothing; report re-renders the same table.
    r2 = invoke(["run", str(cfg), "--jobs", "1", "-q"], tmp_path)
    assert "0 done" in r2.stderr and "16 skipped" in r2.stderr
    r3 = invoke(["report", str(cfg)], tmp_path)
    assert r3.exit_code == 0 and r3.stdout == r.stdout
    r4 = invoke(["run", str(cfg), "--dry-run"], tmp_path)
    assert r4.exit_code == 0 and "16 cells" in r4.stdout and "16 done" in r4.stdout


def test_jobs_do_not_change_numbers(tmp_path, mirror_env):
    cfg = write(tmp_path, TINY)
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    assert invoke(["run", str(cfg), "--jobs", "1", "-q"], a).exit_code == 0
    assert invoke(["run", str(cfg), "--jobs", "2", "-q"], b).exit_code == 0
    ca = (a / "results/tiny/results.csv").read_text()
    cb = (b / "results/tiny/results.csv").read_text()
    assert ca == cb

    def rows(d):
        con = sqlite3.connect(d / "results/tiny/cells.sqlite")
        out = con.execute("select key, status, selected_round, train_error, valid_error, "
                          "test_error, n_rounds, curves from results order by key").fetchall()
        con.close()
        return out

    assert rows(a) == rows(b)

    # The same cells as tasks of a (local) Dask cluster: the same numbers.
    pytest.importorskip("distributed")
    c = tmp_path / "c"
    c.mkdir()
    r = invoke(["run", str(cfg), "--scheduler", "local", "--jobs", "2", "-q"], c)
    assert r.exit_code == 0, r.output
    assert (c / "results/tiny/results.csv").read_text() == ca
    assert rows(c) == rows(a)


def test_scheduler_with_a_cell_timeout_is_refused_in_one_line(tmp_path, mirror_env):
    cfg = write(tmp_path, TINY + "timeout: 60\n")
    r = invoke(["run", str(cfg), "--scheduler", "local", "-q"], tmp_path)
    assert r.exit_code == 2
    (line,) = [ln for ln in r.output.splitlines() if ln.strip()]
    assert "timeout" in line and "--scheduler" in line
    assert not (tmp_path / "results/tiny/checkpoints").exists()


def test_export_splits(tmp_path, mirror_env):
    cfg = write(tmp_path, TINY)
    r = invoke(["run", str(cfg), "--dry-run", "--export-splits", str(tmp_path / "splits")],
               tmp_path)
    assert r.exit_code == 0
    parts = pd.read_csv(tmp_path / "splits/car/seed0/parts.csv")
    assert len(parts) == 1728 and set(parts["part"]) == {0, 1, 2, 3, 4}
    flips = pd.read_csv(tmp_path / "splits/car/seed0/fold0_noise0.1.csv")
    n_trval = int((~parts["part"].isin([0])).sum())
    assert len(flips) == round(0.1 * n_trval)
    assert (flips["label"] != flips["noisy_label"]).all()
    assert not parts.loc[flips["row"], "part"].eq(0).any()          # test part untouched


BAD = {
    "malformed YAML": ("experiment: x\ndatasets: [car\n", "malformed YAML"),
    "unknown algorithm": (TINY.replace("algorithm: samme", "algorithm: sammy"),
                          "unknown algorithm 'sammy'"),
    "unknown key": (TINY + "colour: blue\n", "colour: unknown key"),
    "bad parameter type": (TINY.replace("n_rounds: 25", "n_rounds: many"),
                           "algorithms[0].params.n_rounds: 'many' is not valid"),
    "parameter out of range": (TINY.replace("max_depth: [1, 2]", "max_depth: [1, 0]"),
                               "algorithms[0].grid.max_depth: 0 is not valid; expected an "
                               "integer in [1, 30]"),
    "unknown dataset": (TINY.replace("[car]", "[carr]"), "datasets[0]: 'carr' is not valid"),
    "noise rate outside [0, 1)": (TINY.replace("[0.0, 0.1]", "[0.0, 1.0]"),
                                  "noise_rates[1]: 1.0 is not valid; expected numbers in [0, 1)"),
    "override for a dataset not in the config": (
        TINY.replace("params: {n_rounds: 25}",
                     "params: {n_rounds: 25}\n    per_dataset: {letter: {n_rounds: 5}}"),
        "algorithms[0].per_dataset.letter: 'letter' is not one of this config's datasets"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_config_one_line_exit_2_store_untouched(tmp_path, case):
    text, expected = BAD[case]
    cfg = write(tmp_path, text)
    store = tmp_path / "store.sqlite"
    con = sqlite3.connect(store)
    con.execute("create table keep(x)")
    con.commit()
    con.close()
    before = store.read_bytes()
    r = invoke(["run", str(cfg), "--store", str(store)], tmp_path)
    assert r.exit_code == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in r.output
    assert expected in lines[0] and str(cfg) in lines[0]
    assert store.read_bytes() == before


def test_unreadable_and_missing_config(tmp_path):
    r = invoke(["run", str(tmp_path / "nope.yaml")], tmp_path)
    assert r.exit_code == 2 and "no such config file" in r.stderr
    d = tmp_path / "dir.yaml"
    d.mkdir()
    r = invoke(["run", str(d)], tmp_path)
    assert r.exit_code == 2 and len(r.stderr.strip().splitlines()) == 1
    if os.geteuid() != 0:                      # root reads anything
        f = write(tmp_path, TINY, "locked.yaml")
        f.chmod(0)
        r = invoke(["run", str(f)], tmp_path)
        assert r.exit_code == 2 and "cannot read" in r.stderr


def test_noise_command_rates(tmp_path, mirror_env):
    cfg = write(tmp_path, TINY)
    r = invoke(["noise", "--rate", "1.5", "--config", str(cfg)], tmp_path)
    assert r.exit_code == 2 and "--rate: 1.5 is not valid" in r.stderr
    r = invoke(["noise", "--rate", "0.2", "--config", str(cfg), "--dry-run"], tmp_path)
    assert r.exit_code == 0 and "1 noise rates" in r.stdout and "8 cells" in r.stdout


def test_algorithms_and_datasets_listing(tmp_path):
    r = invoke(["algorithms"], tmp_path)
    assert r.exit_code == 0
    for name in ("adaboost_m1", "samme", "adaboost_mh", "Zhu", "max_depth"):
        assert name in r.stdout
    r = invoke(["datasets", "list"], tmp_path)
    assert r.exit_code == 0 and "nursery" in r.stdout and "letter" in r.stdout


def test_help_everywhere(tmp_path):
    for args in ([], ["run"], ["noise"], ["report"], ["algorithms"], ["datasets"],
                 ["datasets", "list"], ["datasets", "fetch"]):
        r = invoke(args + ["--help"], tmp_path)
        assert r.exit_code == 0 and "Usage:" in r.stdout


def test_ctrl_c_in_a_fit_then_again_in_the_tables_keeps_every_result_and_names_the_report(
        tmp_path, mirror_env, monkeypatch):
    # Ctrl-C in the 6th fit: the 5 finished are stored and the run says it writes the tables;
    # a second Ctrl-C while they are written stops it at once, exit 130, naming the one
    # command that writes them; that command then writes what an uninterrupted run writes.
    from mcboost_cli.runner import experiment, work
    cfg = write(tmp_path, TINY)
    real_cell, real_render = work.run_cell, experiment._render
    calls = []

    def interrupted_sixth(cell, *args, **kwargs):
        calls.append(cell.key)
        if len(calls) == 6:
            raise KeyboardInterrupt
        return real_cell(cell, *args, **kwargs)

    monkeypatch.setattr(work, "run_cell", interrupted_sixth)
    monkeypatch.setattr(experiment, "_render",
                        lambda *a, **k: (_ for _ in ()).throw(KeyboardInterrupt))
    store, out = tmp_path / "s/cells.sqlite", tmp_path / "out"
    r = invoke(["run", str(cfg), "--jobs", "1", "-q", "--store", str(store),
                "--results-dir", str(out)], tmp_path)
    assert r.exit_code == 130, r.output
    assert "stopped: the fits in flight are dropped, the 5 this run finished are stored; " \
           "writing the tables" in r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("tables not written")]
    assert len(lines) == 1 and "tables:" not in r.stderr
    assert "interrupted: 5 cells done, 11 pending" in r.stderr
    assert not (out / "results.md").exists()
    con = sqlite3.connect(store)
    assert con.execute("select count(*) from results where status = 'done'").fetchone()[0] == 5
    con.close()
    report = lines[0].split("`")[1].split()
    assert report[:3] == ["mcboost", "report", str(cfg)]
    assert report[3:] == ["--store", str(store), "--results-dir", str(out)]
    # What the store holds renders (the missing cells marked partial), and once the run is
    # finished, the tables are those of a run never interrupted.
    monkeypatch.setattr(experiment, "_render", real_render)
    monkeypatch.setattr(work, "run_cell", real_cell)
    r = invoke(report[1:], tmp_path)
    assert r.exit_code == 0 and "†" in r.stdout, r.output
    r = invoke(["run", str(cfg), "--jobs", "1", "-q", "--store", str(store),
                "--results-dir", str(out)], tmp_path)
    assert r.exit_code == 0, r.output
    ref = invoke(["run", str(cfg), "--jobs", "1", "-q"], tmp_path)
    assert ref.exit_code == 0
    assert ((out / "results.csv").read_text()
            == (tmp_path / "results/tiny/results.csv").read_text())


KILL_CFG = """\
experiment: killme
datasets: [nursery]
noise_rates: [0.0, 0.2]
algorithms:
  - algorithm: samme
    params: {n_rounds: 150, max_depth: 3}
  - algorithm: adaboost_mh
    params: {n_rounds: 60, max_depth: 2}
"""


def _mcboost(*args):
    # The mcboost command's entry point, of this checkout (its spawned workers inherit the
    # path).
    root = str(Path(__file__).resolve().parents[1])
    return [sys.executable, "-c", f"import sys; sys.path.insert(0, {root!r}); "
            "from mcboost_cli.cli import console_main; console_main()", *args]


def test_sigkill_mid_run_then_resume_gives_the_uninterrupted_table(tmp_path, mirror_env):
    cfg = write(tmp_path, KILL_CFG)
    env = dict(os.environ)
    ref_dir, kill_dir = tmp_path / "ref", tmp_path / "kill"
    ref_dir.mkdir(), kill_dir.mkdir()
    subprocess.run(_mcboost("run", str(cfg), "--jobs", "1", "-q"), cwd=ref_dir, env=env,
                   check=True, capture_output=True)

    store = kill_dir / "results/killme/cells.sqlite"
    proc = subprocess.Popen(_mcboost("run", str(cfg), "--jobs", "2", "-q"), cwd=kill_dir,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    done = 0
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if store.exists():
            try:
                con = sqlite3.connect(store)
                done = con.execute("select count(*) from results").fetchone()[0]
                con.close()
            except sqlite3.Error:
                done = 0
        if done >= 4:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the run finished before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)          # the coordinator and its workers
    proc.wait()
    con = sqlite3.connect(store)
    assert con.execute("pragma integrity_check").fetchone()[0] == "ok"
    partial = con.execute("select count(*) from results").fetchone()[0]
    con.close()
    assert 4 <= partial < 20
    # A partial store renders: cells with missing folds are marked †.
    r = subprocess.run(_mcboost("report", str(cfg)), cwd=kill_dir, env=env, check=True,
                       capture_output=True, text=True)
    assert "†" in r.stdout and "partial" in r.stdout

    subprocess.run(_mcboost("run", str(cfg), "--jobs", "2", "-q"), cwd=kill_dir, env=env,
                   check=True, capture_output=True)
    assert ((kill_dir / "results/killme/results.csv").read_text()
            == (ref_dir / "results/killme/results.csv").read_text())
    assert ((kill_dir / "results/killme/results.md").read_text()
            == (ref_dir / "results/killme/results.md").read_text())


def _check_phase1_train_error(store_path, out_dir):
    """Every two-phase fit records the training error after its last Phase I round (the
    stored training curve at round n_phase1_rounds), cells.csv and the selected-fits file carry
    it."""
    from mcboost_cli.runner.reference import read_cells
    from mcboost_cli.runner.store import ResultStore
    with ResultStore(store_path) as store:
        frame = store.frame(with_curves=True)
        want = {}
        for r in frame.itertuples(index=False):
            n1 = r.extra["n_phase1_rounds"]
            assert 1 <= n1 <= len(r.curves["train"])
            want[r.key] = r.curves["train"][n1 - 1]
            assert r.extra["phase1_train_error"] == want[r.key]
        # Tic-tac-toe: Phase I reaches zero training error in every fit (issue 29, item 2).
        assert set(want.values()) == {0.0}
        cells = read_cells(out_dir / "cells.csv")
        assert {k: float(v) for k, v in zip(cells["key"], cells["phase1_train_error"])} == want
        sel = pd.read_csv(out_dir / "results_selected.csv")
        assert len(sel) == 4 * 2 and set(sel["key"]) <= set(want)
        assert all(sel["phase1_train_error"] == sel["key"].map(want))


def test_direct_boosters_config_runs_end_to_end(tmp_path, mirror_env):
    # The committed small config of DMCBoost and the three DirectBoost variants.
    cfg = Path(__file__).resolve().parent.parent / "configs" / "direct_tiny.yaml"
    r = invoke(["run", str(cfg), "--jobs", "1", "-q"], tmp_path)
    assert r.exit_code == 0, r.output
    csv = pd.read_csv(tmp_path / "results" / "direct_tiny" / "results.csv")
    assert set(csv["algorithm"]) == {"DMCBoost", "DirectBoost_avg", "DirectBoost^eps_avg",
                                     "DirectBoost_order"}
    assert (csv["n"] == 2).all()
    # Tic-tac-toe is 65% one class: every booster beats the majority vote.
    assert ((csv["mean"] > 0) & (csv["mean"] < 34.7)).all()
    # Each grid's n' share one Phase I (algorithms.base, "Shared prefixes"): the first fit of
    # a (fold, algorithm) computes it, its siblings start from it; once every cell is done
    # the saved prefixes are removed.
    store_path = tmp_path / "results/direct_tiny/cells.sqlite"
    con = sqlite3.connect(store_path)
    extras = [json.loads(e) for (e,) in con.execute("SELECT extra FROM results")]
    con.close()
    shared = [e for e in extras if e.get("prefix_rounds")]
    assert len(extras) == 18 and len(shared) == 18 - 8, extras
    assert all(e["prefix_rounds"] == e["n_phase1_rounds"] for e in shared)
    _check_phase1_train_error(store_path, tmp_path / "results" / "direct_tiny")
    assert not list((tmp_path / "results/direct_tiny/checkpoints").rglob("*.prefix"))
    # Without checkpoints nothing is shared, and the numbers are the same.
    r = invoke(["run", str(cfg), "--jobs", "1", "-q", "--checkpoint-every", "0",
                "--store", str(tmp_path / "plain.sqlite"), "--results-dir",
                str(tmp_path / "plain")], tmp_path)
    assert r.exit_code == 0, r.output
    assert (tmp_path / "plain/results.csv").read_text() == (
        tmp_path / "results/direct_tiny/results.csv").read_text()


def test_recheck_shares_prefixes_as_a_run_does(tmp_path, mirror_env, monkeypatch):
    # recheck --retime must time a DMCBoost fit as the run did: its n' siblings start from the
    # Phase I the first of them computed (else every re-timed n' > 1 fit would count Phase I
    # again). Every number is reproduced either way.
    cfg = Path(__file__).resolve().parent.parent / "configs" / "direct_tiny.yaml"
    r = invoke(["run", str(cfg), "--jobs", "1", "-q", "--algorithms", "DMCBoost"], tmp_path)
    assert r.exit_code == 0, r.output
    from mcboost_cli.runner import work
    seen, real = [], work.run_cell

    def recording(cell, *args, **kwargs):
        res = real(cell, *args, **kwargs)
        seen.append(res.extra)
        return res

    monkeypatch.setattr(work, "run_cell", recording)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    cells = tmp_path / "results/direct_tiny/cells.csv"
    r = invoke(["recheck", str(cfg), "--cells", str(cells), "--all", "--algorithms",
                "DMCBoost", "--retime"], tmp_path)
    assert r.exit_code == 0 and "0 numbers differ" in r.stderr, r.output
    # 2 folds x 3 n' (tic-tac-toe, depth 3): one fit per fold computes Phase I.
    assert len(seen) == 6, seen
    shared = [e for e in seen if e.get("prefix_rounds")]
    assert len(shared) == 4 and all(e["prefix_rounds"] == e["n_phase1_rounds"] for e in shared)
    # The shared states lived in a temporary folder, removed at the end.
    assert list(scratch.iterdir()) == []

    # An interrupted re-time keeps what it measured, a prefix group at a time: the cells of
    # a fold run together (its 3 n'), and the group re-run before Ctrl-C (or SIGTERM) gets
    # its new timings; the part-done group keeps its old ones (its first fit counted Phase
    # I, which the old timings count in some sibling), as do the others.
    from mcboost_cli.runner.reference import read_cells
    stale = read_cells(cells).assign(fit_seconds="999.000", cpu_seconds="998.000",
                                     machine="old box")
    cells.write_text(stale.to_csv(index=False))
    calls, folds = [], []

    def interrupted(cell, *args, **kwargs):
        calls.append(cell.key)
        folds.append(cell.fold)
        if len(calls) == 5:
            raise KeyboardInterrupt
        return real(cell, *args, **kwargs)

    monkeypatch.setattr(work, "run_cell", interrupted)
    r = invoke(["recheck", str(cfg), "--cells", str(cells), "--all", "--algorithms",
                "DMCBoost", "--retime"], tmp_path)
    assert r.exit_code == 130 and "timings of 3 reproduced cells" in r.stderr, r.output
    assert len(set(folds[:3])) == 1 and folds[3] == folds[4] != folds[0]
    after = read_cells(cells)
    fresh = after["key"].isin(calls[:3])
    assert fresh.sum() == 3 and (after.loc[fresh, "machine"] != "old box").all()
    assert (after.loc[~fresh, "cpu_seconds"] == "998.000").all()
    assert list(scratch.iterdir()) == []


LONG_FIT_CFG = """\
experiment: longfit
datasets: [nursery]
folds: [0]
algorithms:
  - algorithm: samme
    params: {n_rounds: 2500, max_depth: 3}
"""


def test_fit_killed_midway_continues_from_its_checkpoint(tmp_path, mirror_env):
    # One long fit, SIGKILLed (coordinator and worker) after a few of its rounds were
    # checkpointed: the next run continues that fit and stores the uninterrupted numbers.
    cfg = write(tmp_path, LONG_FIT_CFG)
    env = dict(os.environ)
    ref_dir, kill_dir = tmp_path / "ref", tmp_path / "kill"
    ref_dir.mkdir(), kill_dir.mkdir()
    subprocess.run(_mcboost("run", str(cfg), "--jobs", "1", "-q", "--checkpoint-every", "0.001"),
                   cwd=ref_dir, env=env, check=True, capture_output=True)
    ckpt_dir = kill_dir / "results/longfit/checkpoints"
    proc = subprocess.Popen(_mcboost("run", str(cfg), "--jobs", "2", "-q",
                                     "--checkpoint-every", "0.001"),
                            cwd=kill_dir, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if ckpt_dir.is_dir() and any(ckpt_dir.glob("*.ckpt")):
            time.sleep(0.3)
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the fit finished before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    (ckpt,) = ckpt_dir.glob("*.ckpt")
    store = kill_dir / "results/longfit/cells.sqlite"
    con = sqlite3.connect(store)
    assert con.execute("select count(*) from results").fetchone()[0] == 0
    con.close()
    # A dry run lists the fit in flight and how far its checkpoint got.
    with open(ckpt, "rb") as fh:
        saved = pickle.load(fh)
    r = subprocess.run(_mcboost("run", str(cfg), "--dry-run"), cwd=kill_dir, env=env,
                       check=True, capture_output=True, text=True)
    assert "0 done, 0 failed/timed out, 1 pending" in r.stdout, r.stdout
    assert "1 pending fit(s) continue from a checkpoint:" in r.stdout, r.stdout
    (line,) = [ln for ln in r.stdout.splitlines() if ln.startswith("  nursery fold 0")]
    assert f"round {saved['state']['kept']:,}, fit time" in line and "(CPU " in line, line

    r = subprocess.run(_mcboost("run", str(cfg), "--jobs", "1", "-q"), cwd=kill_dir, env=env,
                       check=True, capture_output=True, text=True)
    assert not ckpt.exists(), "a finished cell's checkpoint is removed"
    assert not ckpt.with_suffix(".json").exists(), "and its progress summary"
    cells = pd.read_csv(kill_dir / "results/longfit/cells.csv")
    assert cells["cpu_seconds"].iloc[0] >= saved["cpu_seconds"] - 0.001   # carried over
    con = sqlite3.connect(store)
    (extra,) = con.execute("select extra from results").fetchone()
    con.close()
    assert 0 < json.loads(extra)["resumed_from_round"] < 2500
    for name in ("results.csv", "cells.csv"):
        a = pd.read_csv(kill_dir / "results/longfit" / name)
        b = pd.read_csv(ref_dir / "results/longfit" / name)
        timings = ("fit_seconds", "cpu_seconds")
        a, b = (d.drop(columns=[c for c in timings if c in d]) for d in (a, b))
        pd.testing.assert_frame_equal(a, b)
