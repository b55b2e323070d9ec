"""AOSO-LogitBoost (``algorithms/aoso_logitboost``): the pair choice against its numpy twin,
the whole fit against a brute-force numpy re-implementation of the paper's stump round, the
K = 2 reduction to binary LogitBoost (Friedman, Hastie & Tibshirani, Algorithm 3) and the
recorded loss."""

import numpy as np
import pytest

from mcboost_cli.algorithms.aoso_logitboost import (
    MAX_STEP,
    AOSOLogitBoost,
    _best_pair,
    best_pair_naive,
    multinomial_loss,
)

from ._synthetic import ordinal_classes

_data = ordinal_classes


def _softmax(F):
    e = np.exp(F - F.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_best_pair_equals_numpy_twin():
    rng = np.random.default_rng(3)
    for K in (2, 3, 7):
        y = rng.integers(0, K, 80).astype(np.int32)
        P = _softmax(2 * rng.normal(size=(80, K)))
        scratch = np.zeros((3, K))
        rows = np.arange(80, dtype=np.int32)
        assert _best_pair(P, y, rows, 0, 80, *scratch) == best_pair_naive(P, y)


def _brute_force_stump(Xb, n_bins, w, wz):
    """Split of largest (sum wz)^2 / sum w summed over its sides (first feature, lowest
    threshold on ties; none unless it beats the root): (feature, threshold) or None."""
    def side(mask):
        return wz[mask].sum() ** 2 / w[mask].sum()
    root = wz.sum() ** 2 / w.sum()
    best, best_split = None, None
    for f in range(Xb.shape[1]):
        for t in range(int(n_bins[f]) - 1):
            left = Xb[:, f] <= t
            if left.all() or not left.any() or not (Xb[:, f] == t).any():
                continue
            score = side(left) + side(~left)
            if best is None or score > best + 1e-12 * (1 + abs(best)):
                best, best_split = score, (f, t)
    if best is None or not best > root + 1e-12 * (1 + abs(root)):
        return None
    return best_split


def _pair(P, y, rows):
    """The paper's adaptive pair on the given rows (written from its definition)."""
    K = P.shape[1]
    g = np.eye(K)[y[rows]] - P[rows]
    mg = g.sum(axis=0)
    r = 0
    for k in range(1, K):       # ties (rounding apart) go to the lowest class
        if mg[k] > mg[r] + 1e-12 * (1 + abs(mg[r])):
            r = k
    best, s = -1.0, None
    for k in range(K):
        if k == r:
            continue
        pr, pk = P[rows, r], P[rows, k]
        h = (pr * (1 - pr) + pk * (1 - pk) + 2 * pr * pk).sum()
        gain = (g[:, r].sum() - g[:, k].sum()) ** 2 / (h if h != 0 else 1.0)
        if gain > best + 1e-12 * (1 + abs(best)):
            best, s = gain, k
    return r, s


def _aoso_reference(Xb, n_bins, y, K, n_rounds, v):
    """AOSO-LogitBoost with stumps in numpy: the training scores F after each round."""
    n = len(y)
    F = np.zeros((n, K))
    rows = np.arange(n)
    out = []
    for _ in range(n_rounds):
        P = _softmax(F)
        g = np.eye(K)[y] - P
        r, s = _pair(P, y, rows)
        h = P[:, r] * (1 - P[:, r]) + P[:, s] * (1 - P[:, s]) + 2 * P[:, r] * P[:, s]
        split = _brute_force_stump(Xb, n_bins, h, g[:, r] - g[:, s])
        leaves = ([rows] if split is None else
                  [rows[Xb[:, split[0]] <= split[1]], rows[Xb[:, split[0]] > split[1]]])
        for leaf in leaves:
            a, b = _pair(P, y, leaf)
            ha = (P[leaf, a] * (1 - P[leaf, a]) + P[leaf, b] * (1 - P[leaf, b])
                  + 2 * P[leaf, a] * P[leaf, b]).sum()
            step = np.clip((g[leaf, a] - g[leaf, b]).sum() / ha, -MAX_STEP, MAX_STEP)
            F[leaf, a] += v * step
            F[leaf, b] -= v * step
        out.append(F.copy())
    return out


@pytest.mark.parametrize("K", [3, 6])
def test_fit_equals_brute_force_reference(K):
    X, y = _data(K=K)
    est = AOSOLogitBoost(n_rounds=25, learning_rate=0.5, max_bins=12).fit(X, y)
    ref = _aoso_reference(est._bin(X), est.bin_mapper_.n_bins_, y, K, 25, 0.5)
    for t, scores in enumerate(est.staged_class_scores(X)):
        np.testing.assert_allclose(scores, ref[t], rtol=1e-9, atol=1e-12)


def test_two_classes_is_binary_logitboost():
    """K = 2: F_0 - F_1 is the log-odds of class 0 and every stump is binary LogitBoost's
    weighted least-squares regression stump on z = (y* - p) / (p (1 - p)), w = p (1 - p),
    its leaf the weighted mean of z, added with shrinkage v (the step clip at 5 becomes 10 on
    the log-odds; FHT's own clip of z is not part of AOSO)."""
    X, y = _data(2, K=2, noise=1.0)
    v = 0.3
    est = AOSOLogitBoost(n_rounds=30, learning_rate=v, max_bins=16).fit(X, y)
    Xb, n_bins = est._bin(X), est.bin_mapper_.n_bins_
    ystar = (y == 0).astype(float)
    log_odds = np.zeros(len(y))
    for scores in est.staged_class_scores(X):
        p = 1 / (1 + np.exp(-log_odds))
        w = p * (1 - p)
        z = (ystar - p) / w
        split = _brute_force_stump(Xb, n_bins, w, w * z)
        leaves = ([np.ones(len(y), bool)] if split is None else
                  [Xb[:, split[0]] <= split[1], Xb[:, split[0]] > split[1]])
        for leaf in leaves:
            fit = np.clip((w[leaf] * z[leaf]).sum() / w[leaf].sum(), -2 * MAX_STEP,
                          2 * MAX_STEP)
            log_odds[leaf] += v * fit
        np.testing.assert_allclose(scores[:, 0] - scores[:, 1], log_odds, rtol=1e-9,
                                   atol=1e-12)
        np.testing.assert_allclose(scores.sum(axis=1), 0.0, atol=1e-12)   # sum-to-zero


def test_recorded_loss_is_the_multinomial_loss_of_the_scores():
    X, y = _data(4, K=4)
    est = AOSOLogitBoost(n_rounds=20).fit(X, y)
    losses = [multinomial_loss(f, y) for f in est.staged_class_scores(X)]
    np.testing.assert_allclose(est.train_losses_, losses, rtol=1e-10)
    # Newton steps with shrinkage 0.1 on this data lower it every round (the paper states no
    # guarantee; a sign error in the step or the pair would raise it).
    assert np.all(np.diff(np.r_[len(y) * np.log(4), losses]) < 0)
    assert est.root_pairs_.shape == (20, 2)
    assert np.all(est.root_pairs_[:, 0] != est.root_pairs_[:, 1])
