"""Splits of a dataset into training, validation and test parts.

``five_fold`` (the DMCBoost paper's protocol, sec. 5): the rows are shuffled with a seed
derived from (dataset, seed) and cut into 5 parts of equal size (sizes differ by at most one
row). Fold i tests on part i, validates on part (i + 1) mod 5 and trains on the other three,
so over the five folds every row is tested exactly once. A predefined train/test split of the
catalog is ignored: all rows are pooled.

``random_splits`` (the REBEL paper's protocol, sec. 7, "the same experimental setup as in
(Shen et al., 2014)"): "five random splits are generated, with 50% of the samples for
training, 25% for validation ... and the remaining 25% for testing". Fold i (0..4) is the i-th
split: the rows are shuffled with a seed derived from (dataset, seed, fold) alone, the first
``n // 4`` form the test part, the next ``n // 4`` the validation part and the rest (half the
rows plus the 0-3 left over by the rounding) train. The splits are independent draws, so a row
may be tested in several folds or in none; they are not stratified. A predefined train/test
split of the catalog is ignored: all rows are pooled, as under ``five_fold``.

``predefined`` (the papers' "datasets which come with pre-specified training and testing
sets are evaluated by the test error"): one fold (0); the catalog's training rows train, its
test rows test, and there is **no validation part** — nothing is early-stopped or selected
(the DMCBoost paper fixes n' and runs every method to its maximum of rounds there).

``predefined_holdout``: the catalog's split, with a seeded quarter of the training rows held
out as the validation part (train : validation = 3 : 1, as in the 5-fold protocol), for
experiments that must select a hyper-parameter (e.g. the tree depth of the DMCBoost paper's
Table 3) on a predefined-split dataset. ALGORITHMS.md ("Protocol") records why.

``five_fold_train`` (the DirectBoost paper's Splice and Adult = a5a rows, "N = 1000" and
"N = 6414": the LIBSVM training files alone): ``five_fold`` over the catalog's **training**
rows only; the predefined test rows are not used at all. The parts are a seeded permutation of
the training rows (seeded by (dataset, seed), named apart from ``five_fold``'s), cut as under
``five_fold``.

``predefined_test_halves`` (the DirectBoost paper's Table 3: 1000 training examples, "a clean
test data set with size 5000 ... and a same size clean data is generated as validation data"):
one fold (0); the catalog's training rows train, and its test rows are cut into a seeded
validation half (``n_test // 2`` rows, chosen as a pure function of (dataset, seed)) and a
test half (the rest).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .seeding import rng_for

N_PARTS = 5
PROTOCOLS = ("five_fold", "random_splits", "predefined", "predefined_holdout",
             "five_fold_train", "predefined_test_halves")
# Protocols of N_PARTS folds (a config's ``folds`` choose among them).
MULTI_FOLD = ("five_fold", "random_splits", "five_fold_train")
# Of those, the ones that pool a predefined train/test split's rows.
POOLED = ("five_fold", "random_splits")
# Protocols of one fold on the catalog's predefined train/test split.
PREDEFINED = ("predefined", "predefined_holdout", "predefined_test_halves")
# Protocols that use the catalog's predefined train/test split (the dataset must have one).
NEEDS_SPLIT = PREDEFINED + ("five_fold_train",)
HOLDOUT_FRACTION = 0.25


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


def random_split(n_samples: int, dataset: str, seed: int, fold: int) -> Split:
    """Split ``fold`` of the REBEL paper's five: 25% test, 25% validation, 50% train.

    A pure function of (n_samples, dataset, seed, fold): the permutation is seeded by those
    names (``rng_for``), not by the other folds or datasets. Test and validation get
    ``n_samples // 4`` rows each, training the rest (at least half the rows).
    """
    if not 0 <= fold < N_PARTS:
        raise ValueError(f"fold must be in 0..{N_PARTS - 1}, got {fold}")
    perm = rng_for("random_splits", dataset, "seed", seed, "fold", fold).permutation(n_samples)
    quarter = n_samples // 4
    return Split(train=np.sort(perm[2 * quarter:]), valid=np.sort(perm[quarter:2 * quarter]),
                 test=np.sort(perm[:quarter]))


def predefined_split(test_mask: np.ndarray, dataset: str, seed: int, holdout: bool) -> Split:
    """The catalog's train/test split; with ``holdout``, a seeded quarter of the training rows
    (``round(HOLDOUT_FRACTION * n_train)``, chosen as a pure function of (dataset, seed))
    becomes the validation part."""
    idx = np.arange(test_mask.shape[0])
    train, test = idx[~test_mask], idx[test_mask]
    if not holdout:
        return Split(train=train, valid=idx[:0], test=test)
    rng = rng_for("predefined_holdout", dataset, "seed", seed)
    n_valid = int(round(HOLDOUT_FRACTION * train.size))
    valid = np.sort(rng.choice(train, size=n_valid, replace=False))
    return Split(train=np.setdiff1d(train, valid, assume_unique=True), valid=valid, test=test)


def five_fold_train_parts(test_mask: np.ndarray, dataset: str, seed: int) -> np.ndarray:
    """Part number (0..4) of every row under ``five_fold_train``; -1 for the predefined test
    rows, which no fold uses. A pure function of (the split, dataset, seed)."""
    train_rows = np.flatnonzero(~test_mask)
    perm = rng_for("five_fold_train", dataset, "seed", seed).permutation(train_rows.size)
    part = np.full(test_mask.shape[0], -1, dtype=np.int8)
    for p, rows in enumerate(np.array_split(perm, N_PARTS)):
        part[train_rows[rows]] = p
    return part


def halves_split(test_mask: np.ndarray, dataset: str, seed: int) -> Split:
    """``predefined_test_halves``: the catalog's training rows train; a seeded half of its test
    rows (``n_test // 2``, a pure function of (dataset, seed)) validates, the rest tests."""
    idx = np.arange(test_mask.shape[0])
    train, test = idx[~test_mask], idx[test_mask]
    rng = rng_for("predefined_test_halves", dataset, "seed", seed)
    valid = np.sort(rng.choice(test, size=test.size // 2, replace=False))
    return Split(train=train, valid=valid,
                 test=np.setdiff1d(test, valid, assume_unique=True))


def make_split(protocol: str, n_samples: int, dataset: str, seed: int, fold: int,
               test_mask: np.ndarray | None = None) -> Split:
    """The parts of fold ``fold``; the protocols of ``NEEDS_SPLIT`` need the catalog's
    ``test_mask``."""
    if protocol == "five_fold":
        return five_fold_split(five_fold_parts(n_samples, dataset, seed), fold)
    if protocol == "random_splits":
        return random_split(n_samples, dataset, seed, fold)
    if protocol in NEEDS_SPLIT and test_mask is None:
        raise ValueError(f"protocol {protocol!r} needs a dataset with a predefined "
                         f"train/test split; {dataset} has none")
    if protocol == "five_fold_train":
        # The test rows are part -1, never a fold's test or validation part (0..4), and
        # five_fold_split's training part is "every other part": drop them from it.
        parts = five_fold_train_parts(test_mask, dataset, seed)
        split = five_fold_split(parts, fold)
        return Split(train=split.train[parts[split.train] >= 0], valid=split.valid,
                     test=split.test)
    if protocol in PREDEFINED:
        if fold != 0:
            raise ValueError(f"protocol {protocol!r} has one fold (0), got {fold}")
        if protocol == "predefined_test_halves":
            return halves_split(test_mask, dataset, seed)
        return predefined_split(test_mask, dataset, seed, holdout=protocol == "predefined_holdout")
    raise ValueError(f"unknown protocol {protocol!r}; known: {', '.join(PROTOCOLS)}")


def protocol_folds(protocol: str) -> tuple[int, ...]:
    """Every fold of ``protocol``: 0..4 for the five-part protocols, (0,) for the predefined."""
    if protocol in MULTI_FOLD:
        return tuple(range(N_PARTS))
    if protocol in PREDEFINED:
        return (0,)
    raise ValueError(f"unknown protocol {protocol!r}; known: {', '.join(PROTOCOLS)}")
