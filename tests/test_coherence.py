"""The coherence function and GentleBoost.C's per-round quantities against the paper
(Zhang, Jordan, Li & Yeung, AISTATS 2009): Corollary 1 and Theorems 1-3, and derivatives of
the loss taken by finite differences."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from mcboost_cli.algorithms.coherence import (
    binary_coherence_loss,
    class_probabilities,
    class_weights,
    coherence_loss,
    coherence_lower_bound,
    hinge_loss,
    logit_loss,
    multiclass_hinge_loss,
    multinomial_logit_loss,
    update_margins,
    working_responses,
    zero_one_loss,
)
from mcboost_cli.errors import UserError

TEMPERATURES = (1.0, 0.1, 0.01)
GRID = np.linspace(-3.0, 3.0, 6001)          # step 0.001, contains z = 1 exactly


def _random_margins(n, m, scale, seed):
    """n sum-to-zero margin vectors of m classes, with random labels."""
    rng = np.random.default_rng(seed)
    g = scale * rng.standard_normal((n, m))
    return g - g.mean(axis=1, keepdims=True), rng.integers(0, m, n)


# ------------------------------------------------------------------------------------------
# (a) T -> 0: the hinge loss, within T log 2 (Corollary 1 (i)-(ii)); Theorem 2 for m > 2


@pytest.mark.parametrize("T", TEMPERATURES)
def test_binary_coherence_is_within_T_log_2_above_the_hinge(T):
    gap = binary_coherence_loss(GRID, T) - hinge_loss(GRID)
    assert gap.min() >= -1e-12                               # rounding of 1 - z
    assert gap.max() <= T * np.log(2) + 1e-12
    # The bound is attained at z = 1 (C(1) = T log 2), so it is the uniform error exactly.
    assert gap.max() == pytest.approx(T * np.log(2), rel=1e-12)
    assert GRID[gap.argmax()] == pytest.approx(1.0)


def test_binary_coherence_tends_to_the_hinge_uniformly():
    sup = [np.abs(binary_coherence_loss(GRID, T) - hinge_loss(GRID)).max()
           for T in TEMPERATURES]
    assert sup == sorted(sup, reverse=True) and sup[-1] < 0.007


@pytest.mark.parametrize("T", TEMPERATURES)
def test_multicategory_coherence_lies_between_hinge_and_hinge_plus_T_log_m(T):
    for m in (2, 3, 7):
        g, c = _random_margins(500, m, 2.0, seed=m)
        C = coherence_loss(g, c, T)
        H = multiclass_hinge_loss(g, c)
        assert np.all(C >= H - 1e-12)                      # sec. 3.1
        assert np.all(C - T * np.log(m) <= H + 1e-12)      # Theorem 2, right inequality
        assert np.all(coherence_lower_bound(g, c) <= C - T * np.log(m) + 1e-12)  # left


def test_binary_form_is_the_multicategory_form_with_half_margins():
    """Eq. (7) is eq. (6) at m = 2 with g_1 = -g_2 = f/2, y = +1 for class 1."""
    f = np.linspace(-4, 4, 81)
    g = np.column_stack([f / 2, -f / 2])
    for T in (1.0, 0.3):
        assert np.allclose(coherence_loss(g, np.zeros(f.size, int), T),
                           binary_coherence_loss(f, T), rtol=1e-10, atol=1e-15)
        assert np.allclose(coherence_loss(g, np.ones(f.size, int), T),
                           binary_coherence_loss(-f, T), rtol=1e-10, atol=1e-15)


# ------------------------------------------------------------------------------------------
# (b) a majorisation of the 0-1 loss (sec. 3.1) and Corollary 1 (iii)


@pytest.mark.parametrize("T", TEMPERATURES + (5.0,))
def test_coherence_is_an_upper_bound_of_the_zero_one_loss(T):
    assert np.all(binary_coherence_loss(GRID, T) >= zero_one_loss(GRID) - 1e-12)
    assert np.all(binary_coherence_loss(GRID, T) - T * np.log(2) >= 0.5 * (1 - GRID) - 1e-12)
    g, c = _random_margins(2000, 5, 1.5, seed=1)
    wrong = (g.argmax(axis=1) != c).astype(float)
    assert 0 < wrong.mean() < 1
    assert np.all(coherence_loss(g, c, T) >= wrong)


def test_the_logit_loss_of_figure_1_is_not_a_bound_everywhere_but_C_at_T1_bounds_eq2():
    # Sec. 3.1: at T = 1, C is an upper bound of the multinomial log-likelihood (2).
    g, c = _random_margins(1000, 4, 2.0, seed=2)
    assert np.all(coherence_loss(g, c, 1.0) >= multinomial_logit_loss(g, c))
    # Figure 1's logit loss is scaled to 1 at z = 0.
    assert logit_loss(np.array([0.0]))[0] == pytest.approx(1.0)


# ------------------------------------------------------------------------------------------
# (c) Fisher consistency (Theorem 1) and eq. (8)

PROBABILITIES = [
    (0.5, 0.3, 0.2),
    (0.40, 0.35, 0.25),              # no class above 1/2: the hinge loss is not consistent here
    (0.1, 0.2, 0.3, 0.4),
    (0.05, 0.6, 0.15, 0.12, 0.08),
]


def _expected_loss_minimiser(p, T):
    """argmin over sum-to-zero g of sum_c p_c C(g, c), by BFGS on a basis of that plane."""
    p = np.asarray(p)
    m = p.size
    # Orthonormal basis of {g : sum g = 0}: the last m-1 columns of a QR of [1, I].
    q, _ = np.linalg.qr(np.column_stack([np.ones(m), np.eye(m)[:, :m - 1]]))
    basis = q[:, 1:]
    labels = np.arange(m)

    def risk_and_gradient(u):
        g = np.tile(basis @ u, (m, 1))           # row c: the same g, scored for class c
        # dC(g, c)/dg_j = beta^c_j - I[j=c] (checked by finite differences below)
        grad = p @ (class_weights(g, labels, T) - np.eye(m))
        return float(p @ coherence_loss(g, labels, T)), basis.T @ grad

    res = minimize(risk_and_gradient, np.zeros(m - 1), jac=True, method="BFGS",
                   options={"gtol": 1e-10})
    # BFGS may stop on "precision loss" next to the optimum; the gradient says it is there.
    assert np.linalg.norm(res.jac) < 1e-8, res.message
    return basis @ res.x


@pytest.mark.parametrize("T", (1.0, 0.5))
@pytest.mark.parametrize("p", PROBABILITIES)
def test_minimiser_of_the_expected_loss_orders_classes_as_their_probabilities(p, T):
    g = _expected_loss_minimiser(p, T)
    assert abs(g.sum()) < 1e-10
    assert g.argmax() == int(np.argmax(p))
    order = np.argsort(p)
    assert np.all(np.diff(g[order]) > 1e-6)            # P_i < P_j  =>  g_i < g_j
    # Eq. (8) recovers the class probabilities from the minimiser.
    assert np.allclose(class_probabilities(g[None, :], T)[0], p, atol=1e-6)


# ------------------------------------------------------------------------------------------
# (d) the working responses and weights are Newton quantities of C


def _finite_difference_derivatives(g, c, T, h=1e-4):
    """dC/dg_j and d2C/dg_j2 (g unconstrained) by central differences, per example."""
    grad = np.empty_like(g)
    curv = np.empty_like(g)
    C0 = coherence_loss(g, c, T)
    for j in range(g.shape[1]):
        step = np.zeros_like(g)
        step[:, j] = h
        up, down = coherence_loss(g + step, c, T), coherence_loss(g - step, c, T)
        grad[:, j] = (up - down) / (2 * h)
        curv[:, j] = (up - 2 * C0 + down) / h ** 2
    return grad, curv


@pytest.mark.parametrize("T", (1.0, 0.5, 2.0))
def test_working_responses_and_weights_are_the_newton_step_and_curvature(T):
    g, c = _random_margins(40, 4, 0.7, seed=3)
    grad, curv = _finite_difference_derivatives(g, c, T)
    beta = class_weights(g, c, T)
    onehot = np.eye(4)[c]
    assert np.allclose(beta - onehot, grad, atol=1e-7)       # gradient of C
    z, w = working_responses(g, c, T, max_abs_response=np.inf)
    assert np.allclose(w, T * curv, rtol=1e-4, atol=1e-7)
    assert np.allclose(T * z, -grad / curv, rtol=1e-4)
    if T == 1.0:                                             # the paper's setting
        assert np.allclose(z, -grad / curv, rtol=1e-4) and np.allclose(w, curv, rtol=1e-4)
    # Algorithm 1's formula as printed.
    assert np.allclose(z, (onehot - beta) / (beta * (1 - beta)), rtol=1e-12)
    assert np.allclose(w, beta * (1 - beta), rtol=1e-12)


def test_class_weights_are_step_2c_of_algorithm_1():
    g, c = _random_margins(30, 5, 1.0, seed=4)
    T = 0.7
    e = np.exp((1 + g - g[np.arange(30), c][:, None]) / T)
    e[np.arange(30), c] = 0.0
    denom = 1 + e.sum(axis=1, keepdims=True)
    expected = e / denom
    expected[np.arange(30), c] = 1 / denom[:, 0]
    assert np.allclose(class_weights(g, c, T), expected, rtol=1e-12)


def test_the_response_cap_bounds_the_magnitude_only_where_it_binds():
    g, c = _random_margins(200, 3, 3.0, seed=5)
    free, w = working_responses(g, c, 1.0, max_abs_response=np.inf)
    capped, w2 = working_responses(g, c, 1.0, max_abs_response=4.0)
    assert np.array_equal(w, w2)
    binds = np.abs(free) > 4.0
    assert binds.any() and (~binds).any()
    assert np.array_equal(capped[~binds], free[~binds])
    assert np.array_equal(capped[binds], 4.0 * np.sign(free[binds]))


def test_update_keeps_margins_summing_to_zero_and_reads_step_2b_both_ways():
    rng = np.random.default_rng(6)
    g, _ = _random_margins(10, 4, 1.0, seed=6)
    h = rng.standard_normal((10, 4))
    new = update_margins(g, h)
    assert np.allclose(new.sum(axis=1), 0, atol=1e-12)
    assert np.allclose(new, g + 0.75 * (h - h.mean(axis=1, keepdims=True)))
    literal = update_margins(g, h, centre="margin")
    assert np.allclose(literal.sum(axis=1), 0, atol=1e-12)
    assert np.allclose(literal, 0.75 * (g + h - (g + h).mean(axis=1, keepdims=True)))
    with pytest.raises(UserError, match="centre"):
        update_margins(g, h, centre="both")


# ------------------------------------------------------------------------------------------
# (e) the limits of Theorem 3 and Corollary 1 (iv)


def test_large_temperature_limit_is_S_and_uniform_weights():
    g, c = _random_margins(50, 4, 1.0, seed=7)
    gaps = []
    for T in (10.0, 100.0, 1000.0):
        gaps.append(np.abs(coherence_loss(g, c, T) - T * np.log(4)
                           - coherence_lower_bound(g, c)).max())
        assert np.abs(class_weights(g, c, T) - 0.25).max() < 10 / T
    assert gaps[0] > gaps[1] > gaps[2] and gaps[2] < 1e-2     # O(1/T)
    z = np.linspace(-2, 2, 9)
    assert np.allclose(binary_coherence_loss(z, 1e4) - 1e4 * np.log(2), 0.5 * (1 - z),
                       atol=1e-3)


def test_zero_temperature_limit_puts_all_weight_on_the_hinge_argmax():
    g, c = _random_margins(100, 5, 1.0, seed=8)
    shifted = g + 1.0
    shifted[np.arange(100), c] -= 1.0
    top = np.sort(shifted, axis=1)
    clear = top[:, -1] - top[:, -2] > 0.05                   # no near-tie for the argmax
    beta = class_weights(g, c, 0.001)
    assert np.array_equal(beta[clear].argmax(axis=1), shifted[clear].argmax(axis=1))
    assert beta[clear].max(axis=1).min() > 1 - 1e-12
    assert np.allclose(coherence_loss(g, c, 1e-4), multiclass_hinge_loss(g, c),
                       atol=1e-4 * np.log(5) + 1e-12)


# ------------------------------------------------------------------------------------------
# Numerical range and bad input


@pytest.mark.parametrize("T", (0.01, 1.0))
def test_large_margins_and_small_temperature_stay_finite(T):
    g = np.array([[1e3, -5e2, -5e2], [-1e3, 5e2, 5e2], [0.0, 1e3, -1e3], [1e3, -1e3, 0.0]])
    c = np.array([0, 0, 1, 2])
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        C = coherence_loss(g, c, T)
        beta = class_weights(g, c, T)
        z, w = working_responses(g, c, T)
        P = class_probabilities(g, T)
        b = binary_coherence_loss(np.array([-1e3, 0.0, 1e3]), T)
    for arr in (C, beta, z, w, P, b):
        assert np.all(np.isfinite(arr))
    assert np.allclose(C, multiclass_hinge_loss(g, c), atol=T * np.log(3) + 1e-9)
    assert np.allclose(beta.sum(axis=1), 1.0) and np.abs(z).max() <= 4.0
    assert b[0] == pytest.approx(1001.0) and b[2] == 0.0


@pytest.mark.parametrize("T", (0.0, -1.0, np.inf, np.nan))
def test_bad_temperature_is_a_one_line_error(T):
    with pytest.raises(UserError, match="temperature: .* expected a positive finite number"):
        coherence_loss(np.zeros((1, 2)), np.zeros(1, int), T)


def test_bad_labels_and_shapes_are_one_line_errors():
    with pytest.raises(UserError, match="labels"):
        class_weights(np.zeros((2, 3)), np.array([0, 3]), 1.0)
    with pytest.raises(UserError, match="margins"):
        coherence_loss(np.zeros(3), np.zeros(3, int), 1.0)
    with pytest.raises(UserError, match="max_abs_response"):
        working_responses(np.zeros((1, 2)), np.zeros(1, int), 1.0, max_abs_response=0)
