"""Poker Hand (UCI ``poker``): the exact hand labeller, random hands, and the papers' poker525k.

What is exact and what is only in distribution
----------------------------------------------
* **Labels: EXACT.** :func:`poker_label` is the deterministic rule that defines the class of a
  hand; it reproduces every one of the 25,010 labels of ``poker/poker-hand-training-true.data``
  and, over all C(52, 5) = 2,598,960 hands, gives the textbook counts (:data:`HAND_COUNTS`).
* **Hands: IN DISTRIBUTION.** The UCI rows are random hands; the draws themselves cannot be
  recovered. :func:`poker_hands` draws fresh uniformly random hands (5 distinct cards in random
  order); with ``class_counts`` it matches given per-class counts exactly (the hands are then
  uniform within each class -- the same distribution as rejection sampling, drawn directly from
  the enumerated hands of that class).
* **poker525k: EXACT when the real files are given.** The construction -- the 25,010-row
  training file plus a seeded half (500,000 rows) of the 1,000,000-row test file -- uses real
  rows where they are passed in. The test file is download-only (not in the offline mirror);
  without it :func:`poker_test_standin` (1,000,000 random hands with the test file's exact
  class counts) stands in, and that part is in distribution. The choice of the half is seeded,
  so it is reproducible but not the papers' (unpublished) choice.

Definition (Cattral, R., Oppacher, F. and Deugo, D. (2002), *Evolutionary data mining with
automatic rule generalization*, Recent Advances in Computers, Computing and Communications,
pp. 296-300; UCI ``poker-hand.names``; ``/work/shared/datasets.md`` §4.3):

* Features ``S1, C1, .., S5, C5``: suit 1..4 (Hearts, Spades, Diamonds, Clubs), rank 1..13
  (1 = Ace, 11..13 = Jack, Queen, King). Coding as the catalog entry ``poker``: suits are
  categorical, values ``'1'..'4'`` coded 0..3; ranks numeric 1..13 as in the file. The
  labeller only compares suits for equality, so it accepts the file's 1..4 as well as the codes
  0..3; :func:`poker525k` accepts given rows in either coding and returns codes.
* Class, first match in this order: 9 royal flush (one suit, ranks {1, 10, 11, 12, 13});
  8 straight flush (one suit, five consecutive ranks, max - min = 4 -- A-2-3-4-5 counts);
  7 four of a kind; 6 full house; 5 flush; 4 straight (five distinct ranks with max - min = 4,
  or {1, 10, 11, 12, 13}); 3 three of a kind; 2 two pairs; 1 one pair; 0 nothing.
  Class names are the file's spellings ``"0"`` .. ``"9"``.

Random streams: :func:`poker_hands` and :func:`poker_test_standin` use ``Generator(PCG64(seed))``;
:func:`poker525k` takes the stand-in test hands from that stream, the choice of the half from
``PCG64(seed).jumped(1)`` and a stand-in training part (only if no training rows are given)
from ``PCG64(seed).jumped(2)``, so the chosen half is the same whether the test rows are real or
stand-ins.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping, Sequence

import numpy as np

from ..._dtypes import X_DTYPE, Y_DTYPE
from ._base import GeneratedData, rng_for

__all__ = [
    "CLASSES", "CLASS_NAMES", "FEATURE_NAMES", "HAND_COUNTS", "N_HANDS", "SUITS",
    "TEST_CLASS_COUNTS",
    "TRAIN_CLASS_COUNTS", "all_hands", "poker525k", "poker_hands", "poker_label",
    "poker_test_standin",
]

CLASSES = tuple(str(k) for k in range(10))
SUITS = ("1", "2", "3", "4")           # hearts, spades, diamonds, clubs; code = index
CLASS_NAMES = ("nothing", "one pair", "two pairs", "three of a kind", "straight", "flush",
               "full house", "four of a kind", "straight flush", "royal flush")
FEATURE_NAMES = ("S1", "C1", "S2", "C2", "S3", "C3", "S4", "C4", "S5", "C5")
N_HANDS = 2_598_960
#: Hands of each class among all C(52, 5) hands (A-2-3-4-5 counted as a straight).
HAND_COUNTS = (1302540, 1098240, 123552, 54912, 10200, 5108, 3744, 624, 36, 4)
#: Class counts of ``poker-hand-training-true.data`` (25,010 rows; verified on the file).
TRAIN_CLASS_COUNTS = (12493, 10599, 1206, 513, 93, 54, 36, 6, 5, 5)
#: Class counts of ``poker-hand-testing.data`` (1,000,000 rows; from ``poker-hand.names``).
TEST_CLASS_COUNTS = (501209, 422498, 47622, 21121, 3885, 1996, 1424, 230, 12, 3)
N_TRAIN = 25_010
N_TEST = 1_000_000
N_TEST_HALF = 500_000

_ROYAL = np.array([1, 10, 11, 12, 13])


def poker_label(X: np.ndarray) -> np.ndarray:
    """Class code (0..9) of each hand.

    Parameters
    ----------
    X : array of shape (n, 10)
        ``S1, C1, .., S5, C5`` with ranks 1..13 and suits either as in the file (1..4) or as
        categorical codes (0..3); any numeric dtype.

    Returns
    -------
    ndarray of int32, shape (n,)

    Raises
    ------
    ValueError
        Wrong shape, non-integer values, a rank outside 1..13 or a suit outside 0..4.
    """
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[1] != 10:
        raise ValueError(f"poker hands must have shape (n, 10), got {X.shape}")
    suits = X[:, 0::2].astype(np.int64)
    ranks = X[:, 1::2].astype(np.int64)
    if X.size and (not np.array_equal(suits, X[:, 0::2]) or not np.array_equal(ranks, X[:, 1::2])
                   or suits.min() < 0 or suits.max() > 4 or ranks.min() < 1 or ranks.max() > 13):
        raise ValueError("poker hands must hold integer ranks 1..13 and suits 1..4 (file) or "
                         "0..3 (codes)")
    r = np.sort(ranks, axis=1)
    eq = r[:, 1:] == r[:, :-1]                       # equal neighbours among sorted ranks
    n_eq = eq.sum(axis=1)
    run3 = (eq[:, :-1] & eq[:, 1:]).any(axis=1)      # three equal ranks
    run4 = (eq[:, 0] & eq[:, 1] & eq[:, 2]) | (eq[:, 1] & eq[:, 2] & eq[:, 3])
    flush = (suits == suits[:, :1]).all(axis=1)
    broadway = (r == _ROYAL).all(axis=1)
    straight = (n_eq == 0) & ((r[:, 4] - r[:, 0] == 4) | broadway)
    conditions = [
        flush & broadway,                  # 9 royal flush
        flush & straight,                  # 8 straight flush (incl. A-2-3-4-5)
        run4,                              # 7 four of a kind
        (n_eq == 3),                       # 6 full house (3 equal neighbours, no run of 4)
        flush,                             # 5 flush
        straight,                          # 4 straight
        (n_eq == 2) & run3,                # 3 three of a kind
        (n_eq == 2),                       # 2 two pairs
        (n_eq == 1),                       # 1 one pair
    ]
    return np.select(conditions, [9, 8, 7, 6, 5, 4, 3, 2, 1], default=0).astype(Y_DTYPE)


def _cards_to_X(cards: np.ndarray) -> np.ndarray:
    """Card ids 0..51 (suit code = id // 13, rank = id % 13 + 1), shape (n, 5) -> (n, 10)."""
    X = np.empty((cards.shape[0], 10), dtype=X_DTYPE)
    X[:, 0::2] = cards // 13
    X[:, 1::2] = cards % 13 + 1
    return X


@functools.lru_cache(maxsize=1)
def all_hands() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All C(52, 5) hands: ``(cards, labels, by_class)``, computed once per process.

    ``cards`` (2598960, 5) int8 card ids in increasing order; ``labels`` int8 class codes;
    ``by_class`` the hand indices sorted by class (class k occupies the slice
    ``sum(HAND_COUNTS[:k]) : sum(HAND_COUNTS[:k+1])``). Read-only.
    """
    flat = itertools.chain.from_iterable(itertools.combinations(range(52), 5))
    cards = np.fromiter(flat, dtype=np.int8, count=5 * N_HANDS).reshape(N_HANDS, 5)
    labels = np.empty(N_HANDS, dtype=np.int8)
    step = 1 << 19
    for start in range(0, N_HANDS, step):                 # bounded temporary memory
        labels[start:start + step] = poker_label(_cards_to_X(cards[start:start + step]))
    by_class = np.argsort(labels, kind="stable").astype(np.int32)
    for a in (cards, labels, by_class):
        a.flags.writeable = False
    return cards, labels, by_class


def _parse_counts(class_counts) -> np.ndarray:
    if isinstance(class_counts, Mapping):
        counts = np.zeros(10, dtype=np.int64)
        for key, value in class_counts.items():
            k = CLASSES.index(str(key)) if str(key) in CLASSES else -1
            if k < 0:
                raise ValueError(f"unknown poker class {key!r}; classes are 0..9")
            counts[k] = value
    else:
        counts = np.asarray(class_counts, dtype=np.int64)
        if counts.shape != (10,):
            raise ValueError(f"class_counts needs 10 entries (classes 0..9), got {counts.shape}")
    if (counts < 0).any():
        raise ValueError("class_counts must be non-negative")
    return counts


def _draw(n: int | None, rng: np.random.Generator, class_counts) -> np.ndarray:
    """Hand indices into :func:`all_hands` (uniform, or uniform within each class)."""
    _, _, by_class = all_hands()
    if class_counts is None:
        if n is None or n < 0:
            raise ValueError(f"n must be a non-negative integer, got {n!r}")
        return rng.integers(0, N_HANDS, size=n)
    counts = _parse_counts(class_counts)
    if n is not None and n != counts.sum():
        raise ValueError(f"n={n} but class_counts sum to {int(counts.sum())}")
    bounds = np.concatenate([[0], np.cumsum(HAND_COUNTS)])
    parts = [by_class[bounds[k] + rng.integers(0, HAND_COUNTS[k], size=counts[k])]
             for k in range(10)]
    idx = np.concatenate(parts)
    return idx[rng.permutation(idx.size)]                 # classes interleaved at random


def _hands_data(idx: np.ndarray, rng: np.random.Generator, source: str) -> GeneratedData:
    cards, labels, _ = all_hands()
    chosen = cards[idx]
    order = np.argsort(rng.random(chosen.shape), axis=1)  # each hand's cards in random order
    chosen = np.take_along_axis(chosen, order, axis=1)
    return _make(_cards_to_X(chosen), labels[idx].astype(Y_DTYPE), source)


def _make(X: np.ndarray, y: np.ndarray, source: str) -> GeneratedData:
    return GeneratedData(X=X, y=y, classes=CLASSES, feature_names=FEATURE_NAMES,
                         categorical=np.array([True, False] * 5), test_mask=None,
                         categories=(SUITS, None) * 5, source=source)


def poker_hands(n: int | None = None, seed: int = 0,
                class_counts: Sequence[int] | Mapping | None = None) -> GeneratedData:
    """Random poker hands with their exact labels.

    Parameters
    ----------
    n : int, optional
        Number of hands; may be omitted when ``class_counts`` is given (must equal its sum).
    seed : int
        Seed of ``Generator(PCG64(seed))``.
    class_counts : sequence of 10 ints, or mapping class -> count, optional
        Exact number of hands of each class 0..9 (e.g. :data:`TRAIN_CLASS_COUNTS`); rows are
        shuffled so classes are interleaved. Without it, hands are uniformly random.

    Returns
    -------
    GeneratedData
        X: (n, 10) float64 ``S1, C1, .., S5, C5`` (suits categorical codes 0..3 for
        ``'1'..'4'``, ranks numeric 1..13); y: class codes 0..9.
    """
    rng = rng_for(seed)
    idx = _draw(n, rng, class_counts)
    how = "uniform" if class_counts is None else "exact class counts"
    return _hands_data(idx, rng, f"generator poker_hands(n={idx.size}, seed={seed}, {how}): "
                                 f"random hands, exact labeller (in distribution)")


def poker_test_standin(seed: int = 0) -> GeneratedData:
    """1,000,000 random hands with the class counts of ``poker-hand-testing.data``.

    A stand-in for the download-only UCI test file: same size and class counts, hands uniform
    within each class (in distribution), labels exact.
    """
    data = poker_hands(None, seed, TEST_CLASS_COUNTS)
    return _make(data.X, data.y, f"generator poker_test_standin(seed={seed}): 1,000,000 random "
                                 f"hands with the UCI test file's class counts (in distribution)")


def _rows(rows, what: str) -> tuple[np.ndarray, np.ndarray]:
    """(X, y) from a tuple/list or an object with ``.X`` and ``.y``; labels are checked.

    Suits are returned as codes 0..3; given rows may hold the file's 1..4 (recognised by a 4
    among the suits) or the codes 0..3 (recognised by a 0).
    """
    if hasattr(rows, "X") and hasattr(rows, "y"):
        X, y = rows.X, rows.y
    else:
        X, y = rows
    X = np.asarray(X, dtype=X_DTYPE)
    y = np.asarray(y)
    if X.ndim != 2 or X.shape[1] != 10 or y.shape != (X.shape[0],):
        raise ValueError(f"{what} rows must be X of shape (n, 10) and y of shape (n,), got "
                         f"{X.shape} and {y.shape}")
    labels = poker_label(X)
    wrong = int((labels != y).sum())
    if wrong:
        raise ValueError(f"{what} rows: {wrong} of {len(y)} labels disagree with the poker "
                         f"rules -- expected ranks 1..13, suits 1..4 or codes 0..3, and class "
                         f"codes 0..9")
    suits = X[:, 0::2]
    has0, has4 = bool((suits == 0).any()), bool((suits == 4).any())
    if has0 and has4:
        raise ValueError(f"{what} rows: suits hold both 0 and 4 -- neither the file's 1..4 "
                         f"nor the codes 0..3")
    if len(y) and not has0 and not has4:
        raise ValueError(f"{what} rows: suits only take values 1..3, so the coding (file 1..4 "
                         f"or codes 0..3) cannot be told")
    if has4:
        X = X.copy()
        X[:, 0::2] -= 1
    return X, labels


def poker525k(seed: int = 0, training=None, test=None) -> GeneratedData:
    """The papers' poker525k: the UCI training file plus a seeded half of the test file.

    Parameters
    ----------
    seed : int
        Fixes the stand-in test hands (``PCG64(seed)``), the chosen half
        (``PCG64(seed).jumped(1)``) and a stand-in training part (``PCG64(seed).jumped(2)``).
    training : (X, y) or object with ``.X``/``.y``, optional
        The parsed ``poker-hand-training-true.data`` (25,010 rows; ranks 1..13, suits as codes
        0..3 or as the file's 1..4, y = class codes 0..9). Labels are checked against the
        rules. If None, 25,010 random hands with :data:`TRAIN_CLASS_COUNTS` stand in (in
        distribution).
    test : (X, y) or object with ``.X``/``.y``, optional
        The parsed ``poker-hand-testing.data`` (1,000,000 rows) when available; if None,
        :func:`poker_test_standin` stands in.

    Returns
    -------
    GeneratedData
        525,010 rows: the training rows first (in their order), then the 500,000 chosen test
        rows in test-file order. ``test_mask`` is None: the construction defines one pool of
        rows, not a train/test split.
    """
    if training is None:
        rng_train = rng_for(seed, 2)
        idx = _draw(None, rng_train, TRAIN_CLASS_COUNTS)
        train = _hands_data(idx, rng_train, "")
        X_tr, y_tr, train_src = train.X, train.y, "stand-in training hands (in distribution)"
    else:
        X_tr, y_tr = _rows(training, "training")
        train_src = f"{len(y_tr)} given training rows"
    if test is None:
        standin = poker_test_standin(seed)
        X_te, y_te, test_src = standin.X, standin.y, "stand-in test hands (in distribution)"
    else:
        X_te, y_te = _rows(test, "test")
        test_src = f"{len(y_te)} given test rows"
    half = len(y_te) // 2
    chosen = np.sort(rng_for(seed, 1).permutation(len(y_te))[:half])
    X = np.concatenate([X_tr, X_te[chosen]]).astype(X_DTYPE, copy=False)
    y = np.concatenate([y_tr, y_te[chosen]]).astype(Y_DTYPE, copy=False)
    return _make(X, y, f"generator poker525k(seed={seed}): {train_src} + seeded half "
                       f"({half} rows) of {test_src}")
