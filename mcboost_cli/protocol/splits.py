"""Splits of a dataset into training, validation and test parts.

``five_fold`` (the DMCBoost paper's protocol, sec. 5): the rows are shuffled with a seed
derived from (dataset, seed) and cut into 5 parts of equal size (sizes differ by at most one
row). Fold i tests on part i, validates on part (i + 1) mod 5 and trains on the other three,
so over the five folds every row is tested exactly once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .seeding import rng_for

N_PARTS = 5
PROTOCOLS = ("five_fold",)


@dataclass(frozen=True)
class Split:
    """Row indices (sorted) of the three parts of one fold."""

    train: np.ndarray
    valid: np.ndarray
    test: np.ndarray


def five_fold_parts(n_samples: int, dataset: str, seed: int) -> np.ndarray:
    """Part number (0..4) of every row: a pure function of (n_samples, dataset, seed)."""
    perm = rng_for("five_fold", dataset, "seed", seed).permutation(n_samples)
    part = np.empty(n_samples, dtype=np.int8)
    for p, rows in enumerate(np.array_split(perm, N_PARTS)):
        part[rows] = p
    return part


def five_fold_split(parts: np.ndarray, fold: int) -> Split:
    """Fold ``fold``: test = part fold, validation = part fold+1 mod 5, train = the rest."""
    if not 0 <= fold < N_PARTS:
        raise ValueError(f"fold must be in 0..{N_PARTS - 1}, got {fold}")
    test_part = fold
    valid_part = (fold + 1) % N_PARTS
    idx = np.arange(parts.shape[0])
    return Split(
        train=idx[(parts != test_part) & (parts != valid_part)],
        valid=idx[parts == valid_part],
        test=idx[parts == test_part],
    )


def make_split(protocol: str, n_samples: int, dataset: str, seed: int, fold: int) -> Split:
    if protocol == "five_fold":
        return five_fold_split(five_fold_parts(n_samples, dataset, seed), fold)
    raise ValueError(f"unknown protocol {protocol!r}; known: {', '.join(PROTOCOLS)}")


def protocol_folds(protocol: str) -> tuple[int, ...]:
    if protocol == "five_fold":
        return tuple(range(N_PARTS))
    raise ValueError(f"unknown protocol {protocol!r}; known: {', '.join(PROTOCOLS)}")
