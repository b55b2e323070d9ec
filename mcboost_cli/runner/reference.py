"""Per-cell results as a compact text file, and re-checking a sample of them.

Map of the module
-----------------
``cells_frame``     the done cells of a plan as one compact row each (no curves): the file
                    ``results/<experiment>/cells.csv`` that is committed as reference results
``current_cells``   drop the rows of superseded algorithm versions from a store frame
``read_cells``      read such a file back, checking its columns
``file_frame``      the frame as the file is written (an optional column that is empty in
                    every row is left out, so files of experiments that never set it keep
                    their bytes)
``merged_cells``    the store's rows plus the rows an existing file has that the store lacks
                    (a run on a partial store never deletes committed rows); a cell the store
                    re-computed with the file's numbers keeps the file's row (timings too)
``known_results``   a store frame plus the file's done cells it lacks: what tables and
                    figures are rendered from, so a narrowed run or a report on a partial
                    store never shows less than the store and the file hold together
                    (a re-computed cell with the file's numbers shows the file's timings)
``importable_cells`` the file's rows that a store lacks and the plan has (checked against
                    their keys); ``--dry-run --import-results`` counts them
``import_cells``    put those rows into a result store as done cells (``--import-results``:
                    continue a run whose store is gone, e.g. on another machine)
``sample_cells``    a fixed, cheap, varied sample of a file's rows (same rows every time)
``recheck``         run the sampled cells again and list every number that differs

Floats are written with ``repr`` (shortest round-trip text), so a number read back is the same
float64, bit for bit, and a re-run can be compared with ``==``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import UserError
from .cells import DONE, Cell, CellResult, canonical_json

# Identity columns (the cell key is a hash of them) and the numbers a re-run must reproduce.
IDENTITY = ("key", "dataset", "protocol", "fold", "noise_rate", "seed", "algorithm",
            "algorithm_version", "params", "data_source", "noise_parts")
# Columns written only when some row sets them (a missing one reads as empty, the default):
# ``noise_parts`` ("" = noise on training and validation labels), an identity column, and
# ``machine`` (the processor the fit's times were measured on, "" = not recorded).
OPTIONAL = ("noise_parts", "machine")
NUMBERS = ("selected_round", "n_rounds", "train_error", "valid_error", "test_error")
FACTS = ("n_phase1_rounds", "phase1_train_error", "round_rule", "stop_reason", "fit_seconds",
         "cpu_seconds", "machine")
CELL_COLUMNS = IDENTITY + NUMBERS + FACTS


def cells_frame(results: pd.DataFrame) -> pd.DataFrame:
    """Compact per-cell rows of the done cells of a store frame, sorted by key."""
    done = results[results["status"] == DONE]
    rows = []
    for r in done.itertuples(index=False):
        extra = r.extra or {}
        rows.append({
            "key": r.key, "dataset": r.dataset, "protocol": r.protocol, "fold": int(r.fold),
            "noise_rate": float(r.noise_rate), "seed": int(r.seed), "algorithm": r.algorithm,
            "algorithm_version": r.algorithm_version, "params": canonical_json(r.params),
            "data_source": r.data_source,
            "noise_parts": getattr(r, "noise_parts", "") or "",
            "selected_round": _int_or_none(r.selected_round),
            "n_rounds": _int_or_none(r.n_rounds),
            "train_error": _float_text(r.train_error), "valid_error": _float_text(r.valid_error),
            "test_error": _float_text(r.test_error),
            "n_phase1_rounds": extra.get("n_phase1_rounds"),
            "phase1_train_error": _float_text(extra.get("phase1_train_error")),
            "round_rule": extra.get("round_rule", ""),
            "stop_reason": extra.get("stop_reason", ""),
            "fit_seconds": seconds_text(r.fit_seconds),
            "cpu_seconds": seconds_text(r.cpu_seconds),
            "machine": ((getattr(r, "versions", None) or {}).get("machine", "")
                        if isinstance(getattr(r, "versions", None), dict) else ""),
        })
    df = pd.DataFrame(rows, columns=list(CELL_COLUMNS))
    df["n_phase1_rounds"] = pd.array(df["n_phase1_rounds"], dtype="Int64")
    return df.sort_values("key", kind="stable").reset_index(drop=True)


def with_phase1_train_error(store, results: pd.DataFrame) -> pd.DataFrame:
    """``results`` (a store frame) with ``phase1_train_error`` in the ``extra`` of every done
    two-phase fit stored before that fact was recorded, computed from its stored training
    curve (the curves of those rows only are read). The store is not changed."""
    if store is None or results.empty:
        return results
    need = [r.key for r in results.itertuples(index=False)
            if r.status == DONE and isinstance(r.extra, dict) and "n_phase1_rounds" in r.extra
            and "phase1_train_error" not in r.extra and not r.extra.get("imported")]
    if not need:
        return results
    from .work import phase1_train_error
    curves = store.frame(keys=need, with_curves=True).set_index("key")["curves"]
    out = results.copy()
    out["extra"] = [
        dict(r.extra, phase1_train_error=e1) if r.key in curves.index and (
            e1 := phase1_train_error((curves[r.key] or {}).get("train", []),
                                     r.extra.get("n_phase1_rounds"))) is not None
        else r.extra
        for r in out.itertuples(index=False)]
    return out


def current_cells(results: pd.DataFrame) -> pd.DataFrame:
    """The rows of a store frame (or a cells file) fitted by the registered version of their
    algorithm.

    A version bump changes every key of that algorithm, so a store keeps the superseded cells
    beside the new ones, but no plan can use them again: they are left out of ``cells.csv``
    (and so out of ``recheck`` and ``--import-results``). Rows of unregistered algorithms go
    too.
    """
    from ..algorithms.registry import all_algorithms
    versions = {name: cls.version for name, cls in all_algorithms().items()}
    current = results["algorithm"].map(versions) == results["algorithm_version"]
    return results[current.fillna(False).astype(bool)]


def _int_or_none(v):
    return None if v is None or v is pd.NA or v != v else int(v)


def seconds_text(v) -> str:
    """Seconds to the millisecond, as cells.csv keeps them; empty when unknown.

    Decimal rounding of the exact binary value (``format``), not numpy's half-to-even on
    ``v * 1000``: the two disagree on values such as 0.0025, and tables rendered from the
    store must equal those rendered from the file (``report.tables.summarize``)."""
    return "" if v is None or v != v else f"{v:.3f}"


def _float_text(v) -> str:
    """repr of a float64 (exact round trip); empty for a missing number."""
    return "" if v is None or v != v else repr(float(v))


def read_cells(path) -> pd.DataFrame:
    """Read a per-cell results file; every column as text (numbers are parsed on use)."""
    p = Path(path)
    try:
        df = pd.read_csv(p, dtype=str, keep_default_na=False)
    except FileNotFoundError:
        raise UserError(f"{path}: no per-cell results file; run the experiment first or give "
                        "the path of a cells.csv") from None
    except OSError as e:        # a folder, a path through a file, no permission
        raise UserError(f"{path}: cannot read the per-cell results file ({e.strerror or e}); "
                        "give the path of a cells.csv") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise UserError(f"{path}: not a per-cell results file ({type(e).__name__}); expected "
                        f"the CSV written by `mcboost run` with columns "
                        f"{', '.join(CELL_COLUMNS)}") from None
    if "data_source" not in df.columns:
        # Files of mcboost versions before --source: every row has the default source.
        df.insert(list(df.columns).index("params") + 1 if "params" in df.columns else 0,
                  "data_source", "")
    if "noise_parts" not in df.columns:
        # Files whose rows all have the default (noise on training and validation).
        df.insert(list(df.columns).index("data_source") + 1 if "data_source" in df.columns
                  else len(df.columns), "noise_parts", "")
    if "machine" not in df.columns:
        # Files that did not record the machine (the last column).
        df["machine"] = ""
    if "phase1_train_error" not in df.columns:
        # Files of mcboost versions that did not record the training error after Phase I.
        df.insert(list(df.columns).index("n_phase1_rounds") + 1 if "n_phase1_rounds" in
                  df.columns else len(df.columns), "phase1_train_error", "")
    if "cpu_seconds" not in df.columns:
        # Files of mcboost versions that did not record the fits' CPU time: unknown.
        df.insert(list(df.columns).index("fit_seconds") + 1 if "fit_seconds" in df.columns
                  else len(df.columns), "cpu_seconds", "")
    missing = [c for c in CELL_COLUMNS if c not in df.columns]
    if missing:
        raise UserError(f"{path}: missing columns {', '.join(missing)}; expected the CSV "
                        f"written by `mcboost run` with columns {', '.join(CELL_COLUMNS)}")
    return df


def file_frame(cells: pd.DataFrame) -> pd.DataFrame:
    """``cells`` as ``cells.csv`` is written: the ``OPTIONAL`` columns that are empty in every
    row are left out (``read_cells`` puts them back empty), so the file of an experiment
    that never sets them keeps the bytes it had before they existed."""
    drop = [c for c in OPTIONAL if c in cells.columns
            and not cells[c].fillna("").astype(str).ne("").any()]
    return cells.drop(columns=drop)


# Columns that differ between two computations of one cell only by the clock: a re-computed
# cell equal to a file row in every other column is the same result.
TIMINGS = ("fit_seconds", "cpu_seconds", "machine")


def merged_cells(store_cells: pd.DataFrame, path) -> tuple[pd.DataFrame, list[str]]:
    """``store_cells`` (a ``cells_frame``) plus the rows of the file at ``path`` whose cells
    the store does not have, all as text, sorted by key; and the keys of those kept rows.

    ``cells.csv`` is the record of every done cell. A run whose store lacks some of them (a
    new machine, a clean clone, a narrowed run) must not erase them when it writes the file,
    so they are kept unless the store has the cell (the store wins) or their algorithm version
    is superseded (as in ``current_cells``). Where the store's row equals the file's in every
    column but the timings (the cell was computed again and reproduced its numbers), the
    file's row stays as it is: the file changes only where a result changes, so re-running a
    committed cell leaves ``git status`` clean. A missing or unreadable file adds nothing.
    """
    from io import StringIO

    text = pd.read_csv(StringIO(store_cells.to_csv(index=False)), dtype=str,
                       keep_default_na=False)
    try:
        old = current_cells(read_cells(path))
    except UserError:
        return text, []
    old = old.drop_duplicates("key", keep="last")
    columns = list(text.columns)
    same = [c for c in columns if c not in TIMINGS]
    both = text[["key"]].merge(old[columns], on="key", how="inner", suffixes=("", "_file"))
    ours = text.set_index("key").loc[both["key"], [c for c in same if c != "key"]]
    theirs = both.set_index("key")[[c for c in same if c != "key"]]
    reproduced = set(ours.index[(ours == theirs).all(axis=1).to_numpy()])
    if reproduced:
        text = pd.concat([text[~text["key"].isin(reproduced)],
                          old.loc[old["key"].isin(reproduced), columns]], ignore_index=True)
    keep = old[~old["key"].isin(set(store_cells["key"]))]
    merged = pd.concat([text, keep[columns]], ignore_index=True) if len(keep) else text
    merged = merged.sort_values("key", kind="stable").reset_index(drop=True)
    return merged, list(keep["key"])


def known_results(results: pd.DataFrame, path, keys) -> tuple[pd.DataFrame, int]:
    """``results`` (a store frame of the plan's ``keys``) plus the done rows of the file at
    ``path`` for the keys it has no done row of; and how many rows were added.

    Tables and figures are rendered from this, so what a run or a report writes never shows
    fewer cells than the store and the committed ``cells.csv`` hold together: a narrowed run
    on a fresh clone (whose store has only the cells it ran) rewrites the committed tables
    with the same numbers. Added rows carry the columns the tables use (status, errors,
    reported round); the store is not changed. A done store row whose numbers equal the
    file's row of its cell shows the file's timings, as ``merged_cells`` keeps that row. A
    missing or unreadable file adds nothing.
    """
    try:
        old = current_cells(read_cells(path))
    except UserError:
        return results, 0
    done = set(results.loc[results["status"] == DONE, "key"]) if len(results) else set()
    if done:
        results = _file_timings_where_reproduced(results, old)
    add = old[old["key"].isin(set(keys)) & ~old["key"].isin(done)]
    add = add.drop_duplicates("key", keep="last")
    if add.empty:
        return results, 0
    rows = pd.DataFrame({
        "key": add["key"].to_numpy(), "status": DONE,
        "dataset": add["dataset"].to_numpy(), "algorithm": add["algorithm"].to_numpy(),
        **{c: pd.to_numeric(add[c], errors="coerce").to_numpy()
           for c in ("selected_round", "n_rounds", "train_error", "valid_error", "test_error",
                     "fit_seconds", "cpu_seconds")},
        "machine": add["machine"].to_numpy(),
    })
    # A done row of the file beats the store's failed or timed-out row of the same cell.
    rest = results[~results["key"].isin(set(rows["key"]))] if len(results) else None
    merged = pd.concat([rest, rows], ignore_index=True) if rest is not None and len(rest) \
        else rows
    return merged.reset_index(drop=True), len(rows)


_REPRODUCED = ("selected_round", "n_rounds", "train_error", "valid_error", "test_error")


def _file_timings_where_reproduced(results: pd.DataFrame, old: pd.DataFrame) -> pd.DataFrame:
    """``results`` with the file's timings on every done row whose numbers equal the file's
    row of the same cell (a committed cell computed again): ``merged_cells`` keeps the file's
    row for such a cell, so the tables (mean CPU seconds) must show the file's timings too, or
    re-running a committed cell would change a rendered table and not ``cells.csv``."""
    file_rows = old.drop_duplicates("key", keep="last").set_index("key")
    hit = (results["status"] == DONE) & results["key"].isin(file_rows.index)
    if not hit.any():
        return results
    mine = results.loc[hit]
    theirs = file_rows.loc[mine["key"]]
    same = np.ones(len(mine), dtype=bool)
    for col in _REPRODUCED:
        a = pd.to_numeric(mine[col], errors="coerce").to_numpy(dtype=float)
        b = pd.to_numeric(theirs[col], errors="coerce").to_numpy(dtype=float)
        same &= (a == b) | (np.isnan(a) & np.isnan(b))
    if not same.any():
        return results
    results = results.copy()
    index = mine.index[same]
    for col in ("fit_seconds", "cpu_seconds"):
        results.loc[index, col] = pd.to_numeric(theirs[col], errors="coerce").to_numpy()[same]
    if "machine" in results.columns:
        results.loc[index, "machine"] = theirs["machine"].to_numpy()[same]
    return results


def cell_of(row, experiment: str) -> Cell:
    """The Cell of a file row; raises UserError when the row's key does not match it."""
    params = json.loads(row["params"])
    cell = Cell(experiment=experiment, dataset=row["dataset"], protocol=row["protocol"],
                fold=int(row["fold"]), noise_rate=float(row["noise_rate"]),
                seed=int(row["seed"]), algorithm=row["algorithm"],
                algorithm_version=row["algorithm_version"],
                params=tuple(sorted(params.items())), data_source=row["data_source"],
                noise_parts=row.get("noise_parts", "") or "")
    if cell.key != row["key"]:
        raise UserError(f"cell {row['key']}: its columns hash to {cell.key}; the row was "
                        "edited or written by another mcboost version")
    return cell


def _num(text):
    return None if text == "" else float(text)


def result_of(row) -> CellResult:
    """A done CellResult from a file row (no curves: the file does not keep them)."""
    extra = {"stop_reason": row["stop_reason"], "round_rule": row["round_rule"],
             "imported": True}
    if row["n_phase1_rounds"] != "":
        extra["n_phase1_rounds"] = int(row["n_phase1_rounds"])
    if row["phase1_train_error"] != "":
        extra["phase1_train_error"] = float(row["phase1_train_error"])
    return CellResult(
        key=row["key"], status=DONE,
        selected_round=None if row["selected_round"] == "" else int(row["selected_round"]),
        n_rounds=None if row["n_rounds"] == "" else int(row["n_rounds"]),
        train_error=_num(row["train_error"]), valid_error=_num(row["valid_error"]),
        test_error=_num(row["test_error"]), extra=extra,
        fit_seconds=_num(row["fit_seconds"]), cpu_seconds=_num(row["cpu_seconds"]),
        # The file knows only the machine the fit ran on, not its software versions.
        versions={"machine": row["machine"]} if row.get("machine", "") else None)


def importable_cells(store, frame: pd.DataFrame, planned) -> list:
    """The file's rows that belong to the plan and are not done in ``store``, as
    ``(cell, row)`` pairs; each row is checked to hash to its key. Rows of other plans (or of
    superseded algorithm versions, whose keys the plan no longer has) are left out."""
    by_key = {pc.cell.key: pc.cell for pc in planned}
    statuses = store.statuses(list(by_key))
    pairs = []
    for _, row in frame.iterrows():
        cell = by_key.get(row["key"])
        if cell is None or statuses.get(row["key"]) == DONE:
            continue
        cell_of(row, cell.experiment)          # checks that the row hashes to its key
        pairs.append((cell, row))
    return pairs


def import_cells(store, frame: pd.DataFrame, planned, config_hash: str = "") -> int:
    """Store the file's rows that belong to the plan and are not done in ``store``; returns
    how many were imported. Rows of other plans are ignored."""
    pairs = importable_cells(store, frame, planned)
    for cell, row in pairs:
        store.put(cell, result_of(row), config_hash)
    return len(pairs)


def prefix_groups(frame: pd.DataFrame) -> pd.Series:
    """Each row's prefix group (``execute.prefix_group`` on the file's columns): the rows of an
    algorithm whose grid points share a prefix (``algorithms.base``, "Shared prefixes"), e.g.
    DMCBoost's n' siblings, that differ only in those parameters have the same group; every
    other row is a group of its own (its key)."""
    from ..algorithms.registry import all_algorithms
    free = {name: cls._prefix_free_params for name, cls in all_algorithms().items()
            if cls._prefix_free_params}

    def group(row):
        if row["algorithm"] not in free:
            return row["key"]
        try:
            params = json.loads(row["params"]) if row["params"] else {}
        except (TypeError, ValueError):
            return row["key"]                  # unreadable parameters: a group of its own
        for name in free[row["algorithm"]]:
            params.pop(name, None)
        return "|".join(str(row.get(c, "")) for c in (
            "dataset", "protocol", "fold", "noise_rate", "noise_parts", "seed", "algorithm",
            "algorithm_version", "data_source")) + "|" + canonical_json(params)

    if frame.empty:
        return pd.Series([], index=frame.index, dtype=object)
    return frame.apply(group, axis=1)


def group_contiguous(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` (in its order) with every prefix group's rows moved up to its first row: a
    serial re-run then computes a group's shared prefix in its first fit and starts the
    others from it straight after, so an interruption leaves at most one group part done."""
    groups = prefix_groups(frame)
    first = pd.Series(range(len(frame)), index=frame.index).groupby(groups).transform("min")
    return frame.iloc[first.sort_values(kind="stable").index.map(frame.index.get_loc)]


def rerun_seconds(frame: pd.DataFrame) -> pd.Series:
    """What re-running each row would take, from the recorded fit seconds: its own, plus —
    for an algorithm whose grid points share a prefix (``algorithms.base``, "Shared
    prefixes") — the longest recorded fit of its prefix group, because the row may have
    started from a sibling's saved prefix (its own seconds leave that part out) and a re-run
    computes the prefix again. An upper bound; NaN without a recorded time."""
    from ..algorithms.registry import all_algorithms
    secs = pd.to_numeric(frame["fit_seconds"], errors="coerce")
    free = [name for name, cls in all_algorithms().items() if cls._prefix_free_params]
    shared = frame["algorithm"].isin(free)
    if not shared.any():
        return secs
    groups = prefix_groups(frame[shared])
    out = secs.copy()
    out[shared] = secs[shared] + secs[shared].groupby(groups).transform("max")
    return out


def sample_cells(frame: pd.DataFrame, n: int, max_seconds: float = 5.0) -> pd.DataFrame:
    """A fixed sample of at most ``n`` rows: cells whose re-run takes at most
    ``max_seconds`` by the recorded times (``rerun_seconds``), spread over the algorithms
    (round robin) and, within one, over the datasets, taken in key order — the same rows for
    the same file."""
    secs = rerun_seconds(frame)
    cheap = frame[secs.le(max_seconds)].sort_values("key", kind="stable")
    queues = {}
    for alg, part in cheap.groupby("algorithm", sort=True):
        # Within an algorithm, alternate datasets so the sample is not one dataset's.
        order = part.assign(_rank=part.groupby("dataset").cumcount())
        queues[alg] = list(order.sort_values(["_rank", "dataset", "key"]).index)
    picked = []
    while len(picked) < n and any(queues.values()):
        for alg in sorted(queues):
            if queues[alg] and len(picked) < n:
                picked.append(queues[alg].pop(0))
    return frame.loc[picked]


@dataclass
class Mismatch:
    key: str
    describe: str
    column: str
    committed: str
    rerun: str


def recheck(sample: pd.DataFrame, experiment: str, work_fn,
            timings: dict | None = None, after_cell=None) -> list[Mismatch]:
    """Run every sampled cell again with ``work_fn`` and compare its numbers with the file.

    ``timings``, when given, receives ``key -> {fit_seconds, cpu_seconds, machine}`` (as
    cells.csv writes them) of the re-run cells that reproduced all their numbers, a prefix
    group (``prefix_groups``) at a time: once every sampled cell of the group is re-run and
    all of them reproduced. A group's shared prefix is counted in whichever of its fits
    computed it, so the fits of a group are re-timed together or not at all (a part-done
    group would count it twice, or not at all). ``after_cell``, when given, is called after
    each cell (e.g. to save the timings as they come)."""
    out = []
    groups = prefix_groups(sample)
    left = groups.value_counts().to_dict()
    pending: dict = {}
    for idx, row in sample.iterrows():
        cell = cell_of(row, experiment)
        group = groups[idx]
        left[group] -= 1
        res = work_fn(cell)
        if res.status != DONE:
            out.append(Mismatch(row["key"], cell.describe(), "status", DONE, res.status))
            pending[group] = None          # this group's timings are not written
            if after_cell is not None:
                after_cell()
            continue
        n_before = len(out)
        got = {"selected_round": res.selected_round, "n_rounds": res.n_rounds,
               "train_error": res.train_error, "valid_error": res.valid_error,
               "test_error": res.test_error}
        for col in NUMBERS:
            want = row[col]
            have = got[col]
            if col in ("selected_round", "n_rounds"):
                same = (want == "" and have is None) or (want != "" and have == int(want))
                have_text = "" if have is None else str(have)
            else:
                have_text = _float_text(have)
                # float64 equality (texts may differ: "0.00" and "0.0" are the same number).
                same = (want == "" and have_text == "") or (
                    want != "" and have_text != "" and float(want) == float(have_text))
            if not same:
                out.append(Mismatch(row["key"], cell.describe(), col, want, have_text))
        if timings is not None:
            if len(out) != n_before:
                pending[group] = None
            elif pending.setdefault(group, {}) is not None:
                versions = getattr(res, "versions", None)
                versions = versions if isinstance(versions, dict) else {}
                pending[group][row["key"]] = {
                    "fit_seconds": seconds_text(res.fit_seconds),
                    "cpu_seconds": seconds_text(res.cpu_seconds),
                    "machine": versions.get("machine", "")}
            if left[group] == 0 and pending.get(group):
                timings.update(pending.pop(group))
        if after_cell is not None:
            after_cell()
    return out


def write_timings(path, timings: dict) -> int:
    """Put re-measured timings (``recheck``'s ``timings``) into the per-cell file at ``path``,
    every other column and row unchanged; returns how many rows changed.

    Only for cells whose every number was reproduced: the file then records what the fit
    costs with the code of today (e.g. after a speed-up that left every number as it was)."""
    frame = read_cells(path)
    hit = frame["key"].isin(set(timings))
    for col in TIMINGS:
        frame.loc[hit, col] = frame.loc[hit, "key"].map(
            {k: t[col] for k, t in timings.items()})
    text = file_frame(frame[[c for c in CELL_COLUMNS if c in frame.columns]]).to_csv(
        index=False)
    tmp = Path(path).with_name(Path(path).name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return int(hit.sum())


def n_numbers_checked(sample: pd.DataFrame) -> int:
    return int(len(sample) * len(NUMBERS))

