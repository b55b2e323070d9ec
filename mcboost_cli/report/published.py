"""Published result numbers of the papers we reproduce, and their comparison with ours.

The numbers are project data, one YAML file per paper under ``mcboost_cli/report/published/``
(shipped as package data; the format is described at the top of ``dmcboost_kdd14.yaml``).
Each file is validated whole when it is first loaded: unknown keys, an unknown status or
confidence, an ``ok`` cell without a mean, a mean that disagrees with the printed text and the
like raise :class:`~mcboost_cli.errors.UserError` with one line naming the file, the key path,
the bad value and what is valid.

Data
----
PublishedCell
    One published cell: the text as printed, its mean and std, status, confidence and notes.
PublishedTable
    One published table: caption, metric, the paper's column names, noise rates, the cells
    by ``(dataset, noise_rate, algorithm)``, the rows the source lost and the text's claims.
Comparison
    Result of :func:`compare`: a long frame with one row per compared cell plus the
    agreement counts; ``summary_line()`` says it in one sentence.

Functions
---------
load_published(ref)
    The table ``"<paper>/<table_id>"``, e.g. ``"dmcboost_kdd14/table2"``.
published_papers()
    Names of the papers whose numbers ship with the package.
tolerance(cell)
    Agreement tolerance in percentage points: 2 x the printed std, 1.5 when none is printed.
compare(ours, table, datasets, algorithms_map, noise_rates)
    Put our mean (std) beside the published numbers and count agreement.
side_by_side(comparison, datasets, labels, noise_rate)
    Display strings for one noise rate: our cell and the paper's cell per label.

Agreement
---------
Our mean agrees with a published mean when ``|ours - published| <= tolerance(cell)``, both
taken as test error % (an accuracy table is turned into error as ``100 - accuracy``). Only cells
whose published status is ``ok`` and for which we have a mean are compared. Cells with a
published confidence other than ``high`` are flagged (``~`` medium, ``?`` low) wherever they
are shown, as the transcript requires: a reconstructed number must not be used silently.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from types import MappingProxyType
from typing import Any

import pandas as pd

from .._yaml import read_yaml
from ..errors import UserError

__all__ = [
    "CELL_STATUSES",
    "CONFIDENCE_FLAGS",
    "METRICS",
    "Comparison",
    "PublishedCell",
    "PublishedTable",
    "compare",
    "load_published",
    "published_papers",
    "side_by_side",
    "tolerance",
]

#: Package folder (below ``mcboost_cli.report``) holding one ``<paper>.yaml`` per paper.
DATA_FOLDER = "published"

#: Agreement within this many published standard deviations ...
STD_MULTIPLIER = 2.0
#: ... or within this many percentage points where the paper prints no std.
NO_STD_TOLERANCE = 1.5

METRICS = {
    "error": "test error in %",
    "accuracy": "accuracy in % (compared as 100 - accuracy)",
}
CELL_STATUSES = {
    "ok": "a number is printed",
    "not_reported": "printed as '-' in the paper (method not run or failed)",
    "missing_from_source": "the cell is not in any copy of the paper we could read",
    "unreadable": "the cell is in the source but cannot be read",
}
#: Status of a compared cell that the published table does not have at all.
NOT_IN_PAPER = "not_in_paper"
TABLE_STATUSES = {
    "complete": "every row and cell of the table is in the source",
    "partial": "some rows or cells were lost (see missing_rows)",
    "missing_from_source": "no cell of the table is in the source; only values quoted in the "
                           "text are listed",
}
#: Confidence of a transcribed cell -> the mark printed next to it.
CONFIDENCE_FLAGS = {"high": "", "medium": "~", "low": "?"}

PAPER_KEYS = {
    "paper": "the file's name without .yaml",
    "citation": "authors, title, venue",
    "source": "where the numbers were transcribed from",
    "source_status": "'complete', or 'partial: <what the source lost>'",
    "dataset_names": "catalog dataset name -> the paper's spelling (optional)",
    "notes": "list of remarks about the paper (optional)",
    "tables": "table id -> table",
}
REQUIRED_PAPER_KEYS = ("paper", "citation", "source", "source_status", "tables")
TABLE_KEYS = {
    "caption": "the table's caption",
    "metric": "one of " + ", ".join(METRICS),
    "algorithms": "the paper's column names",
    "noise_rates": "label-noise rates of the table's cells, in [0, 1)",
    "status": "one of " + ", ".join(TABLE_STATUSES) + " (default complete)",
    "algorithms_confirmed": "false when the column list is a guess (default true)",
    "missing_rows": "rows the paper has but the source lost (optional)",
    "claims": "text claims about the table, verbatim (optional)",
    "notes": "remarks about the table (optional)",
    "cells": "list of published cells",
}
REQUIRED_TABLE_KEYS = ("caption", "metric", "algorithms", "noise_rates", "cells")
CELL_KEYS = {
    "dataset": "catalog dataset name",
    "noise_rate": "one of the table's noise_rates",
    "algorithm": "one of the table's algorithms",
    "printed": "the cell as printed, e.g. '74.20(1.8)'",
    "mean": "the printed mean (ok cells only)",
    "std": "the printed std, or null when none is printed (ok cells only)",
    "status": "one of " + ", ".join(CELL_STATUSES) + " (default ok)",
    "confidence": "one of " + ", ".join(CONFIDENCE_FLAGS) + " (default high)",
    "alternatives": "other possible readings, as printed strings (optional)",
    "note": "free text (optional)",
}
REQUIRED_CELL_KEYS = ("dataset", "noise_rate", "algorithm")

_TABLE_ID_RE = re.compile(r"^[a-z][a-z0-9_]*$")
_NUMBER = r"\d+(?:\.\d+)?"
# "74.20(1.8)", "74.20 (1.8)", "74.20 ± 1.8", "49.16", "84.80%": the printed forms of a mean
# with an optional std that the papers use.
_PRINTED_RE = re.compile(
    rf"^(?P<mean>{_NUMBER})\s*%?\s*(?:\(\s*(?P<std>{_NUMBER})\s*\)|±\s*(?P<pm>{_NUMBER}))?\s*%?$")
# Means and stds are transcribed with at most a few decimals, so a difference beyond this is a
# typo, and an agreement test this close to the tolerance is a rounding artefact.
_EPS = 1e-9


def _rate_key(rate: float) -> float:
    """Noise rates are compared after rounding, so 0.2 from YAML matches 0.1 + 0.1."""
    return round(float(rate), 6)


def _parse_printed(printed: str | None) -> tuple[str, str | None] | None:
    """The mean and std texts of a printed cell, or None when it is not a number."""
    if not isinstance(printed, str):
        return None
    match = _PRINTED_RE.match(printed.strip())
    if match is None:
        return None
    return match["mean"], match["std"] or match["pm"]


# --------------------------------------------------------------------------------------------
# Data


@dataclass(frozen=True)
class PublishedCell:
    """One cell of a published table.

    Attributes
    ----------
    dataset : str
        Our catalog name of the dataset (``cnae9``, not the paper's ``CNAE-9``).
    noise_rate : float
        Label-noise rate of the cell.
    algorithm : str
        The paper's column name.
    printed : str or None
        The cell exactly as printed (``"74.20(1.8)"``, ``"-"``); None when not in the source.
    mean, std : float or None
        The printed numbers in the table's metric; ``std`` is None when none is printed, and
        both are None unless ``status`` is ``ok``.
    status : str
        One of :data:`CELL_STATUSES`.
    confidence : str
        ``high`` (read directly), ``medium`` (reconstructed with strong evidence) or ``low``.
    alternatives : tuple of str
        Other readings that are still possible.
    note : str or None
        Where the value comes from or what is doubtful about it.
    """

    dataset: str
    noise_rate: float
    algorithm: str
    printed: str | None
    mean: float | None
    std: float | None
    status: str = "ok"
    confidence: str = "high"
    alternatives: tuple[str, ...] = ()
    note: str | None = None

    @property
    def flag(self) -> str:
        """Mark shown next to the value: '' (high), '~' (medium) or '?' (low confidence)."""
        return CONFIDENCE_FLAGS[self.confidence]


@dataclass(frozen=True)
class PublishedTable:
    """One published table of a paper.

    Attributes
    ----------
    paper, table_id : str
        Together the ref ``"<paper>/<table_id>"`` of :func:`load_published`.
    caption : str
        The caption (or its reconstruction).
    metric : str
        ``error`` (test error %) or ``accuracy`` (accuracy %).
    algorithms : tuple of str
        The paper's column names, in the paper's order.
    noise_rates : tuple of float
        Label-noise rates the table covers.
    cells : Mapping
        ``(dataset, noise_rate, algorithm) -> PublishedCell``; use :meth:`cell` to look one up.
        Read-only, because loaded tables are cached and shared.
    missing_rows : tuple of str
        Rows the paper has but the source lost (catalog names where the catalog has them).
    claims : tuple of str
        What the paper's text says about the table.
    source, citation : str
        Where the numbers were transcribed from; who wrote the paper.
    status : str
        One of :data:`TABLE_STATUSES`.
    algorithms_confirmed : bool
        False when the list of columns is itself a guess.
    notes : tuple of str
        Remarks about the table.
    source_status : str
        How complete the paper's source is.
    dataset_names : Mapping
        Catalog dataset name -> the paper's spelling.
    """

    paper: str
    table_id: str
    caption: str
    metric: str
    algorithms: tuple[str, ...]
    noise_rates: tuple[float, ...]
    cells: Mapping[tuple[str, float, str], PublishedCell]
    missing_rows: tuple[str, ...]
    claims: tuple[str, ...]
    source: str
    citation: str
    status: str = "complete"
    algorithms_confirmed: bool = True
    notes: tuple[str, ...] = ()
    source_status: str = ""
    dataset_names: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def ref(self) -> str:
        """``"<paper>/<table_id>"``."""
        return f"{self.paper}/{self.table_id}"

    @property
    def label(self) -> str:
        """Human name of the table: ``table2`` -> ``Table 2``, ``fig8`` -> ``Figure 8``."""
        match = re.fullmatch(r"(table|fig(?:ure)?)_?(\w+)", self.table_id)
        if match is None:
            return self.table_id
        return ("Table " if match[1] == "table" else "Figure ") + match[2]

    def cell(self, dataset: str, noise_rate: float, algorithm: str) -> PublishedCell | None:
        """The published cell, or None when the table lists none for this key.

        Parameters
        ----------
        dataset : str
            Catalog dataset name.
        noise_rate : float
            Compared after rounding to 6 decimals.
        algorithm : str
            The paper's column name.
        """
        return self.cells.get((dataset, _rate_key(noise_rate), algorithm))

    def absent_status(self, dataset: str, noise_rate: float, algorithm: str | None) -> str:
        """Status of a key that :meth:`cell` does not find.

        ``missing_from_source`` when the paper has the cell but the source lost it (its row is
        in ``missing_rows`` and the column and noise rate are the table's), otherwise
        ``not_in_paper``.
        """
        if (dataset in self.missing_rows and algorithm in self.algorithms
                and _rate_key(noise_rate) in {_rate_key(r) for r in self.noise_rates}):
            return "missing_from_source"
        return NOT_IN_PAPER

    def error_mean(self, cell: PublishedCell | None) -> float:
        """The cell's mean as test error % (``100 - mean`` for accuracy); NaN without one."""
        if cell is None or cell.mean is None:
            return math.nan
        return 100.0 - cell.mean if self.metric == "accuracy" else float(cell.mean)

    def error_std(self, cell: PublishedCell | None) -> float:
        """The cell's std in percentage points (the same for error and accuracy); NaN without."""
        if cell is None or cell.std is None:
            return math.nan
        return float(cell.std)


def tolerance(cell: PublishedCell) -> float:
    """Agreement tolerance of a published cell, in percentage points.

    ``STD_MULTIPLIER`` (2) x the printed std, or ``NO_STD_TOLERANCE`` (1.5) when no std is
    printed. A printed std of zero stands for "less than half a unit of its last digit", so it
    counts as that half unit: ``0.0`` -> 0.05 (tolerance 0.1), ``0`` -> 0.5 (tolerance 1.0).

    Parameters
    ----------
    cell : PublishedCell

    Returns
    -------
    float
        NaN for a cell without a published mean (status other than ``ok``).

    Raises
    ------
    ValueError
        A zero std whose printed text shows no std, so its precision is unknown.
    """
    if cell.status != "ok" or cell.mean is None:
        return math.nan
    if cell.std is None:
        return NO_STD_TOLERANCE
    if cell.std > 0:
        return STD_MULTIPLIER * cell.std
    parsed = _parse_printed(cell.printed)
    if parsed is None or parsed[1] is None:
        raise ValueError(f"{cell.dataset}/{cell.algorithm}: std 0 but the printed text "
                         f"{cell.printed!r} shows no std, so its precision is unknown")
    std_text = parsed[1]
    decimals = len(std_text.partition(".")[2])
    return STD_MULTIPLIER * 0.5 / 10 ** decimals


# --------------------------------------------------------------------------------------------
# Loading and validation


def _err(path, keypath: str, msg: str) -> UserError:
    return UserError(f"{path}: {keypath}: {msg}" if keypath else f"{path}: {msg}")


def _join(keypath: str, key) -> str:
    return f"{keypath}.{key}" if keypath else str(key)


def _check_keys(path, keypath: str, mapping: dict, known: dict, required: Sequence[str]):
    for key in mapping:
        if key not in known:
            raise _err(path, _join(keypath, key), f"unknown key; valid keys: {', '.join(known)}")
    for key in required:
        if key not in mapping:
            raise _err(path, _join(keypath, key), f"missing required key ({known[key]})")


def _mapping(path, keypath: str, value, known: dict) -> dict:
    if not isinstance(value, dict):
        raise _err(path, keypath, f"{value!r} is not valid; expected a mapping with keys "
                                  + ", ".join(known))
    return value


def _is_number(value) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


def _text(path, keypath: str, value, what: str = "a non-empty string") -> str:
    if not isinstance(value, str) or not value.strip():
        raise _err(path, keypath, f"{value!r} is not valid; expected {what}")
    return value


def _texts(path, keypath: str, value, *, allow_empty: bool = True,
           choices: Sequence[str] | None = None) -> tuple[str, ...]:
    """A list of distinct non-empty strings (from ``choices`` when given)."""
    if not isinstance(value, list) or (not value and not allow_empty):
        raise _err(path, keypath, f"{value!r} is not valid; expected a "
                                  + ("" if allow_empty else "non-empty ") + "list of strings")
    seen = set()
    for i, item in enumerate(value):
        if choices is not None and item not in choices:
            raise _err(path, f"{keypath}[{i}]", f"{item!r} is not valid; expected one of "
                                                + ", ".join(choices))
        _text(path, f"{keypath}[{i}]", item)
        if item in seen:
            raise _err(path, f"{keypath}[{i}]", f"{item!r} is listed twice")
        seen.add(item)
    return tuple(value)


def _choice(path, keypath: str, value, choices: Mapping[str, str]) -> str:
    if value not in choices:
        raise _err(path, keypath, f"{value!r} is not valid; expected one of "
                                  + ", ".join(choices))
    return value


def _catalog_names() -> list[str]:
    # Imported here: the catalog is only needed to validate, and report must not depend on the
    # datasets layer at import time.
    from ..datasets.catalog import dataset_names
    return dataset_names()


def _dataset(path, keypath: str, value, known_datasets: Sequence[str]) -> str:
    if value not in known_datasets:
        raise _err(path, keypath, f"{value!r} is not a catalog dataset name; expected one of "
                                  + ", ".join(known_datasets))
    return value


def _noise_rates(path, keypath: str, value) -> tuple[float, ...]:
    if not isinstance(value, list) or not value:
        raise _err(path, keypath, f"{value!r} is not valid; expected a non-empty list of "
                                  "noise rates in [0, 1)")
    rates, seen = [], set()
    for i, rate in enumerate(value):
        if not _is_number(rate) or not 0 <= rate < 1:
            raise _err(path, f"{keypath}[{i}]", f"{rate!r} is not valid; expected a noise rate "
                                                "in [0, 1)")
        if _rate_key(rate) in seen:
            raise _err(path, f"{keypath}[{i}]", f"{rate!r} is listed twice")
        seen.add(_rate_key(rate))
        rates.append(float(rate))
    return tuple(rates)


def _cell(path, keypath: str, raw, *, algorithms: Sequence[str], rate_keys: set[float],
          known_datasets: Sequence[str]) -> PublishedCell:
    raw = _mapping(path, keypath, raw, CELL_KEYS)
    _check_keys(path, keypath, raw, CELL_KEYS, REQUIRED_CELL_KEYS)
    dataset = _dataset(path, f"{keypath}.dataset", raw["dataset"], known_datasets)
    rate = raw["noise_rate"]
    if not _is_number(rate) or _rate_key(rate) not in rate_keys:
        raise _err(path, f"{keypath}.noise_rate", f"{rate!r} is not valid; expected one of the "
                   f"table's noise_rates: {', '.join(f'{r:g}' for r in sorted(rate_keys))}")
    algorithm = _choice(path, f"{keypath}.algorithm", raw["algorithm"],
                        dict.fromkeys(algorithms, ""))
    status = _choice(path, f"{keypath}.status", raw.get("status", "ok"), CELL_STATUSES)
    confidence = _choice(path, f"{keypath}.confidence", raw.get("confidence", "high"),
                         CONFIDENCE_FLAGS)
    printed = raw.get("printed")
    if printed is not None or status in ("ok", "not_reported"):
        # Only a lost or unreadable cell may lack the printed text.
        printed = _text(path, f"{keypath}.printed", printed,
                        "the cell as printed (a non-empty string)")
    mean, std = raw.get("mean"), raw.get("std")
    if status != "ok":
        for key, value in (("mean", mean), ("std", std)):
            if value is not None:
                raise _err(path, f"{keypath}.{key}", f"{value!r} is not valid for a {status} "
                                                     "cell; only status ok carries numbers")
    else:
        if mean is None:
            raise _err(path, f"{keypath}.mean", "missing for an ok cell; expected the printed "
                                                "mean (or a status other than ok)")
        if not _is_number(mean) or not 0 <= mean <= 100:
            raise _err(path, f"{keypath}.mean", f"{mean!r} is not valid; expected a number in "
                                                "[0, 100] (percent)")
        if std is not None and (not _is_number(std) or std < 0):
            raise _err(path, f"{keypath}.std", f"{std!r} is not valid; expected a number >= 0 "
                                               "or null when no std is printed")
        parsed = _parse_printed(printed)
        if parsed is None:
            raise _err(path, f"{keypath}.printed", f"{printed!r} is not valid for an ok cell; "
                       "expected a number with an optional std, e.g. '74.20(1.8)' or '49.16'")
        # The numbers must be the printed text, so a typo in either is caught here.
        mean_text, std_text = parsed
        if abs(float(mean_text) - mean) > _EPS:
            raise _err(path, f"{keypath}.mean", f"{mean!r} is not valid; the printed text "
                                                f"{printed!r} says {mean_text}")
        if std_text is None and std is not None:
            raise _err(path, f"{keypath}.std", f"{std!r} is not valid; the printed text "
                                               f"{printed!r} shows no std (use null)")
        if std_text is not None and (std is None or abs(float(std_text) - std) > _EPS):
            raise _err(path, f"{keypath}.std", f"{std!r} is not valid; the printed text "
                                               f"{printed!r} says {std_text}")
        mean, std = float(mean), None if std is None else float(std)
    alternatives = _texts(path, f"{keypath}.alternatives", raw.get("alternatives", []))
    if alternatives and confidence == "high":
        raise _err(path, f"{keypath}.confidence", "'high' is not valid for a cell with "
                   "alternatives; expected medium or low (other readings are possible)")
    note = raw.get("note")
    if note is not None:
        note = _text(path, f"{keypath}.note", note)
    return PublishedCell(dataset, float(rate), algorithm, printed, mean, std, status,
                         confidence, alternatives, note)


def _table(path, table_id: str, raw, *, paper: dict, known_datasets: Sequence[str]
           ) -> PublishedTable:
    keypath = f"tables.{table_id}"
    raw = _mapping(path, keypath, raw, TABLE_KEYS)
    _check_keys(path, keypath, raw, TABLE_KEYS, REQUIRED_TABLE_KEYS)
    caption = _text(path, f"{keypath}.caption", raw["caption"])
    metric = _choice(path, f"{keypath}.metric", raw["metric"], METRICS)
    algorithms = _texts(path, f"{keypath}.algorithms", raw["algorithms"], allow_empty=False)
    noise_rates = _noise_rates(path, f"{keypath}.noise_rates", raw["noise_rates"])
    status = _choice(path, f"{keypath}.status", raw.get("status", "complete"), TABLE_STATUSES)
    confirmed = raw.get("algorithms_confirmed", True)
    if not isinstance(confirmed, bool):
        raise _err(path, f"{keypath}.algorithms_confirmed", f"{confirmed!r} is not valid; "
                                                            "expected true or false")
    missing_rows = _texts(path, f"{keypath}.missing_rows", raw.get("missing_rows", []))
    if status == "complete" and missing_rows:
        raise _err(path, f"{keypath}.status", "'complete' is not valid for a table with "
                                              "missing_rows; expected partial")
    claims = _texts(path, f"{keypath}.claims", raw.get("claims", []))
    notes = _texts(path, f"{keypath}.notes", raw.get("notes", []))
    raw_cells = raw["cells"]
    if not isinstance(raw_cells, list) or (not raw_cells and status != "missing_from_source"):
        raise _err(path, f"{keypath}.cells", f"{raw_cells!r} is not valid; expected a "
                   "non-empty list of cells (empty only for status missing_from_source)")
    rate_keys = {_rate_key(r) for r in noise_rates}
    cells: dict[tuple[str, float, str], PublishedCell] = {}
    first_index: dict[tuple[str, float, str], int] = {}
    for i, raw_cell in enumerate(raw_cells):
        cell = _cell(path, f"{keypath}.cells[{i}]", raw_cell, algorithms=algorithms,
                     rate_keys=rate_keys, known_datasets=known_datasets)
        key = (cell.dataset, _rate_key(cell.noise_rate), cell.algorithm)
        if key in cells:
            raise _err(path, f"{keypath}.cells[{i}]", f"{cell.dataset}/{cell.noise_rate:g}/"
                       f"{cell.algorithm} is not valid; it is already given as cells"
                       f"[{first_index[key]}]")
        cells[key], first_index[key] = cell, i
    return PublishedTable(
        paper=paper["paper"], table_id=table_id, caption=caption, metric=metric,
        algorithms=algorithms, noise_rates=noise_rates, cells=MappingProxyType(cells),
        missing_rows=missing_rows, claims=claims, source=paper["source"],
        citation=paper["citation"], status=status, algorithms_confirmed=confirmed,
        notes=notes, source_status=paper["source_status"],
        dataset_names=paper["dataset_names"])


def _validate_paper(data: Any, path, stem: str, known_datasets: Sequence[str]
                    ) -> dict[str, PublishedTable]:
    if not isinstance(data, dict):
        raise _err(path, "", f"the top level must be a mapping with keys "
                             f"{', '.join(PAPER_KEYS)}; got {type(data).__name__}")
    _check_keys(path, "", data, PAPER_KEYS, REQUIRED_PAPER_KEYS)
    paper = _text(path, "paper", data["paper"])
    if paper != stem:
        # The file name is the paper part of a ref, so the two must not drift apart.
        raise _err(path, "paper", f"{paper!r} is not valid; expected {stem!r} (the file's name "
                                  "without .yaml)")
    meta = {
        "paper": paper,
        "citation": _text(path, "citation", data["citation"]),
        "source": _text(path, "source", data["source"]),
        "source_status": _text(path, "source_status", data["source_status"]),
    }
    raw_names = data.get("dataset_names", {})
    if not isinstance(raw_names, dict):
        raise _err(path, "dataset_names", f"{raw_names!r} is not valid; expected a mapping of "
                                          "catalog dataset name -> the paper's spelling")
    for name, spelling in raw_names.items():
        _dataset(path, f"dataset_names.{name}", name, known_datasets)
        _text(path, f"dataset_names.{name}", spelling, "the paper's spelling (a string)")
    meta["dataset_names"] = MappingProxyType(dict(raw_names))
    _texts(path, "notes", data.get("notes", []))
    raw_tables = data["tables"]
    if not isinstance(raw_tables, dict) or not raw_tables:
        raise _err(path, "tables", f"{raw_tables!r} is not valid; expected a non-empty mapping "
                                   "of table id -> table")
    tables = {}
    for table_id, raw_table in raw_tables.items():
        if not isinstance(table_id, str) or not _TABLE_ID_RE.match(table_id):
            raise _err(path, f"tables.{table_id}", f"{table_id!r} is not a valid table id; "
                       "expected lower-case letters, digits and '_', e.g. table2")
        tables[table_id] = _table(path, table_id, raw_table, paper=meta,
                                  known_datasets=known_datasets)
    return tables


def _load_paper_file(path, *, known_datasets: Sequence[str] | None = None
                     ) -> dict[str, PublishedTable]:
    """Read and validate one paper file; table id -> table.

    Parameters
    ----------
    path : path-like or importlib.resources Traversable
        ``<paper>.yaml``; its stem must equal the file's ``paper`` key.
    known_datasets : sequence of str, optional
        Valid dataset names; default the catalog's.

    Raises
    ------
    UserError
        One line naming the file, the key path, the bad value and what is valid.
    """
    name = path.name
    stem = name[:-len(".yaml")] if name.endswith(".yaml") else name
    _, data = read_yaml(path, "published-numbers file")
    if known_datasets is None:
        known_datasets = _catalog_names()
    return _validate_paper(data, path, stem, list(known_datasets))


def _data_folder():
    return resources.files(__package__).joinpath(DATA_FOLDER)


def published_papers() -> list[str]:
    """Names of the papers whose published numbers ship with the package, sorted."""
    folder = _data_folder()
    if not folder.is_dir():
        return []
    return sorted(entry.name[:-len(".yaml")] for entry in folder.iterdir()
                  if entry.name.endswith(".yaml"))


@functools.lru_cache(maxsize=None)
def _packaged_paper(paper: str) -> dict[str, PublishedTable]:
    # Cached: every config that names a published table loads it while being validated.
    return _load_paper_file(_data_folder().joinpath(f"{paper}.yaml"))


def load_published(ref: str) -> PublishedTable:
    """The published table ``ref`` (``"<paper>/<table_id>"``, e.g. ``"dmcboost_kdd14/table2"``).

    Parameters
    ----------
    ref : str
        Paper (the file ``mcboost_cli/report/published/<paper>.yaml``) and table id.

    Returns
    -------
    PublishedTable
        Shared between callers (cached); its cells are read-only.

    Raises
    ------
    UserError
        An unknown paper or table (naming the known ones), or an invalid data file.
    """
    papers = published_papers()
    if not isinstance(ref, str) or ref.count("/") != 1:
        raise UserError(f"{ref!r} is not valid; expected <paper>/<table>, e.g. "
                        f"'dmcboost_kdd14/table2'; known papers: {', '.join(papers)}")
    paper, table_id = ref.split("/")
    if paper not in papers:
        raise UserError(f"{ref!r}: no published numbers for paper {paper!r}; known papers: "
                        + ", ".join(papers))
    tables = _packaged_paper(paper)
    if table_id not in tables:
        raise UserError(f"{ref!r}: paper {paper!r} has no table {table_id!r}; its tables: "
                        + ", ".join(tables))
    return tables[table_id]


# --------------------------------------------------------------------------------------------
# Comparison

ROW_COLUMNS = [
    "dataset", "noise_rate", "algorithm", "paper_algorithm", "ours_mean", "ours_std", "n",
    "published_printed", "published_mean", "published_std", "status", "confidence", "flag",
    "delta", "tolerance", "agrees",
]


@dataclass(frozen=True)
class Comparison:
    """Our numbers beside one published table.

    Attributes
    ----------
    table : PublishedTable
    rows : pandas.DataFrame
        One row per (noise rate, dataset, our label), in that nesting order, with columns
        ``dataset, noise_rate, algorithm`` (our label), ``paper_algorithm`` (the paper's
        column, None when the paper has none), ``ours_mean, ours_std, n``,
        ``published_printed``, ``published_mean, published_std`` (as test error %),
        ``status`` (the published cell's, or ``not_in_paper``), ``confidence``, ``flag``
        ('~' medium, '?' low, '' otherwise), ``delta`` (ours - published), ``tolerance``
        and ``agrees`` (nullable boolean: NA unless both numbers exist).
    n_compared : int
        Cells with both a published and our number.
    n_agree : int
        Of those, cells that agree within the tolerance.
    largest : list of tuple
        Up to 3 ``(dataset, noise_rate, algorithm, delta)`` with the largest ``|delta|``,
        largest first.
    n_flagged : int
        Compared cells whose published confidence is medium or low.
    n_published_only : int
        Published numbers in the comparison for which we have no result yet.
    not_compared : tuple of (str, str)
        ``(dataset, reason)`` for rows shown beside the paper but left out of every count
        (e.g. rows computed from another data source than the paper's).
    """

    table: PublishedTable
    rows: pd.DataFrame
    n_compared: int
    n_agree: int
    largest: list[tuple[str, float, str, float]]
    n_flagged: int = 0
    n_published_only: int = 0
    not_compared: tuple[tuple[str, str], ...] = ()

    def summary_line(self) -> str:
        """One sentence: how many cells agree, the largest differences, flagged cells."""
        label = self.table.label
        tolerance_text = (f"within {STD_MULTIPLIER:g} published std ({NO_STD_TOLERANCE:g} "
                          "points where no std is printed)")
        if self.n_compared == 0:
            text = f"{label}: no cell has both a published and a reproduced number"
        else:
            cells = "cell" if self.n_compared == 1 else "cells"
            verb = "agrees" if self.n_compared == 1 else "agree"
            text = (f"{label}: {self.n_agree} of {self.n_compared} {cells} with a published "
                    f"number {verb} {tolerance_text}")
            several_rates = self.rows["noise_rate"].round(6).nunique() > 1
            diffs = [f"{ds}/{alg}" + (f" (noise {rate:g})" if several_rates else "")
                     + f" {delta:+.2f}" for ds, rate, alg, delta in self.largest]
            text += ("; largest difference: " if len(diffs) == 1
                     else "; largest differences: ") + ", ".join(diffs)
        if self.n_flagged:
            text += (f"; {self.n_flagged} published "
                     + ("cell is" if self.n_flagged == 1 else "cells are")
                     + " flagged medium/low confidence")
        if self.n_published_only:
            text += (f"; {self.n_published_only} published "
                     + ("number has" if self.n_published_only == 1 else "numbers have")
                     + " no result of ours yet")
        if self.not_compared:
            text += "; not counted: " + ", ".join(f"{d} ({why})" for d, why in self.not_compared)
        return text + "."


def _ours_lookup(ours: pd.DataFrame) -> dict[tuple[str, float, str], Any]:
    needed = ["dataset", "noise_rate", "algorithm", "mean", "std", "n"]
    missing = [c for c in needed if c not in ours.columns]
    if missing:
        raise ValueError(f"ours lacks columns {missing}; expected {needed}")
    lookup = {}
    for row in ours.itertuples(index=False):
        key = (row.dataset, _rate_key(row.noise_rate), row.algorithm)
        if key in lookup:
            raise ValueError(f"ours has two rows for {key}")
        lookup[key] = row
    return lookup


def _nan_if_none(value) -> float:
    return math.nan if value is None or pd.isna(value) else float(value)


def compare(ours: pd.DataFrame, table: PublishedTable, datasets: Sequence[str],
            algorithms_map: Mapping[str, str | None], noise_rates: Sequence[float],
            not_compared: Mapping[str, str] | None = None) -> Comparison:
    """Put our results beside a published table and count agreement.

    Parameters
    ----------
    ours : pandas.DataFrame
        Columns ``dataset, noise_rate, algorithm`` (our column label), ``mean, std`` (test
        error %, NaN when there is none) and ``n`` (folds with a result), one row per cell;
        :func:`mcboost_cli.report.tables.summarize` gives this frame.
    table : PublishedTable
    datasets : sequence of str
        Catalog names, in display order.
    algorithms_map : mapping of str to str or None
        Our column label -> the paper's column name, or None for a column the paper lacks;
        its order is the display order.
    noise_rates : sequence of float
    not_compared : mapping of str to str, optional
        Dataset -> why its rows must not count (e.g. "rows from source 'generator', not the
        paper's"). Both numbers are still listed, but with no delta and no agreement, and
        the summary line names the dataset and the reason.

    Returns
    -------
    Comparison

    Raises
    ------
    UserError
        ``algorithms_map`` names a column the table does not have.
    ValueError
        ``ours`` lacks a column or has two rows for one cell.
    """
    for label, paper_algorithm in algorithms_map.items():
        if paper_algorithm is not None and paper_algorithm not in table.algorithms:
            raise UserError(f"{label}: {paper_algorithm!r} is not a column of {table.ref}; its "
                            f"columns: {', '.join(table.algorithms)}")
    lookup = _ours_lookup(ours)
    not_compared = {d: why for d, why in (not_compared or {}).items() if d in datasets}
    records = []
    for rate in noise_rates:
        for dataset in datasets:
            for label, paper_algorithm in algorithms_map.items():
                mine = lookup.get((dataset, _rate_key(rate), label))
                ours_mean = math.nan if mine is None else _nan_if_none(mine.mean)
                ours_std = math.nan if mine is None else _nan_if_none(mine.std)
                n = 0 if mine is None or pd.isna(mine.n) else int(mine.n)
                cell = (table.cell(dataset, rate, paper_algorithm)
                        if paper_algorithm is not None else None)
                status = (cell.status if cell is not None
                          else table.absent_status(dataset, rate, paper_algorithm))
                published_mean = table.error_mean(cell)
                comparable = (status == "ok" and not math.isnan(ours_mean)
                              and not math.isnan(published_mean)
                              and dataset not in not_compared)
                delta = ours_mean - published_mean if comparable else math.nan
                cell_tolerance = tolerance(cell) if status == "ok" else math.nan
                records.append({
                    "dataset": dataset, "noise_rate": float(rate), "algorithm": label,
                    "paper_algorithm": paper_algorithm, "ours_mean": ours_mean,
                    "ours_std": ours_std, "n": n,
                    "published_printed": cell.printed if cell is not None else None,
                    "published_mean": published_mean,
                    "published_std": table.error_std(cell), "status": status,
                    "confidence": cell.confidence if cell is not None else None,
                    "flag": cell.flag if cell is not None else "",
                    "delta": delta, "tolerance": cell_tolerance,
                    "agrees": abs(delta) <= cell_tolerance + _EPS if comparable else pd.NA,
                })
    rows = pd.DataFrame(records, columns=ROW_COLUMNS)
    rows["agrees"] = rows["agrees"].astype("boolean")
    rows["n"] = rows["n"].astype(int)
    compared = rows[rows["agrees"].notna()]
    # sorted() is stable, so equal differences keep the table's order.
    by_size = sorted(compared.itertuples(index=False), key=lambda r: -abs(r.delta))
    largest = [(r.dataset, r.noise_rate, r.algorithm, float(r.delta)) for r in by_size[:3]]
    published_only = rows[(rows["status"] == "ok") & rows["ours_mean"].isna()
                          & ~rows["dataset"].isin(list(not_compared))]
    return Comparison(
        table=table, rows=rows, n_compared=len(compared),
        n_agree=int(compared["agrees"].sum()), largest=largest,
        n_flagged=int((compared["flag"] != "").sum()),
        n_published_only=len(published_only),
        # Named only where the paper has a number the row would have been compared with.
        not_compared=tuple((d, not_compared[d]) for d in datasets if d in not_compared
                           and (rows.loc[rows["dataset"] == d, "status"] == "ok").any()))


def _ours_text(row) -> str:
    if row is None or pd.isna(row.ours_mean):
        return "–"
    std = "–" if pd.isna(row.ours_std) else f"{row.ours_std:.2f}"
    return f"{row.ours_mean:.2f} ({std})"


def _published_text(row) -> str:
    if row is None or row.status in (NOT_IN_PAPER, "missing_from_source"):
        return "n/a"
    if row.status == "not_reported":
        return row.published_printed or "-"
    if row.status == "unreadable":
        return "unreadable"
    return f"{row.published_printed}{row.flag}"


def side_by_side(comparison: Comparison, datasets: Sequence[str], labels: Sequence[str],
                 noise_rate: float) -> pd.DataFrame:
    """Display strings of ours beside the paper's numbers at one noise rate.

    Parameters
    ----------
    comparison : Comparison
    datasets : sequence of str
        The rows, in order.
    labels : sequence of str
        Our column labels, in order.
    noise_rate : float
        Compared after rounding to 6 decimals.

    Returns
    -------
    pandas.DataFrame
        Index ``dataset``; per label a column ``"<label>"`` with our ``mean (std)`` (2
        decimals, ``–`` when we have no result) and ``"<label> paper"`` with the printed
        value and its confidence flag (``n/a`` when the paper lacks the cell or its source
        lost it, ``-`` when the paper prints ``-``).
    """
    rows = comparison.rows
    at_rate = rows[rows["noise_rate"].map(_rate_key) == _rate_key(noise_rate)]
    by_key = {(r.dataset, r.algorithm): r for r in at_rate.itertuples(index=False)}
    columns = [name for label in labels for name in (label, f"{label} paper")]
    out = pd.DataFrame(index=pd.Index(list(datasets), name="dataset"), columns=columns,
                       dtype=object)
    for dataset in datasets:
        for label in labels:
            row = by_key.get((dataset, label))
            out.loc[dataset, label] = _ours_text(row)
            out.loc[dataset, f"{label} paper"] = _published_text(row)
    return out
