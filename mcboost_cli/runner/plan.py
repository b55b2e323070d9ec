"""Plan: a validated config expanded into cells, in a fixed order.

Order: dataset, noise rate, seed, fold, algorithm entry, grid point. The order only decides
what runs first and how ties in model selection are broken (first grid point wins); no seed
depends on it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ..algorithms.registry import get_algorithm
from .cells import Cell
from .config import ExperimentConfig


@dataclass(frozen=True)
class PlannedCell:
    cell: Cell
    entry_index: int        # which config entry (table column)
    grid_index: int         # position in that entry's grid (model-selection tie-break)


def full_params(algorithm: str, params: dict) -> tuple:
    """Params with every default filled in, as sorted (name, value) pairs."""
    cls = get_algorithm(algorithm)
    full = {s.name: s.default for s in cls.param_specs}
    full.update(params)
    return tuple(sorted(full.items()))


def expand(config: ExperimentConfig) -> list[PlannedCell]:
    out = []
    for dataset in config.datasets:
        for rate in config.noise_rates:
            for seed in config.seeds:
                for fold in config.folds:
                    for e, entry in enumerate(config.algorithms):
                        cls = get_algorithm(entry.algorithm)
                        for g, point in enumerate(entry.grid_points(dataset)):
                            cell = Cell(
                                experiment=config.experiment, dataset=dataset,
                                protocol=config.protocol, fold=fold, noise_rate=rate,
                                seed=seed, algorithm=entry.algorithm,
                                algorithm_version=cls.version,
                                params=full_params(entry.algorithm, point),
                                label=entry.label, grid_id=f"{e}:{g}",
                            )
                            out.append(PlannedCell(cell, e, g))
    return out


def config_hash(config: ExperimentConfig) -> str:
    return hashlib.sha256(config.text.encode()).hexdigest()[:16]
