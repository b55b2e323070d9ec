"""LPBoost by column generation: the final master LP against a direct LP over the generated
hypotheses, LP duality and complementary slackness, the warm-started master LP of every round
against a cold SciPy solve of the same LP, a resumed fit against an uninterrupted one (bit for
bit), Demiriz et al.'s stopping rule by brute force over every stump, the per-round ensembles
of a totally corrective forest, and bad parameters."""

import pickle

import numpy as np
import pytest
from scipy.optimize import linprog

from mcboost_cli.algorithms.adaboost import AdaBoost
from mcboost_cli.algorithms.lpboost import (
    LPBoost,
    RestrictedMasterLP,
    sign_leaves_margin_row,
    solve_restricted_master,
)
from mcboost_cli.learners.forest import set_label_scores_naive
from mcboost_cli.learners.histogram_tree import (
    CRITERION_ABS_SUM,
    TreeWorkspace,
    apply_tree,
    grow_tree,
)


def integer_data(seed, n=200, F=4, noise=0.6):
    """Integer features with < 255 distinct values (so a split on bins is a split on values:
    the grower's stumps are all stumps) and labels from a noisy rule (not separable)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 30, size=(n, F)).astype(float)
    z = (X[:, 0] - 15) / 8 - 0.6 * (X[:, 1] - 15) / 8 + (X[:, 2] > 20) + noise * rng.normal(size=n)
    return X, (z > 0.3).astype(int)


def tree_outputs(est, X):
    """h_j(x_i) in {-1, +1} of every stored tree (T, n), walked from the forest's arrays."""
    f = est.forest_
    Xb = est.bin_mapper_.transform(X)
    leaf = np.empty(Xb.shape[0], np.int32)
    H = np.empty((f.n_trees, Xb.shape[0]))
    for j in range(f.n_trees):
        o = f.tree_offset[j]
        apply_tree(Xb, f.feature, f.threshold, f.left, o, leaf)
        H[j] = np.where(f.leaf_label[o + leaf] == 1, 1.0, -1.0)
    return H


def direct_primal(M, D):
    """max rho - D sum xi s.t. sum_j a_j M[j, i] + xi_i >= rho, sum a = 1, a, xi >= 0, solved
    directly (variables a (T), xi (n), rho); returns its optimal value."""
    T, n = M.shape
    c = np.concatenate([np.zeros(T), np.full(n, D), [-1.0]])
    A_ub = np.hstack([-M.T, -np.eye(n), np.ones((n, 1))])
    A_eq = np.concatenate([np.ones(T), np.zeros(n), [0.0]])[None, :]
    bounds = [(0, None)] * (T + n) + [(None, None)]
    res = linprog(c, A_ub=A_ub, b_ub=np.zeros(n), A_eq=A_eq, b_eq=[1.0], bounds=bounds,
                  method="highs")
    assert res.status == 0
    return -res.fun


def bottom_average_margin(est, X, y, n_rounds=None):
    F = est.class_scores(X, n_rounds)
    margin = (F[:, 1] - F[:, 0]) * np.where(y == 1, 1.0, -1.0)
    return np.sort(margin)[:est.n_prime_].mean()


FITS = [(1, 0.1, "error"), (1, 0.5, "error"), (3, 0.05, "error"), (3, 0.2, "error"),
        (2, 0.1, "gini"), (3, 0.2, "gini")]


@pytest.fixture(scope="module", params=FITS,
                ids=[f"depth{d}-nprime{f}-{c}" for d, f, c in FITS])
def fitted(request):
    depth, frac, criterion = request.param
    X, y = integer_data(0)
    est = LPBoost(n_rounds=500, max_depth=depth, n_prime_fraction=frac,
                  split_criterion=criterion).fit(X, y)
    assert est.converged_, est.stop_reason_
    return est, X, y


def test_final_objective_equals_a_direct_lp_over_the_generated_hypotheses(fitted):
    est, X, y = fitted
    y_pm = np.where(y == 1, 1.0, -1.0)
    M = tree_outputs(est, X) * y_pm
    assert est.n_rounds_ >= 5
    value = direct_primal(M, 1.0 / est.n_prime_)
    assert est.beta_ == pytest.approx(value, abs=1e-7)
    # ... which is the largest bottom-n' average margin (DirectBoost's objective).
    assert bottom_average_margin(est, X, y) == pytest.approx(est.beta_, abs=1e-7)


