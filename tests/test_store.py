"""Tests of the SQLite result store: round trips, upserts, queries, bad files, SIGKILL."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from mcboost_cli.errors import UserError
from mcboost_cli.runner.cells import DONE, FAILED, TIMEOUT, Cell, CellResult
from mcboost_cli.runner.store import ResultStore, decode_curves, encode_curves

REPO = Path(__file__).resolve().parents[1]


def make_cell(i: int, experiment: str = "exp", dataset: str = "iris") -> Cell:
    return Cell(experiment=experiment, dataset=dataset, protocol="cv5", fold=i % 5,
                noise_rate=0.1 * (i % 3), seed=i, algorithm="adaboost_mh", algorithm_version="1",
                params=(("depth", 2 + i % 2), ("lr", 0.5)), label=f"AB.MH {i}", grid_id="g0")


def make_result(cell: Cell, n_rounds: int = 50) -> CellResult:
    """A result with full-precision random floats, determined by the cell."""
    rng = np.random.default_rng(int(cell.key[:8], 16))
    curves = {name: rng.random(n_rounds).tolist() for name in ("train", "valid", "test")}
    best = int(np.argmin(curves["valid"]))
    return CellResult(
        key=cell.key, status=DONE, selected_round=best + 1,
        train_error=curves["train"][best], valid_error=curves["valid"][best],
        test_error=curves["test"][best], n_rounds=n_rounds, curves=curves,
        extra={"stop": "max_rounds", "gamma": float(rng.random()), "sizes": [1, 2, 3]},
        fit_seconds=float(rng.random()), wall_seconds=float(rng.random()),
        cpu_seconds=float(rng.random()), traceback=None,
        versions={"python": "3.11", "numpy": "2", "numba": "0.6", "mcboost": "0.1"})


@pytest.fixture
def store(tmp_path):
    with ResultStore(tmp_path / "results.sqlite") as s:
        yield s


def test_round_trip_all_fields_exact(store):
    cell = make_cell(7)
    result = make_result(cell)
    result.curves["tiny"] = [5e-324, 1 / 3, 0.1 + 0.2, -0.0, 1e308]
    store.put(cell, result, config_hash="cafe")
    got_cell, got_result = store.get(cell.key)
    assert got_cell == cell and got_cell.label == cell.label and got_cell.grid_id == "g0"
    assert got_result == result  # dataclass equality: every field, floats bit for bit
    assert list(got_result.curves) == ["train", "valid", "test", "tiny"]
    assert np.array_equal(np.array(got_result.curves["tiny"]).view(np.int64),
                          np.array(result.curves["tiny"]).view(np.int64))
    row = store.frame().iloc[0]
    assert row.config_hash == "cafe" and row.finished_at.endswith("+00:00")
    assert store.get("no-such-key") is None


def test_curves_codec_accepts_numpy_and_none():
    assert decode_curves(encode_curves(None)) is None
    curves = {"a": np.linspace(0, 1, 7, dtype=np.float32), "b": []}
    out = decode_curves(encode_curves(curves))
    assert out == {"a": curves["a"].astype(float).tolist(), "b": []}
    with pytest.raises(ValueError, match="one-dimensional"):
        encode_curves({"a": np.zeros((2, 2))})


def test_failed_result_and_numpy_scalars(store):
    cell = make_cell(1)
    result = CellResult(key=cell.key, status=FAILED, selected_round=np.int64(3),
                        test_error=np.float64(0.25), extra={"n": np.int64(4)},
                        traceback="Traceback ...\nValueError: boom")
    store.put(cell, result)
    _, got = store.get(cell.key)
    assert got.status == FAILED and got.traceback.endswith("ValueError: boom")
    assert got.selected_round == 3 and type(got.selected_round) is int
    assert got.test_error == 0.25 and got.extra == {"n": 4} and got.curves is None


def test_put_rejects_mismatched_key_and_bad_status(store):
    cell = make_cell(1)
    with pytest.raises(ValueError, match="does not match"):
        store.put(cell, make_result(make_cell(2)))
    with pytest.raises(ValueError, match="unknown status"):
        store.put(cell, CellResult(key=cell.key, status="running"))


def test_upsert_keeps_one_row(store):
    cell = make_cell(3)
    store.put(cell, CellResult(key=cell.key, status=FAILED, traceback="x"))
    store.put(cell, make_result(cell))
    assert store.statuses() == {cell.key: DONE}
    assert len(store.frame()) == 1
    assert store.get(cell.key)[1].traceback is None


def test_statuses_of_many_keys(store):
    cells = [make_cell(i) for i in range(1200)]  # more than one chunk of host parameters
    for i, cell in enumerate(cells[:1100]):
        status = (DONE, FAILED, TIMEOUT)[i % 3]
        store.put(cell, CellResult(key=cell.key, status=status))
    st = store.statuses([c.key for c in cells])
    assert len(st) == 1100
    assert st[cells[0].key] == DONE and st[cells[1].key] == FAILED and st[cells[2].key] == TIMEOUT
    assert cells[1150].key not in st
    assert store.statuses([]) == {}


def test_frame(store):
    a = [make_cell(i, experiment="A") for i in range(4)]
    b = [make_cell(i, experiment="B", dataset="wine") for i in range(3)]
    for cell in a + b:
        store.put(cell, make_result(cell))
    df = store.frame()
    assert len(df) == 7 and "curves" not in df.columns
    assert df.params[0] == {"depth": 2, "lr": 0.5}
    assert df.extra[0]["stop"] == "max_rounds" and df.versions[0]["numba"] == "0.6"
    assert str(df.selected_round.dtype) == "Int64" and df.fold.dtype == np.int64
    assert set(store.frame(experiment="B").dataset) == {"wine"}
    sub = store.frame(keys=[a[0].key, b[2].key, "missing"])
    assert set(sub.key) == {a[0].key, b[2].key}
    assert len(store.frame(experiment="A", keys=[a[0].key, b[2].key])) == 1
    with_curves = store.frame(keys=[a[1].key], with_curves=True)
    assert with_curves.curves[0] == make_result(a[1]).curves
    empty = store.frame(experiment="nope")
    assert len(empty) == 0 and "params" in empty.columns


def test_delete(store):
    cells = [make_cell(i) for i in range(5)]
    for cell in cells:
        store.put(cell, make_result(cell))
    assert store.delete([cells[0].key, cells[1].key, "missing"]) == 2
    assert set(store.statuses()) == {c.key for c in cells[2:]}


def test_reopen_and_wal(tmp_path):
    path = tmp_path / "sub" / "dir" / "r.sqlite"
    cell = make_cell(0)
    with ResultStore(path) as s:
        s.put(cell, make_result(cell))
        assert s._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    with ResultStore(path) as s:
        assert s.get(cell.key)[1] == make_result(cell)


def test_not_sqlite_is_user_error(tmp_path):
    path = tmp_path / "junk.sqlite"
    path.write_bytes(b"this is not a database at all\n" * 100)
    with pytest.raises(UserError, match="result store .*junk.sqlite: file is not a database") as info:
        ResultStore(path)
    assert "\n" not in str(info.value)
    assert path.read_bytes() == b"this is not a database at all\n" * 100  # left untouched


def test_foreign_sqlite_is_user_error(tmp_path):
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE people (name TEXT)")
    conn.close()
    with pytest.raises(UserError, match="other.db is an SQLite file but not an mcboost"):
        ResultStore(path)


def test_newer_schema_is_user_error(tmp_path):
    path = tmp_path / "r.sqlite"
    ResultStore(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE mcboost_schema SET value = '99' WHERE name = 'schema_version'")
    conn.close()
    with pytest.raises(UserError, match="newer mcboost"):
        ResultStore(path)


def test_schema_v1_store_is_migrated_in_place(tmp_path):
    # A v1 store (before cpu_seconds) with one row: its columns are kept, cpu_seconds is
    # unknown, the schema version is brought up to date and new rows store their CPU time.
    path = tmp_path / "r.sqlite"
    old, new = make_cell(0), make_cell(1)
    with ResultStore(path) as s:
        s.put(old, make_result(old))
    with sqlite3.connect(path) as conn:
        conn.execute("ALTER TABLE results DROP COLUMN cpu_seconds")
        conn.execute("UPDATE mcboost_schema SET value = '1' WHERE name = 'schema_version'")
    conn.close()
    with ResultStore(path) as s:
        got = s.get(old.key)[1]
        assert got.cpu_seconds is None
        assert replace(got, cpu_seconds=make_result(old).cpu_seconds) == make_result(old)
        s.put(new, make_result(new))
        assert s.get(new.key)[1] == make_result(new)
        frame = s.frame()
        assert frame["cpu_seconds"].isna().tolist() == [old.key == k for k in frame["key"]]
        version = s._conn.execute(
            "SELECT value FROM mcboost_schema WHERE name = 'schema_version'").fetchone()[0]
        assert version == "2"


def test_directory_is_user_error(tmp_path):
    with pytest.raises(UserError, match="is a directory"):
        ResultStore(tmp_path)


_WRITER = textwrap.dedent("""
    import sys
    from mcboost_cli.runner.store import ResultStore
    from tests.test_store import make_cell, make_result
    with ResultStore(sys.argv[1]) as store:
        for i in range(100000):
            cell = make_cell(i)
            store.put(cell, make_result(cell, n_rounds=3000))
            print(cell.key, flush=True)   # printed only after the commit
""")


def test_sigkill_of_writer_neither_corrupts_nor_loses_committed_rows(tmp_path):
    path = tmp_path / "killed.sqlite"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(path)], stdout=subprocess.PIPE,
                            text=True, env=env, cwd=REPO)
    committed = []
    try:
        for line in proc.stdout:
            committed.append(line.strip())
            if len(committed) == 40:
                proc.send_signal(signal.SIGKILL)  # most likely in the middle of a put
                break
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == -signal.SIGKILL and len(committed) == 40
    with ResultStore(path) as store:
        assert store._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        keys = store.statuses()
        assert set(committed) <= set(keys)
        for key in keys:
            cell, result = store.get(key)
            assert result == make_result(cell, n_rounds=3000)
