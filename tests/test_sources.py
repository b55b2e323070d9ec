"""Data sources (config ``sources:`` / ``--source DATASET=SOURCE``): a dataset's rows from its
files or from its generator. Cells of another source are other fits (own keys, never mixed
with the files' fits); default-source keys are those of versions without the option; the
tables mark such rows; bad values are one-line errors."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from mcboost_cli.cli import main
from mcboost_cli.errors import UserError
from mcboost_cli.runner.cells import Cell, canonical_json
from mcboost_cli.runner.config import narrow, validate_config
from mcboost_cli.runner.plan import expand
from mcboost_cli.runner.reference import cell_of, read_cells

CFG = """\
experiment: src
datasets: [balance-scale, car]
folds: [0]
algorithms:
  - algorithm: samme
    label: SAMME
    params: {n_rounds: 15, max_depth: 2}
"""


def _cell(**kw):
    base = dict(experiment="e", dataset="waveform", protocol="five_fold", fold=1,
                noise_rate=0.2, seed=0, algorithm="samme", algorithm_version="1",
                params=(("max_depth", 3), ("n_rounds", 10)))
    base.update(kw)
    return Cell(**base)


def test_default_source_keeps_the_key_of_versions_without_sources():
    c = _cell()
    legacy = {"dataset": "waveform", "protocol": "five_fold", "fold": 1, "noise_rate": 0.2,
              "seed": 0, "algorithm": "samme", "algorithm_version": "1",
              "params": {"max_depth": 3, "n_rounds": 10}}
    assert c.key == hashlib.sha256(canonical_json(legacy).encode()).hexdigest()[:32]
    g = _cell(data_source="generator")
    assert g.key != c.key and _cell(data_source="files").key not in (c.key, g.key)
    back = Cell.from_json(g.to_json())
    assert back == g and back.key == g.key and "[generator]" in g.describe()


def _validate(text):
    import yaml
    return validate_config(yaml.safe_load(text), "c.yaml", text)


def test_config_sources_set_cells_notes_and_survive_narrowing():
    cfg = _validate(CFG + "sources: {balance-scale: generator}\n")
    assert cfg.source_of("balance-scale") == "generator" and cfg.source_of("car") == ""
    by_ds = {pc.cell.dataset: pc.cell for pc in expand(cfg)}
    assert by_ds["balance-scale"].data_source == "generator" and by_ds["car"].data_source == ""
    assert any("balance-scale" in n and "generator" in n for n in cfg.notes)
    # Narrowing to car drops balance-scale's note; narrowing to it keeps it.
    assert not any("Data source" in n for n in narrow(cfg, ["car"]).notes)
    assert any("Data source" in n for n in narrow(cfg, ["balance-scale"]).notes)
    # "auto" is the default: the same cells as no sources at all.
    auto = _validate(CFG + "sources: {balance-scale: auto}\n")
    assert [pc.cell.key for pc in expand(auto)] == [pc.cell.key for pc in expand(_validate(CFG))]
    assert auto.sources == () and not any("Data source" in n for n in auto.notes)


@pytest.mark.parametrize("sources, expected", [
    ("{balance-scale: gen}", "sources.balance-scale: 'gen' is not valid; expected one of "
                             "auto, files, generator"),
    ("{letter: generator}", "sources.letter: 'letter' is not one of this config's datasets"),
    ("{car: generator}", "sources.car: 'car' has no generator"),
    ("[car]", "sources: ['car'] is not valid; expected a mapping"),
])
def test_config_sources_errors_are_one_line(sources, expected):
    with pytest.raises(UserError) as e:
        _validate(CFG + f"sources: {sources}\n")
    assert expected in str(e.value) and "\n" not in str(e.value)


def test_generated_entry_has_no_files():
    text = CFG.replace("[balance-scale, car]", "[long-servedio-5, car]")
    with pytest.raises(UserError, match="'long-servedio-5' is generated and has no files"):
        _validate(text + "sources: {long-servedio-5: files}\n")


def test_cells_file_without_the_column_reads_as_default_source(tmp_path):
    c, g = _cell(), _cell(data_source="generator")
    rows = []
    for cell in (c, g):
        rows.append({"key": cell.key, "dataset": cell.dataset, "protocol": cell.protocol,
                     "fold": cell.fold, "noise_rate": cell.noise_rate, "seed": cell.seed,
                     "algorithm": cell.algorithm, "algorithm_version": cell.algorithm_version,
                     "params": canonical_json(cell.params_dict),
                     "data_source": cell.data_source, "selected_round": 3, "n_rounds": 10,
                     "train_error": 0.1, "valid_error": 0.2, "test_error": 0.3,
                     "n_phase1_rounds": "", "round_rule": "r", "stop_reason": "s",
                     "fit_seconds": 1.0})
    new = tmp_path / "new.csv"
    pd.DataFrame(rows).to_csv(new, index=False)
    back = read_cells(new)
    assert [cell_of(r, "e").key for _, r in back.iterrows()] == [c.key, g.key]
    # An older file (no data_source column) holds default-source rows only.
    old = tmp_path / "old.csv"
    pd.DataFrame(rows[:1]).drop(columns="data_source").to_csv(old, index=False)
    back = read_cells(old)
    assert list(back["data_source"]) == [""] and cell_of(back.iloc[0], "e").key == c.key
    # The generator row with its column removed hashes to another key: refused.
    pd.DataFrame(rows[1:]).drop(columns="data_source").to_csv(old, index=False)
    with pytest.raises(UserError, match="hash to"):
        cell_of(read_cells(old).iloc[0], "e")


def invoke(args, cwd: Path):
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, args, catch_exceptions=False)
    finally:
        os.chdir(old)


def test_run_with_source_end_to_end(tmp_path, uci_mirror, monkeypatch):
    monkeypatch.setenv("MCBOOST_MIRROR", uci_mirror)
    cfg = tmp_path / "c.yaml"
    cfg.write_text(CFG)
    r = invoke(["run", str(cfg), "-j", "1", "-q"], tmp_path)
    assert r.exit_code == 0, r.output
    r = invoke(["run", str(cfg), "-j", "1", "-q", "--source", "balance-scale=generator"],
               tmp_path)
    assert r.exit_code == 0, r.output
    # Only balance-scale ran again (car's cell is shared), under a key of its own.
    assert "1 done" in r.stderr and "1 skipped" in r.stderr
    assert "balance-scale [generator]" in r.stdout and "Data source of balance-scale" in r.stdout
    out = tmp_path / "results" / "src"
    con = sqlite3.connect(out / "cells.sqlite")
    n = con.execute("select count(*) from results where dataset = 'balance-scale'").fetchone()
    con.close()
    assert n == (2,)
    cells = read_cells(out / "cells.csv")
    bs = cells[cells["dataset"] == "balance-scale"].set_index("data_source")
    assert set(bs.index) == {"", "generator"}
    # The balance-scale generator is exact and in the file's row order: the same rows, so the
    # same numbers, although the two fits are stored apart.
    for col in ("selected_round", "train_error", "valid_error", "test_error"):
        assert bs.loc["", col] == bs.loc["generator", col]
    assert (out / "results.csv").read_text().splitlines()[0].count("data_source") == 1
    # --datasets narrows what runs, not what the tables show: the other rows keep their note.
    r = invoke(["run", str(cfg), "-j", "1", "-q", "--source", "balance-scale=generator",
                "--datasets", "car"], tmp_path)
    assert r.exit_code == 0, r.output
    assert "balance-scale [generator]" in r.stdout and "Data source of balance-scale" in r.stdout
    assert "Data source of balance-scale" in (out / "results.md").read_text()
    # report and recheck take the option too; without it, report shows the files' row.
    r = invoke(["report", str(cfg), "--source", "balance-scale=generator"], tmp_path)
    assert r.exit_code == 0 and "balance-scale [generator]" in r.stdout
    r = invoke(["report", str(cfg)], tmp_path)
    assert r.exit_code == 0 and "[generator]" not in r.stdout
    r = invoke(["recheck", str(cfg), "--source", "balance-scale=generator", "--sample", "4",
                "--max-seconds", "60"], tmp_path)
    assert r.exit_code == 0, r.output
    # Bad option values: one line, exit 2.
    for bad, msg in (("balance-scale", "expected DATASET=SOURCE"),
                     ("car=generator", "'car' has no generator"),
                     ("balance-scale=gen", "--source balance-scale=gen: 'gen' is not valid")):
        r = invoke(["run", str(cfg), "--source", bad, "--dry-run"], tmp_path)
        assert r.exit_code == 2 and msg in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