def test_duals_satisfy_complementary_slackness_with_the_primal(fitted):
    est, X, y = fitted
    y_pm = np.where(y == 1, 1.0, -1.0)
    M = tree_outputs(est, X) * y_pm
    D = 1.0 / est.n_prime_
    a = np.asarray(est.forest_.alpha)
    u, beta, rho, xi = est.dual_weights_, est.beta_, est.rho_, est.slacks_
    margin = a @ M
    edges = M @ u
    tol = 1e-7
    # Feasibility of both.
    assert np.all(a >= 0) and abs(a.sum() - 1) < 1e-9
    assert np.all(xi >= 0) and np.all(margin + xi >= rho - tol)
    assert np.all(u >= 0) and np.all(u <= D + 1e-12) and abs(u.sum() - 1) < 1e-9
    assert np.all(edges <= beta + tol)
    # Complementary slackness: a_j > 0 only on columns of edge beta; u_i > 0 only where the
    # margin constraint binds; xi_i > 0 only where u_i = D.
    assert np.max(a * (beta - edges)) < tol
    assert np.max(np.abs(u * (margin + xi - rho))) < tol
    assert np.max(xi * (D - u)) < tol
    # Equal objectives (strong duality).
    assert rho - D * xi.sum() == pytest.approx(beta, abs=tol)
    # Not trivially so: some columns are off the support, some examples are capped.
    assert np.count_nonzero(a) < a.size


def test_no_stump_beats_the_final_duals_by_more_than_the_tolerance():
    X, y = integer_data(1)
    est = LPBoost(n_rounds=500, max_depth=1, n_prime_fraction=0.1).fit(X, y)
    assert est.converged_
    g = est.dual_weights_ * np.where(y == 1, 1.0, -1.0)
    best = abs(g.sum())                                       # the constant hypotheses
    for f in range(X.shape[1]):
        for v in np.unique(X[:, f]):
            h = np.where(X[:, f] <= v, 1.0, -1.0)
            best = max(best, abs(h @ g))                      # both polarities
    assert best <= est.beta_ + est.tolerance
    # At the optimum the columns in use have edge beta: the best stump reaches it.
    assert best >= est.beta_ - 1e-7


@pytest.mark.parametrize("depth", [1, 3])
def test_the_grower_finds_no_tree_above_beta_under_the_final_duals(depth):
    X, y = integer_data(2)
    est = LPBoost(n_rounds=500, max_depth=depth, n_prime_fraction=0.2).fit(X, y)
    assert est.converged_ and "optimal" in est.stop_reason_
    Xb = est.bin_mapper_.transform(X)
    yc = y.astype(np.int32)
    ws = TreeWorkspace(len(y), X.shape[1], int(Xb.max()) + 1, 1, depth)
    G = (est.dual_weights_ * np.where(y == 1, 1.0, -1.0))[:, None].copy()
    m = grow_tree(ws, Xb, yc, est.bin_mapper_.n_bins_.astype(np.int32), CRITERION_ABS_SUM,
                  channel_values=G)
    row = np.empty(len(y))
    edge = sign_leaves_margin_row(ws.left, ws.threshold, ws.node_sum, m, ws.node_start,
                                  ws.node_end, ws.sample_index, yc, est.dual_weights_,
                                  np.zeros(ws.max_nodes, np.int32), row)
    assert edge <= est.beta_ + est.tolerance
    assert edge == pytest.approx(row @ est.dual_weights_, abs=1e-12)


def test_each_rounds_curve_is_the_ensemble_of_that_rounds_lp():
    X, y = integer_data(3)
    Xv, yv = integer_data(4)
    est = LPBoost(n_rounds=500, max_depth=3, n_prime_fraction=0.1).fit(X, y, eval_set=[(Xv, yv)])
    y_pm = np.where(y == 1, 1.0, -1.0)
    M = tree_outputs(est, X) * y_pm
    path = est.forest_.weight_path
    assert len(path) == est.n_rounds_ == est.soft_margins_.size
    changed = 0
    for t in range(1, est.n_rounds_ + 1):
        # The restricted master of round t over its t columns, solved directly.
        assert est.soft_margins_[t - 1] == pytest.approx(direct_primal(M[:t], 1 / est.n_prime_),
                                                         abs=1e-7)
        assert bottom_average_margin(est, X, y, t) == pytest.approx(est.soft_margins_[t - 1],
                                                                     abs=1e-7)
        w = path[t - 1]
        assert w.shape == (t,)
        Xb = est.bin_mapper_.transform(Xv)
        _, _, n_err = set_label_scores_naive(est.forest_, w, Xb, yv)
        assert est.eval_errors_[0, t - 1] == n_err / len(yv)
        if t >= 2 and not np.array_equal(w[:t - 1], path[t - 2]):
            changed += 1
    # Totally corrective: the weights of earlier trees move in most rounds.
    assert changed >= est.n_rounds_ // 2
    # The soft margin never falls as columns are added.
    assert np.all(np.diff(est.soft_margins_) >= -1e-9)


