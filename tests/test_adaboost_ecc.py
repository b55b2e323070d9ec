"""AdaBoost.ECC (``algorithms/adaboost_ecc``): the kernels against their numpy twins, the whole
fit against a brute-force numpy re-implementation of Guruswami & Sahai's loop, the K = 2
reduction to discrete AdaBoost (SAMME with error-minimising stumps), the pseudo-loss that
falls every round, and the random-half colorings."""

import numpy as np
import pytest

from mcboost_cli.algorithms.adaboost import SAMME
from mcboost_cli.algorithms.adaboost_ecc import (
    AdaBoostECC,
    _binary_weights,
    _reweight,
    alpha_of_error,
    binary_weights_naive,
    coloring_of_round,
    reweight_naive,
)

from ._synthetic import ordinal_classes

_data = ordinal_classes


def _pair_weights(rng, y, K):
    D = rng.random((len(y), K))
    D[np.arange(len(y)), y] = 0.0
    return D / D.sum()


def test_kernels_equal_their_numpy_twins():
    rng = np.random.default_rng(1)
    K = 6
    y = rng.integers(0, K, 50).astype(np.int32)
    D = _pair_weights(rng, y, K)
    mu = coloring_of_round(7, 3, K)
    G = np.zeros((50, 1))
    u = _binary_weights(D, y, mu, G)
    g_ref, u_ref = binary_weights_naive(D, y, mu)
    np.testing.assert_allclose(G[:, 0], g_ref, rtol=1e-13)
    assert u == pytest.approx(u_ref, rel=1e-13)
    h = np.where(rng.random(50) < 0.5, 1, -1).astype(np.int8)
    D_fast = D.copy()
    z = _reweight(D_fast, y, mu, h, 0.37)
    D_ref, z_ref = reweight_naive(D, y, mu, h, 0.37)
    np.testing.assert_allclose(D_fast, D_ref, rtol=1e-13)
    assert z == pytest.approx(z_ref, rel=1e-13)


def _brute_force_stump(Xb, n_bins, g):
    """Stump of largest |sum g| + |sum g| over its sides (first feature, lowest threshold on
    ties; no split unless it beats the root's |sum g|): (feature, threshold) or None."""
    best, best_f, best_t = -np.inf, None, None
    for f in range(Xb.shape[1]):
        for t in range(int(n_bins[f]) - 1):
            left = Xb[:, f] <= t
            if left.all() or not left.any() or not (Xb[:, f] == t).any():
                continue
            score = abs(g[left].sum()) + abs(g[~left].sum())
            if best_f is None or score > best + 1e-12 * (1 + abs(best)):
                best, best_f, best_t = score, f, t
    if best_f is None or not best > abs(g.sum()) + 1e-12 * (1 + abs(g.sum())):
        return None
    return best_f, best_t


def _ecc_reference(Xb, n_bins, y, K, n_rounds, random_state):
    """Guruswami & Sahai's loop in numpy, stumps by brute force: the training scores
    f(x_i, l) after each round."""
    n = len(y)
    D = np.full((n, K), 1.0 / (n * (K - 1)))
    D[np.arange(n), y] = 0.0
    f = np.zeros((n, K))
    out = []
    for t in range(n_rounds):
        mu = coloring_of_round(random_state, t, K).astype(float)
        separated = mu[None, :] != mu[y][:, None]
        dt = (D * separated).sum(axis=1)
        dt /= dt.sum()
        g = dt * mu[y]
        split = _brute_force_stump(Xb, n_bins, g)
        if split is None:
            h = np.full(n, 1.0 if g.sum() >= 0 else -1.0)
        else:
            left = Xb[:, split[0]] <= split[1]
            h = np.where(left, 1.0 if g[left].sum() >= 0 else -1.0,
                         1.0 if g[~left].sum() >= 0 else -1.0)
        eps = dt[h != mu[y]].sum()
        if eps >= 0.5:
            break
        alpha = 0.5 * np.log((1 - eps) / eps)
        D = np.where(separated, D * np.exp(-alpha * h * mu[y])[:, None], D)
        D /= D.sum()
        f += alpha * h[:, None] * mu[None, :]
        out.append(f.copy())
    return out


