"""The result store: one SQLite file, one row per cell key.

Map of the module
-----------------
``ResultStore``                 open / create a store; ``put``, ``get``, ``statuses``, ``frame``,
                                ``delete``, ``close``; a context manager.
``empty_frame``                 the columns of ``frame`` without rows (rendering without a store)
``encode_curves`` / ``decode_curves``
                                the compact, exact encoding of per-round error curves.
``SCHEMA_VERSION``, ``_MIGRATIONS``
                                the schema version written into every store and the steps that
                                bring an older store up to date.

Durability
----------
The store runs in WAL journal mode with ``synchronous=NORMAL``. In WAL mode a transaction is
committed once its frames are appended to the ``-wal`` file with ``write()``; the data then lives
in the operating system's page cache, so killing the writer (SIGKILL, Ctrl-C, a crash) right
after ``put`` returns can neither lose that row nor corrupt the file: the next opener replays or
ignores the WAL. What ``NORMAL`` gives up relative to ``FULL`` is the fsync at every commit, i.e.
durability of the last few commits across a *power loss or OS crash* (the file still stays
consistent). Losing a few cells to a power cut only means re-running them, while an fsync per
cell would slow down grids of many small fits, so ``NORMAL`` is the better trade here.

Each ``put`` is its own transaction (an upsert on the key), and only the coordinating process
writes, so a kill loses at most the cells that were in flight. One run at a time writes a
store: ``runner.lock`` makes a second run on it stop (it would compute the same cells). Readers (e.g. a report rendered
while a run is going) may open the same file at any time: WAL lets them read concurrently.

Numbers
-------
Errors and timings are SQLite ``REAL`` (IEEE float64, stored exactly). Curves are float64 bytes,
zlib-compressed, so reports rendered from the store are reproducible bit for bit. SQLite turns
NaN into NULL, so a NaN scalar error reads back as ``None``.
"""

from __future__ import annotations

import json
import sqlite3
import struct
import zlib
from collections.abc import Iterable
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self

import numpy as np
import pandas as pd

from ..errors import UserError
from .cells import STATUSES, Cell, CellResult, canonical_json

SCHEMA_VERSION = 2
APPLICATION = "mcboost-result-store"


def _add_cpu_seconds(conn) -> None:
    """v1 -> v2: the fit's CPU time (unknown, NULL, for the rows stored before)."""
    conn.execute("ALTER TABLE results ADD COLUMN cpu_seconds REAL")


# Steps that migrate a store of schema version v to v + 1, run in order inside one transaction
# when an older store is opened.
_MIGRATIONS: dict[int, Any] = {1: _add_cpu_seconds}

# Stay well below SQLite's limit on host parameters per statement (999 in old builds).
_CHUNK = 500

_SCHEMA = f"""
CREATE TABLE mcboost_schema (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE results (
    key               TEXT PRIMARY KEY,
    experiment        TEXT NOT NULL,
    dataset           TEXT NOT NULL,
    protocol          TEXT NOT NULL,
    fold              INTEGER NOT NULL,
    noise_rate        REAL NOT NULL,
    seed              INTEGER NOT NULL,
    algorithm         TEXT NOT NULL,
    algorithm_version TEXT NOT NULL,
    label             TEXT NOT NULL,
    grid_id           TEXT NOT NULL,
    params            TEXT NOT NULL,
    cell              TEXT NOT NULL,
    status            TEXT NOT NULL CHECK (status IN ({", ".join(repr(s) for s in STATUSES)})),
    selected_round    INTEGER,
    train_error       REAL,
    valid_error       REAL,
    test_error        REAL,
    n_rounds          INTEGER,
    curves            BLOB,
    extra             TEXT,
    fit_seconds       REAL,
    cpu_seconds       REAL,
    wall_seconds      REAL,
    traceback         TEXT,
    versions          TEXT,
    config_hash       TEXT NOT NULL,
    finished_at       TEXT NOT NULL
);
CREATE INDEX results_experiment ON results (experiment);
"""

# Column order of the ``results`` table (and of ``frame``).
COLUMNS = (
    "key", "experiment", "dataset", "protocol", "fold", "noise_rate", "seed", "algorithm",
    "algorithm_version", "label", "grid_id", "params", "cell", "status", "selected_round",
    "train_error", "valid_error", "test_error", "n_rounds", "curves", "extra", "fit_seconds",
    "cpu_seconds", "wall_seconds", "traceback", "versions", "config_hash", "finished_at",
)
_JSON_COLUMNS = ("params", "extra", "versions")


# --------------------------------------------------------------------------------------------
# Encoding helpers
# --------------------------------------------------------------------------------------------

