"""Binary AdaBoost and LogitBoost, the DirectBoost paper's convex baselines: reductions to
AdaBoost.M1 and MulLogitBoost, brute-force references, the Newton step of LogitBoost, the
training losses, and the stopping rule on the change of the loss (``loss_tolerance``)."""

import math

import numpy as np
import pytest

from mcboost_cli.algorithms.adaboost import AdaBoost, AdaBoostM1
from mcboost_cli.algorithms.logitboost import (
    LogitBoost,
    _binomial_loss,
    _binomial_loss_naive,
    _newton_leaves,
    _working_responses,
    _working_responses_naive,
)
from mcboost_cli.algorithms.mullogitboost import MulLogitBoost
from mcboost_cli.algorithms.registry import get_algorithm, validate_params
from mcboost_cli.errors import UserError
from mcboost_cli.learners.binning import BinMapper
from mcboost_cli.learners.histogram_tree import apply_tree
from mcboost_cli.runner.plan import full_params


def _noisy_data(seed, n=300, F=4, noise=0.15):
    """Two classes from a linear rule on Gaussian features, with flipped labels: no stump
    ensemble separates it quickly, so the boosters run many rounds with edges > 0."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, F))
    y = (X[:, 0] + 0.6 * X[:, 1] > 0).astype(int)
    flip = rng.random(n) < noise
    return X, np.where(flip, 1 - y, y)


def _staged_f(est, X, n_rounds=None):
    """F_t(x) = (score of class 1 - score of class 0) / 2 after each round t."""
    out = [(s[:, 1] - s[:, 0]) / 2.0 for s in est.staged_class_scores(X)]
    return np.array(out[:n_rounds])


# ---------------------------------------------------------------------------------------------
# AdaBoost
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("criterion", ["error", "gini"])
@pytest.mark.parametrize("depth", [1, 3])
def test_adaboost_is_adaboost_m1_on_two_classes(criterion, depth):
    """Freund & Schapire 1997's AdaBoost is AdaBoost.M1 at K = 2: the same trees, vote
    weights and predictions at every round."""
    X, y = _noisy_data(0)
    a = AdaBoost(n_rounds=40, max_depth=depth, split_criterion=criterion).fit(X, y)
    m1 = AdaBoostM1(n_rounds=40, max_depth=depth, split_criterion=criterion).fit(X, y)
    assert a.n_rounds_ == m1.n_rounds_ >= 10
    np.testing.assert_array_equal(a.forest_.alpha, m1.forest_.alpha)
    for pa, pm in zip(a.staged_predict(X), m1.staged_predict(X)):
        np.testing.assert_array_equal(pa, pm)
    np.testing.assert_array_equal(a.train_errors_, m1.train_errors_)


def _adaboost_stumps_reference(Xb, y, n_bins, n_rounds):
    """Binary AdaBoost with weighted-error stumps, written out independently: weights
    D ∝ exp(-y f) with f = (1/2) sum_t log((1 - eps_t)/eps_t) h_t (h, y in {-1, +1}); the stump
    of least weighted error over every (feature, threshold) (bins <= t go left), each leaf
    labelled with its heavier class (class 0 on a tie), kept only if it lowers the root's
    error (first feature, then lowest threshold, among equal errors). Returns the predicted
    classes after each round and the exponential loss mean exp(-y f) after each round."""
    n, n_features = Xb.shape
    ypm = np.where(y == 1, 1.0, -1.0)
    f = np.zeros(n)
    preds, losses = [], []
    tol = 1e-10

    def labelled_error(D, mask):
        w1 = D[mask & (y == 1)].sum()
        w0 = D[mask & (y == 0)].sum()
        return (1 if w1 > w0 + tol else 0), min(w0, w1)

    for _ in range(n_rounds):
        D = np.exp(-ypm * f)
        D /= D.sum()
        everyone = np.ones(n, bool)
        root_label, best_err = labelled_error(D, everyone)
        h = np.full(n, root_label)
        for feat in range(n_features):
            for t in range(n_bins[feat] - 1):
                left = Xb[:, feat] <= t
                if left.all() or not left.any():
                    continue
                ll, el = labelled_error(D, left)
                lr, er = labelled_error(D, ~left)
                if el + er < best_err - tol:
                    best_err = el + er
                    h = np.where(left, ll, lr)
        eps = D[h != y].sum()
        assert 0.0 < eps < 0.5 - 1e-9, "the reference needs rounds with an edge"
        alpha = 0.5 * math.log((1.0 - eps) / eps)
        f += alpha * np.where(h == 1, 1.0, -1.0)
        preds.append((f > 0).astype(int))
        losses.append(np.mean(np.exp(-ypm * f)))
    return np.array(preds), np.array(losses)


def test_adaboost_stumps_equal_a_brute_force_adaboost():
    X, y = _noisy_data(1, n=200, F=3)
    mapper = BinMapper(max_bins=32).fit(X)
    Xb = mapper.transform(X)
    ours = AdaBoost(n_rounds=30, max_depth=1, max_bins=32).fit(X, y)
    assert ours.n_rounds_ == 30
    ref_pred, ref_loss = _adaboost_stumps_reference(Xb, y, mapper.n_bins_, 30)
    for t, p in enumerate(ours.staged_predict(X)):
        np.testing.assert_array_equal(p, ref_pred[t], err_msg=f"round {t + 1}")
    np.testing.assert_allclose(ours.train_losses_, ref_loss, rtol=1e-9)


@pytest.mark.parametrize("depth", [1, 3])
def test_adaboost_train_losses_are_the_exponential_loss_of_its_scores(depth):
    """L_t = prod_s 2 sqrt(eps_s (1 - eps_s)) equals mean exp(-y f_t) of the stored
    ensemble, f_t = (1/2) sum alpha_s h_s (half M1's score difference)."""
    X, y = _noisy_data(2)
    est = AdaBoost(n_rounds=25, max_depth=depth).fit(X, y)
    ypm = np.where(y == 1, 1.0, -1.0)
    direct = [np.mean(np.exp(-ypm * f)) for f in _staged_f(est, X)]
    assert est.train_losses_.shape == (est.n_rounds_,) and est.n_rounds_ >= 10
    np.testing.assert_allclose(est.train_losses_, direct, rtol=1e-10)
    assert np.all(np.diff(np.concatenate([[1.0], est.train_losses_])) < 0)


def test_adaboost_perfect_tree_ends_with_zero_loss():
    X = np.repeat(np.arange(4.0), 10)[:, None]
    y = (X[:, 0] >= 2).astype(int)
    est = AdaBoost(n_rounds=10, max_depth=1, loss_tolerance=1e-6).fit(X, y)
    assert est.n_rounds_ == 1 and "perfect" in est.stop_reason_
    np.testing.assert_array_equal(est.train_losses_, [0.0])
    np.testing.assert_array_equal(est.predict(X), y)


# ---------------------------------------------------------------------------------------------
# LogitBoost: kernels
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cap", [np.inf, 4.0, 2.0, 1.0])
def test_working_responses_equal_the_printed_formulas(cap):
    rng = np.random.default_rng(3)
    F = rng.uniform(-6, 6, 500)
    y = rng.integers(0, 2, 500).astype(np.int32)
    z_ref, w_ref = _working_responses_naive(F, y, cap)
    z = np.empty(500)
    channels = np.empty((500, 2))
    total = _working_responses(F, y, cap, z, channels)
    np.testing.assert_allclose(z, z_ref, rtol=1e-9)
    np.testing.assert_allclose(total, w_ref.sum(), rtol=1e-12)
    np.testing.assert_allclose(channels[:, 0], w_ref / w_ref.sum(), rtol=1e-9)
    np.testing.assert_allclose(channels[:, 1], w_ref * z_ref / w_ref.sum(), rtol=1e-8,
                               atol=1e-15)
    if cap == 1.0:           # |z| >= 1: the smallest cap leaves only the signs
        np.testing.assert_array_equal(np.abs(z), 1.0)


def test_working_responses_are_finite_far_out():
    """Margins beyond the exponent's range: no NaN, w z = y* - p in the limit."""
    F = np.array([400.0, -400.0, 400.0, -400.0, 30.0, 0.0])
    y = np.array([1, 1, 0, 0, 0, 1], np.int32)
    z = np.empty(6)
    ch = np.empty((6, 2))
    total = _working_responses(F, y, np.inf, z, ch)
    assert np.all(np.isfinite(ch))
    assert z[0] == 1.0 and z[3] == -1.0 and np.isinf(z[1]) and np.isinf(z[2])
    # Unscaled w z: y* - p = 0 (right, far out), 1 (wrong, y* = 1), -1 (wrong, y* = 0).
    wz = ch[:, 1] * total
    np.testing.assert_allclose(wz[:4], [0.0, 1.0, -1.0, 0.0], atol=1e-300)


def test_binomial_loss_kernel_equals_its_twin():
    rng = np.random.default_rng(4)
    F = np.concatenate([rng.normal(0, 3, 200), [800.0, -800.0, 0.0]])
    y = np.concatenate([rng.integers(0, 2, 200), [0, 0, 1]]).astype(np.int32)
    np.testing.assert_allclose(_binomial_loss(F, y), _binomial_loss_naive(F, y), rtol=1e-12)
    assert _binomial_loss(np.zeros(5), np.zeros(5, np.int32)) == pytest.approx(math.log(2))


# ---------------------------------------------------------------------------------------------
# LogitBoost: the algorithm
# ---------------------------------------------------------------------------------------------


def _quadratic_minimiser(g, h):
    """Brute force: the c minimising sum_i (g_i c + h_i c^2 / 2) on a grid over [-64, 64]
    (step 1e-3), refined three times on a grid of 2,001 points around the best one (down to
    where rounding in q decides)."""
    def q(c):
        return g.sum() * c + 0.5 * h.sum() * c * c
    grid = np.linspace(-64.0, 64.0, 128_001)
    best = grid[np.argmin(q(grid))]
    assert -64.0 < best < 64.0, "minimiser outside the grid"
    step = grid[1] - grid[0]
    for _ in range(3):
        grid = np.linspace(best - step, best + step, 2_001)
        best = grid[np.argmin(q(grid))]
        step = grid[1] - grid[0]
    return best


def _leaf_steps(est, X, y):
    """For each round and leaf: (the fit's step on the leaf, the brute-force minimiser of the
    second-order expansion of sum_i log(1 + exp(-2 y_i F_i)) in a common step of the leaf)."""
    Xb = est.bin_mapper_.transform(X)
    ypm = np.where(y == 1, 1.0, -1.0)
    staged = _staged_f(est, X)
    fo = est.forest_
    out = []
    leaf = np.empty(X.shape[0], np.int32)
    for t in range(est.n_rounds_):
        before = staged[t - 1] if t else np.zeros(X.shape[0])
        after = staged[t]
        apply_tree(Xb, fo.feature, fo.threshold, fo.left, fo.tree_offset[t], leaf)
        p = 1.0 / (1.0 + np.exp(-2.0 * before))
        g = -2.0 * ypm / (1.0 + np.exp(2.0 * ypm * before))     # d/dF log(1 + e^{-2yF})
        h = 4.0 * p * (1.0 - p)                                  # its second derivative
        for lf in np.unique(leaf):
            rows = leaf == lf
            step = after[rows] - before[rows]
            assert np.ptp(step) <= 1e-12 * (1 + np.abs(step).max())   # one step per leaf
            out.append((step[0], _quadratic_minimiser(g[rows], h[rows])))
    return np.array(out)


def test_logitboost_step_is_the_newton_step_on_each_leaf():
    """Uncapped (Algorithm 3 as printed), each leaf's update f/2 minimises the second-order
    expansion of the binomial loss over the leaf's samples; with a cap it does not (the
    comparison has power)."""
    X, y = _noisy_data(5, n=240)
    est = LogitBoost(n_rounds=8, max_depth=2, max_abs_response=0).fit(X, y)
    steps = _leaf_steps(est, X, y)
    assert len(steps) >= 20
    # The brute force resolves the minimiser of a flat quadratic to ~sqrt(machine epsilon).
    np.testing.assert_allclose(steps[:, 0], steps[:, 1], rtol=0, atol=2e-7)
    capped = LogitBoost(n_rounds=8, max_depth=2, max_abs_response=1.5).fit(X, y)
    s = _leaf_steps(capped, X, y)
    assert np.max(np.abs(s[:, 0] - s[:, 1])) > 1e-3


def _logitboost_stumps_reference(Xb, y, n_bins, n_rounds):
    """FHT's Algorithm 3 with least-squares stumps, written out from the printed formulas
    (no cap): z = (y* - p)/(p(1 - p)), w = p(1 - p); the stump of least weighted squared error of z over
    every (feature, threshold), each side answering its weighted mean (first feature, then
    lowest threshold, among equal errors; the root alone if no split lowers the error);
    F += f/2. Returns F after each round."""
    n, n_features = Xb.shape
    ystar = (y == 1).astype(float)
    F = np.zeros(n)
    out = []
    for _ in range(n_rounds):
        p = np.exp(F) / (np.exp(F) + np.exp(-F))
        w = p * (1.0 - p)
        z = (ystar - p) / w

        def sse(mask):
            c = np.sum(w[mask] * z[mask]) / np.sum(w[mask])
            return np.sum(w[mask] * (z[mask] - c) ** 2), c

        best, c_root = sse(np.ones(n, bool))
        fit = np.full(n, c_root)
        tol = 1e-9 * (1.0 + best)
        for feat in range(n_features):
            for t in range(n_bins[feat] - 1):
                left = Xb[:, feat] <= t
                if left.all() or not left.any():
                    continue
                el, cl = sse(left)
                er, cr = sse(~left)
                if el + er < best - tol:
                    best = el + er
                    fit = np.where(left, cl, cr)
        F = F + 0.5 * fit
        out.append(F.copy())
    return np.array(out)


def test_logitboost_stumps_equal_a_brute_force_logitboost():
    X, y = _noisy_data(6, n=200, F=3)
    mapper = BinMapper(max_bins=32).fit(X)
    ours = LogitBoost(n_rounds=25, max_depth=1, max_bins=32, max_abs_response=0).fit(X, y)
    ref = _logitboost_stumps_reference(mapper.transform(X), y, mapper.n_bins_, 25)
    np.testing.assert_allclose(_staged_f(ours, X), ref, rtol=1e-7, atol=1e-9)


def test_logitboost_stumps_equal_mullogitboost_two_leaves_on_two_classes():
    """K = 2 MulLogitBoost (FHT Algorithm 6, F_1 = -F_0, centred update (K-1)/K = 1/2) with
    two-leaf trees is binary LogitBoost with stumps, at the same cap (4, both defaults)."""
    X, y = _noisy_data(7)
    ours = LogitBoost(n_rounds=30, max_depth=1).fit(X, y)
    mul = MulLogitBoost(n_rounds=30, max_leaves=2).fit(X, y)
    for a, b in zip(ours.staged_class_scores(X), mul.staged_class_scores(X)):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(ours.train_errors_, mul.train_errors_)


def test_logitboost_loss_decreases_on_a_separable_problem():
    rng = np.random.default_rng(8)
    X = rng.uniform(-1, 1, size=(400, 2))
    s = X[:, 0] + X[:, 1]
    keep = np.abs(s) > 0.15                    # a margin around the boundary
    X, y = X[keep], (s[keep] > 0).astype(int)
    for depth, cap in ((1, 4.0), (3, 4.0), (1, 0.0), (3, 0.0)):
        est = LogitBoost(n_rounds=150, max_depth=depth, max_abs_response=cap).fit(X, y)
        losses = np.concatenate([[math.log(2.0)], est.train_losses_])
        assert np.all(np.diff(losses) < 0), (depth, cap)
        assert est.train_errors_[-1] == 0.0
        ypm = np.where(y == 1, 1.0, -1.0)
        np.testing.assert_allclose(
            est.train_losses_, [np.mean(np.logaddexp(0, -2 * ypm * f))
                                for f in _staged_f(est, X)], rtol=1e-10)


def _one_leaf_step(F, y, cap):
    """The step the kernels give a single leaf holding every example."""
    n = F.shape[0]
    z, ch = np.empty(n), np.empty((n, 2))
    _working_responses(F, y, cap, z, ch)
    vote, F_new = np.empty((1, 2)), F.copy()
    _newton_leaves(np.array([-1], np.int32), 1, np.array([0]), np.array([n]),
                   np.arange(n, dtype=np.int64), ch, np.zeros(1, np.int32), vote, F_new)
    np.testing.assert_allclose(F_new - F, vote[0, 1], rtol=1e-12)
    return vote[0, 1]


def test_the_cap_bounds_the_step_where_newtons_diverges():
    """A leaf of ten examples classified with confidence (F = 8) and one that is not (F = 5,
    class 0): its Newton step is about -1/(2 sum w) ~ -1e4 (the divergence measured on wdbc,
    ALGORITHMS.md); capped at z_max, every step is at most z_max / 2."""
    F = np.array([8.0] * 10 + [5.0])
    y = np.array([1] * 10 + [0], np.int32)
    newton = _one_leaf_step(F, y, np.inf)
    p = 1.0 / (1.0 + np.exp(-2.0 * F))
    expected = np.sum((y == 1) - p) / (2.0 * np.sum(p * (1.0 - p)))
    assert newton == pytest.approx(expected, rel=1e-9) and newton < -1e3
    for cap in (4.0, 2.0):
        assert abs(_one_leaf_step(F, y, cap)) <= cap / 2.0
    # Through a whole fit: every leaf's step within z_max / 2.
    X, y = _noisy_data(9, n=400, noise=0.2)
    est = LogitBoost(n_rounds=200, max_depth=2, max_abs_response=2.0).fit(X, y)
    steps = np.abs(np.diff(np.vstack([np.zeros(len(y)), _staged_f(est, X)]), axis=0))
    assert steps.max() <= 1.0 + 1e-12 and steps.max() > 0.5


def test_capped_logitboost_need_not_descend_the_binomial_loss():
    """The price of the cap (ALGORITHMS.md): on noisy data the loss rises in some rounds
    with z capped; uncapped (Newton) it does not, on this data."""
    X, y = _noisy_data(9, n=400, noise=0.2)
    capped = LogitBoost(n_rounds=300, max_depth=1).fit(X, y)
    plain = LogitBoost(n_rounds=300, max_depth=1, max_abs_response=0).fit(X, y)
    assert np.any(np.diff(capped.train_losses_) > 0)
    assert np.all(np.diff(plain.train_losses_) < 0)
    # 0 and numpy.inf both mean no cap.
    inf = LogitBoost(n_rounds=300, max_depth=1, max_abs_response=np.inf).fit(X, y)
    np.testing.assert_array_equal(inf.class_scores(X), plain.class_scores(X))


# ---------------------------------------------------------------------------------------------
# Both: the stopping rule, binary only, parameters
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("algo", [AdaBoost, LogitBoost])
def test_loss_tolerance_stops_after_the_first_round_of_a_small_change(algo):
    X, y = _noisy_data(10)
    N = 300
    full = algo(n_rounds=N, max_depth=1).fit(X, y)
    assert full.n_rounds_ == N and full.stop_reason_ == "n_rounds"
    start = 1.0 if algo is AdaBoost else math.log(2.0)
    change = np.abs(np.diff(np.concatenate([[start], full.train_losses_])))
    for tol in (1e-2, 3e-3, 1e-3):
        expected = int(np.argmax(change < tol)) + 1       # 1-based round of the first one
        assert 1 < expected < N, tol
        short = algo(n_rounds=N, max_depth=1, loss_tolerance=tol).fit(X, y)
        assert short.n_rounds_ == expected, tol
        assert "loss_tolerance" in short.stop_reason_
        np.testing.assert_array_equal(short.train_losses_, full.train_losses_[:expected])
        np.testing.assert_array_equal(short.class_scores(X),
                                      full.class_scores(X, n_rounds=expected))
        # "less than": a tolerance equal to that change does not stop there.
        equal = algo(n_rounds=N, max_depth=1,
                     loss_tolerance=float(change[expected - 1])).fit(X, y)
        assert equal.n_rounds_ > expected


@pytest.mark.parametrize("algo", [AdaBoost, LogitBoost])
def test_loss_tolerance_of_sum_compares_n_times_the_mean_change(algo):
    X, y = _noisy_data(10)
    n, N = len(y), 300
    full = algo(n_rounds=N, max_depth=1).fit(X, y)
    start = 1.0 if algo is AdaBoost else math.log(2.0)
    summed = n * np.abs(np.diff(np.concatenate([[start], full.train_losses_])))
    for tol in (1.0, 0.5, 0.3):
        expected = int(np.argmax(summed < tol)) + 1
        assert 1 < expected < N, tol
        est = algo(n_rounds=N, max_depth=1, loss_tolerance=tol,
                   loss_tolerance_of="sum").fit(X, y)
        assert est.n_rounds_ == expected and "summed training loss" in est.stop_reason_
        # The same tolerance on the mean stops earlier (its changes are n times smaller).
        mean = algo(n_rounds=N, max_depth=1, loss_tolerance=tol).fit(X, y)
        assert mean.n_rounds_ < expected
    with pytest.raises(ValueError, match="loss_tolerance_of must be mean or sum"):
        algo(n_rounds=3, loss_tolerance=1e-6, loss_tolerance_of="total").fit(X, y)
    assert "loss_tolerance_of" not in dict(full_params(algo.name, {"loss_tolerance": 1e-6}))


@pytest.mark.parametrize("name", ["adaboost", "logitboost"])
def test_two_classes_only(name):
    X, y = _noisy_data(11)
    y3 = y + (X[:, 2] > 1)
    with pytest.raises(ValueError, match="3 classes, expected 2") as err:
        get_algorithm(name)(n_rounds=3).fit(X, y3)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("name", ["adaboost", "logitboost"])
def test_loss_tolerance_parameter(name):
    cls = get_algorithm(name)
    # Default (off) stays out of a cell's key; the paper's value is in it.
    assert "loss_tolerance" not in dict(full_params(name, {}))
    assert dict(full_params(name, {"loss_tolerance": 1e-6}))["loss_tolerance"] == 1e-6
    assert validate_params(cls, {"loss_tolerance": 1e-6}, "x") == {"loss_tolerance": 1e-6}
    with pytest.raises(UserError, match="loss_tolerance"):
        validate_params(cls, {"loss_tolerance": -1e-6}, "x")
    X, y = _noisy_data(12)
    with pytest.raises(ValueError, match="loss_tolerance must be >= 0"):
        cls(n_rounds=3, loss_tolerance=-1.0).fit(X, y)


def test_logitboost_cap_parameter():
    assert validate_params(LogitBoost, {"max_abs_response": 0}, "x") == {"max_abs_response": 0}
    assert validate_params(LogitBoost, {"max_abs_response": 4}, "x") == {"max_abs_response": 4}
    with pytest.raises(UserError, match="max_abs_response"):
        validate_params(LogitBoost, {"max_abs_response": 0.5}, "x")
    assert AdaBoost().split_criterion == "error"
    assert dict(full_params("adaboost", {}))["split_criterion"] == "error"