def test_fit_equals_brute_force_reference():
    X, y = _data()
    K = 5
    est = AdaBoostECC(n_rounds=25, max_bins=12, random_state=11).fit(X, y)
    Xb = est._bin(X)
    ref = _ecc_reference(Xb, est.bin_mapper_.n_bins_, y, K, 25, 11)
    assert est.n_rounds_ == len(ref) == 25
    for t, scores in enumerate(est.staged_class_scores(X)):
        np.testing.assert_allclose(scores, ref[t], rtol=1e-10, atol=1e-12)


def test_two_classes_is_discrete_adaboost():
    """K = 2: each coloring separates the two labels, D(i, other) is AdaBoost's weight, and
    alpha is half of SAMME's log((1 - err) / err) (SAMME is AdaBoost.M1 for K = 2): the same
    stumps, hence the same predictions after every round."""
    X, y = _data(2, K=2, noise=1.0)
    Xt, yt = _data(3, K=2, noise=1.0)
    ecc = AdaBoostECC(n_rounds=30, random_state=5).fit(X, y)
    samme = SAMME(n_rounds=30, max_depth=1, split_criterion="error").fit(X, y)
    assert ecc.n_rounds_ == samme.n_rounds_ == 30
    for Xs in (X, Xt):
        for p_ecc, p_samme in zip(ecc.staged_predict(Xs), samme.staged_predict(Xs)):
            np.testing.assert_array_equal(p_ecc, p_samme)
    np.testing.assert_allclose(2 * ecc.alphas_, samme.forest_.alpha, rtol=1e-12)


def test_pseudo_loss_falls_every_round():
    """L_T = (1/(n(K-1))) sum_i sum_{l != y_i} exp((f(x_i, l) - f(x_i, y_i)) / 2) equals the
    product of the rounds' Z_t, each below 1."""
    X, y = _data(4, K=6)
    est = AdaBoostECC(n_rounds=40, random_state=2).fit(X, y)
    n, K = len(y), 6
    losses = []
    for f in est.staged_class_scores(X):
        margin = (f - f[np.arange(n), y][:, None]) / 2
        e = np.exp(margin)
        e[np.arange(n), y] = 0.0
        losses.append(e.sum() / (n * (K - 1)))
    np.testing.assert_allclose(losses, np.cumprod(est.loss_factors_), rtol=1e-10)
    assert np.all(est.loss_factors_ < 1.0)
    assert np.all(np.diff(losses) < 0)


def test_colorings_are_random_halves_fixed_by_the_seed():
    X, y = _data(5, K=7)
    a = AdaBoostECC(n_rounds=12, random_state=1).fit(X, y)
    b = AdaBoostECC(n_rounds=12, random_state=1).fit(X, y)
    c = AdaBoostECC(n_rounds=12, random_state=2).fit(X, y)
    assert np.all((a.colorings_ == 1).sum(axis=1) == 3)       # floor(7 / 2) labels are +1
    assert np.all(np.abs(a.colorings_) == 1)
    np.testing.assert_array_equal(a.colorings_, b.colorings_)
    np.testing.assert_array_equal(a.class_scores(X), b.class_scores(X))
    assert not np.array_equal(a.colorings_, c.colorings_)
    # Over many rounds each label is +1 about half the time (a uniform permutation).
    mus = np.array([coloring_of_round(0, t, 7) for t in range(700)])
    np.testing.assert_allclose((mus == 1).mean(axis=0), 3 / 7, atol=0.06)


def test_alpha_of_error():
    assert alpha_of_error(0.25) == pytest.approx(0.5 * np.log(3.0))
    assert alpha_of_error(0.0) == pytest.approx(0.5 * np.log(1000.0))
