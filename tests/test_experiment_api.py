"""The run flow from Python (``runner.experiment``), no click involved: counts, resume, the
same tables as the command line, dry runs that create nothing, bad input as UserError, and
notes that go to the caller's ``log``."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from mcboost_cli.errors import UserError
from mcboost_cli.runner.experiment import (ExperimentResult, report_experiment,
                                           run_experiment)
from mcboost_cli.runner.reference import TIMINGS

# 1 dataset × 2 noise rates × 2 folds × (2 + 1) settings = 12 distinct cells.
SMALL = """\
experiment: small
title: Small
datasets: [car]
folds: [0, 1]
noise_rates: [0.0, 0.1]
algorithms:
  - algorithm: samme
    label: SAMME
    params: {n_rounds: 12}
    grid: {max_depth: [1, 2]}
  - algorithm: adaboost_mh
    label: AdaBoost.MH
    params: {n_rounds: 8, max_depth: 2}
"""
N_CELLS = 12
TABLE_FILES = ("results.md", "results.csv", "results.tex")


@pytest.fixture
def config_file(tmp_path) -> Path:
    path = tmp_path / "small.yaml"
    path.write_text(SMALL)
    return path


def _without_timings(path: Path) -> pd.DataFrame:
    """A per-cell or selected-fit file without its timing columns (they differ per run)."""
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    return frame.drop(columns=[c for c in TIMINGS if c in frame.columns])


def test_run_counts_resume_and_the_command_line_writes_the_same_tables(tmp_path, config_file,
                                                                       uci_mirror):
    api_dir = tmp_path / "api"
    notes: list[str] = []
    first = run_experiment(config_file, jobs=1, mirror=uci_mirror, results_dir=api_dir,
                           progress="quiet", log=notes.append)
    assert isinstance(first, ExperimentResult)
    s = first.summary
    assert (s.total, s.done, s.failed, s.timeout, s.skipped, s.interrupted) == (
        N_CELLS, N_CELLS, 0, 0, 0, False)
    assert first.exit_status == 0 and first.plan is None
    assert first.results_dir == api_dir and first.store_path == api_dir / "cells.sqlite"
    assert first.store_path.is_file()
    written = {p.name for p in first.paths}
    assert set(TABLE_FILES) | {"results_selected.csv", "cells.csv"} <= written
    assert all(p.is_file() for p in first.paths)
    # The summary frame is what results.csv holds: 2 rates × 2 columns, 2 folds each.
    tables = first.tables
    assert len(tables) == 4 and set(tables["algorithm"]) == {"SAMME", "AdaBoost.MH"}
    assert (tables["n"] == 2).all() and ((tables["mean"] > 0) & (tables["mean"] < 30)).all()
    assert "SAMME" in first.text and "label noise 0.1" in first.text
    # The mirror was this call's only: the process environment is as it was.
    assert "MCBOOST_MIRROR" not in os.environ

    # Resume: every cell is skipped, nothing is computed, the tables are the same.
    before = {name: (api_dir / name).read_bytes() for name in TABLE_FILES}
    second = run_experiment(config_file, jobs=1, mirror=uci_mirror, results_dir=api_dir,
                            progress="quiet", log=notes.append)
    s2 = second.summary
    assert (s2.total, s2.done, s2.skipped, s2.ran) == (N_CELLS, 0, N_CELLS, 0)
    assert second.text == first.text
    assert {name: (api_dir / name).read_bytes() for name in TABLE_FILES} == before

    # The command line on the same config, into another folder: the same tables, byte for
    # byte, and the same terminal text.
    from mcboost_cli.cli import main
    cli_dir = tmp_path / "cli"
    r = CliRunner().invoke(main, ["run", str(config_file), "-j", "1", "-q", "--mirror",
                                  uci_mirror, "--results-dir", str(cli_dir)],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert r.stdout == first.text + "\n"
    assert f"{N_CELLS} done, 0 failed, 0 timed out, 0 skipped" in r.stderr
    for name in TABLE_FILES:
        assert (cli_dir / name).read_bytes() == (api_dir / name).read_bytes(), name
    for name in ("results_selected.csv", "cells.csv"):
        pd.testing.assert_frame_equal(_without_timings(cli_dir / name),
                                      _without_timings(api_dir / name))

    # Rendering from the store alone gives the same text and summary frame again.
    report = report_experiment(config_file, results_dir=api_dir, log=notes.append)
    assert report.summary is None and report.text == first.text
    pd.testing.assert_frame_equal(report.tables, first.tables)
    assert notes == []          # nothing to warn about here


def test_dry_run_describes_the_plan_and_creates_no_store(tmp_path, config_file, uci_mirror,
                                                         capsys):
    store = tmp_path / "new" / "folder" / "cells.sqlite"
    notes: list[str] = []
    result = run_experiment(config_file, dry_run=True, mirror=uci_mirror, store_path=store,
                            results_dir=tmp_path / "out", export_splits=tmp_path / "splits",
                            log=notes.append)
    assert result.summary is None and result.tables is None and result.paths == ()
    assert result.plan.startswith(f"{config_file}: experiment 'small': {N_CELLS} cells")
    assert f"0 done, 0 failed/timed out, {N_CELLS} pending; store {store}" in result.plan
    assert result.store_path == store
    assert not store.exists() and not (tmp_path / "new").exists()
    assert not (tmp_path / "out").exists()
    # The one note (splits written) went to ``log``, not to the terminal.
    assert len(notes) == 1 and notes[0].startswith("wrote ") and "split files" in notes[0]
    assert capsys.readouterr().err == ""


def test_noise_rates_run_a_subset_and_the_tables_show_all(tmp_path, config_file, uci_mirror):
    result = run_experiment(config_file, dry_run=True, mirror=uci_mirror,
                            noise_rates=[0.2, 0.2], results_dir=tmp_path / "out",
                            datasets="car", algorithms=["SAMME"])
    # Runs 1 rate × 2 folds × 2 SAMME settings; shows the config's rates and the new one.
    assert ": 4 cells (1 table(s), 1 datasets × 1 noise rates" in result.plan
    assert result.config.noise_rates == (0.0, 0.1, 0.2)
    with pytest.raises(UserError, match=r"noise_rates: 1\.5 is not valid"):
        run_experiment(config_file, dry_run=True, noise_rates=[1.5])


def test_bad_config_path_is_a_one_line_user_error(tmp_path):
    missing = tmp_path / "nope.yaml"
    with pytest.raises(UserError) as info:
        run_experiment(missing, dry_run=True)
    message = str(info.value)
    assert len(message.splitlines()) == 1 and str(missing) in message
    assert not (Path("results") / "nope").exists()


def test_bad_names_and_missing_store_are_user_errors(tmp_path, config_file):
    with pytest.raises(UserError, match="--datasets: letter is not valid; expected names "
                                        "among car"):
        run_experiment(config_file, dry_run=True, datasets=["letter"])
    with pytest.raises(UserError, match="no result store"):
        report_experiment(config_file, results_dir=tmp_path / "empty")


def test_default_log_prints_on_stderr(tmp_path, config_file, uci_mirror, capsys):
    run_experiment(config_file, dry_run=True, mirror=uci_mirror,
                   results_dir=tmp_path / "out", export_splits=tmp_path / "splits")
    err = capsys.readouterr().err
    assert err.startswith("wrote ") and err.count("\n") == 1
