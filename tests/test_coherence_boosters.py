"""The coherence paper's three boosters on per-class regression trees (issue 33):
GentleBoost.C (``gentleboost_c``), GentleBoost.E (``gentleboost_e``) and MulLogitBoost
(``mullogitboost``).

Each is checked against a brute-force re-implementation of its rounds (numpy and the naive
tree ``grow_leafwise_tree_naive``), on its own training loss, and on the reductions and
relations the papers state: K = 2 MulLogitBoost is binary LogitBoost (FHT 2000, Alg. 3),
K = 2 GentleBoost.E is Gentle AdaBoost (FHT Alg. 4) with a doubled step, and GentleBoost.C
at T = 1 is MulLogitBoost with the coherence's "1 +" margin (eq. (5) vs the softmax).
"""

import numpy as np
import pytest

from mcboost_cli.algorithms.coherence import (
    class_weights,
    coherence_loss,
    multinomial_logit_loss,
    multinomial_working_responses,
    update_margins,
    working_responses,
)
from mcboost_cli.algorithms.gentleboost_c import GentleBoostC
from mcboost_cli.algorithms.gentleboost_e import GentleBoostE, exponential_margin_loss
from mcboost_cli.algorithms.mullogitboost import MulLogitBoost
from mcboost_cli.algorithms.registry import get_algorithm, validate_params
from mcboost_cli.errors import UserError
from mcboost_cli.learners.naive_tree import grow_leafwise_tree_naive

CAP = 4.0


def _data(seed=0, n=150, K=3, F=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, F))
    y = np.digitize(X[:, 0] + 0.6 * X[:, 1] + 0.5 * rng.normal(size=n),
                    np.linspace(-1.0, 1.0, K - 1)).astype(int)
    return X, y


def _naive_fit(Xb, n_bins, z, w, max_leaves):
    """Fitted values on the training rows of the naive best-first tree."""
    tree = grow_leafwise_tree_naive(Xb, n_bins, z, w, max_leaves)
    out = np.empty(Xb.shape[0])
    for i in range(Xb.shape[0]):
        nd = 0
        while tree["left"][nd] >= 0:
            go_left = Xb[i, tree["feature"][nd]] <= tree["threshold"][nd]
            nd = tree["left"][nd] if go_left else tree["right"][nd]
        out[i] = tree["leaf_value"][nd]
    return out


