"""Tests of the dataset generators (issue #4): exactness against the UCI files, labeller,
class counts, distributional structure, determinism."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from mcboost_cli.datasets.generators import (
    GENERATORS,
    GeneratedData,
    balance_scale,
    krkopt,
    long_servedio,
    mcboost_gaussians,
    poker525k,
    poker_hands,
    poker_label,
    poker_test_standin,
    rng_for,
    tic_tac_toe,
    waveform,
)
from mcboost_cli.datasets.generators import poker as poker_mod
from mcboost_cli.datasets.generators.long_servedio import n_flipped
from mcboost_cli.datasets.generators.waveform import class_means

KRK_FILE = "chess/king-rook-vs-king/krkopt.data"
TTT_FILE = "tic-tac-toe/tic-tac-toe.data"
BALANCE_FILE = "balance-scale/balance-scale.data"
POKER_TRAIN_FILE = "poker/poker-hand-training-true.data"
WAVEFORM_FILE = "waveform/waveform.data"


def _file_rows(path: Path) -> list[tuple[str, ...]]:
    return [tuple(line.strip().split(",")) for line in path.read_text().splitlines()
            if line.strip()]


def _decode(data: GeneratedData, class_first: bool = False) -> list[tuple[str, ...]]:
    """Rows as the UCI file spells them: category names, integers, class name."""
    rows = []
    for x, c in zip(data.X, data.y):
        cells = tuple(data.categories[j][int(v)] if data.categorical[j] else str(int(v))
                      for j, v in enumerate(x))
        rows.append((data.classes[c],) + cells if class_first else cells + (data.classes[c],))
    return rows


@pytest.fixture(scope="module")
def poker_training(uci_dir: Path) -> tuple[np.ndarray, np.ndarray]:
    raw = np.loadtxt(uci_dir / POKER_TRAIN_FILE, delimiter=",", dtype=np.int64)
    return raw[:, :10].astype(np.float64), raw[:, 10].astype(np.int32)


# ----------------------------------------------------------------------------- interface

SMALL_CALLS = {
    "balance_scale": {},
    "krkopt": {},
    "long_servedio": {"n": 200, "seed": 1},
    "mcboost_gaussians": {"n": 200, "n_test": 100, "seed": 1},
    "poker525k": {"seed": 1},
    "poker_hands": {"n": 200, "seed": 1},
    "poker_test_standin": {"seed": 1},
    "tic_tac_toe": {},
    "waveform": {"n": 200, "seed": 1},
}


def test_registry_lists_every_generator():
    assert set(GENERATORS) == set(SMALL_CALLS)


@pytest.mark.parametrize("name", sorted(SMALL_CALLS))
def test_generator_returns_well_formed_data(name):
    data = GENERATORS[name](**SMALL_CALLS[name])
    assert isinstance(data, GeneratedData)
    n, f = data.X.shape
    assert data.X.dtype == np.float64 and data.y.dtype == np.int32 and data.y.shape == (n,)
    assert data.categorical.dtype == bool and data.categorical.shape == (f,)
    assert len(data.feature_names) == f == len(data.categories)
    assert all(isinstance(c, str) for c in data.classes)
    assert 0 <= data.y.min() and data.y.max() < len(data.classes)
    assert not np.isnan(data.X).any()
    for j in np.flatnonzero(data.categorical):
        codes = data.X[:, j]
        assert np.array_equal(codes, np.round(codes))
        assert 0 <= codes.min() and codes.max() < len(data.categories[j])
    assert data.source


def test_generated_data_rejects_bad_arrays():
    with pytest.raises(ValueError, match="y must be"):
        GeneratedData(X=np.zeros((3, 2)), y=np.zeros(3, dtype=np.int64), classes=("a",),
                      feature_names=("f", "g"), categorical=np.zeros(2, bool), test_mask=None)


# ----------------------------------------------------------------------------- exact files

def test_krkopt_equals_uci_file_row_for_row(uci_dir):
    data = krkopt()
    file_rows = _file_rows(uci_dir / KRK_FILE)
    generated = _decode(data)
    assert len(generated) == len(file_rows) == 28056
    assert set(generated) == set(file_rows)          # as sets of rows with labels
    assert generated == file_rows                    # and in the file's order
    counts = dict(zip(data.classes, np.bincount(data.y).tolist()))
    assert counts == {"draw": 2796, "zero": 27, "one": 78, "two": 246, "three": 81,
                      "four": 198, "five": 471, "six": 592, "seven": 683, "eight": 1433,
                      "nine": 1712, "ten": 1985, "eleven": 2854, "twelve": 3597,
                      "thirteen": 4194, "fourteen": 4553, "fifteen": 2166, "sixteen": 390}
    assert list(data.categorical) == [True, False] * 3


def test_krkopt_returns_independent_copies():
    a = krkopt()
    a.X[0, 0] = 99
    assert krkopt().X[0, 0] != 99


def test_tic_tac_toe_equals_uci_file_row_for_row(uci_dir):
    data = tic_tac_toe()
    file_rows = _file_rows(uci_dir / TTT_FILE)
    generated = _decode(data)
    assert set(generated) == set(file_rows)
    assert generated == file_rows
    assert np.bincount(data.y).tolist() == [626, 332]
    assert data.classes == ("positive", "negative")


def test_balance_scale_equals_uci_file_row_for_row(uci_dir):
    data = balance_scale()
    file_rows = _file_rows(uci_dir / BALANCE_FILE)
    generated = _decode(data, class_first=True)
    assert set(generated) == set(file_rows)
    assert generated == file_rows                    # row order too
    assert generated[0] == ("B", "1", "1", "1", "1")
    assert np.bincount(data.y).tolist() == [288, 49, 288]
    assert data.classes == ("L", "B", "R")


def test_exact_generators_are_deterministic():
    for gen in (krkopt, tic_tac_toe, balance_scale):
        a, b = gen(), gen()
        assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)


# ----------------------------------------------------------------------------- poker

def test_poker_labeller_reproduces_every_training_label(poker_training):
    X, y = poker_training
    assert len(y) == 25010
    labels = poker_label(X)
    assert int((labels == y).sum()) == 25010
    assert tuple(np.bincount(y, minlength=10)) == poker_mod.TRAIN_CLASS_COUNTS


def test_poker_labeller_on_all_hands_gives_textbook_counts():
    _, labels, _ = poker_mod.all_hands()
    assert len(labels) == math.comb(52, 5)
    assert tuple(np.bincount(labels, minlength=10)) == poker_mod.HAND_COUNTS


@pytest.mark.parametrize("hand, label", [
    ([1, 1, 1, 2, 1, 3, 1, 4, 1, 5], 8),       # A-2-3-4-5 suited: straight flush
    ([1, 1, 2, 2, 1, 3, 1, 4, 1, 5], 4),       # A-2-3-4-5 mixed: straight
    ([2, 10, 2, 11, 2, 12, 2, 13, 2, 1], 9),   # royal flush
    ([2, 10, 3, 11, 2, 12, 2, 13, 2, 1], 4),   # broadway, mixed suits: straight
    ([1, 11, 2, 12, 1, 13, 1, 1, 1, 2], 0),    # J-Q-K-A-2 does not wrap
    ([3, 9, 3, 10, 3, 11, 3, 12, 3, 13], 8),   # 9-K suited
    ([3, 2, 3, 10, 3, 11, 3, 12, 3, 13], 5),   # flush
    ([1, 7, 2, 7, 3, 7, 4, 7, 1, 2], 7),       # four of a kind
    ([1, 7, 2, 7, 3, 7, 4, 2, 1, 2], 6),       # full house
    ([1, 7, 2, 7, 3, 7, 4, 2, 1, 3], 3),       # three of a kind
    ([1, 7, 2, 7, 3, 2, 4, 2, 1, 3], 2),       # two pairs
    ([1, 7, 2, 7, 3, 2, 4, 5, 1, 3], 1),       # one pair
])
def test_poker_labeller_rules(hand, label):
    assert poker_label(np.array([hand]))[0] == label


def test_poker_labeller_accepts_both_suit_codings_and_rejects_others():
    file_coding = np.array([[1, 1, 1, 2, 1, 3, 1, 4, 1, 5], [4, 7, 4, 7, 1, 7, 2, 1, 3, 1]])
    codes = file_coding.copy()
    codes[:, 0::2] -= 1
    assert poker_label(file_coding).tolist() == poker_label(codes).tolist() == [8, 6]
    for bad in ([5, 1, 1, 2, 1, 3, 1, 4, 1, 5],      # suit 5
                [1, 0, 1, 2, 1, 3, 1, 4, 1, 5],      # rank 0
                [1, 14, 1, 2, 1, 3, 1, 4, 1, 5],     # rank 14
                [1, 1.5, 1, 2, 1, 3, 1, 4, 1, 5]):   # not an integer
        with pytest.raises(ValueError, match="ranks 1..13"):
            poker_label(np.array([bad]))


def test_poker_hands_are_valid_and_uniform():
    data = poker_hands(20000, seed=5)
    suits, ranks = data.X[:, 0::2].astype(int), data.X[:, 1::2].astype(int)
    assert suits.min() == 0 and suits.max() == 3 and ranks.min() == 1 and ranks.max() == 13
    assert data.categories[0] == ("1", "2", "3", "4") and data.categorical.tolist() == [
        True, False] * 5
    cards = suits * 13 + ranks - 1
    assert (np.sort(cards, axis=1)[:, 1:] != np.sort(cards, axis=1)[:, :-1]).all()  # distinct
    assert np.array_equal(data.y, poker_label(data.X))
    freq = np.bincount(data.y, minlength=10) / len(data.y)
    expected = np.array(poker_mod.HAND_COUNTS) / poker_mod.N_HANDS
    assert abs(freq[0] - expected[0]) < 0.02 and abs(freq[1] - expected[1]) < 0.02
    # cards come in random order within a hand (not sorted)
    assert not (np.diff(cards, axis=1) > 0).all(axis=1).all()


def test_poker_class_counts_are_exact():
    counts = poker_mod.TRAIN_CLASS_COUNTS
    data = poker_hands(seed=3, class_counts=counts)
    assert tuple(np.bincount(data.y, minlength=10)) == counts
    assert np.array_equal(data.y, poker_label(data.X))
    assert data.y[:50].tolist() != sorted(data.y[:50].tolist())   # classes interleaved
    by_name = poker_hands(7, seed=3, class_counts={"9": 3, 8: 4})
    assert np.bincount(by_name.y, minlength=10).tolist() == [0] * 8 + [4, 3]
    with pytest.raises(ValueError, match="sum to"):
        poker_hands(10, seed=3, class_counts=counts)


def test_poker_test_standin_has_test_file_counts():
    data = poker_test_standin(seed=2)
    assert data.X.shape == (1_000_000, 10)
    assert tuple(np.bincount(data.y, minlength=10)) == poker_mod.TEST_CLASS_COUNTS
    assert np.array_equal(data.y, poker_label(data.X))


def test_poker525k_construction(poker_training):
    X_tr, y_tr = poker_training
    data = poker525k(seed=4, training=(X_tr, y_tr))       # the file's suit coding 1..4
    assert data.X.shape == (525_010, 10)
    codes = X_tr.copy()
    codes[:, 0::2] -= 1                                    # catalog coding: suits 0..3
    assert np.array_equal(data.X[:25010], codes) and np.array_equal(data.y[:25010], y_tr)
    assert np.array_equal(data.y, poker_label(data.X))
    same = poker525k(seed=4, training=(codes, y_tr))
    assert np.array_equal(same.X, data.X) and np.array_equal(same.y, data.y)
    # Real test rows are used when given; the chosen half does not depend on where they came
    # from, so passing the stand-in explicitly gives the same result.
    standin = poker_test_standin(seed=4)
    explicit = poker525k(seed=4, training=(X_tr, y_tr), test=standin)
    assert np.array_equal(explicit.X, data.X) and np.array_equal(explicit.y, data.y)
    # The half: 500,000 distinct test rows chosen by PCG64(seed).jumped(1), in file order.
    chosen = np.sort(rng_for(4, 1).permutation(1_000_000)[:500_000])
    assert np.array_equal(data.X[25010:], standin.X[chosen])
    assert np.array_equal(data.y[25010:], standin.y[chosen])
    other = poker525k(seed=5, training=(X_tr, y_tr), test=standin)
    assert not np.array_equal(other.X[25010:], data.X[25010:])


def test_poker525k_rejects_rows_in_another_coding(poker_training):
    X_tr, y_tr = poker_training
    shifted = X_tr.copy()
    shifted[:, 0::2] += 1                              # suits 2..5
    with pytest.raises(ValueError, match="ranks 1..13"):
        poker525k(seed=0, training=(shifted, y_tr))
    mixed = X_tr.copy()
    mixed[:100, 0::2] -= 1                             # some rows 0..3, the rest 1..4
    with pytest.raises(ValueError, match="both 0 and 4"):
        poker525k(seed=0, training=(mixed, y_tr))
    ranks0 = X_tr.copy()
    ranks0[:, 1::2] = (ranks0[:, 1::2] % 13) + 1       # ranks rotated: labels change
    with pytest.raises(ValueError, match="disagree"):
        poker525k(seed=0, training=(ranks0, y_tr))
    with pytest.raises(ValueError, match="disagree"):
        poker525k(seed=0, training=(X_tr, (y_tr + 1) % 10))


def test_poker525k_without_files_is_standin_only():
    data = poker525k(seed=1)
    assert data.X.shape == (525_010, 10)
    assert tuple(np.bincount(data.y[:25010], minlength=10)) == poker_mod.TRAIN_CLASS_COUNTS


# ----------------------------------------------------------------------------- waveform

def test_waveform_structure():
    data = waveform(30000, seed=11)
    assert data.X.shape == (30000, 21) and data.classes == ("0", "1", "2")
    freq = np.bincount(data.y, minlength=3) / 30000
    assert np.all(np.abs(freq - 1 / 3) < 0.015)                     # uniform classes
    assert np.allclose(data.X * 100, np.round(data.X * 100), atol=1e-6)   # 2 decimals
    assert -7 < data.X.min() and data.X.max() < 13
    # Class means are the wave mixtures 0.5 * (hA + hB); the standard error is <= 0.03, and
    # a shifted peak, a permuted class or a wrong pairing moves some mean by >= 0.5.
    theory = class_means()
    for c in range(3):
        mean = data.X[data.y == c].mean(axis=0)
        assert np.abs(mean - theory[c]).max() < 0.15
        for other in set(range(3)) - {c}:
            assert np.abs(mean - theory[other]).max() > 1.0
    # Within a class, x_j - mean_j is u-driven along (hA - hB) plus unit noise:
    # var(x_j) = var(u) * (hA_j - hB_j)^2 + 1 = (hA_j - hB_j)^2 / 12 + 1.
    from mcboost_cli.datasets.generators.waveform import MIXTURES, WAVES
    for c, (a, b) in enumerate(MIXTURES):
        var = data.X[data.y == c].var(axis=0)
        assert np.abs(var - ((WAVES[a] - WAVES[b]) ** 2 / 12 + 1)).max() < 0.4


def test_waveform_matches_uci_file_class_means(uci_dir):
    raw = np.loadtxt(uci_dir / WAVEFORM_FILE, delimiter=",", skiprows=1)
    X_file, y_file = raw[:, :21], raw[:, 21].astype(int)
    data = waveform(5000, seed=0)
    for c in range(3):
        gap = np.abs(data.X[data.y == c].mean(0) - X_file[y_file == c].mean(0)).max()
        assert gap < 0.25


def test_waveform_seeding():
    a, b, c = waveform(500, seed=1), waveform(500, seed=1), waveform(500, seed=2)
    assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)
    assert not np.array_equal(a.X, c.X)


# ----------------------------------------------------------------------------- Long & Servedio

@pytest.mark.parametrize("l", [5, 20])
def test_long_servedio_clean_data_are_separated_by_sign_of_sum(l):
    data = long_servedio(4000, seed=3, l=l)
    n1 = l + 6                                        # blocks of l + 6 and l + 5 (11, 10 at l=5)
    assert data.X.shape == (4000, 2 * l + 11) and data.classes == ("-1", "+1")
    assert set(np.unique(data.X)) == {-1.0, 1.0}
    sign = np.where(data.y == 1, 1.0, -1.0)
    margin = data.X.sum(axis=1) * sign
    # The three example types, in proportions 1/4, 1/4, 1/2, with margins 2l+11, 1, 1.
    z = data.X * sign[:, None]                         # +1 where the coordinate equals y
    large = (z == 1).all(axis=1)
    puller = (z[:, :n1] == 1).all(axis=1) & (z[:, n1:] == -1).all(axis=1)
    penal = ((z[:, :n1] == 1).sum(axis=1) == 5) & ((z[:, n1:] == 1).sum(axis=1) == l + 1)
    assert np.all(large ^ puller ^ penal) and not np.any(large & puller)
    assert abs(large.mean() - 0.25) < 0.03 and abs(puller.mean() - 0.25) < 0.03
    assert abs(penal.mean() - 0.5) < 0.03
    assert abs(data.y.mean() - 0.5) < 0.03
    assert np.all(margin[large] == 2 * l + 11) and np.all(margin[~large] == 1)


@pytest.mark.parametrize("l", [5, 20])
def test_long_servedio_best_vote_of_coordinates_has_the_all_ones_margin(l):
    # The largest L1-normalised margin of any vote of +-x_i on clean data is 1 / (2l + 11),
    # the margin of sign(sum x) on pullers and penalizers, for every l (LP by HiGHS): the
    # data stay separable with the l = 5 structure (the form with blocks of 11 and 2l had
    # margin 0 at l = 20).
    from scipy.optimize import linprog
    data = long_servedio(1000, seed=0, l=l)
    sign = np.where(data.y == 1, 1.0, -1.0)
    H = np.hstack([data.X, -data.X]) * sign[:, None]
    n, d = H.shape
    c = np.zeros(d + 1)
    c[-1] = -1.0                                       # maximise rho
    res = linprog(c, A_ub=np.hstack([-H, np.ones((n, 1))]), b_ub=np.zeros(n),
                  A_eq=np.r_[np.ones(d), 0.0][None, :], b_eq=[1.0],
                  bounds=[(0, None)] * d + [(None, None)], method="highs")
    assert res.status == 0
    assert -res.fun == pytest.approx(1.0 / (2 * l + 11), abs=1e-9)


@pytest.mark.parametrize("n, rate", [(1000, 0.1), (999, 0.2), (500, 0.0), (10, 0.35)])
def test_long_servedio_noise_rate_is_exact(n, rate):
    clean = long_servedio(n, seed=9)
    noisy = long_servedio(n, seed=9, noise_rate=rate)
    assert np.array_equal(clean.X, noisy.X)
    assert int((clean.y != noisy.y).sum()) == n_flipped(n, rate) == math.floor(rate * n + 1e-9)


def test_long_servedio_test_rows_stay_clean():
    data = long_servedio(300, seed=4, noise_rate=0.3, n_test=200)
    assert data.test_mask is not None and data.test_mask.sum() == 200
    assert not data.test_mask[:300].any()
    sign = np.where(data.y == 1, 1.0, -1.0)
    agrees = np.sign(data.X.sum(axis=1)) == sign
    assert agrees[data.test_mask].all()
    assert int((~agrees[~data.test_mask]).sum()) == 90
    assert long_servedio(10, seed=4).test_mask is None


def test_long_servedio_general_l_shape_and_seeding():
    data = long_servedio(100, seed=1, l=7)
    assert data.X.shape == (100, 25)
    a, b, c = long_servedio(100, seed=1), long_servedio(100, seed=1), long_servedio(100, seed=2)
    assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)
    assert not np.array_equal(a.X, c.X)
    with pytest.raises(ValueError):
        long_servedio(10, seed=1, noise_rate=1.5)


# ----------------------------------------------------------------------------- seeding

@pytest.mark.parametrize("gen, kwargs", [
    (poker_hands, {"n": 1000}),
    (poker_hands, {"class_counts": (10, 10, 10, 10, 10, 10, 10, 10, 10, 10)}),
    (waveform, {"n": 300}),
    (long_servedio, {"n": 300, "noise_rate": 0.1}),
    (mcboost_gaussians, {"n": 300, "n_test": 50}),
    (mcboost_gaussians, {"n": 300, "balanced": True}),
])
def test_seeded_generators_are_deterministic_and_seed_dependent(gen, kwargs):
    a, b, c = gen(seed=12, **kwargs), gen(seed=12, **kwargs), gen(seed=13, **kwargs)
    assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)
    assert not (np.array_equal(a.X, c.X) and np.array_equal(a.y, c.y))


def test_seed_must_be_a_non_negative_integer():
    with pytest.raises(ValueError, match="seed"):
        waveform(10, seed=-1)
    with pytest.raises(ValueError, match="seed"):
        waveform(10, seed=1.5)
