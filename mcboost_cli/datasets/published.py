"""Published result numbers of the papers we reproduce: their data model, loader and validation.

The numbers are project data, like the dataset catalog beside them: one YAML file per paper
under ``mcboost_cli/datasets/published/`` (shipped as package data; the format is described at
the top of ``dmcboost_kdd14.yaml``). Each file is validated whole when it is first loaded:
unknown keys, an unknown status or confidence, an ``ok`` cell without a mean, a mean that
disagrees with the printed text, a dataset that is not a catalog name and the like raise
:class:`~mcboost_cli.errors.UserError` with one line naming the file, the key path, the bad
value and what is valid.

Putting our numbers beside these (tolerance, agreement, display) is presentation and lives in
:mod:`mcboost_cli.report.published`; this module only knows what the papers printed, so the
config validation of the runner can check a ``published:`` reference without importing the
report layer.

Data
----
PublishedCell
    One published cell: the text as printed, its mean and std, status, confidence and notes;
    the candidates of an ambiguous cell; its other measures (rounds run, seconds).
PublishedMeasure
    One other printed number of a cell (the iterations or the training time of the
    DirectBoost paper's Table 2), with its confidence.
PublishedTable
    One published table: caption, metric, the paper's column names, noise rates, the cells
    by ``(dataset, noise_rate, algorithm)``, the rows the source lost and the text's claims.
METRICS, MEASURES, CELL_STATUSES, TABLE_STATUSES, CONFIDENCE_FLAGS
    The vocabularies of the files (name -> meaning; flag -> printed mark).

Functions
---------
load_published(ref)
    The table ``"<paper>/<table_id>"``, e.g. ``"dmcboost_kdd14/table2"``.
published_papers()
    Names of the papers whose numbers ship with the package.
parse_printed(printed)
    The mean and std texts of a printed cell (``"74.20(1.8)"`` -> ``("74.20", "1.8")``).
rate_key(rate)
    A noise rate rounded for use as a key, so 0.2 from YAML matches 0.1 + 0.1.

Metric
------
A table's ``metric`` says what its numbers are: ``error`` (test error %) or ``accuracy``
(accuracy %). The cells keep the printed numbers; :meth:`PublishedTable.error_mean` turns them
into test error % (``100 - accuracy`` for an accuracy table), the unit every comparison uses.
A table of metric ``none`` prints no error or accuracy, only other ``measures`` of its cells
(its cells have status ``not_printed``).

Ambiguous cells
---------------
Where a transcription knows a cell's value only as one of several printed values that could
not be assigned to columns (the DirectBoost paper's scrambled Table 1: "LogitBoost and LPBoost
take the two values not used by AdaBoost"), the cell has status ``ambiguous`` and lists them
as ``candidates``; it carries no mean, so it is shown (as its candidates) but never compared.
A printed std that cannot be read is written ``(?)``: ``"9.71(?)"`` is a mean with no std.
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

from .._yaml import read_yaml
from ..errors import UserError
from .catalog import dataset_names as catalog_names

__all__ = [
    "CELL_STATUSES",
    "CONFIDENCE_FLAGS",
    "MEASURES",
    "METRICS",
    "NOT_IN_PAPER",
    "TABLE_STATUSES",
    "PublishedCell",
    "PublishedMeasure",
    "PublishedTable",
    "load_published",
    "parse_printed",
    "published_papers",
    "rate_key",
]

#: Package folder (below ``mcboost_cli.datasets``) holding one ``<paper>.yaml`` per paper.
DATA_FOLDER = "published"

METRICS = {
    "error": "test error in %",
    "accuracy": "accuracy in % (compared as 100 - accuracy)",
    "none": "no error or accuracy is printed, only other measures (the table's measures)",
}
#: Other numbers a table may print per cell; the names are a table layout's extra measures
#: (``runner.config.LAYOUT_CHOICES``), so each is shown beside ours of the same name.
MEASURES = {
    "rounds_run": "boosting rounds (iterations) the training ran",
    "cpu_seconds": "training time in seconds",
}
CELL_STATUSES = {
    "ok": "a number is printed",
    "not_reported": "printed as '-' in the paper (method not run or failed)",
    "missing_from_source": "the cell is not in any copy of the paper we could read",
    "unreadable": "the cell is in the source but cannot be read",
    "ambiguous": "the cell is one of several printed values that could not be assigned to "
                 "columns (its candidates); shown, never compared",
    "not_printed": "the table prints no error or accuracy (metric none), only the cell's "
                   "measures",
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
    "measures": "other numbers the cells print, a list of " + ", ".join(MEASURES)
                + " (optional)",
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
    "candidates": "the printed values the cell is one of (status ambiguous only)",
    "note": "free text (optional)",
    **{name: f"{what}: {{printed, value, confidence, alternatives, note}} (one of the "
             "table's measures)" for name, what in MEASURES.items()},
}
REQUIRED_CELL_KEYS = ("dataset", "noise_rate", "algorithm")
MEASURE_KEYS = {
    "printed": "the number as printed, e.g. '117852'",
    "value": "the printed number",
    "confidence": "one of " + ", ".join(CONFIDENCE_FLAGS) + " (default high)",
    "alternatives": "other possible readings, as printed strings (optional)",
    "note": "free text (optional)",
}

_TABLE_ID_RE = re.compile(r"^[a-z][a-z0-9_]*$")
_NUMBER = r"\d+(?:\.\d+)?"
# "74.20(1.8)", "74.20 (1.8)", "74.20 ± 1.8", "49.16", "84.80%": the printed forms of a mean
# with an optional std that the papers use.
# "9.71(?)": a mean whose std was printed but cannot be read (no std, as if none were printed).
_PRINTED_RE = re.compile(
    rf"^(?P<mean>{_NUMBER})\s*%?\s*(?:\(\s*(?:(?P<std>{_NUMBER})|\?)\s*\)"
    rf"|±\s*(?P<pm>{_NUMBER}))?\s*%?$")
# Means and stds are transcribed with at most a few decimals, so a difference beyond this is a
# typo.
_EPS = 1e-9


def rate_key(rate: float) -> float:
    """Noise rates are compared after rounding, so 0.2 from YAML matches 0.1 + 0.1."""
    return round(float(rate), 6)


def parse_printed(printed: str | None) -> tuple[str, str | None] | None:
    """The mean and std texts of a printed cell, or None when it is not a number.

    ``"74.20(1.8)"`` -> ``("74.20", "1.8")``, ``"49.16"`` -> ``("49.16", None)``, ``"-"`` ->
    None; ``"9.71(?)"`` (a std that cannot be read) -> ``("9.71", None)``. The std's text
    keeps its decimals, which give the precision of a printed zero.
    """
    if not isinstance(printed, str):
        return None
    match = _PRINTED_RE.match(printed.strip())
    if match is None:
        return None
    return match["mean"], match["std"] or match["pm"]


# --------------------------------------------------------------------------------------------
# Data


@dataclass(frozen=True)
class PublishedMeasure:
    """One other printed number of a cell (:data:`MEASURES`), e.g. its iterations.

    Attributes
    ----------
    printed : str
        As printed (``"117852"``).
    value : float
        The printed number.
    confidence : str
        ``high``, ``medium`` or ``low``, as for a cell.
    alternatives : tuple of str
        Other readings that are still possible.
    note : str or None
    """

    printed: str
    value: float
    confidence: str = "high"
    alternatives: tuple[str, ...] = ()
    note: str | None = None

    @property
    def flag(self) -> str:
        """Mark shown next to the value: '' (high), '~' (medium) or '?' (low confidence)."""
        return CONFIDENCE_FLAGS[self.confidence]


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
    candidates : tuple of str
        Status ``ambiguous``: the printed values the cell is one of.
    measures : Mapping
        Measure name (:data:`MEASURES`) -> :class:`PublishedMeasure`: the other numbers the
        paper prints for this cell.
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
    candidates: tuple[str, ...] = ()
    measures: Mapping[str, PublishedMeasure] = field(
        default_factory=lambda: MappingProxyType({}))

    @property
    def candidates_text(self) -> str:
        """An ambiguous cell as shown: its candidates in braces, ``{1.47(0.7), 2.62(0.8)}``."""
        return "{" + ", ".join(self.candidates) + "}"

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
    measures : tuple of str
        Other numbers the cells print (:data:`MEASURES`), in the paper's order.
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
    measures: tuple[str, ...] = ()

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
        return self.cells.get((dataset, rate_key(noise_rate), algorithm))

    def absent_status(self, dataset: str, noise_rate: float, algorithm: str | None) -> str:
        """Status of a key that :meth:`cell` does not find.

        ``missing_from_source`` when the paper has the cell but the source lost it (its row is
        in ``missing_rows`` and the column and noise rate are the table's), otherwise
        ``not_in_paper``.
        """
        if (dataset in self.missing_rows and algorithm in self.algorithms
                and rate_key(noise_rate) in {rate_key(r) for r in self.noise_rates}):
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
        if rate_key(rate) in seen:
            raise _err(path, f"{keypath}[{i}]", f"{rate!r} is listed twice")
        seen.add(rate_key(rate))
        rates.append(float(rate))
    return tuple(rates)


def _measure(path, keypath: str, raw) -> PublishedMeasure:
    raw = _mapping(path, keypath, raw, MEASURE_KEYS)
    _check_keys(path, keypath, raw, MEASURE_KEYS, ("printed", "value"))
    printed = _text(path, f"{keypath}.printed", raw["printed"], "the number as printed")
    parsed = parse_printed(printed)
    if parsed is None or parsed[1] is not None:
        raise _err(path, f"{keypath}.printed", f"{printed!r} is not valid; expected a number "
                                               "without a std, e.g. '117852'")
    value = raw["value"]
    if not _is_number(value) or value < 0 or abs(float(parsed[0]) - value) > _EPS:
        raise _err(path, f"{keypath}.value", f"{value!r} is not valid; the printed text "
                                             f"{printed!r} says {parsed[0]}")
    confidence = _choice(path, f"{keypath}.confidence", raw.get("confidence", "high"),
                         CONFIDENCE_FLAGS)
    alternatives = _texts(path, f"{keypath}.alternatives", raw.get("alternatives", []))
    if alternatives and confidence == "high":
        raise _err(path, f"{keypath}.confidence", "'high' is not valid for a number with "
                   "alternatives; expected medium or low (other readings are possible)")
    note = raw.get("note")
    if note is not None:
        note = _text(path, f"{keypath}.note", note)
    return PublishedMeasure(printed, float(value), confidence, alternatives, note)


def _cell(path, keypath: str, raw, *, algorithms: Sequence[str], rate_keys: set[float],
          known_datasets: Sequence[str], metric: str = "error",
          measures: Sequence[str] = ()) -> PublishedCell:
    raw = _mapping(path, keypath, raw, CELL_KEYS)
    _check_keys(path, keypath, raw, CELL_KEYS, REQUIRED_CELL_KEYS)
    dataset = _dataset(path, f"{keypath}.dataset", raw["dataset"], known_datasets)
    rate = raw["noise_rate"]
    if not _is_number(rate) or rate_key(rate) not in rate_keys:
        raise _err(path, f"{keypath}.noise_rate", f"{rate!r} is not valid; expected one of the "
                   f"table's noise_rates: {', '.join(f'{r:g}' for r in sorted(rate_keys))}")
    algorithm = _choice(path, f"{keypath}.algorithm", raw["algorithm"],
                        dict.fromkeys(algorithms, ""))
    default_status = "not_printed" if metric == "none" else "ok"
    status = _choice(path, f"{keypath}.status", raw.get("status", default_status),
                     CELL_STATUSES)
    if (status == "not_printed") != (metric == "none"):
        raise _err(path, f"{keypath}.status", f"{status!r} is not valid for a table of metric "
                   f"{metric}; " + ("expected not_printed (the table prints only measures)"
                                    if metric == "none" else "not_printed is for tables of "
                                    "metric none"))
    confidence = _choice(path, f"{keypath}.confidence", raw.get("confidence", "high"),
                         CONFIDENCE_FLAGS)
    cell_measures = {}
    for name in MEASURES:
        if name in raw:
            if name not in measures:
                raise _err(path, f"{keypath}.{name}", "is not one of the table's measures; "
                           "list it in the table's measures (or remove it)")
            cell_measures[name] = _measure(path, f"{keypath}.{name}", raw[name])
    if metric == "none" and not cell_measures:
        raise _err(path, keypath, "a cell of a table of metric none needs one of its measures: "
                                  + ", ".join(measures))
    candidates = _texts(path, f"{keypath}.candidates", raw.get("candidates", []))
    if (len(candidates) >= 2) != (status == "ambiguous"):
        raise _err(path, f"{keypath}.candidates", f"{list(candidates)!r} is not valid for a "
                   f"{status} cell; " + ("expected the two or more printed values it is one of"
                                         if status == "ambiguous" else
                                         "only status ambiguous lists candidates"))
    for i, candidate in enumerate(candidates):
        if parse_printed(candidate) is None:
            raise _err(path, f"{keypath}.candidates[{i}]", f"{candidate!r} is not valid; "
                       "expected a printed number with an optional std, e.g. '2.62(0.8)'")
    if status == "ambiguous" and confidence == "high":
        raise _err(path, f"{keypath}.confidence", "'high' is not valid for an ambiguous cell; "
                                                  "expected medium or low")
    printed = raw.get("printed")
    if status in ("ambiguous", "not_printed") and printed is not None:
        raise _err(path, f"{keypath}.printed", f"{printed!r} is not valid for a {status} "
                   "cell; " + ("its candidates are what was printed"
                               if status == "ambiguous" else "the table prints no error"))
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
        parsed = parse_printed(printed)
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
                         confidence, alternatives, note, candidates,
                         MappingProxyType(cell_measures))


def _table(path, table_id: str, raw, *, paper: dict, known_datasets: Sequence[str]
           ) -> PublishedTable:
    keypath = f"tables.{table_id}"
    raw = _mapping(path, keypath, raw, TABLE_KEYS)
    _check_keys(path, keypath, raw, TABLE_KEYS, REQUIRED_TABLE_KEYS)
    caption = _text(path, f"{keypath}.caption", raw["caption"])
    metric = _choice(path, f"{keypath}.metric", raw["metric"], METRICS)
    algorithms = _texts(path, f"{keypath}.algorithms", raw["algorithms"], allow_empty=False)
    noise_rates = _noise_rates(path, f"{keypath}.noise_rates", raw["noise_rates"])
    measures = _texts(path, f"{keypath}.measures", raw.get("measures", []), choices=list(MEASURES))
    if metric == "none" and not measures:
        raise _err(path, f"{keypath}.metric", "'none' is not valid for a table without "
                                              "measures; list the numbers it prints in measures")
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
    rate_keys = {rate_key(r) for r in noise_rates}
    cells: dict[tuple[str, float, str], PublishedCell] = {}
    first_index: dict[tuple[str, float, str], int] = {}
    for i, raw_cell in enumerate(raw_cells):
        cell = _cell(path, f"{keypath}.cells[{i}]", raw_cell, algorithms=algorithms,
                     rate_keys=rate_keys, known_datasets=known_datasets, metric=metric,
                     measures=measures)
        key = (cell.dataset, rate_key(cell.noise_rate), cell.algorithm)
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
        dataset_names=paper["dataset_names"], measures=measures)


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
        known_datasets = catalog_names()
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
        Paper (the file ``mcboost_cli/datasets/published/<paper>.yaml``) and table id.

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