def encode_curves(curves: dict[str, Any] | None) -> bytes | None:
    """Encode per-round curves as zlib-compressed float64 bytes.

    Layout before compression: a 4-byte little-endian header length, a JSON header
    ``[[name, length], ...]`` (which keeps the order of the names), then each curve's values as
    little-endian float64, one curve after the other.

    Parameters
    ----------
    curves : dict of str to sequence of float, or None
        One 1-D sequence per curve name.

    Returns
    -------
    bytes or None
        None when ``curves`` is None.
    """
    if curves is None:
        return None
    names = list(curves)
    arrays = [np.asarray(curves[name], dtype="<f8") for name in names]
    for name, arr in zip(names, arrays):
        if arr.ndim != 1:
            raise ValueError(f"curve {name!r} must be one-dimensional, got shape {arr.shape}")
    header = json.dumps([[name, int(arr.size)] for name, arr in zip(names, arrays)]).encode()
    payload = b"".join(arr.tobytes() for arr in arrays)
    return zlib.compress(struct.pack("<I", len(header)) + header + payload)


def decode_curves(blob: bytes | None) -> dict[str, list[float]] | None:
    """Inverse of :func:`encode_curves`: values come back as Python floats, bit for bit."""
    if blob is None:
        return None
    raw = zlib.decompress(blob)
    (header_len,) = struct.unpack_from("<I", raw, 0)
    header = json.loads(raw[4:4 + header_len])
    offset = 4 + header_len
    curves = {}
    for name, size in header:
        arr = np.frombuffer(raw, dtype="<f8", count=size, offset=offset)
        curves[name] = arr.tolist()
        offset += 8 * size
    return curves


def _json_default(obj):
    # Work functions naturally put numpy scalars and small arrays into ``extra``.
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"{type(obj).__name__} is not JSON serialisable")


def _dumps(obj) -> str | None:
    if obj is None:
        return None
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=_json_default)


def _opt(value, kind):
    # numpy scalars cannot be bound as SQLite parameters; coerce to the Python type.
    return None if value is None else kind(value)


def _chunks(seq: list, size: int = _CHUNK):
    for i in range(0, len(seq), size):
        yield seq[i:i + size]


def empty_frame() -> pd.DataFrame:
    """A frame with the columns of ``ResultStore.frame`` and no rows (no store to read)."""
    return pd.DataFrame(columns=[*COLUMNS, "data_source", "noise_parts"])


# --------------------------------------------------------------------------------------------
# The store
# --------------------------------------------------------------------------------------------

