"""REBEL (Appel & Perona, ICML 2017): kernels against their numpy twins, the closed-form
accumulation vector against a numerical minimiser, and the paper's guarantees (the loss falls
every round; the training error reaches 0 with similarities on data of distinct points)."""

import math

import numpy as np
import pytest
from scipy.optimize import minimize

from mcboost_cli.algorithms.rebel import REBEL
from mcboost_cli.learners import similarity as sim
from mcboost_cli.learners.binning import Binned, BinMapper


def _weights(rng, n, K):
    """Normalised weights w (n, K), labels and the sign matrix y_n = 1 - 2 delta_{y_n}."""
    w = rng.random((n, K)) ** 3 + 1e-3
    w /= w.sum()
    y = rng.integers(0, K, n)
    Y = np.ones((n, K))
    Y[np.arange(n), y] = -1.0
    return w, y, Y


def _data(seed=0, n=120, K=4, d=3, noise=0.5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1] + noise * rng.normal(size=n),
                    np.linspace(-1.2, 1.2, K - 1))
    return X, y


# -- fast kernels == naive twins ---------------------------------------------------------------


@pytest.mark.parametrize("binary", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kernels_equal_their_naive_twins(seed, binary):
    rng = np.random.default_rng(seed)
    n, K, d = 57, 5, 4
    X = rng.normal(size=(n, d))
    X[7] = X[3]                                  # a duplicate point
    w, y, Y = _weights(rng, n, K)
    V = w * Y
    W = w.sum(axis=0)
    f = rng.uniform(-1, 1, n)
    G, P = np.empty(K), np.empty(K)
    sim.class_moments(f, V, G, P)
    nG, nP = sim.naive_class_moments(f, V)
    np.testing.assert_allclose(G, nG, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(P, nP, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(P, np.abs(f) @ w, rtol=1e-12)
    assert sim.loss_of_moments(W, P, G) == pytest.approx(sim.naive_loss_of_moments(W, P, G),
                                                         rel=1e-12)
    iso = np.empty(n)
    sim.isolation_losses(V, W, -V.sum(axis=0), iso)
    np.testing.assert_allclose(iso, sim.naive_isolation_losses(V, W), rtol=1e-12)
    # The isolation losses are those of the vectors 2 delta_i - 1.
    for i in (0, 7, n - 1):
        fi = -np.ones(n)
        fi[i] = 1.0
        assert iso[i] == pytest.approx(sim.naive_loss_of_moments(W, W, fi @ V), rel=1e-12)
    # Outputs of every learner kind.
    mid, half = 0.5 * (X[1] + X[2]), 0.5 * (X[1] - X[2])
    ens = sim.RebelEnsemble(K, d, binary_one_point=binary, binary_two_point=binary)
    cases = [(sim.KIND_ONE_POINT, {"tau": 0.7, "center": X[3]}),
             (sim.KIND_ONE_POINT, {"tau": 0.0, "center": X[3]}),
             (sim.KIND_TWO_POINT, {"center": mid, "half": half}),
             (sim.KIND_CONSTANT, {})]
    for kind, params in cases:
        t = ens.append(kind, **params)
        got = ens.outputs(t, X, np.empty(n))
        want = sim.naive_learner_outputs(kind, X, binary=binary, **params)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
        assert np.all(np.abs(got) <= 1.0 + 1e-12)
        if binary:
            assert set(np.unique(got)) <= {-1.0, 0.0, 1.0}
    dist = np.empty(n)
    sim.squared_distances(X, 3, dist)
    np.testing.assert_allclose(dist, ((X - X[3]) ** 2).sum(axis=1), rtol=1e-12, atol=1e-15)
    one = np.empty(n)
    sim.one_point_outputs_from_distances(dist, 0.0, binary, one)
    assert one[3] == one[7] == 1.0 and np.all(np.delete(one, [3, 7]) == -1.0)
    sim.one_point_outputs_from_distances(dist, 0.7, binary, one)
    np.testing.assert_allclose(one, sim.naive_learner_outputs(
        sim.KIND_ONE_POINT, X, tau=0.7, center=X[3], binary=binary), rtol=1e-12, atol=1e-15)
    # Two-point: +1 at x_i, -1 at x_j; one pass and a whole search (steps 4-6).
    alive = rng.random(n) < 0.6
    fo, Go, Po, a2 = np.empty(n), np.empty(K), np.empty(K), alive.copy()
    sim.two_point_pass(X, 1, 2, V, W, V.sum(axis=0), a2, binary, np.empty(d), np.empty(d),
                       fo, Go, Po)
    fn, (Gn, Pn), an = sim.naive_two_point_pass(X, 1, 2, V, alive, binary)
    np.testing.assert_allclose(fo, fn, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(Go, Gn, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(Po, Pn, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(a2, an)
    assert fo[1] == pytest.approx(1.0) and fo[2] == pytest.approx(-1.0)
    order = np.argsort(((X - X[0]) ** 2).sum(axis=1), kind="stable")
    a3 = alive.copy()
    a3[0] = False
    got = sim.two_point_search(X, 0, order, V, W, a3.copy(), binary, np.empty(d), np.empty(d),
                               np.empty(n), np.empty(K), np.empty(K))
    want = sim.naive_two_point_search(X, 0, V, W, a3, binary)
    assert got[1:] == want[1:] and got[0] == pytest.approx(want[0], rel=1e-12)
    # Stumps: histogram and exhaustive search.
    codes = rng.integers(0, 9, size=(n, d)).astype(np.uint8)
    hist = np.empty((d, 9, K))
    sim.stump_histogram(codes, V, hist)
    np.testing.assert_allclose(hist, sim.naive_stump_histogram(codes, V, 9), atol=1e-15)
    stumps = sim.RebelEnsemble(K, 0)
    t = stumps.append(sim.KIND_STUMP, feature=2, threshold=4)
    np.testing.assert_array_equal(stumps.outputs(t, codes, np.empty(n)),
                                  sim.naive_learner_outputs(sim.KIND_STUMP, codes, feature=2,
                                                            threshold=4))
    loss, j, b = sim.best_stump(hist, W, V.sum(axis=0), np.empty(K))
    nloss, nj, nb = sim.naive_best_stump(codes, V, W, 9)
    assert (j, b) == (nj, nb) and loss == pytest.approx(nloss, rel=1e-12)
    # The accumulation step.
    a = rng.normal(size=K)
    w2 = w.copy()
    total = sim.accumulate(f, a, Y, w2)
    nw, ntotal = sim.naive_accumulate(f, a, Y, w)
    np.testing.assert_allclose(w2, nw, rtol=1e-12)
    assert total == pytest.approx(ntotal, rel=1e-12)
    # The exact vector step (eq. 3's minimiser per class).
    a0 = rng.normal(size=K)
    a_exact = a0.copy()
    sim.exact_vector(f, Y, w, a_exact, 50)
    np.testing.assert_allclose(a_exact, sim.naive_exact_vector(f, Y, w, a0), atol=1e-6)


@pytest.mark.parametrize("seed", [0, 1])
def test_binarization_is_the_sign_of_the_top_eigenvector_of_the_n_by_n_matrix(seed):
    """Sec. 4: b_n = sign(v1_n), v1 the top eigenvector of U^T U (N x N); computed from the
    K x K matrix U U^T. Eigenvectors have no sign: the two agree up to one global flip."""
    rng = np.random.default_rng(seed)
    n, K = 45, 4
    w, _, Y = _weights(rng, n, K)
    V, W = w * Y, w.sum(axis=0)
    v, b = np.empty(n), np.empty(n, bool)
    sim.binarize(V, W, v, b)
    v1, nb = sim.naive_binarize(V, W)
    np.testing.assert_allclose(np.abs(v / np.linalg.norm(v)), np.abs(v1), atol=1e-9)
    assert np.array_equal(b, nb) or np.array_equal(b, ~nb)
    # Eq. 8-9: v1 is the direction f of largest f^T (U^T U) f, at least tr(U^T U)/K.
    U = (V / np.sqrt(n * W)[None, :]).T
    top = v1 @ (U.T @ U) @ v1
    assert top >= np.trace(U.T @ U) / K - 1e-15
    for _ in range(20):
        f = rng.normal(size=n)
        f /= np.linalg.norm(f)
        assert f @ (U.T @ U) @ f <= top + 1e-15


# -- the closed-form vector (eq. 5) --------------------------------------------------------------


def _true_loss(a, f, w, Y):
    """Eq. 3: sum_n <w_n, exp[f(x_n) y_n (.) a]> (weights normalised: L_I = 1)."""
    return float((w * np.exp(f[:, None] * Y * a[None, :])).sum())


def _closed_form(f, w, Y):
    """Eq. 5 with the |f|-weighted sums: (a*, eq. 5's loss, the bound's terms)."""
    W = w.sum(axis=0)
    G = f @ (w * Y)
    P = np.abs(f) @ w
    sT, sF = 0.5 * (P - G), 0.5 * (P + G)
    return 0.5 * (np.log(sT) - np.log(sF)), (W - P).sum() + 2.0 * np.sqrt(sT * sF).sum(), \
        (W - P, sT, sF)


@pytest.mark.parametrize("seed", range(4))
def test_closed_form_vector_is_the_exact_minimiser_for_binary_learners(seed):
    rng = np.random.default_rng(seed)
    n, K = 40, 4
    w, _, Y = _weights(rng, n, K)
    f = np.where(rng.random(n) < 0.5, 1.0, -1.0)          # a stump's (or f_i's) outputs
    a_star, loss_star, _ = _closed_form(f, w, Y)
    num = minimize(_true_loss, np.zeros(K), args=(f, w, Y), method="BFGS",
                   options={"gtol": 1e-12})
    np.testing.assert_allclose(a_star, num.x, atol=1e-5)
    assert _true_loss(a_star, f, w, Y) == pytest.approx(loss_star, rel=1e-12)   # eq. 5
    assert _true_loss(a_star, f, w, Y) <= num.fun + 1e-12


@pytest.mark.parametrize("seed", range(4))
def test_closed_form_vector_minimises_the_bound_for_real_valued_learners(seed):
    """Similarities output values in (-1, 1): a* is the exact minimiser of the bound
    exp(f y a) <= (1 - |f|) + |f| exp(sign(f y) a) of eq. 3 (ALGORITHMS.md), so the true
    loss at a* lies between the true minimum and eq. 5's value, below the current loss;
    the exact step (``vector_step="exact"``) reaches the true minimum."""
    rng = np.random.default_rng(10 + seed)
    n, K = 40, 3
    w, _, Y = _weights(rng, n, K)
    f = rng.uniform(-1, 1, n)
    a_star, loss_star, (abstain, sT, sF) = _closed_form(f, w, Y)

    def bound(a):
        return float(abstain.sum() + sT @ np.exp(-a) + sF @ np.exp(a))

    assert np.all([bound(a) >= _true_loss(a, f, w, Y) for a in rng.normal(size=(20, K))])
    num_bound = minimize(bound, np.zeros(K), method="BFGS", options={"gtol": 1e-12})
    np.testing.assert_allclose(a_star, num_bound.x, atol=1e-5)
    assert bound(a_star) == pytest.approx(loss_star, rel=1e-12)
    num_true = minimize(_true_loss, np.zeros(K), args=(f, w, Y), method="BFGS",
                        options={"gtol": 1e-12})
    true_at_star = _true_loss(a_star, f, w, Y)
    assert num_true.fun - 1e-12 <= true_at_star <= loss_star + 1e-12 < 1.0
    a_exact = a_star.copy()
    sim.exact_vector(f, Y, w, a_exact, 50)
    np.testing.assert_allclose(a_exact, num_true.x, atol=1e-5)
    assert _true_loss(a_exact, f, w, Y) <= num_true.fun + 1e-12


# -- the fitted booster ----------------------------------------------------------------------------


@pytest.mark.parametrize("weak_learner,vector_step,outputs",
                         [("stump", "closed_form", "real"), ("isolated", "closed_form", "real"),
                          ("localized", "closed_form", "real"), ("localized", "exact", "real"),
                          ("isolated", "closed_form", "sign"),
                          ("localized", "closed_form", "sign"),
                          ("localized", "closed_form", "two_point_sign")])
def test_training_loss_decreases_every_round(weak_learner, vector_step, outputs):
    X, y = _data(1, n=150, K=4)
    est = REBEL(n_rounds=60, weak_learner=weak_learner, vector_step=vector_step,
                similarity_outputs=outputs).fit(X, y)
    log_loss = np.concatenate([[math.log(est.n_classes_ / 2)], est.train_log_loss_])
    assert est.n_rounds_ == 60
    assert np.all(np.diff(log_loss) < 0)
    # The loss bounds the training error (eq. 2).
    assert np.all(est.train_errors_ <= np.exp(est.train_log_loss_) + 1e-12)


def test_training_loss_is_the_loss_of_the_stored_scores():
    X, y = _data(2, n=80, K=3)
    est = REBEL(n_rounds=25).fit(X, y)
    H = est.class_scores(X)
    code = np.searchsorted(est.classes_, y)
    Y = np.ones_like(H)
    Y[np.arange(len(y)), code] = -1.0
    loss = np.exp(Y * H).sum() / (2 * len(y))            # eq. 2
    assert math.log(loss) == pytest.approx(est.train_log_loss_[-1], rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("outputs", ["real", "sign", "two_point_sign"])
@pytest.mark.parametrize("weak_learner", ["isolated", "localized"])
def test_training_error_reaches_zero_on_distinct_points(weak_learner, outputs):
    """Sec. 5: with learners that isolate any point, the training error reaches 0 on any
    dataset of distinct points — here random labels, which no smooth boundary fits."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 2))
    y = rng.integers(0, 3, 30)
    est = REBEL(n_rounds=3000, weak_learner=weak_learner, stop_below_one_over_n=True,
                similarity_outputs=outputs)
    est.fit(X, y)
    assert est.stop_reason_.startswith("training loss below 1/N")
    assert est.train_log_loss_[-1] < -math.log(30)
    assert est.train_errors_[-1] == 0.0
    np.testing.assert_array_equal(est.predict(X), y)


@pytest.mark.parametrize("weak_learner", ["isolated", "localized"])
def test_sign_outputs_make_eq5_the_loss_of_every_round(weak_learner):
    """With ``similarity_outputs="sign"`` every learner outputs +-1 (0 only on a bisector or
    a ball's boundary), so eq. 5 is the exact loss after the round: each round's loss ratio
    equals the chosen learner's eq. 5 value over the current loss. With real outputs eq. 5's
    value is only an upper bound, strictly above on these data."""
    X, y = _data(7, n=90, K=3)
    ratios = {}
    for outputs in ("real", "sign"):
        est = REBEL(n_rounds=12, weak_learner=weak_learner, similarity_outputs=outputs)
        predicted = []
        original = est._boost

        def boost(t, X_, y_, _est=est, _orig=original, _pred=predicted):
            w = _est._w.copy()
            out = _orig(t, X_, y_)
            f = _est.forest_.outputs(t, X_, np.empty(X_.shape[0]))
            a = _est.forest_.accum[t]
            G = f @ (w * _est._Y)
            P = np.abs(f) @ w
            bound = (w.sum(axis=0) - P).sum() + 2 * np.sqrt((P - G) * (P + G) / 4).sum()
            true = (w * np.exp(f[:, None] * _est._Y * a[None, :])).sum()
            _pred.append((bound, true, set(np.unique(f))))
            return out

        est._boost = boost
        est.fit(X, y)
        ratios[outputs] = predicted
    for bound, true, values in ratios["sign"]:
        assert values <= {-1.0, 0.0, 1.0}
        assert true == pytest.approx(bound, rel=1e-9)
    assert any(true < bound * (1 - 1e-6) for bound, true, _ in ratios["real"]
               if len(_) > 3)


def test_sign_outputs_isolate_a_ball_half_way_to_the_nearest_point():
    """Reading (III): the one-point learner in H is the ball |x - x_i|^2 < D_nn(i)/4."""
    X, y = _data(8, n=50, K=3)
    est = REBEL(n_rounds=10, weak_learner="isolated", similarity_outputs="sign").fit(X, y)
    ens = est.forest_
    for t in range(est.n_rounds_):
        if ens.kind[t] != sim.KIND_ONE_POINT:
            continue
        dist = ((X - ens.center[t]) ** 2).sum(axis=1)
        assert ens.tau[t] == pytest.approx(0.25 * dist[dist > 0].min(), rel=1e-12)
        inside = np.array([[*ens.center[t][:-1], ens.center[t][-1] + 0.49 * np.sqrt(
            dist[dist > 0].min())]])
        assert ens.outputs(t, inside, np.empty(1))[0] == 1.0


def test_isolated_similarities_predict_like_a_constant_far_from_the_training_points():
    """A one-point learner's effect fades away from its anchor: far away every round gives
    f ~ -1, so the scores there tend to -sum_t a_t (sec. 7's poor 'Iso.Sim' column)."""
    X, y = _data(4, n=60, K=3)
    est = REBEL(n_rounds=30, weak_learner="isolated").fit(X, y)
    far = np.full((1, X.shape[1]), 1e6)
    n = est.n_rounds_
    np.testing.assert_allclose(est.class_scores(far)[0],
                               -est.forest_.accum[:n].sum(axis=0), rtol=1e-6, atol=1e-9)


def test_similarities_use_raw_values_and_refuse_missing_ones():
    X, y = _data(5)
    mapper = BinMapper().fit(X)
    with pytest.raises(ValueError, match="raw feature values"):
        REBEL(n_rounds=2).fit(Binned(mapper.transform(X), mapper), y)
    a = REBEL(n_rounds=5).fit(X, y)
    b = REBEL(n_rounds=5).fit(Binned(mapper.transform(X), mapper, raw=X), y)
    np.testing.assert_array_equal(a.class_scores(X), b.class_scores(X))
    X2 = X.copy()
    X2[0, 0] = np.nan
    with pytest.raises(ValueError, match="missing"):
        REBEL(n_rounds=2).fit(X2, y)
    # Stumps work on the bins (and bin missing values).
    REBEL(n_rounds=2, weak_learner="stump").fit(X2, y)


def test_two_classes():
    """K = 2 (the paper gives no reduction to a binary booster): the fit runs and its loss
    falls every round."""
    X, y = _data(6, K=2)
    est = REBEL(n_rounds=20, weak_learner="stump").fit(X, y)
    assert np.all(np.diff(est.train_log_loss_) < 0)
    assert est.train_errors_[-1] < 0.3


def test_two_point_sign_mixes_the_kinds():
    """Reading (V): one-point learners keep their real values (tau among the fractions of
    D_nn), two-point learners output their signs."""
    X, y = _data(9, n=80, K=3)
    est = REBEL(n_rounds=25, similarity_outputs="two_point_sign").fit(X, y)
    ens = est.forest_
    kinds = set(ens.kind[:est.n_rounds_].tolist())
    assert sim.KIND_TWO_POINT in kinds
    for t in range(est.n_rounds_):
        f = ens.outputs(t, X, np.empty(len(y)))
        if ens.kind[t] == sim.KIND_TWO_POINT:
            assert set(np.unique(f)) <= {-1.0, 0.0, 1.0}
        elif ens.kind[t] == sim.KIND_ONE_POINT and ens.tau[t] > 0:
            assert len(np.unique(f)) > 3
