"""BrownBoost (binary): Freund's adaptive boost-by-majority, as the DirectBoost paper runs it.

BrownBoost [1] plays boost-by-majority in continuous time. Each training example i has a
margin r_i (r = y sum_j alpha_j h_j(x)) and the game has a remaining time s, starting at the
budget c. A round (steps 1-5 of Freund's algorithm as oneDAL documents it [3]; ALGORITHMS.md,
"BrownBoost", records every reading and its sources):

1. W_i = exp(-(r_i + s)^2 / c) (normalised; ``_brown_weights``);
2. h: a label tree of depth ``max_depth`` grown on W (by default the tree of least weighted
   error, i.e. largest edge sum W b / sum W), leaves labelled with their heaviest class, so
   b_i = h(x_i) y_i is +1 or -1;
3. from (alpha, t) = (0, 0) follow Freund's differential equation
   dt/dalpha = gamma(alpha, t) = sum_i W_i(alpha, t) b_i / sum_i W_i(alpha, t),
   W_i(alpha, t) = exp(-(r_i + alpha b_i + s - t)^2 / c), until gamma falls to nu or t reaches
   s (``solve_round``, SciPy's ``solve_ivp`` with two terminal events). Along the path the
   potential sum_i erf((r_i + alpha b_i + s - t) / sqrt(c)) is constant, so the end point
   solves Freund's two equations: the new weights are (almost: nu) uncorrelated with h, and
   the potential is conserved;
4. r_i += alpha* b_i;
5. s -= t*; the fit ends when s reaches 0 ("until s_{i+1} <= 0"; the round that reaches it
   sets s to 0 exactly).

The classifier is sign(sum_i alpha_i h_i(x)) (Freund's confidence erf(sum alpha h / sqrt(c))
has the same sign): label trees voting alpha_i, F(x, +1) - F(x, -1) = sum alpha h.

The DirectBoost paper [2] chooses the "cutoff" from {0.0001, 0.001, 0.01, 0.03, 0.05, 0.08,
0.1, 0.14, 0.17, 0.2} on validation; ``cutoff_is`` says whether it is the time budget c
(``"time"``, default) or the training error tolerated, c = erfinv(1 - cutoff)^2
(``"target_error"``; ALGORITHMS.md). The fit ends by itself, so the last round is reported
(``early_stopping = False``); ``n_rounds`` is only a safety cap.

Map of the module
-----------------
``_brown_weights``, ``_scaled_offsets``, ``_update_margins``   per-round numba kernels
``correlation``, ``potential``       gamma and sum erf at (A, T), in units of sqrt(c) (numba)
``*_naive``                          their numpy twins (tests)
``solve_round``                      one round's (alpha*, t*): Freund's ODE with ``solve_ivp``
``time_budget``                      c from (cutoff, cutoff_is)
``BrownBoost``                       the registered estimator (``brownboost``)

References
----------
.. [1] Y. Freund. An adaptive version of the boost by majority algorithm. Machine Learning
       43(3):293-318, 2001.
.. [2] S. Zhai, T. Xia, M. Tan, S. Wang. Direct 0-1 loss minimization and margin maximization
       with boosting. NIPS 2013, sec. 3.1.
.. [3] Intel oneDAL documentation, "BrownBoost Classifier" (training steps citing [1]),
       https://oneapi-src.github.io/oneDAL/daal/algorithms/boosting/brownboost.html
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from .._dtypes import WEIGHT_DTYPE, Y_DTYPE
from ..learners.forest import LABEL_VOTE, Forest
from ..learners.histogram_tree import (
    CRITERION_ERROR,
    CRITERION_GINI,
    TreeWorkspace,
    grow_tree,
)
from .adaboost import _leaf_labels_and_error
from .base import BaseBoosting, RoundOutcome
from .params import MAX_BINS, MAX_DEPTH, ParamSpec
from .registry import register

_TREE_CRITERION = {"gini": CRITERION_GINI, "error": CRITERION_ERROR}

CUTOFF_IS = ("time", "target_error")

N_ROUNDS_CAP = ParamSpec(
    "n_rounds", "int", 10_000,
    "safety cap on the rounds: BrownBoost ends by itself when its time is used up",
    low=1, high=1_000_000)
CUTOFF = ParamSpec(
    "cutoff", "float", 0.1,
    "the DirectBoost paper's BrownBoost 'cutoff' (its grid: 0.0001, 0.001, 0.01, 0.03, 0.05, "
    "0.08, 0.1, 0.14, 0.17, 0.2): the time budget c, or the target training error when "
    "cutoff_is is target_error (then below 1)", low=0.0, low_open=True)
CUTOFF_MEANS = ParamSpec(
    "cutoff_is", "choice", "time",
    "what cutoff is: time (Freund's total time c) or target_error (the training error "
    "tolerated, c = erfinv(1 - cutoff)^2)", choices=CUTOFF_IS)
# The weak learner must return a hypothesis with an edge gamma = 1 - 2 err over nu on W:
# least-weighted-error trees maximise it (greedily); Gini trees stall (ALGORITHMS.md).
SPLIT_CRITERION_EDGE = ParamSpec(
    "split_criterion", "choice", "error",
    "split rule of the trees: error (least weighted misclassification, i.e. largest edge on "
    "the weights; default) or gini (weighted Gini impurity, CART)", choices=("error", "gini"))
NU = ParamSpec(
    "nu", "float", 0.01,
    "Freund's small constant: a round's step ends when the new weights' correlation with the "
    "tree falls to nu (oneDAL's default 0.01)", low=0.0, high=1.0, low_open=True,
    high_open=True)

# solve_ivp's settings for Freund's ODE, in units of sqrt(c) (T = t / sqrt(c) <= S).
ODE_METHOD = "DOP853"
ODE_RTOL = 1e-10
ODE_ATOL = 1e-12

END_CORRELATION = "correlation"     # gamma fell to nu
END_TIME = "time"                   # t reached the remaining time s
END_DEGENERATE = "degenerate"       # gamma <= nu already at (0, 0): no step


def time_budget(cutoff: float, cutoff_is: str) -> float:
    """Freund's total time c from the DirectBoost paper's cutoff (ALGORITHMS.md, "What
    'cutoff' is"): the cutoff itself, or erfinv(1 - cutoff)^2 for a target error, from
    Freund's bound on the final training error, 1 - erf(sqrt(c))."""
    cutoff = float(cutoff)
    if cutoff_is not in CUTOFF_IS:
        raise ValueError(f"cutoff_is must be one of {CUTOFF_IS}, got {cutoff_is!r}")
    if not (math.isfinite(cutoff) and cutoff > 0.0):
        raise ValueError(f"cutoff must be a positive number, got {cutoff!r}")
    if cutoff_is == "time":
        return cutoff
    if cutoff >= 1.0:
        raise ValueError(f"cutoff is a target training error here (cutoff_is='target_error'): "
                         f"it must be in (0, 1), got {cutoff!r}")
    from scipy.special import erfinv
    return float(erfinv(1.0 - cutoff)) ** 2


# ---------------------------------------------------------------------------------------------
# Kernels (scaled variables: a = (r + s) / sqrt(c), A = alpha / sqrt(c), T = t / sqrt(c);
# z = a + A b - T, weights e^{-z^2}, potential sum erf(z))
# ---------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _brown_weights(r, s, c, w):
    """Step 1: w_i = exp(-(r_i + s)^2 / c) normalised to sum one.

    Computed as exp(-((r_i + s)^2 - min_j (r_j + s)^2) / c): the same distribution, and the
    heaviest example has weight exp(0) before normalising, so the sum never underflows.
    IN: r (n,), s, c. OUT: w (n,).
    """
    m = np.inf
    for i in range(r.shape[0]):
        z = r[i] + s
        if z * z < m:
            m = z * z
    total = 0.0
    for i in range(r.shape[0]):
        z = r[i] + s
        w[i] = math.exp(-(z * z - m) / c)
        total += w[i]
    for i in range(r.shape[0]):
        w[i] /= total


@njit(cache=True, nogil=True)
def _scaled_offsets(r, s, sqrt_c, miss, a, b):
    """a_i = (r_i + s) / sqrt(c), b_i = h(x_i) y_i = -1 where the tree misses, else +1."""
    for i in range(r.shape[0]):
        a[i] = (r[i] + s) / sqrt_c
        b[i] = -1.0 if miss[i] else 1.0


@njit(cache=True, nogil=True)
def _update_margins(r, miss, alpha):
    """Step 4: r_i += alpha h(x_i) y_i."""
    for i in range(r.shape[0]):
        r[i] += -alpha if miss[i] else alpha


@njit(cache=True, nogil=True)
def correlation(a, b, A, T):
    """gamma(A, T) = sum_i e^{-z_i^2} b_i / sum_i e^{-z_i^2}, z = a + A b - T: the right-hand
    side of Freund's ODE (dt/dalpha), the normalised correlation of h with the weights at
    (alpha, t) = sqrt(c) (A, T). Shifted by min z^2 (same ratio, no all-zero underflow)."""
    m = np.inf
    for i in range(a.shape[0]):
        z = a[i] + A * b[i] - T
        if z * z < m:
            m = z * z
    num = 0.0
    den = 0.0
    for i in range(a.shape[0]):
        z = a[i] + A * b[i] - T
        e = math.exp(-(z * z - m))
        num += e * b[i]
        den += e
    return num / den


@njit(cache=True, nogil=True)
def potential(a, b, A, T):
    """sum_i erf(z_i), z = a + A b - T: Freund's potential, up to the constant
    sum_i 1 - erf(...) = n - this; conserved along the ODE's path."""
    total = 0.0
    for i in range(a.shape[0]):
        total += math.erf(a[i] + A * b[i] - T)
    return total


def correlation_naive(a, b, A, T):
    """Numpy twin of ``correlation`` (no shift: for moderate z only)."""
    z = np.asarray(a) + A * np.asarray(b) - T
    w = np.exp(-z * z)
    return float(np.sum(w * b) / np.sum(w))


def potential_naive(a, b, A, T):
    """Numpy/SciPy twin of ``potential``."""
    from scipy.special import erf
    return float(np.sum(erf(np.asarray(a) + A * np.asarray(b) - T)))


def brown_weights_naive(r, s, c):
    """Numpy twin of ``_brown_weights`` (no shift: for moderate margins only)."""
    w = np.exp(-(np.asarray(r) + s) ** 2 / c)
    return w / w.sum()


# ---------------------------------------------------------------------------------------------
# One round's step
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundSolution:
    """(alpha*, t*) of a round in units of sqrt(c), how the step ended, and the cost."""

    A: float            # alpha* / sqrt(c)
    T: float            # t* / sqrt(c)
    end: str            # END_CORRELATION, END_TIME or END_DEGENERATE
    gamma0: float       # the tree's correlation at (0, 0): its edge 1 - 2 err under W
    gamma: float        # the correlation at the end point
    n_evaluations: int  # right-hand-side evaluations of the ODE solver


def solve_round(a, b, S, nu, *, method=ODE_METHOD, rtol=ODE_RTOL, atol=ODE_ATOL):
    """Step 3 of a round: follow dT/dA = gamma(A, T) from (0, 0) until gamma = nu or T = S.

    Parameters
    ----------
    a : ndarray (n,), (r_i + s) / sqrt(c)
    b : ndarray (n,), h(x_i) y_i in {-1, +1}
    S : float, the remaining time s / sqrt(c) (> 0)
    nu : float in (0, 1), Freund's small constant
    method, rtol, atol : ``scipy.integrate.solve_ivp``'s

    Returns
    -------
    RoundSolution

    Notes
    -----
    While gamma > nu, dT/dA > nu, so T reaches S before A = S / nu: the integration interval
    [0, S / nu] always holds the first event. ``solve_ivp`` locates it on its dense output
    (a root finder on the event function), so at a correlation end gamma = nu at
    (A*, T*) to the root finder's precision, and T* is the integrated T; at a time end T* is
    set to S exactly (the time is used up). Along the solution sum erf(a + A b - T) keeps its
    value to the integrator's tolerance (ALGORITHMS.md, "Solving a round").
    """
    from scipy.integrate import solve_ivp

    a = np.ascontiguousarray(a, dtype=np.float64)
    b = np.ascontiguousarray(b, dtype=np.float64)
    S = float(S)
    nu = float(nu)
    gamma0 = float(correlation(a, b, 0.0, 0.0))
    if gamma0 <= nu:
        return RoundSolution(0.0, 0.0, END_DEGENERATE, gamma0, gamma0, 1)

    def rhs(A, y):
        return (correlation(a, b, A, y[0]),)

    def correlation_falls_to_nu(A, y):
        return correlation(a, b, A, y[0]) - nu
    correlation_falls_to_nu.terminal = True
    correlation_falls_to_nu.direction = -1.0

    def time_used_up(A, y):
        return y[0] - S
    time_used_up.terminal = True
    time_used_up.direction = 1.0

    A_max = 2.0 * S / nu + 1.0
    sol = solve_ivp(rhs, (0.0, A_max), [0.0], method=method, rtol=rtol, atol=atol,
                    events=(correlation_falls_to_nu, time_used_up), dense_output=True)
    if sol.status != 1:
        raise RuntimeError(f"BrownBoost's ODE reached alpha/sqrt(c) = {A_max:g} without gamma "
                           f"falling to nu or t reaching s ({sol.message})")
    hits = [(float(sol.t_events[k][0]), k) for k in (0, 1) if len(sol.t_events[k])]
    A_end, k = min(hits)
    if k == 1:
        T_end, end = S, END_TIME
    else:
        T_end, end = float(sol.y_events[0][0][0]), END_CORRELATION
        if T_end >= S:
            # The step that holds the correlation event went on past gamma = 0, where T
            # falls again, and may end below S: solve_ivp compares the event functions at
            # the ends of a step only, and misses the crossing T = S inside it. On
            # [0, A_end] gamma >= nu > 0, so T rises strictly and crosses S exactly once.
            from scipy.optimize import brentq
            A_end = brentq(lambda A: sol.sol(A)[0] - S, 0.0, A_end, xtol=1e-15,
                           rtol=4 * np.finfo(float).eps)
            T_end, end = S, END_TIME
    gamma_end = float(correlation(a, b, A_end, T_end))
    return RoundSolution(A_end, T_end, end, gamma0, gamma_end, int(sol.nfev))


# ---------------------------------------------------------------------------------------------
# The estimator
# ---------------------------------------------------------------------------------------------


@register
class BrownBoost(BaseBoosting):
    """BrownBoost (Freund 2001) with label trees, binary.

    Parameters
    ----------
    n_rounds : int, default=10000
        Safety cap; the fit ends when its time is used up (``stop_reason_``).
    max_depth : int, default=3
        Depth of each tree (the DirectBoost paper: 1 or 3 per dataset).
    max_bins : int, default=255
    cutoff : float, default=0.1
        The DirectBoost paper's BrownBoost "cutoff", read as ``cutoff_is`` says.
    cutoff_is : {"time", "target_error"}, default="time"
        ``time``: c = cutoff, Freund's total time. ``target_error``: c = erfinv(1 - cutoff)^2,
        the c whose bound 1 - erf(sqrt(c)) on the final training error is cutoff.
    nu : float, default=0.01
        Freund's small constant: a round's step ends when the correlation falls to nu.
    split_criterion : {"error", "gini"}, default="error"
        The trees' split rule (as AdaBoost.M1's and SAMME's): ``error`` grows the tree of
        least weighted error, i.e. of largest edge on W, greedily (ALGORITHMS.md: Gini trees
        often stall with their edge at nu before the time is used up).

    Fitted attributes (beside ``BaseBoosting``'s)
    ---------------------------------------------
    c_ : float, the time budget c
    remaining_time_ : list of float, s after each round (the last is 0 when the time ran out)
    round_time_ : list of float, t* of each round (remaining_time_ falls by it)
    round_end_ : list of str, how each round's step ended ("correlation" or "time")
    round_edge_ : list of float, each tree's correlation with the weights it was grown on
    ode_evaluations_ : int, right-hand-side evaluations of the ODE solver over the fit

    References
    ----------
    Freund, An adaptive version of the boost by majority algorithm, Machine Learning 43, 2001;
    Zhai, Xia, Tan & Wang, NIPS 2013, sec. 3.1 (the cutoff grid).
    """

    name = "brownboost"
    family = "BrownBoost"
    reference = ("Freund, An adaptive version of the boost by majority algorithm, Machine "
                 "Learning 43, 2001")
    version = "1"
    binary_only = True
    early_stopping = False   # the fit ends when its time is used up; validation picks cutoff
    param_specs = (N_ROUNDS_CAP, MAX_DEPTH, MAX_BINS, CUTOFF, CUTOFF_MEANS, NU,
                   SPLIT_CRITERION_EDGE)
    test_params = {"n_rounds": 15, "max_depth": 2, "cutoff": 2.0}
    test_param_variants = ({"max_depth": 1, "cutoff": 0.05, "cutoff_is": "target_error"},)
    _train_vote_attr = "_vote"
    _scratch_attrs = ("_ws", "_w", "_miss", "_vote", "_a", "_b", "_leaf_label")

    def __init__(self, n_rounds=10_000, max_depth=3, max_bins=255, cutoff=0.1,
                 cutoff_is="time", nu=0.01, split_criterion="error"):
        self.n_rounds = n_rounds
        self.max_depth = max_depth
        self.max_bins = max_bins
        self.cutoff = cutoff
        self.cutoff_is = cutoff_is
        self.nu = nu
        self.split_criterion = split_criterion

    def _init_state(self, X_binned, y, n_bins, hist_width):
        K = self.n_classes_
        if K != 2:
            raise ValueError(f"Only binary classification is supported by brownboost, a "
                             f"two-class booster: y has {K} classes; give labels of two "
                             f"classes")
        if self.split_criterion not in _TREE_CRITERION:
            raise ValueError(f"split_criterion must be one of {tuple(_TREE_CRITERION)}, got "
                             f"{self.split_criterion!r}")
        nu = float(self.nu)
        if not 0.0 < nu < 1.0:
            raise ValueError(f"nu must be in (0, 1), got {self.nu!r}")
        self.c_ = time_budget(self.cutoff, self.cutoff_is)
        n, n_features = X_binned.shape
        self._n_bins = n_bins
        self._criterion = _TREE_CRITERION[self.split_criterion]
        self._sqrt_c = math.sqrt(self.c_)
        self._r = np.zeros(n, np.float64)         # margins r_i = y_i sum_j alpha_j h_j(x_i)
        self._s = self.c_                          # remaining time, s_1 = c
        self._w = np.empty(n, WEIGHT_DTYPE)
        self._miss = np.zeros(n, np.bool_)
        self._vote = np.zeros(n, Y_DTYPE)
        self._a = np.empty(n, np.float64)
        self._b = np.empty(n, np.float64)
        self._ws = TreeWorkspace(n, n_features, hist_width, K, int(self.max_depth))
        self._leaf_label = np.zeros(self._ws.max_nodes, np.int32)
        self.forest_ = Forest(LABEL_VOTE, K, node_capacity=self._ws.max_nodes * 64)
        self.remaining_time_ = []
        self.round_time_ = []
        self.round_end_ = []
        self.round_edge_ = []
        self.ode_evaluations_ = 0

    def _free_state(self):
        for name in self._scratch_attrs + ("_r",):
            if hasattr(self, name):
                delattr(self, name)

    def _boost(self, t, X_binned, y):
        ws = self._ws
        s = self._s
        _brown_weights(self._r, s, self.c_, self._w)                            # step 1
        m = grow_tree(ws, X_binned, y, self._n_bins, self._criterion, weight=self._w)  # 2
        _leaf_labels_and_error(ws.left, ws.node_sum, m, ws.node_start, ws.node_end,
                               ws.sample_index, y, self._w, self._leaf_label, self._miss,
                               self._vote)
        _scaled_offsets(self._r, s, self._sqrt_c, self._miss, self._a, self._b)
        sol = solve_round(self._a, self._b, s / self._sqrt_c, float(self.nu))    # step 3
        self.ode_evaluations_ += sol.n_evaluations
        if sol.end == END_DEGENERATE:
            self.stop_reason_ = (f"the tree's correlation with the weights, {sol.gamma0:.6g}, "
                                 f"is <= nu = {float(self.nu):g}: no step")
            return RoundOutcome.DISCARD_STOP
        alpha = sol.A * self._sqrt_c
        if sol.end == END_TIME:
            round_time, s_next = s, 0.0
        else:
            round_time = sol.T * self._sqrt_c
            s_next = s - round_time                                              # step 5
            if not s_next < s:
                self.stop_reason_ = (f"the step's time {round_time:.3g} does not lower the "
                                     f"remaining time {s:.6g} in floating point (the "
                                     f"tree's correlation with the weights, "
                                     f"{sol.gamma0:.6g}, is at nu = {float(self.nu):g})")
                return RoundOutcome.DISCARD_STOP
        self.forest_.append(ws, m, leaf_label=self._leaf_label, alpha=alpha)
        _update_margins(self._r, self._miss, alpha)                               # step 4
        self._s = s_next
        self.remaining_time_.append(float(s_next))
        self.round_time_.append(float(round_time))
        self.round_end_.append(sol.end)
        self.round_edge_.append(sol.gamma0)
        if s_next <= 0.0:
            self.stop_reason_ = "remaining time used up"
            return RoundOutcome.STOP_AFTER
        return RoundOutcome.CONTINUE