class ResultStore:
    """An embedded SQLite store of cell results, one row per cell key.

    Parameters
    ----------
    path : str or Path
        The store file. It (and its parent directories) is created if missing.

    Raises
    ------
    UserError
        If ``path`` is not an SQLite file, holds a foreign schema, or was written by a newer
        mcboost.

    Notes
    -----
    Open one ``ResultStore`` per process; do not pass it to worker processes (only the
    coordinating process writes). Rows are keyed by ``Cell.key``, which does not include the
    experiment name: two experiments that share a fit share its row, and the row's
    ``experiment`` / ``label`` / ``grid_id`` are those of the last writer. Reports should
    therefore select rows by the keys of their own plan (``frame(keys=...)``) and take display
    labels from the plan's cells.

    Examples
    --------
    >>> with ResultStore("results.sqlite") as store:          # doctest: +SKIP
    ...     store.put(cell, result, config_hash="ab12")
    ...     store.statuses([cell.key])
    {'...': 'done'}
    """

    def __init__(self, path):
        self.path = Path(path)
        if self.path.is_dir():
            raise UserError(f"result store {self.path} is a directory; give a file path")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            # isolation_level=None: no implicit transactions; ``_transaction`` opens them.
            self._conn = sqlite3.connect(str(self.path), timeout=30.0, isolation_level=None)
        except sqlite3.Error as exc:
            raise UserError(f"cannot open result store {self.path}: {exc}") from None
        try:
            self._setup()
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            # e.g. "file is not a database", "attempt to write a readonly database"
            raise UserError(f"cannot open result store {self.path}: {exc}") from None
        except UserError:
            self._conn.close()
            raise

    # -- opening -------------------------------------------------------------------------------

    def _setup(self) -> None:
        conn = self._conn
        # The first statement reads the file header, so a non-SQLite file fails right here.
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")  # see the module docstring for why
        with self._transaction():
            tables = {row[0] for row in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not tables:
                # Statement by statement: executescript would COMMIT the open transaction.
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.executemany("INSERT INTO mcboost_schema (name, value) VALUES (?, ?)",
                                 [("application", APPLICATION),
                                  ("schema_version", str(SCHEMA_VERSION))])
                return
            if "mcboost_schema" not in tables:
                raise UserError(f"{self.path} is an SQLite file but not an mcboost result store "
                                f"(it has tables: {', '.join(sorted(tables))})")
            info = dict(conn.execute("SELECT name, value FROM mcboost_schema"))
            if info.get("application") != APPLICATION:
                raise UserError(f"{self.path} is not an mcboost result store "
                                f"(application {info.get('application')!r})")
            version = int(info.get("schema_version", "0"))
            if version > SCHEMA_VERSION:
                raise UserError(f"{self.path} was written by a newer mcboost (store schema "
                                f"v{version}; this version reads up to v{SCHEMA_VERSION}); "
                                "upgrade mcboost")
            for v in range(version, SCHEMA_VERSION):
                if v not in _MIGRATIONS:
                    raise UserError(f"{self.path} has store schema v{version}, which this "
                                    f"mcboost cannot migrate to v{SCHEMA_VERSION}")
                _MIGRATIONS[v](conn)
            if version < SCHEMA_VERSION:
                conn.execute("UPDATE mcboost_schema SET value = ? WHERE name = 'schema_version'",
                             (str(SCHEMA_VERSION),))

    @contextmanager
    def _transaction(self):
        # IMMEDIATE takes the write lock up front, so two openers of a new file cannot both
        # decide to create the schema.
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        else:
            self._conn.execute("COMMIT")

    # -- writing -------------------------------------------------------------------------------

    def put(self, cell: Cell, result: CellResult, config_hash: str = "") -> None:
        """Insert or replace the row of ``cell`` with ``result``, in one transaction.

        Parameters
        ----------
        cell : Cell
        result : CellResult
            Its ``key`` must equal ``cell.key`` and its ``status`` be one of ``STATUSES``.
        config_hash : str
            Hash of the configuration that produced the row (for provenance only).
        """
        if result.key != cell.key:
            raise ValueError(f"result key {result.key} does not match cell key {cell.key}")
        if result.status not in STATUSES:
            raise ValueError(f"unknown status {result.status!r}; expected one of {STATUSES}")
        row = {
            "key": cell.key,
            "experiment": cell.experiment,
            "dataset": cell.dataset,
            "protocol": cell.protocol,
            "fold": int(cell.fold),
            "noise_rate": float(cell.noise_rate),
            "seed": int(cell.seed),
            "algorithm": cell.algorithm,
            "algorithm_version": cell.algorithm_version,
            "label": cell.label,
            "grid_id": cell.grid_id,
            "params": canonical_json(cell.params_dict),
            "cell": cell.to_json(),
            "status": result.status,
            "selected_round": _opt(result.selected_round, int),
            "train_error": _opt(result.train_error, float),
            "valid_error": _opt(result.valid_error, float),
            "test_error": _opt(result.test_error, float),
            "n_rounds": _opt(result.n_rounds, int),
            "curves": encode_curves(result.curves),
            "extra": _dumps(result.extra),
            "fit_seconds": _opt(result.fit_seconds, float),
            "cpu_seconds": _opt(result.cpu_seconds, float),
            "wall_seconds": _opt(result.wall_seconds, float),
            "traceback": result.traceback,
            "versions": _dumps(result.versions),
            "config_hash": config_hash,
            "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        columns = ", ".join(COLUMNS)
        marks = ", ".join(f":{c}" for c in COLUMNS)
        updates = ", ".join(f"{c} = excluded.{c}" for c in COLUMNS if c != "key")
        with self._transaction():
            self._conn.execute(
                f"INSERT INTO results ({columns}) VALUES ({marks}) "
                f"ON CONFLICT (key) DO UPDATE SET {updates}", row)

    def delete(self, keys: Iterable[str]) -> int:
        """Delete the rows of ``keys`` (for ``--fresh``); returns how many rows were deleted."""
        keys = list(keys)
        deleted = 0
        with self._transaction():
            for chunk in _chunks(keys):
                cur = self._conn.execute(
                    f"DELETE FROM results WHERE key IN ({', '.join('?' * len(chunk))})", chunk)
                deleted += cur.rowcount
        return deleted

    # -- reading -------------------------------------------------------------------------------

    def statuses(self, keys: Iterable[str] | None = None) -> dict[str, str]:
        """Status of each stored key among ``keys`` (all keys when None).

        Keys that are not in the store (pending cells) are absent from the result.
        """
        if keys is None:
            return dict(self._conn.execute("SELECT key, status FROM results"))
        out: dict[str, str] = {}
        for chunk in _chunks(list(keys)):
            out.update(self._conn.execute(
                f"SELECT key, status FROM results WHERE key IN ({', '.join('?' * len(chunk))})",
                chunk))
        return out

    def get(self, key: str) -> tuple[Cell, CellResult] | None:
        """The stored cell and result of ``key``, or None if the key is not stored."""
        cur = self._conn.execute(f"SELECT {', '.join(COLUMNS)} FROM results WHERE key = ?",
                                 (key,))
        row = cur.fetchone()
        if row is None:
            return None
        r = dict(zip(COLUMNS, row))
        result = CellResult(
            key=r["key"], status=r["status"], selected_round=r["selected_round"],
            train_error=r["train_error"], valid_error=r["valid_error"],
            test_error=r["test_error"], n_rounds=r["n_rounds"],
            curves=decode_curves(r["curves"]),
            extra=None if r["extra"] is None else json.loads(r["extra"]),
            fit_seconds=r["fit_seconds"], wall_seconds=r["wall_seconds"],
            traceback=r["traceback"],
            versions=None if r["versions"] is None else json.loads(r["versions"]),
            cpu_seconds=r["cpu_seconds"],
        )
        return Cell.from_json(r["cell"]), result

    def frame(self, experiment: str | None = None, keys: Iterable[str] | None = None, *,
              with_curves: bool = False) -> pd.DataFrame:
        """The stored rows as a DataFrame, one row per cell.

        Parameters
        ----------
        experiment : str, optional
            Keep rows whose (last written) experiment is this one. Prefer ``keys`` for reports:
            see the class notes.
        keys : iterable of str, optional
            Keep rows with these keys.
        with_curves : bool, default False
            Decode and include the ``curves`` column (dicts of lists of floats). Curves can be
            large, so they are not read unless asked for.

        Returns
        -------
        pandas.DataFrame
            Columns as in ``COLUMNS`` (without ``curves`` unless ``with_curves``) and
            ``data_source`` and ``noise_parts`` (from the cell's JSON; "" for the defaults,
            the catalog's rows and noise on training and validation labels); ``params``,
            ``extra`` and ``versions`` parsed to dicts; ``selected_round`` and ``n_rounds`` as
            nullable integers. Rows are sorted by dataset, protocol, noise rate, seed, fold,
            algorithm and key, so the frame does not depend on the order cells finished in.
        """
        columns = [c for c in COLUMNS if with_curves or c != "curves"]
        sql = f"SELECT {', '.join(columns)} FROM results"
        where, args = [], []
        if experiment is not None:
            where.append("experiment = ?")
            args.append(experiment)
        rows: list = []
        if keys is None:
            rows = self._conn.execute(
                sql + (" WHERE " + " AND ".join(where) if where else ""), args).fetchall()
        else:
            for chunk in _chunks(list(keys)):
                clause = " AND ".join(where + [f"key IN ({', '.join('?' * len(chunk))})"])
                rows += self._conn.execute(f"{sql} WHERE {clause}", args + chunk).fetchall()
        # Convert column by column from the raw values: letting pandas infer first would turn
        # the None of a failed cell into NaN.
        data = {col: [row[i] for row in rows] for i, col in enumerate(columns)}
        for col in _JSON_COLUMNS:
            data[col] = [None if v is None else json.loads(v) for v in data[col]]
        if with_curves:
            data["curves"] = [decode_curves(v) for v in data["curves"]]
        for col in ("selected_round", "n_rounds"):
            data[col] = pd.array(data[col], dtype="Int64")
        for col in ("fold", "seed"):
            data[col] = np.array(data[col], dtype=np.int64)
        for col in ("noise_rate", "train_error", "valid_error", "test_error", "fit_seconds",
                    "cpu_seconds", "wall_seconds"):
            data[col] = np.array([np.nan if v is None else v for v in data[col]],
                                 dtype=np.float64)
        df = pd.DataFrame(data, columns=columns)
        # Where the rows came from ("" = the catalog default) is kept in the cell's JSON only.
        cells = [json.loads(c) for c in data["cell"]]
        df["data_source"] = [c.get("data_source", "") for c in cells]
        # Which parts carry the label noise ("" = training and validation), likewise.
        df["noise_parts"] = [c.get("noise_parts", "") for c in cells]
        df = df.sort_values(["dataset", "protocol", "noise_rate", "seed", "fold", "algorithm",
                             "key"], kind="stable")
        return df.reset_index(drop=True)

    # -- lifetime ------------------------------------------------------------------------------

    def close(self) -> None:
        """Close the connection (the last closer checkpoints and removes the WAL file)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ResultStore({str(self.path)!r})"
