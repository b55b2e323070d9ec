"""CD-/GD-MCBoost, AdaBoost-Cost (AdaBoost.MM) and one-vs-all AdaBoost: codewords, reductions to
binary AdaBoost, monotone risk, exact line searches, the paper's synthetic example."""

import numpy as np
import pytest

from mcboost_cli.algorithms import _pairwise_exp as pe
from mcboost_cli.algorithms.adaboost_cost import AdaBoostCost
from mcboost_cli.algorithms.codewords import simplex_codewords, simplex_gram
from mcboost_cli.algorithms.mcboost import CDMCBoost, GDMCBoost, coordinate_channel
from mcboost_cli.algorithms.one_vs_all import OneVsAllAdaBoost
from mcboost_cli.learners.binning import BinMapper
from mcboost_cli.learners.histogram_tree import CRITERION_ABS_SUM
from mcboost_cli.learners.naive_tree import grow_tree_naive

# ---------------------------------------------------------------------------------------------
# data and plain references
# ---------------------------------------------------------------------------------------------


def _blobs(seed, n=300, K=3, F=4, noise=1.0):
    """K overlapping classes (no stump or shallow tree separates them perfectly)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    centers = rng.normal(scale=1.5, size=(K, F))
    X = centers[y] + noise * rng.normal(size=(n, F))
    return X, y


def _walk(tree, X_binned):
    leaf = np.zeros(X_binned.shape[0], int)
    for i in range(X_binned.shape[0]):
        nd = 0
        while tree["left"][nd] >= 0:
            go_left = X_binned[i, tree["feature"][nd]] <= tree["threshold"][nd]
            nd = tree["left"][nd] if go_left else tree["right"][nd]
        leaf[i] = nd
    return leaf


def _binary_adaboost(X_binned, y_pm, n_bins, n_rounds, depth, X_eval=None):
    """Discrete AdaBoost (Freund & Schapire 1997) written out plainly: each round the tree of
    least weighted error with majority-sign leaves (the naive tree maximising sum over leaves
    of |sum of w y|), err = weighted error, alpha = 1/2 log((1-err)/err), w *= exp(-alpha y h),
    F += alpha h. Returns F on the training set (and on X_eval) and the alphas."""
    n = len(y_pm)
    w = np.full(n, 1.0 / n)
    F = np.zeros(n)
    F_eval = None if X_eval is None else np.zeros(X_eval.shape[0])
    alphas = []
    for _ in range(n_rounds):
        tree = grow_tree_naive(X_binned, np.zeros(n, np.int32), n_bins, CRITERION_ABS_SUM, 1,
                               depth, channel_values=(w * y_pm)[:, None])
        leaf_out = np.where(tree["node_sum"][:, 0] >= 0, 1.0, -1.0)
        h = leaf_out[_walk(tree, X_binned)]
        err = w[h != y_pm].sum() / w.sum()
        if err >= 0.5 or err <= 0:
            break
        alpha = 0.5 * np.log((1 - err) / err)
        alphas.append(alpha)
        F += alpha * h
        if X_eval is not None:
            F_eval += alpha * leaf_out[_walk(tree, X_eval)]
        w *= np.exp(-alpha * y_pm * h)
        w /= w.sum()
    return F, F_eval, np.array(alphas)


def _mcboost_risk(scores, y):
    """Empirical risk of eq. (13) with the loss of eq. (15): scores[i, k] = <f(x_i), y^k>, so
    -1/2 <f, y_i - y^k> = 1/2 (scores[i, k] - scores[i, y_i])."""
    s_true = scores[np.arange(len(y)), y][:, None]
    return float(np.exp(0.5 * (scores - s_true)).sum())


def _binned(X, max_bins=255):
    mapper = BinMapper(max_bins=max_bins).fit(X)
    return mapper, mapper.transform(X), mapper.n_bins_.astype(np.int32)


# ---------------------------------------------------------------------------------------------
# codewords
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("M", range(2, 31))
def test_codewords_are_a_regular_simplex(M):
    Y = simplex_codewords(M)
    assert Y.shape == (M, M - 1)
    np.testing.assert_allclose(np.linalg.norm(Y, axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(Y.sum(axis=0), 0.0, atol=1e-12)          # centroid at 0
    d = np.linalg.norm(Y[:, None, :] - Y[None, :, :], axis=2)
    off = d[~np.eye(M, dtype=bool)]
    np.testing.assert_allclose(off, np.sqrt(2.0 * M / (M - 1)), atol=1e-12)  # all equal
    np.testing.assert_allclose(Y @ Y.T, simplex_gram(M), atol=1e-12)
    np.testing.assert_array_equal(Y, simplex_codewords(M))                 # deterministic
    assert np.linalg.matrix_rank(Y) == M - 1                               # spans R^{M-1}


def test_binary_codewords_are_plus_and_minus_one():
    np.testing.assert_array_equal(simplex_codewords(2), [[1.0], [-1.0]])
    with pytest.raises(ValueError):
        simplex_codewords(1)


# ---------------------------------------------------------------------------------------------
# weights (eqs. 24 and 31) against the formulas written out
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("M", [2, 3, 5, 8])
def test_weights_match_equations_24_and_31(M):
    rng = np.random.default_rng(M)
    n = 50
    Y = simplex_codewords(M)
    f = rng.normal(size=(n, M - 1))                   # an arbitrary predictor f(x_i)
    y = rng.integers(0, M, n).astype(np.int32)
    yi = Y[y]                                         # y_i as codewords
    proj = f @ Y.T                                    # <f(x_i), y^k>
    c = np.exp(-0.5 * (np.einsum("id,id->i", f, yi)[:, None] - proj))
    Z = c.sum() - n                                   # the k = y_i terms are exp(0) = 1
    # eq. (31): w_i = 1/2 e^{-1/2<f, y_i>} sum_k (y_i - y^k) e^{1/2<f, y^k>}
    w = 0.5 * np.exp(-0.5 * np.einsum("id,id->i", f, yi))[:, None] * np.einsum(
        "ikd,ik->id", yi[:, None, :] - Y[None, :, :], np.exp(0.5 * proj))
    G = np.zeros((n, M))
    assert pe.cost_channels(c, y, M / (2.0 * (M - 1)), G) == pytest.approx(Z, rel=1e-12)
    np.testing.assert_allclose(G, (w @ Y.T) / Z, rtol=1e-10, atol=1e-14)
    # eq. (24): w_i^j = the j-th component of w_i (1_j picks it).
    G1 = np.zeros((n, 1))
    for j in range(M - 1):
        coordinate_channel(c, y, np.ascontiguousarray(Y[:, j]), G1)
        np.testing.assert_allclose(G1[:, 0], w[:, j] / Z, rtol=1e-10, atol=1e-14)


# ---------------------------------------------------------------------------------------------
# M = 2: both MCBoosts (and AdaBoost.MM) are binary AdaBoost
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("algo,depth", [(CDMCBoost, 1), (GDMCBoost, 1), (GDMCBoost, 2),
                                        (CDMCBoost, 2), (AdaBoostCost, 2)])
@pytest.mark.parametrize("seed", range(2))
def test_two_classes_reduce_to_binary_adaboost(algo, depth, seed):
    rng = np.random.default_rng(200 + seed)
    X = rng.normal(size=(240, 4))
    y = np.where(X[:, 0] * X[:, 1] + 0.4 * X[:, 2] + 0.5 * rng.normal(size=240) > 0, 1, 0)
    Xt = rng.normal(size=(200, 4))
    mapper, Xb, n_bins = _binned(X, 32)
    y_pm = np.where(y == 0, 1.0, -1.0)                # class code 0 <-> codeword +1
    T = 25
    F, F_test, alphas = _binary_adaboost(Xb, y_pm, n_bins, T, depth, mapper.transform(Xt))
    est = algo(n_rounds=T, max_depth=depth, max_bins=32).fit(X, y)
    assert est.n_rounds_ == len(alphas) == T
    np.testing.assert_allclose(est.forest_.alpha, alphas, rtol=1e-8)
    S = est.class_scores(X)
    if algo is AdaBoostCost:                          # f(x, 0) - f(x, 1) is AdaBoost's F
        np.testing.assert_allclose(S[:, 0] - S[:, 1], F, rtol=1e-8, atol=1e-10)
    else:                                             # <f, y^1> = f = F, <f, y^2> = -F
        np.testing.assert_allclose(S[:, 0], F, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(S[:, 1], -F, rtol=1e-8, atol=1e-10)
    np.testing.assert_array_equal(est.predict(X), np.where(F >= 0, 0, 1))
    np.testing.assert_array_equal(est.predict(Xt), np.where(F_test >= 0, 0, 1))


# ---------------------------------------------------------------------------------------------
# the risk of eqs. (13)/(15) never increases; each step is the exact minimiser along its line
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("algo,params", [(CDMCBoost, {"max_depth": 1}),
                                         (CDMCBoost, {"max_depth": 2}),
                                         (GDMCBoost, {"max_depth": 2})])
def test_mcboost_risk_never_increases_and_steps_are_exact(algo, params):
    X, y = _blobs(7, n=400, K=4)
    est = algo(n_rounds=40, **params).fit(X, y)
    assert est.n_rounds_ == 40
    n, M = len(y), 4
    prev = np.zeros((n, M))
    risks = [_mcboost_risk(prev, y)]
    assert risks[0] == pytest.approx(n * M)           # f^0 = 0: every term is 1
    for t, S in enumerate(est.staged_class_scores(X)):
        risks.append(_mcboost_risk(S, y))
        # The round's step along its weak learner: D = (S - prev) / alpha; the derivative of
        # the risk along D vanishes at alpha (eqs. (26)/(33): alpha is the argmin).
        alpha = est.forest_.alpha[t]
        assert alpha > 0
        D = (S - prev) / alpha
        s_true = prev[np.arange(n), y][:, None]
        d_true = D[np.arange(n), y][:, None]
        terms = 0.5 * (D - d_true) * np.exp(0.5 * (prev + alpha * D - s_true - alpha * d_true))
        assert abs(terms.sum()) <= 1e-9 * np.abs(terms).sum()
        prev = S
    risks = np.array(risks)
    assert np.all(np.diff(risks) <= 1e-12 * risks[:-1])
    assert risks[-1] < 0.5 * risks[0]


def test_cd_mcboost_cycles_components_and_gd_leaves_are_codewords():
    X, y = _blobs(8, n=300, K=4)
    M = 4
    cd = CDMCBoost(n_rounds=9).fit(X, y)
    Y = cd.codewords_
    prev = np.zeros((len(y), M))
    for t, S in enumerate(cd.staged_class_scores(X)):
        # f_j += alpha g with g = +-1: the score change is +-alpha y^k_j, j = t mod (M - 1).
        j = t % (M - 1)
        delta = (S - prev) / cd.forest_.alpha[t]
        g = delta[:, 0] / Y[0, j] if Y[0, j] != 0 else delta[:, -1] / Y[-1, j]
        np.testing.assert_allclose(np.abs(g), 1.0, rtol=1e-9)
        np.testing.assert_allclose(delta, g[:, None] * Y[:, j][None, :], atol=1e-9)
        prev = S
    gd = GDMCBoost(n_rounds=5, max_depth=2).fit(X, y)
    prev = np.zeros((len(y), M))
    gram = simplex_gram(M)
    for t, S in enumerate(gd.staged_class_scores(X)):
        delta = (S - prev) / gd.forest_.alpha[t]
        # Every sample's change is alpha <y^c, y^k> for the codeword c of its leaf.
        c = np.argmax(delta, axis=1)
        np.testing.assert_allclose(delta, gram[c], atol=1e-9)
        prev = S


def test_gd_mcboost_step_has_the_closed_form():
    """Along a codeword-valued tree the risk is A e^{-b a} + B e^{b a} + const with
    b = M / (2 (M - 1)), A = off-class terms of the correctly labelled samples, B = terms of
    the wrong codeword of the others; its minimiser is ln(A / B) / (2 b)."""
    X, y = _blobs(9, n=400, K=5)
    M, n = 5, len(y)
    est = GDMCBoost(n_rounds=12, max_depth=2).fit(X, y)
    prev = np.zeros((n, M))
    b = M / (2.0 * (M - 1))
    for t, S in enumerate(est.staged_class_scores(X)):
        h = np.argmax(S - prev, axis=1)                   # the leaf's codeword per sample
        c = np.exp(0.5 * (prev - prev[np.arange(n), y][:, None]))
        c[np.arange(n), y] = 0.0
        correct = h == y
        A = c[correct].sum()
        B = c[~correct, h[~correct]].sum()
        assert est.forest_.alpha[t] == pytest.approx(np.log(A / B) / (2 * b), rel=1e-9)
        prev = S


# ---------------------------------------------------------------------------------------------
# line search against brute force
# ---------------------------------------------------------------------------------------------


def _grid_argmin(U, A):
    """Brute force: a coarse grid over [-60, 60], then a fine grid (step 1e-6) around the
    coarse minimiser, of the alpha-dependent part of R (the constant only hides its variation
    in double precision)."""
    coarse = np.linspace(-60, 60, 120_001)                     # step 1e-3
    r = (A[None, :] * np.exp(np.clip(np.outer(coarse, U), -700, 700))).sum(axis=1)
    a0 = coarse[np.argmin(r)]
    fine = np.linspace(a0 - 2e-3, a0 + 2e-3, 4001)             # step 1e-6
    r = (A[None, :] * np.exp(np.outer(fine, U))).sum(axis=1)
    return fine[np.argmin(r)], 1e-6


def _check_line_search(U, A, constant):
    alpha, status = pe.line_search(U, A, constant, pe.LINE_SEARCH_TOL)
    if status == pe.STEP_FINITE:
        a_grid, step = _grid_argmin(U, A)
        if abs(a_grid) < 59:                                   # minimiser inside the grid
            assert abs(alpha - a_grid) <= step
            assert pe.risk_along(U, A, 0.0, alpha) <= (
                pe.risk_along(U, A, 0.0, a_grid) * (1 + 1e-14))
    return alpha, status


def test_line_search_matches_brute_force_on_random_problems():
    rng = np.random.default_rng(0)
    for _ in range(200):
        n_u = int(rng.integers(2, 8))
        U = np.sort(rng.normal(scale=rng.choice([0.3, 1.0, 3.0]), size=n_u))
        A = rng.random(n_u) * 10.0 ** rng.uniform(-6, 3, n_u)
        A[rng.random(n_u) < 0.2] = 0.0
        _check_line_search(U, A, float(rng.uniform(1, 100)))


def test_line_search_unbounded_and_flat_cases():
    # Only decreasing terms: unbounded; alpha makes them negligible next to the constant.
    U = np.array([-1.0, -0.5, 0.0])
    A = np.array([3.0, 2.0, 4.0])
    alpha, status = pe.line_search(U, A, 10.0, pe.LINE_SEARCH_TOL)
    assert status == pe.STEP_UNBOUNDED and alpha > 0
    vanishing = pe.risk_along(U[:2], A[:2], 0.0, alpha)
    assert vanishing <= np.finfo(float).eps * (10.0 + 4.0)
    assert pe.risk_along(U, A, 10.0, alpha) == 14.0            # the infimum, in doubles
    # Mirror image: only increasing terms, the step is negative.
    alpha, status = pe.line_search(-U, A, 10.0, pe.LINE_SEARCH_TOL)
    assert status == pe.STEP_UNBOUNDED and alpha < 0
    # Nothing depends on alpha.
    assert pe.line_search(np.array([0.0]), np.array([5.0]), 1.0, 1e-12) == (0.0, pe.STEP_FLAT)


@pytest.mark.parametrize("algo,params", [(CDMCBoost, {"max_depth": 1}),
                                         (GDMCBoost, {"max_depth": 3})])
def test_line_search_calls_of_real_fits_match_brute_force(algo, params, monkeypatch):
    from mcboost_cli.algorithms import mcboost
    calls = []
    original = mcboost.line_search

    def spy(U, A, constant, tol):
        calls.append((U.copy(), A.copy(), constant))
        return original(U, A, constant, tol)

    monkeypatch.setattr(mcboost, "line_search", spy)
    X, y = _blobs(11, n=300, K=5)
    est = algo(n_rounds=25, **params).fit(X, y)
    assert len(calls) == est.n_rounds_ == 25
    for (U, A, constant), alpha in zip(calls, est.forest_.alpha):
        got, status = _check_line_search(U, A, constant)
        assert status == pe.STEP_FINITE and got == alpha


# ---------------------------------------------------------------------------------------------
# the paper's synthetic example (sec. 5.1)
# ---------------------------------------------------------------------------------------------

_MEANS = np.array([[1.0, 2.0], [-1.0, 0.0], [2.0, -1.0]])
_COVS = np.array([[[1.0, 0.5], [0.5, 2.0]], [[1.0, 0.3], [0.3, 1.0]], [[0.4, 0.1], [0.1, 0.8]]])


def _gaussians(rng, n):
    """Equal priors (the paper does not give them): label uniform, then x ~ N(mean, cov)."""
    y = rng.integers(0, 3, n)
    X = np.empty((n, 2))
    for k in range(3):
        idx = y == k
        X[idx] = rng.multivariate_normal(_MEANS[k], _COVS[k], size=idx.sum())
    return X, y


def _bayes_predict(X):
    """argmax_k N(x; mean_k, cov_k) (equal priors), in closed form."""
    logp = np.empty((X.shape[0], 3))
    for k in range(3):
        d = X - _MEANS[k]
        inv = np.linalg.inv(_COVS[k])
        logp[:, k] = -0.5 * np.einsum("ij,jk,ik->i", d, inv, d) - 0.5 * np.log(
            np.linalg.det(_COVS[k]))
    return np.argmax(logp, axis=1)


def synthetic_example(seed=0, n_rounds=100):
    """Train/test error of CD-MCBoost with stumps and the Bayes error of both samples."""
    rng = np.random.default_rng(seed)
    X, y = _gaussians(rng, 1000)
    Xt, yt = _gaussians(rng, 1000)
    est = CDMCBoost(n_rounds=n_rounds, max_depth=1).fit(X, y, eval_set=[(Xt, yt)])
    return {"train_error": est.train_errors_[-1], "test_error": est.eval_errors_[0, -1],
            "bayes_train": float(np.mean(_bayes_predict(X) != y)),
            "bayes_test": float(np.mean(_bayes_predict(Xt) != yt))}


def test_synthetic_example_cd_mcboost_reaches_bayes_error():
    """Sec. 5.1: three 2-D Gaussians, 1000 training and 1000 test examples, CD-MCBoost with
    decision stumps (100 iterations, the last of the paper's Fig. 2). The paper's Bayes error
    is 11.13% on its test sample; ours is computed on our seeded sample."""
    r = synthetic_example()
    assert abs(r["test_error"] - r["bayes_test"]) <= 0.02
    assert abs(r["test_error"] - 0.1113) <= 0.02


# ---------------------------------------------------------------------------------------------
# AdaBoost-Cost (AdaBoost.MM)
# ---------------------------------------------------------------------------------------------


def test_adaboost_cost_follows_adaboost_mm():
    """Each round: cost C(i, l) = exp(f(i, l) - f(i, y_i)) (l != y_i), C(i, y_i) = -sum;
    delta = -sum_i C(i, h(x_i)) / sum_i sum_{l != y_i} C(i, l); alpha = 1/2 ln((1+d)/(1-d));
    the exponential loss never increases (Mukherjee & Schapire)."""
    X, y = _blobs(12, n=400, K=4)
    n, K = len(y), 4
    est = AdaBoostCost(n_rounds=20, max_depth=2).fit(X, y)
    assert est.n_rounds_ == 20
    prev = np.zeros((n, K))
    losses = [float(n * (K - 1))]
    for t, S in enumerate(est.staged_class_scores(X)):
        step = S - prev
        h = np.argmax(step, axis=1)                       # the label each sample received
        alpha = est.forest_.alpha[t]
        np.testing.assert_allclose(step[np.arange(n), h], alpha, rtol=1e-12)
        C = np.exp(prev - prev[np.arange(n), y][:, None])
        C[np.arange(n), y] = 0.0
        Z = C.sum()
        C[np.arange(n), y] = -C.sum(axis=1)
        delta = -C[np.arange(n), h].sum() / Z
        assert alpha == pytest.approx(0.5 * np.log((1 + delta) / (1 - delta)), rel=1e-9)
        E = np.exp(S - S[np.arange(n), y][:, None])
        losses.append(float(E.sum() - n))
        prev = S
    assert np.all(np.diff(losses) <= 1e-12 * np.array(losses[:-1]))


def test_adaboost_cost_tree_minimises_the_cost_among_stumps():
    """Depth 1: the stump's cost sum_i C(i, h(x_i)) (leaves answer their least-cost label) is
    the least over every (feature, threshold), checked by brute force at every round."""
    X, y = _blobs(13, n=200, K=3, F=3)
    _, Xb, n_bins = _binned(X, 16)
    n, K = len(y), 3
    est = AdaBoostCost(n_rounds=6, max_depth=1, max_bins=16).fit(X, y)
    prev = np.zeros((n, K))
    for S in est.staged_class_scores(X):
        C = np.exp(prev - prev[np.arange(n), y][:, None])
        C[np.arange(n), y] = 0.0
        C[np.arange(n), y] = -C.sum(axis=1)
        h = np.argmax(S - prev, axis=1)
        got = C[np.arange(n), h].sum()
        best = min(C[m].sum(axis=0).min() + C[~m].sum(axis=0).min()
                   for f in range(X.shape[1]) for t in range(n_bins[f] - 1)
                   for m in [Xb[:, f] <= t] if 0 < m.sum() < n)
        assert got == pytest.approx(min(best, C.sum(axis=0).min()), rel=1e-9)
        prev = S


# ---------------------------------------------------------------------------------------------
# one-vs-all AdaBoost
# ---------------------------------------------------------------------------------------------


def test_one_vs_all_is_k_binary_adaboosts_with_the_same_weak_learner_budget():
    X, y = _blobs(14, n=300, K=3)
    Xt, _ = _blobs(15, n=100, K=3)
    mapper, Xb, n_bins = _binned(X, 32)
    T, K = 8, 3
    est = OneVsAllAdaBoost(n_rounds=T * K, max_bins=32).fit(X, y)
    # The budget: n_rounds weak learners in all, T per detector, round-robin.
    assert est.n_rounds_ == T * K == est.forest_.n_trees
    assert est.detector_ == [t % K for t in range(T * K)]
    F = np.zeros((len(y), K))
    F_test = np.zeros((Xt.shape[0], K))
    for k in range(K):
        F[:, k], F_test[:, k], alphas = _binary_adaboost(
            Xb, np.where(y == k, 1.0, -1.0), n_bins, T, 1, mapper.transform(Xt))
        np.testing.assert_allclose(est.forest_.alpha[k::K], alphas, rtol=1e-9)
    np.testing.assert_allclose(est.class_scores(X), F, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(est.predict(Xt), np.argmax(F_test, axis=1))


# ---------------------------------------------------------------------------------------------
# separable data: unbounded steps and perfect weak learners
# ---------------------------------------------------------------------------------------------


def test_separable_data_ends_the_fits_with_perfect_training_predictions():
    X = np.repeat(np.arange(3.0), 30)[:, None]
    y = np.repeat(np.arange(3), 30)
    gd = GDMCBoost(n_rounds=10, max_depth=2).fit(X, y)
    assert gd.n_rounds_ == 1 and "floor" in gd.stop_reason_
    np.testing.assert_array_equal(gd.predict(X), y)
    # The unbounded step drives the risk to its floor n in double precision.
    assert _mcboost_risk(gd.class_scores(X), y) == pytest.approx(len(y), rel=1e-12)
    mm = AdaBoostCost(n_rounds=10, max_depth=2).fit(X, y)
    assert mm.n_rounds_ == 1 and "edge 1" in mm.stop_reason_
    np.testing.assert_array_equal(mm.predict(X), y)
    cd = CDMCBoost(n_rounds=50).fit(X, y)
    np.testing.assert_array_equal(cd.predict(X), y)
    assert "floor" in cd.stop_reason_ and cd.n_rounds_ < 50
    ova = OneVsAllAdaBoost(n_rounds=30).fit(X, y)
    np.testing.assert_array_equal(ova.predict(X), y)


def test_apply_step_keeps_zero_costs_zero_when_a_massless_factor_overflows():
    # An unbounded or perfect-learner step makes exp(alpha u) = inf for exponents without
    # mass. A cost that underflowed to 0 earlier and has such an exponent must stay 0 (not
    # 0 * inf = NaN), and every positive cost must be multiplied by its factor exactly.
    K = 3
    idx = np.zeros((1, K, K), np.int64)
    idx[0] = [[0, 1, 2], [2, 0, 1], [1, 2, 0]]      # u index of (value 0, class y, term k)
    U = np.array([0.0, -1.0, 1.0])
    alpha = 800.0                                    # exp(800) overflows
    with np.errstate(over="ignore"):
        factor = np.exp(U * alpha)
    assert np.isinf(factor[2])
    c = np.array([[1.0, 0.5, 0.0],                   # class 0: term 2 (u = +1) is 0
                  [0.0, 1.0, 0.25]])                 # class 1: term 0 (u = +1) is 0
    y = np.array([0, 1])
    sample_v = np.zeros(2, np.int64)
    # Masses: u = -1 carries 0.5 + 0.25; u = +1 none (its costs are 0).
    A = np.array([0.0, 0.75, 0.0])
    expected = c.copy()
    expected[0, 1] *= factor[1]
    expected[1, 2] *= factor[1]
    pe.apply_step(sample_v, y, idx, factor, A, np.ones(1, np.bool_),
                  np.empty((1, K, K)), c)
    assert np.all(np.isfinite(c))
    np.testing.assert_array_equal(c, expected)
