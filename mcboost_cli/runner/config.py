"""Experiment configs: YAML read with ``safe_load`` and validated whole before any work.

Every error is one line naming the file, the key path, the bad value and the valid choices,
e.g. ``configs/x.yaml: algorithms[1].params.max_depth: 0 is not valid; expected an integer in
[1, 30]``. Unknown keys are errors. The schema is documented in README.md ("Config reference").
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..algorithms.registry import get_algorithm, validate_params
from ..errors import UserError
from ..protocol.splits import PROTOCOLS, protocol_folds

TOP_KEYS = {
    "experiment": "name of the experiment (results go to results/<experiment>/)",
    "title": "title printed above the tables",
    "datasets": "list of catalog dataset names",
    "protocol": f"one of {', '.join(PROTOCOLS)}",
    "folds": "subset of the protocol's folds to run (default: all)",
    "seeds": "list of integer seeds (default: [0])",
    "noise_rates": "list of label-noise rates in [0, 1) (default: [0.0])",
    "timeout": "seconds per cell before it is stopped and marked timeout (default: none)",
    "algorithms": "list of algorithm entries",
}
ALGO_KEYS = {
    "algorithm": "registry name (see `mcboost algorithms`)",
    "label": "column name in the tables (default: the algorithm name)",
    "params": "fixed hyper-parameters",
    "grid": "hyper-parameters to select on validation per fold: name -> list of values",
    "per_dataset": "parameter overrides for some datasets: dataset -> {name: value}",
}
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


@dataclass(frozen=True)
class AlgorithmEntry:
    """One column of the tables: an algorithm with fixed params and an optional grid."""

    algorithm: str
    label: str
    params: dict
    grid: dict                # name -> list of values (validated)
    per_dataset: dict = None  # dataset -> {name: value} overriding params (validated)

    def grid_points(self, dataset: str | None = None) -> list[dict]:
        """Every combination of the grid merged into the fixed params (with the dataset's
        overrides), in grid order."""
        base = dict(self.params)
        base.update((self.per_dataset or {}).get(dataset, {}))
        if not self.grid:
            return [base]
        names = list(self.grid)
        out = []
        for values in itertools.product(*(self.grid[n] for n in names)):
            p = dict(base)
            p.update(zip(names, values))
            out.append(p)
        return out


@dataclass(frozen=True)
class ExperimentConfig:
    path: str
    experiment: str
    title: str
    datasets: tuple[str, ...]
    protocol: str
    folds: tuple[int, ...]
    seeds: tuple[int, ...]
    noise_rates: tuple[float, ...]
    timeout: float | None
    algorithms: tuple[AlgorithmEntry, ...]
    text: str                 # the file's text (its hash is recorded with every cell)


def _err(path, keypath, msg):
    return UserError(f"{path}: {keypath}: {msg}" if keypath else f"{path}: {msg}")


def _check_unknown(path, keypath, mapping, known):
    for k in mapping:
        if k not in known:
            where = f"{keypath}.{k}" if keypath else str(k)
            raise _err(path, where, f"unknown key; valid keys: {', '.join(known)}")


def _list_of(path, keypath, value, kind, check=None, choices_text=""):
    if not isinstance(value, list) or not value:
        raise _err(path, keypath, f"{value!r} is not valid; expected a non-empty list"
                   + (f" of {choices_text}" if choices_text else ""))
    out = []
    for i, v in enumerate(value):
        ok = isinstance(v, kind) and not (kind in (int, (int, float)) and isinstance(v, bool))
        if not ok or (check and not check(v)):
            raise _err(path, f"{keypath}[{i}]", f"{v!r} is not valid; expected {choices_text}")
        out.append(v)
    if len(set(map(repr, out))) != len(out):
        raise _err(path, keypath, f"{value!r} has duplicates")
    return out


def load_config(path, *, known_datasets=None) -> ExperimentConfig:
    """Read and validate an experiment config; raises UserError (one line) on any problem."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"{path}: no such config file") from None
    except IsADirectoryError:
        raise UserError(f"{path}: cannot read config file: it is a directory, expected a "
                        "YAML file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise UserError(f"{path}: cannot read config file ({type(e).__name__}: "
                        f"{getattr(e, 'strerror', None) or e})") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(e, "problem", None) or "invalid syntax"
        raise UserError(f"{path}: malformed YAML{where}: {problem}") from None
    return validate_config(data, str(path), text, known_datasets=known_datasets)


def validate_config(data: Any, path: str, text: str = "", *, known_datasets=None
                    ) -> ExperimentConfig:
    if not isinstance(data, dict):
        raise _err(path, "", f"the top level must be a mapping with keys "
                             f"{', '.join(TOP_KEYS)}; got {type(data).__name__}")
    _check_unknown(path, "", data, TOP_KEYS)
    for req in ("experiment", "datasets", "algorithms"):
        if req not in data:
            raise _err(path, req, f"missing required key ({TOP_KEYS[req]})")

    experiment = data["experiment"]
    if not isinstance(experiment, str) or not _NAME_RE.match(experiment):
        raise _err(path, "experiment", f"{experiment!r} is not valid; expected a name of "
                                       "letters, digits, '_', '-', '.'")
    title = data.get("title", experiment)
    if not isinstance(title, str):
        raise _err(path, "title", f"{title!r} is not valid; expected a string")

    if known_datasets is None:
        from ..datasets import list_datasets
        known_datasets = [d["name"] for d in list_datasets()]
    known = sorted(known_datasets)
    datasets = _list_of(path, "datasets", data["datasets"], str,
                        check=lambda v: v in known,
                        choices_text="catalog dataset names: " + ", ".join(known))

    protocol = data.get("protocol", "five_fold")
    if protocol not in PROTOCOLS:
        raise _err(path, "protocol", f"{protocol!r} is not valid; expected one of "
                                     f"{', '.join(PROTOCOLS)}")
    all_folds = protocol_folds(protocol)
    folds = _list_of(path, "folds", data.get("folds", list(all_folds)), int,
                     check=lambda v: v in all_folds,
                     choices_text=f"fold numbers among {list(all_folds)}")
    seeds = _list_of(path, "seeds", data.get("seeds", [0]), int,
                     check=lambda v: 0 <= v < 2**31, choices_text="integers in [0, 2^31)")
    rates = _list_of(path, "noise_rates", data.get("noise_rates", [0.0]), (int, float),
                     check=lambda v: 0.0 <= v < 1.0, choices_text="numbers in [0, 1)")
    rates = [float(r) for r in rates]
    timeout = data.get("timeout")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                or timeout <= 0):
        raise _err(path, "timeout", f"{timeout!r} is not valid; expected a positive number of "
                                    "seconds")

    algos_raw = data["algorithms"]
    if not isinstance(algos_raw, list) or not algos_raw:
        raise _err(path, "algorithms", f"{algos_raw!r} is not valid; expected a non-empty list "
                                       "of entries with keys " + ", ".join(ALGO_KEYS))
    entries = []
    labels = set()
    for i, a in enumerate(algos_raw):
        where = f"algorithms[{i}]"
        if isinstance(a, str):
            a = {"algorithm": a}
        if not isinstance(a, dict):
            raise _err(path, where, f"{a!r} is not valid; expected a mapping with keys "
                                    + ", ".join(ALGO_KEYS))
        _check_unknown(path, where, a, ALGO_KEYS)
        if "algorithm" not in a:
            raise _err(path, f"{where}.algorithm", "missing required key")
        try:
            cls = get_algorithm(a["algorithm"], where=f"{where}.algorithm")
        except UserError as e:
            raise UserError(f"{path}: {e}") from None
        label = a.get("label", cls.name)
        if not isinstance(label, str) or not label:
            raise _err(path, f"{where}.label", f"{label!r} is not valid; expected a string")
        if label in labels:
            raise _err(path, f"{where}.label", f"{label!r} is used twice; labels name table "
                                               "columns and must be unique")
        labels.add(label)
        params = a.get("params", {}) or {}
        if not isinstance(params, dict):
            raise _err(path, f"{where}.params", f"{params!r} is not valid; expected a mapping")
        grid = a.get("grid", {}) or {}
        if not isinstance(grid, dict):
            raise _err(path, f"{where}.grid", f"{grid!r} is not valid; expected a mapping of "
                                              "parameter -> list of values")
        try:
            params = validate_params(cls, params, f"{where}.params")
            vgrid = {}
            for k, values in grid.items():
                if k in params:
                    raise UserError(f"{where}.grid.{k}: also given in params; give it in one "
                                    "place")
                if not isinstance(values, list) or not values:
                    raise UserError(f"{where}.grid.{k}: {values!r} is not valid; expected a "
                                    "non-empty list of values")
                vgrid[k] = [validate_params(cls, {k: v}, f"{where}.grid")[k] for v in values]
            per_dataset = a.get("per_dataset", {}) or {}
            if not isinstance(per_dataset, dict):
                raise UserError(f"{where}.per_dataset: {per_dataset!r} is not valid; expected a "
                                "mapping of dataset -> {parameter: value}")
            vper = {}
            for ds, overrides in per_dataset.items():
                w = f"{where}.per_dataset.{ds}"
                if ds not in datasets:
                    raise UserError(f"{w}: {ds!r} is not one of this config's datasets: "
                                    f"{', '.join(datasets)}")
                if not isinstance(overrides, dict):
                    raise UserError(f"{w}: {overrides!r} is not valid; expected a mapping of "
                                    "parameter -> value")
                for k in overrides:
                    if k in vgrid:
                        raise UserError(f"{w}.{k}: also in the grid; give it in one place")
                vper[ds] = validate_params(cls, overrides, w)
        except UserError as e:
            raise UserError(f"{path}: {e}") from None
        entries.append(AlgorithmEntry(cls.name, label, params, vgrid, vper))

    return ExperimentConfig(
        path=path, experiment=experiment, title=title, datasets=tuple(datasets),
        protocol=protocol, folds=tuple(folds), seeds=tuple(seeds), noise_rates=tuple(rates),
        timeout=float(timeout) if timeout is not None else None, algorithms=tuple(entries),
        text=text,
    )