def test_reweighted_forest_kernel_equals_its_numpy_twin():
    X, y = integer_data(5)
    est = LPBoost(n_rounds=30, max_depth=3, n_prime_fraction=0.1).fit(X, y)
    rng = np.random.default_rng(0)
    Xn = rng.integers(0, 30, size=(150, X.shape[1])).astype(float)
    yn = rng.integers(0, 2, size=150).astype(np.int32)
    Xb = est.bin_mapper_.transform(Xn)
    scores = np.full((150, 2), 7.0)          # overwritten, never read
    pred = np.zeros(150, np.int32)
    for t in range(est.n_rounds_):
        n_err = est.forest_.add_round(t, Xb, yn, scores, pred)
        s2, p2, e2 = set_label_scores_naive(est.forest_, est.forest_.weight_path[t], Xb, yn)
        np.testing.assert_array_equal(scores, s2)
        np.testing.assert_array_equal(pred, p2)
        assert n_err == e2


def test_no_weak_learner_better_than_chance_keeps_no_round():
    X = np.zeros((40, 2))
    y = np.tile([0, 1], 20)
    est = LPBoost(max_depth=1).fit(X, y)
    assert est.n_rounds_ == 0 and est.converged_
    assert "optimal" in est.stop_reason_


def test_round_budget_ends_an_unconverged_fit():
    X, y = integer_data(6)
    est = LPBoost(n_rounds=3, max_depth=1, n_prime_fraction=0.1).fit(X, y)
    assert est.n_rounds_ == 3 and not est.converged_ and est.stop_reason_ == "n_rounds"
    assert est.lp_seconds_.shape == (3,) and est.lp_iterations_.shape == (3,)


def assert_optimal_pair(M, D, u, beta, a, rho, xi, tol=1e-7):
    """(a, rho, xi) and (u, beta) are feasible for the primal and the dual LP over the columns
    M (T, n), complementary, and of equal value (tol: HiGHS's feasibility tolerance)."""
    margin = a @ M
    edges = M @ u
    assert np.all(a >= 0) and abs(a.sum() - 1) < 1e-9
    assert np.all(xi >= 0) and np.all(margin + xi >= rho - tol)
    assert np.all(u >= 0) and np.all(u <= D) and abs(u.sum() - 1) < 1e-9
    assert np.all(edges <= beta + tol)
    assert np.max(a * (beta - edges)) < tol
    assert np.max(np.abs(u * (margin + xi - rho))) < tol
    assert np.max(xi * (D - u)) < tol
    assert rho - D * xi.sum() == pytest.approx(beta, abs=tol)


# (data seed, label noise, depth, n'/n): n'/n = 0.004 is n' = 1 of 200 (D = 1, the hard
# margin); at 0.8 the fits end within a few rounds unless the labels are noisier.
WARM_FITS = [(0, 0.6, 1, 0.004), (1, 3.0, 1, 0.8), (2, 0.6, 3, 0.004), (3, 3.0, 3, 0.8),
             (4, 0.6, 3, 0.1), (5, 0.6, 1, 0.05)]


@pytest.mark.parametrize("seed, noise, depth, frac", WARM_FITS,
                         ids=[f"seed{s}-depth{d}-nprime{f}" for s, _, d, f in WARM_FITS])
