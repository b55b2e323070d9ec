"""A cell is one fit: (dataset, protocol, fold, noise rate, seed, algorithm, hyper-parameters,
where the dataset's rows come from when that is not the catalog's default, and which parts
carry the label noise when that is not the default).

Cells are plain, hashable, picklable values. Their ``key`` is a hash of the canonical JSON form
plus the algorithm's version, so the same fit has the same key in every run, process and machine,
and a change to an algorithm's code that changes its numbers (a bumped version) makes new keys.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any


def canonical_json(obj) -> str:
    """JSON with sorted keys and no whitespace: the text that keys are hashed from."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


@dataclass(frozen=True)
class Cell:
    """One fit of the plan. ``params`` is a tuple of (name, value) pairs sorted by name."""

    experiment: str
    dataset: str
    protocol: str
    fold: int
    noise_rate: float
    seed: int
    algorithm: str
    algorithm_version: str
    params: tuple[tuple[str, Any], ...]
    label: str = field(default="", compare=False)   # display column; not part of the key
    grid_id: str = field(default="", compare=False)  # which config entry / grid it belongs to
    # Where the rows come from (``load_dataset``'s ``source``): "" is the catalog default (the
    # files, or an exact generator in their place); "generator" may be an in-distribution
    # stand-in, whose fits are other fits than those on the files, so it is part of the key.
    data_source: str = ""
    # Which parts carry the label noise (``protocol.noise.parts_key``): "" is the default,
    # training and validation; "train" is the training part only. Planned "" at noise rate 0
    # (no label changes, so the same fit whatever the parts).
    noise_parts: str = ""

    def identity(self) -> dict:
        """The canonical form the key is hashed from (the experiment name is not in it, so
        two experiments that share a fit share its result). ``data_source`` and
        ``noise_parts`` appear only when set, so the keys of default cells are those of
        mcboost versions without them."""
        out = {
            "dataset": self.dataset,
            "protocol": self.protocol,
            "fold": int(self.fold),
            "noise_rate": float(self.noise_rate),
            "seed": int(self.seed),
            "algorithm": self.algorithm,
            "algorithm_version": self.algorithm_version,
            "params": {k: v for k, v in self.params},
        }
        if self.data_source:
            out["data_source"] = self.data_source
        if self.noise_parts:
            out["noise_parts"] = self.noise_parts
        return out

    @property
    def key(self) -> str:
        return hashlib.sha256(canonical_json(self.identity()).encode()).hexdigest()[:32]

    @property
    def params_dict(self) -> dict:
        return dict(self.params)

    def to_json(self) -> str:
        d = self.identity()
        d.update(experiment=self.experiment, label=self.label, grid_id=self.grid_id)
        return canonical_json(d)

    @classmethod
    def from_json(cls, text: str) -> "Cell":
        d = json.loads(text)
        return cls(
            experiment=d["experiment"], dataset=d["dataset"], protocol=d["protocol"],
            fold=d["fold"], noise_rate=d["noise_rate"], seed=d["seed"],
            algorithm=d["algorithm"], algorithm_version=d["algorithm_version"],
            params=tuple(sorted(d["params"].items())), label=d.get("label", ""),
            grid_id=d.get("grid_id", ""), data_source=d.get("data_source", ""),
            noise_parts=d.get("noise_parts", ""),
        )

    def describe(self) -> str:
        ps = ",".join(f"{k}={v}" for k, v in self.params)
        source = f" [{self.data_source}]" if self.data_source else ""
        parts = f" on {self.noise_parts}" if self.noise_parts else ""
        return (f"{self.dataset}{source} fold {self.fold} noise {self.noise_rate:g}{parts} "
                f"seed {self.seed} {self.algorithm}({ps})")


# Status vocabulary of the store (as benchopt's): a cell is done, failed (with its traceback),
# or timed out. Cells not in the store are pending.
DONE = "done"
FAILED = "failed"
TIMEOUT = "timeout"
STATUSES = (DONE, FAILED, TIMEOUT)


@dataclass
class CellResult:
    """What running one cell produces; the store keeps one row per cell key.

    ``curves`` maps "train" / "valid" / "test" to the 0-1 error after every round (index t is
    the error of the ensemble of the first t+1 rounds); a fit on two numeric features also
    stores its decision regions there (``work.decision_mesh``: ``mesh_*`` and ``test_*``
    arrays, described by ``extra["mesh"]``). ``selected_round`` is 1-based: the
    number of rounds of the ensemble chosen by validation early stopping.
    """

    key: str
    status: str
    selected_round: int | None = None
    train_error: float | None = None
    valid_error: float | None = None
    test_error: float | None = None
    n_rounds: int | None = None
    curves: dict[str, list[float]] | None = None
    extra: dict[str, Any] | None = None        # algorithm-specific facts (e.g. stop reason)
    fit_seconds: float | None = None           # wall-clock time of the fit
    wall_seconds: float | None = None
    traceback: str | None = None
    versions: dict[str, str] | None = None
    # CPU time of the fit's thread (what the fit costs when processes share the cores;
    # fit_seconds then counts the waiting too). None where unknown: failed cells, and fits
    # continued from a checkpoint written by an mcboost that did not record it.
    cpu_seconds: float | None = None