def _softmax(a):
    e = np.exp(a - a.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _newton_response(p, is_label):
    """(I - p) / (p (1 - p)) capped at |z| <= 4, and p (1 - p), straight from the formula."""
    z = np.clip((is_label - p) / (p * (1.0 - p)), -CAP, CAP)
    return z, p * (1.0 - p)


# --- brute-force rounds -------------------------------------------------------------------

def _reference_rounds(name, Xb, n_bins, y, K, n_rounds, max_leaves, temperature=1.0):
    """Margins after each round, from the algorithms' printed steps."""
    n = Xb.shape[0]
    is_label = np.eye(K)[y]
    g = np.zeros((n, K))
    out = []
    for t in range(n_rounds):
        if name == "gentleboost_c":
            if t == 0:
                beta = np.full((n, K), 1.0 / K)                      # Alg. 1 step 1
            else:                                                     # eq. (5)
                a = (1.0 + g - g[np.arange(n), y][:, None]) / temperature
                a[np.arange(n), y] = 0.0
                beta = np.exp(a) / np.exp(a).sum(axis=1, keepdims=True)
            z, w = _newton_response(beta, is_label)
        elif name == "mullogitboost":
            z, w = _newton_response(_softmax(g), is_label)           # FHT Alg. 6
        else:
            u = is_label - 1.0 / K                                    # Zou et al. (a)(i)
            wi = np.exp(-g[np.arange(n), y])
            w = wi[:, None] * u ** 2
            w = w / w.sum(axis=0)
            z = 1.0 / u
        h = np.column_stack([_naive_fit(Xb, n_bins, z[:, j], w[:, j], max_leaves)
                             for j in range(K)])
        if name == "gentleboost_e":
            g = g + (h - h.mean(axis=1, keepdims=True))
        else:
            g = update_margins(g, h)
        out.append(g.copy())
    return out


BOOSTERS = [GentleBoostC, GentleBoostE, MulLogitBoost]


@pytest.mark.parametrize("cls", BOOSTERS, ids=lambda c: c.name)
@pytest.mark.parametrize("K", [3, 5])
def test_rounds_equal_a_brute_force_reimplementation_with_the_naive_tree(cls, K):
    X, y = _data(1, K=K)
    est = cls(n_rounds=4, max_leaves=5).fit(X, y)
    Xb = est.bin_mapper_.transform(X)
    n_bins = est.bin_mapper_.n_bins_
    ref = _reference_rounds(cls.name, Xb, n_bins, y, K, 4, 5)
    for t, scores in enumerate(est.staged_class_scores(X)):
        np.testing.assert_allclose(scores, ref[t], rtol=1e-9, atol=1e-9,
                                   err_msg=f"round {t + 1}")
        np.testing.assert_allclose(scores.sum(axis=1), 0.0, atol=1e-9)   # sum-to-zero


def test_gentleboost_c_at_another_temperature_equals_the_brute_force_rounds():
    X, y = _data(2, K=4)
    est = GentleBoostC(n_rounds=3, max_leaves=6, temperature=0.5).fit(X, y)
    ref = _reference_rounds("gentleboost_c", est.bin_mapper_.transform(X),
                            est.bin_mapper_.n_bins_, y, 4, 3, 6, temperature=0.5)
    for t, scores in enumerate(est.staged_class_scores(X)):
        np.testing.assert_allclose(scores, ref[t], rtol=1e-9, atol=1e-9)


# --- each booster lowers its own loss ------------------------------------------------------

LOSSES = {
    "gentleboost_c": lambda g, y: coherence_loss(g, y, 1.0).mean(),
    "gentleboost_e": lambda g, y: exponential_margin_loss(g, y).mean(),
    "mullogitboost": lambda g, y: multinomial_logit_loss(g, y).mean(),
}


@pytest.mark.parametrize("cls", BOOSTERS, ids=lambda c: c.name)
def test_the_training_loss_decreases_over_the_first_rounds(cls):
    X, y = _data(3, n=200, K=4)
    est = cls(n_rounds=6).fit(X, y)
    loss = LOSSES[cls.name]
    curve = [loss(np.zeros((len(y), 4)), y)]
    curve += [loss(g, y) for g in est.staged_class_scores(X)]
    assert all(b < a for a, b in zip(curve, curve[1:])), curve
    assert est.train_errors_[-1] < est.train_errors_[0]


# --- K = 2 reductions ----------------------------------------------------------------------

def test_mullogitboost_with_two_classes_is_binary_logitboost():
    """FHT 2000, Alg. 3: p = e^F / (e^F + e^-F), z = (y* - p)/(p(1 - p)), w = p(1 - p),
    F += f/2. With K = 2, F_1 = -F_2 = F: the class-2 tree is the class-1 tree negated and
    Alg. 6's (K-1)/K centring halves the fit, which is Alg. 3's f/2."""
    X, y = _data(4, n=160, K=2)
    est = MulLogitBoost(n_rounds=5, max_leaves=6).fit(X, y)
    Xb, n_bins = est.bin_mapper_.transform(X), est.bin_mapper_.n_bins_
    y_star = (y == 0).astype(float)              # class 0 is the "y = 1" of Alg. 3
    F = np.zeros(len(y))
    for t, scores in enumerate(est.staged_class_scores(X)):
        p = 1.0 / (1.0 + np.exp(-2.0 * F))
        z = np.clip((y_star - p) / (p * (1.0 - p)), -CAP, CAP)
        F = F + 0.5 * _naive_fit(Xb, n_bins, z, p * (1.0 - p), 6)
        np.testing.assert_allclose(scores[:, 0], F, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(scores[:, 0] - scores[:, 1], 2.0 * F, rtol=1e-10,
                                   atol=1e-12)


def test_gentleboost_e_with_two_classes_is_gentle_adaboost_with_a_doubled_step():
    """FHT 2000, Alg. 4: f_m = weighted least-squares fit of y in {-1, +1} with
    w = exp(-y F), F += f_m. GentleBoost.E's f_1 = -f_2 = F has the same loss exp(-y F);
    its two coordinates each take the Newton step, with no (m-1)/m factor, so F moves by
    2 f_m."""
    X, y = _data(5, n=160, K=2)
    est = GentleBoostE(n_rounds=5, max_leaves=6).fit(X, y)
    Xb, n_bins = est.bin_mapper_.transform(X), est.bin_mapper_.n_bins_
    ypm = np.where(y == 0, 1.0, -1.0)
    F = np.zeros(len(y))
    for scores in est.staged_class_scores(X):
        w = np.exp(-ypm * F)
        F = F + 2.0 * _naive_fit(Xb, n_bins, ypm, w / w.sum(), 6)
        np.testing.assert_allclose(scores[:, 0], F, rtol=1e-9, atol=1e-9)


# --- GentleBoost.C at T = 1 vs MulLogitBoost: the "1 +" margin -----------------------------

def test_coherence_weights_are_the_softmax_with_one_added_to_the_other_classes():
    rng = np.random.default_rng(6)
    g = rng.normal(scale=2.0, size=(50, 5))
    g -= g.mean(axis=1, keepdims=True)
    c = rng.integers(0, 5, size=50)
    shifted = g + 1.0 - np.eye(5)[c]             # 1 + g_j - I[j = c]
    np.testing.assert_allclose(class_weights(g, c, 1.0), _softmax(shifted), rtol=1e-12)
    # The losses too: C(g, c) at T = 1 is L of eq. (2) at the shifted margins, so C >= L.
    np.testing.assert_allclose(coherence_loss(g, c, 1.0), multinomial_logit_loss(shifted, c),
                               rtol=1e-12)
    assert np.all(coherence_loss(g, c, 1.0) >= multinomial_logit_loss(g, c))
    # So are the working responses and weights of the two boosters.
    for a, b in zip(working_responses(g, c, 1.0), multinomial_working_responses(shifted, c)):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    # Without the shift they differ (the "1 +" is the whole difference).
    assert not np.allclose(working_responses(g, c, 1.0)[1],
                           multinomial_working_responses(g, c)[1])


def test_gentleboost_c_and_mullogitboost_share_round_one_then_part():
    """Both start from beta = p = 1/m (Alg. 1 step 1; Alg. 6 at F = 0), so their first
    rounds are the same; from round 2, beta of eq. (5) carries the "1 +" and p does not."""
    X, y = _data(7, K=4)
    c_fit = list(GentleBoostC(n_rounds=2, max_leaves=5).fit(X, y).staged_class_scores(X))
    l_fit = list(MulLogitBoost(n_rounds=2, max_leaves=5).fit(X, y).staged_class_scores(X))
    # (equal to rounding: Alg. 6's 1/m comes out of a log-space softmax)
    np.testing.assert_allclose(c_fit[0], l_fit[0], rtol=1e-12, atol=1e-14)
    assert not np.allclose(c_fit[1], l_fit[1])


def test_multinomial_working_responses_are_the_capped_newton_quantities():
    rng = np.random.default_rng(8)
    g = rng.normal(scale=3.0, size=(40, 4))
    c = rng.integers(0, 4, size=40)
    z, w = multinomial_working_responses(g, c)
    z_ref, w_ref = _newton_response(_softmax(g), np.eye(4)[c])
    np.testing.assert_allclose(z, z_ref, rtol=1e-10)
    np.testing.assert_allclose(w, w_ref, rtol=1e-10)
    assert np.abs(z).max() == CAP                 # the cap binds at these margins
    with pytest.raises(UserError, match="max_abs_response"):
        multinomial_working_responses(g, c, max_abs_response=0.0)


def test_bad_parameters_give_one_line_errors():
    cls = get_algorithm("gentleboost_c")
    with pytest.raises(UserError, match=r"algo\.temperature: .*\(0, "):
        validate_params(cls, {"temperature": 0}, "algo")
    with pytest.raises(UserError, match=r"algo\.max_leaves"):
        validate_params(get_algorithm("mullogitboost"), {"max_leaves": 1}, "algo")


@pytest.mark.parametrize("cls", [GentleBoostC, MulLogitBoost], ids=lambda c: c.name)
def test_trees_keep_growing_after_the_training_set_is_separated(cls):
    """Once the training set is separated, w = p (1 - p) shrinks towards 0 round after round;
    the fit does not depend on the weights' scale, so the trees must keep splitting (FHT's
    algorithm does not stop there). Unscaled, every gain fell under the grower's absolute
    tie tolerance and the trees ended at their roots from some round on."""
    rng = np.random.default_rng(3)
    K, n = 3, 90
    y = np.repeat(np.arange(K), n // K)
    X = rng.normal(scale=0.3, size=(n, 2)) + 4.0 * np.eye(K)[y][:, :2] + rng.normal(size=(n, 1))
    est = cls(n_rounds=80, max_leaves=4).fit(X, y)
    assert np.mean(est.predict(X) != y) == 0.0
    f = est.forest_
    ends = list(f.tree_offset) + [f.n_nodes_total]
    nodes = np.diff(ends)
    assert nodes.size == 80 * K
    # Every tree of the last 20 rounds still splits.
    assert np.all(nodes[-20 * K:] > 1), nodes[-20 * K:]