def test_every_rounds_warm_started_lp_is_optimal_and_equals_a_cold_solve(seed, noise, depth,
                                                                          frac):
    X, y = integer_data(seed, noise=noise)
    est = LPBoost(n_rounds=500, max_depth=depth, n_prime_fraction=frac).fit(X, y)
    assert est.converged_ and est.n_rounds_ >= 9
    M = tree_outputs(est, X) * np.where(y == 1, 1.0, -1.0)    # the columns, from the trees
    D = 1.0 / est.n_prime_
    master = RestrictedMasterLP(len(y), D)
    for t in range(1, est.n_rounds_ + 1):
        u, beta, a, rho, xi = master.add_column_and_solve(M[t - 1])
        # The fit's LP of round t is this one: a new model given the same rows in the same
        # order gives the same floats.
        assert beta == est.soft_margins_[t - 1]
        np.testing.assert_array_equal(a, est.forest_.weight_path[t - 1])
        # The same LP solved from scratch by SciPy's linprog (HiGHS, another model).
        u_c, beta_c, a_c, rho_c, xi_c = solve_restricted_master(M[:t], D)
        assert abs(beta - beta_c) <= 1e-9, t
        assert_optimal_pair(M[:t], D, u, beta, a, rho, xi)
        assert_optimal_pair(M[:t], D, u_c, beta_c, a_c, rho_c, xi_c)
        # a and a_c may differ: the LP can have several optimal vertices, and the warm start
        # ends at the one nearest its last basis (ALGORITHMS.md, "LPBoost").
    np.testing.assert_array_equal(u, est.dual_weights_)
    assert rho == est.rho_
    np.testing.assert_array_equal(xi, est.slacks_)


class MemoryCheckpoint:
    """A checkpoint kept in memory, pickled as a file would be: ``save`` raises ``Stop``
    after ``stop_after`` saves (None: never)."""

    class Stop(Exception):
        pass

    def __init__(self, saved=None, stop_after=None):
        self.saved = saved
        self.stop_after = stop_after
        self.saves = 0
        self.resumed_round = 0

    def load(self, fingerprint):
        if self.saved is None or self.saved[0] != fingerprint:
            return None
        state = pickle.loads(self.saved[1])
        self.resumed_round = state["kept"]
        return state

    def due(self):
        return True

    def save(self, fingerprint, state):
        self.saved = (fingerprint, pickle.dumps(state))
        self.saves += 1
        if self.stop_after is not None and self.saves >= self.stop_after:
            raise MemoryCheckpoint.Stop()


def fitted_numbers(est, Xv):
    """Every number a fit leaves, LP solutions and the weights of every round included."""
    f = est.forest_
    return ([est.n_rounds_, est.stop_reason_, est.beta_, est.rho_, est.converged_],
            [est.dual_weights_, est.slacks_, est.soft_margins_, est.edges_, est.lp_iterations_,
             est.train_errors_, est.eval_errors_, *f.weight_path, np.asarray(f.alpha),
             f.feature[:f.n_nodes_total], f.threshold[:f.n_nodes_total],
             f.leaf_label[:f.n_nodes_total], est.class_scores(Xv)])


@pytest.mark.parametrize("depth, frac, stop", [(3, 0.1, 1), (3, 0.1, 17), (1, 0.004, 9)])
def test_a_fit_resumed_from_a_checkpoint_equals_the_uninterrupted_fit_bit_for_bit(depth, frac,
                                                                                   stop):
    X, y = integer_data(3)
    Xv, yv = integer_data(4)
    params = dict(n_rounds=500, max_depth=depth, n_prime_fraction=frac)
    full = LPBoost(**params).fit(X, y, eval_set=[(Xv, yv)])
    assert full.converged_ and full.n_rounds_ > stop + 10
    ck = MemoryCheckpoint(stop_after=stop)
    with pytest.raises(MemoryCheckpoint.Stop):
        LPBoost(**params).fit(X, y, eval_set=[(Xv, yv)], checkpoint=ck)
    again = MemoryCheckpoint(ck.saved)
    resumed = LPBoost(**params).fit(X, y, eval_set=[(Xv, yv)], checkpoint=again)
    assert again.resumed_round == stop
    (scalars_a, arrays_a), (scalars_b, arrays_b) = (fitted_numbers(full, Xv),
                                                    fitted_numbers(resumed, Xv))
    assert scalars_a == scalars_b
    assert len(arrays_a) == len(arrays_b)
    for va, vb in zip(arrays_a, arrays_b):
        np.testing.assert_array_equal(va, vb)


