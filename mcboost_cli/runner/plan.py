"""Plan: a validated config expanded into cells, in a fixed order.

Order: dataset, noise rate, seed, fold, algorithm entry, grid point. The order only decides
what runs first and how ties in model selection are broken (first grid point wins); no seed
depends on it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ..algorithms.registry import get_algorithm
from ..protocol.noise import parts_key
from .cells import Cell
from .config import ExperimentConfig


@dataclass(frozen=True)
class PlannedCell:
    cell: Cell
    entry_index: int        # which algorithm entry of its table (table column)
    grid_index: int         # position in that entry's grid (model-selection tie-break)
    table_index: int = 0    # which table of the config


def full_params(algorithm: str, params: dict) -> tuple:
    """Params with every default filled in, as sorted (name, value) pairs — except the
    parameters declared ``default_in_key=False`` (``algorithms.params.ParamSpec``) when at
    their default: they are left out, whether the config set them or not, so a parameter
    added later does not change the keys of the fits stored before it (the fit reads the
    default from the algorithm's constructor)."""
    cls = get_algorithm(algorithm)
    full = {s.name: s.default for s in cls.param_specs}
    full.update(params)
    for s in cls.param_specs:
        if not s.default_in_key and full[s.name] == s.default:
            del full[s.name]
    return tuple(sorted(full.items()))


def expand(config: ExperimentConfig) -> list[PlannedCell]:
    """Every cell of every table. Tables that share a fit (same dataset, protocol, fold,
    noise, seed, algorithm and parameters) share its cell key, so it runs once."""
    out = []
    for dataset in config.datasets:
        for rate in config.noise_rates:
            for seed in config.seeds:
                for ti, table in enumerate(config.tables):
                    if dataset not in table.datasets:
                        continue
                    protocol = table.protocols[dataset]
                    # At rate 0 no label changes, whatever the parts: one fit, one key.
                    noise_parts = parts_key(table.noise_parts) if rate else ""
                    for fold in table.folds_for(dataset, config.folds):
                        for e, entry in enumerate(table.algorithms):
                            cls = get_algorithm(entry.algorithm)
                            points = entry.grid_points(dataset, config.max_rounds)
                            for g, point in enumerate(points):
                                cell = Cell(
                                    experiment=config.experiment, dataset=dataset,
                                    protocol=protocol, fold=fold, noise_rate=rate,
                                    seed=seed, algorithm=entry.algorithm,
                                    algorithm_version=cls.version,
                                    params=full_params(entry.algorithm, point),
                                    label=entry.label, grid_id=f"{table.id}:{e}:{g}",
                                    data_source=config.source_of(dataset),
                                    noise_parts=noise_parts,
                                )
                                out.append(PlannedCell(cell, e, g, ti))
    return out


def config_hash(config: ExperimentConfig) -> str:
    return hashlib.sha256(config.text.encode()).hexdigest()[:16]