@pytest.mark.parametrize("seed, depth, frac", [(4, 3, 0.1), (0, 1, 0.004)])
def test_a_model_rebuilt_from_the_rows_and_the_basis_solves_the_next_lp_as_the_fit_did(
        seed, depth, frac):
    # What a resumed fit relies on, after every round: the next solve depends on the LP and
    # the basis it starts from, not on the solves before.
    X, y = integer_data(seed)
    est = LPBoost(n_rounds=500, max_depth=depth, n_prime_fraction=frac).fit(X, y)
    M = tree_outputs(est, X) * np.where(y == 1, 1.0, -1.0)
    D = 1.0 / est.n_prime_
    fit = RestrictedMasterLP(len(y), D)
    for t in range(1, est.n_rounds_):
        fit.add_column_and_solve(M[t - 1])
        rebuilt = RestrictedMasterLP(len(y), D)
        for j in range(t):
            rebuilt.add_column(M[j])
        rebuilt.set_basis(*fit.basis())
        u, beta, a, rho, xi = rebuilt.add_column_and_solve(M[t])
        assert beta == est.soft_margins_[t], t
        np.testing.assert_array_equal(a, est.forest_.weight_path[t])


def test_a_basis_that_does_not_fit_the_lp_is_an_error():
    X, y = integer_data(0)
    M = np.where(y == 1, 1.0, -1.0)[None, :]
    master = RestrictedMasterLP(len(y), 0.1)
    master.add_column_and_solve(M[0])
    col, row = master.basis()
    other = RestrictedMasterLP(len(y), 0.1)
    with pytest.raises(RuntimeError, match="does not fit"):
        other.set_basis(col, row)                 # 2 rows for a model of 1


def test_the_checkpoint_fingerprint_names_the_highspy_version(monkeypatch):
    import importlib.metadata

    sets = [(np.zeros((4, 2), np.uint8), np.array([0, 1, 0, 1], np.int32))]
    lp, ada = LPBoost(), AdaBoost()
    before = lp._fit_fingerprint(sets), ada._fit_fingerprint(sets)
    real = importlib.metadata.version
    monkeypatch.setattr(importlib.metadata, "version",
                        lambda d: "0.0.1" if d == "highspy" else real(d))
    assert lp._fit_fingerprint(sets) != before[0]
    assert ada._fit_fingerprint(sets) == before[1]    # other algorithms' keys are unchanged


def test_a_fit_writes_nothing_to_stdout_or_stderr(capfd):
    X, y = integer_data(9)
    LPBoost(n_rounds=5, max_depth=1).fit(X, y)
    out, err = capfd.readouterr()
    assert out == "" and err == ""


@pytest.mark.parametrize("params, name", [
    ({"n_prime_fraction": 0.0}, "n_prime_fraction"),
    ({"n_prime_fraction": 1.5}, "n_prime_fraction"),
    ({"tolerance": 0.0}, "tolerance"),
    ({"tolerance": -1e-3}, "tolerance"),
    ({"max_depth": 0}, "max_depth"),
    ({"n_rounds": 0}, "n_rounds"),
    ({"n_rounds": 2.5}, "n_rounds"),
    ({"max_bins": 1}, "max_bins"),
])
def test_bad_parameters_are_one_line_errors(params, name):
    X, y = integer_data(7, n=40)
    with pytest.raises(ValueError) as e:
        LPBoost(**params).fit(X, y)
    msg = str(e.value)
    assert name in msg and "\n" not in msg


def test_more_than_two_classes_is_a_one_line_error_naming_the_alternative():
    X, y = integer_data(8, n=60)
    y3 = y + (X[:, 3] > 20)
    with pytest.raises(ValueError) as e:
        LPBoost().fit(X, y3)
    msg = str(e.value)
    assert "binary" in msg and "3 classes" in msg and "samme" in msg and "\n" not in msg


@pytest.mark.parametrize("depth", [1, 3])
def test_gini_trees_are_adaboosts_label_trees_grown_on_u(depth):
    """split_criterion="gini" grows the tree binary AdaBoost grows on its distribution: under
    the first round's u = 1/n it is AdaBoost's first tree (same splits, same leaf labels), and
    its edge is not above the edge reading's at depth 1 (the exact edge maximiser)."""
    X, y = integer_data(5)
    lp = LPBoost(n_rounds=1, max_depth=depth, split_criterion="gini").fit(X, y)
    ada = AdaBoost(n_rounds=1, max_depth=depth, split_criterion="gini").fit(X, y)
    np.testing.assert_array_equal(lp.predict(X), ada.predict(X))
    assert lp.n_rounds_ == 1
    edge_reading = LPBoost(n_rounds=1, max_depth=depth).fit(X, y)
    if depth == 1:
        assert lp.edges_[0] <= edge_reading.edges_[0] + 1e-12
