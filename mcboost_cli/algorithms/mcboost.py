"""CD-MCBoost and GD-MCBoost (Saberian & Vasconcelos, NIPS 2011).

Both learn a predictor f(x) in R^{M-1} and classify by F(x) = argmax_k <f(x), y^k> (eq. (11)),
with the codewords y^k the vertices of a regular simplex (sec. 2.3; ``codewords.py``). They
minimise the empirical risk of eq. (13) with the loss of eq. (15),

    R(f) = sum_i sum_k exp(-1/2 <f(x_i), y_i - y^k>),

starting from f^0 = 0 (Algorithm 1, "Initialization"). The forest stores the class scores
F_k(x) = <f(x), y^k>: a leaf whose weak-learner output is g (a vector of R^{M-1}) votes
alpha <g, y^k> for class k (``VECTOR_VOTE``), so ``argmax_k`` of the scores is eq. (11).

========== ============================================ ===========================================
           CD-MCBoost (Alg. 1 left)                     GD-MCBoost (Alg. 1 right)
========== ============================================ ===========================================
updates    one component f_j, j = 1..M-1 cyclically     all components
weights    w_i^j of eq. (24) (scalars)                  w_i of eq. (31) (vectors of R^{M-1})
learner    +-1 stump maximising sum_i g(x_i) w_i^j      tree whose leaves output a codeword,
           (eq. (25))                                   grown greedily to maximise
                                                        sum_i <g(x_i), w_i> (eq. (32))
step       alpha_j* = argmin R[f + alpha g 1_j] (26)    alpha* = argmin R[f + alpha g] (33)
========== ============================================ ===========================================

Both steps are exact one-dimensional convex minimisations (``_pairwise_exp.line_search``:
safeguarded Newton to a relative tolerance of 1e-12; along a step the risk is a sum of a few
exponentials in alpha, ``_pairwise_exp`` explains why). The state of a fit is the matrix of
loss terms c_ik = exp(-1/2 <f(x_i), y_i - y^k>), updated multiplicatively after each step;
the weights of eqs. (24) and (31) are linear in it, since

    e^{-1/2 <f, y_i>} e^{1/2 <f, y^k>} = c_ik.

Interpretations (``.notes/issue6_algorithms.md`` / ALGORITHMS.md give the reasoning): the
CD weak learner is a depth-``max_depth`` tree (1 = the paper's decision stump) each of whose
leaves outputs +1 or -1, whichever gives the larger eq. (25) (the sign of the leaf's weight
sum, +1 on a tie); ``n_rounds`` counts weak learners (Algorithm 1's t, which is incremented
inside the loop over j), so round t updates component j = t mod (M-1); an unbounded line
search (the weak learner separates the classes it moves apart perfectly) takes the step at
which the risk equals its infimum in double precision; the fit stops when the risk reaches
its floor n, when no weak learner has a non-zero directional derivative (eq. (23) on every
component in turn for CD, eq. (30) for GD).

References
----------
.. [1] M. J. Saberian, N. Vasconcelos. Multiclass boosting: theory and algorithms. NIPS 2011.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..learners.forest import VECTOR_VOTE
from ..learners.histogram_tree import CRITERION_ABS_SUM, CRITERION_MAX_CHANNEL
from ._pairwise_exp import (
    LINE_SEARCH_TOL,
    STEP_UNBOUNDED,
    UNBOUNDED_EPS,
    PairwiseExpBoosting,
    argmax_leaves,
    cost_channels,
    line_search,
)
from .base import RoundOutcome
from .codewords import simplex_codewords, simplex_gram
from .params import MAX_BINS, MAX_DEPTH, N_ROUNDS, ParamSpec
from .registry import register

STUMP_DEPTH = ParamSpec("max_depth", "int", 1,
                        "depth of each +-1-valued weak learner (1 = decision stump, the paper's "
                        "choice)", low=1, high=30)

_REFERENCE = ("Saberian & Vasconcelos, Multiclass Boosting: Theory and Algorithms, NIPS 2011")


@njit(cache=True, nogil=True)
def coordinate_channel(c, y, Yj, G):
    """G[i, 0] = w_i^j / Z with w_i^j of eq. (24), for component j (Yj[k] = y^k_j).

    w_i^j = 1/2 e^{-1/2 <f, y_i>} sum_k <1_j, y_i - y^k> e^{1/2 <f, y^k>}
          = 1/2 sum_{k != y_i} (y_{i,j} - y^k_j) c_ik.
    Z = sum_i sum_{k != y_i} c_ik (the risk minus its floor n) is returned; dividing by it
    changes no argmax of eq. (25) and makes the stump's tie tolerance scale-free.
    IN: c (n, M), y (n,), Yj (M,). OUT: G (n, 1).
    """
    n, M = c.shape
    Z = 0.0
    for i in range(n):
        yi = y[i]
        yij = Yj[yi]
        w = 0.0
        s = 0.0
        for k in range(M):
            if k != yi:
                v = c[i, k]
                w += (yij - Yj[k]) * v
                s += v
        G[i, 0] = 0.5 * w
        Z += s
    if Z > 0.0:
        for i in range(n):
            G[i, 0] /= Z
    return Z


@njit(cache=True, nogil=True)
def sign_leaves(left, n_nodes, node_sum, v_plus, leaf_v):
    """Each leaf outputs g = +1 (value v_plus) if its weight sum is >= 0, else -1
    (v_plus + 1): the +-1 output maximising its share of eq. (25). Returns sum |leaf sums|,
    the tree's value of eq. (25) (divided by Z)."""
    total = 0.0
    for nd in range(n_nodes):
        if left[nd] >= 0:
            continue
        s = node_sum[nd, 0]
        leaf_v[nd] = v_plus if s >= 0.0 else v_plus + 1
        total += abs(s)
    return total


class _MCBoost(PairwiseExpBoosting):
    """What CD- and GD-MCBoost share: the loss (lam = 1/2), the vector votes, the step."""

    def _setup_common(self):
        M = self.n_classes_
        self._lam = 0.5                         # eq. (15): exp(-1/2 <f, y_i - y^k>)
        self._vote = VECTOR_VOTE
        self.codewords_ = simplex_codewords(M)

    def _line_step(self, m, y, n):
        """Exact step along the round's weak learner (eq. (26) / (33)); returns
        (alpha, outcome) after applying it."""
        self._collect(m, y)
        constant = self._constant_mass(n)
        alpha, status = line_search(self._U, self._A, constant, LINE_SEARCH_TOL)
        if status == STEP_UNBOUNDED and alpha == 0.0:
            # The terms this learner would move apart are already below double-precision
            # resolution of the risk: the step changes nothing, and the risk is at its floor.
            self.stop_reason_ = ("risk at its floor n in double precision (unbounded line "
                                 "search with nothing left to remove)")
            return alpha, RoundOutcome.DISCARD_STOP
        self._take_step(alpha, m, y)
        if status == STEP_UNBOUNDED:
            # The terms the weak learner moves apart have vanished (to double precision). If
            # nothing else is left above the floor n, R cannot fall any further: stop.
            rest = constant - n
            if rest <= UNBOUNDED_EPS * n:
                self.stop_reason_ = ("risk reached its floor n: the training classes are "
                                     "separated (unbounded line search)")
                return alpha, RoundOutcome.STOP_AFTER
        return alpha, RoundOutcome.CONTINUE


@register
class CDMCBoost(_MCBoost):
    """CD-MCBoost: functional coordinate descent on the MCBoost risk (Algorithm 1, left).

    Round t (Algorithm 1's iteration t) updates component j = t mod (M - 1) of f:

    1. weights w_i^j of eq. (24);
    2. weak learner g_j* = argmax_g sum_i g(x_i) w_i^j over +-1-valued trees of depth
       ``max_depth`` (eq. (25)); with depth 1, the decision stumps of the paper's experiments;
    3. alpha_j* = argmin_alpha R[f + alpha g_j* 1_j] (eq. (26)), exactly (to 1e-12 relative);
    4. f_j += alpha_j* g_j* (eq. (27)); the other components are unchanged.

    With M = 2 (codewords +1 and -1) the weights are y_i exp(-y_i f(x_i)) and the step is
    1/2 log((1 - err)/err): binary AdaBoost (the paper's claim, checked by a test).

    Parameters
    ----------
    n_rounds : int, default=100
        Number of weak learners (iterations t of Algorithm 1, each updating one component).
    max_depth : int, default=1
        Depth of the +-1-valued trees (1 = decision stumps).
    max_bins : int, default=255

    Attributes
    ----------
    codewords_ : ndarray (M, M - 1), the class codewords y^k (row k for class code k)

    References
    ----------
    .. [1] M. J. Saberian, N. Vasconcelos. Multiclass boosting: theory and algorithms.
           NIPS 2011, sec. 3.1 and Algorithm 1 (left).
    """

    name = "cd_mcboost"
    family = "MCBoost"
    reference = _REFERENCE + " (CD-MCBoost, Alg. 1 left)"
    version = "1"
    param_specs = (N_ROUNDS, STUMP_DEPTH, MAX_BINS)
    test_params = {"n_rounds": 30, "max_depth": 1}

    def __init__(self, n_rounds=100, max_depth=1, max_bins=255):
        self.n_rounds = n_rounds
        self.max_depth = max_depth
        self.max_bins = max_bins

    def _setup(self):
        self._setup_common()
        Y = self.codewords_
        M = self.n_classes_
        # Leaf values: v = 2j is g = +1 on component j, v = 2j + 1 is g = -1; value v adds
        # alpha <g 1_j, y^k> = +-alpha y^k_j to the score of class k.
        self._Q = np.empty((2 * (M - 1), M))
        self._Q[0::2] = Y.T
        self._Q[1::2] = -Y.T
        self._Yt = np.ascontiguousarray(Y.T)      # row j = (y^1_j, ..., y^M_j)
        self._criterion = CRITERION_ABS_SUM
        self._n_channels_in = 1
        self._zero_edge_streak = 0

    def _boost(self, t, X_binned, y):
        M = self.n_classes_
        n = y.shape[0]
        j = t % (M - 1)                     # Algorithm 1: for j = 1 to M-1, inside while t < N
        Z = coordinate_channel(self._c, y, self._Yt[j], self._G)            # eq. (24)
        if Z <= 0.0:
            self.stop_reason_ = "risk at its floor n (every off-class loss term is 0)"
            return RoundOutcome.DISCARD_STOP
        ws = self._ws
        m = self._grow(X_binned, y)                                          # eq. (25)
        edge = sign_leaves(ws.left, m, ws.node_sum, 2 * j, self._leaf_v)
        if edge <= 0.0:
            # -dR[f; j, g] = 0 for every weak learner (eq. (23)): alpha* = 0, f unchanged.
            # When that holds for all M-1 components in a row, f is stationary and every
            # later iteration would repeat it: stop (the last one is not kept).
            self._zero_edge_streak += 1
            if self._zero_edge_streak >= M - 1:
                self.stop_reason_ = ("no weak learner has a non-zero directional derivative "
                                     "(eq. (23)) on any component")
                return RoundOutcome.DISCARD_STOP
            self._collect(m, y)
            self._take_step(0.0, m, y)
            return RoundOutcome.CONTINUE
        self._zero_edge_streak = 0
        _, outcome = self._line_step(m, y, n)                                # eqs. (26), (27)
        return outcome


@register
class GDMCBoost(_MCBoost):
    """GD-MCBoost: functional gradient descent on the MCBoost risk (Algorithm 1, right).

    Each round:

    1. weights w_i of eq. (31);
    2. weak learner g* = argmax_g sum_i <g(x_i), w_i> over trees of depth ``max_depth`` whose
       leaves output a class codeword (eq. (32)): a leaf answers the codeword y^k maximising
       the sum of <w_i, y^k> over its samples, and splits are chosen greedily, one node at a
       time, to maximise that objective (``CRITERION_MAX_CHANNEL`` with channel k holding
       <w_i, y^k>);
    3. alpha* = argmin_alpha R[f + alpha g*] (eq. (33)), exactly (to 1e-12 relative);
    4. f += alpha* g*.

    With the simplex codewords the projections of eq. (31) on the codewords are, writing
    beta = M / (2 (M - 1)),

        <w_i, y^k> = beta sum_{l != y_i} c_il   if k = y_i,     -beta c_ik   otherwise,

    (since <y^a, y^b> = -1/(M-1) for a != b), computed in O(M) per sample by
    ``cost_channels``; a test checks them against eq. (31) written out.

    Parameters
    ----------
    n_rounds : int, default=100
    max_depth : int, default=3
        Depth of the codeword-valued trees (the paper's experiments use 2).
    max_bins : int, default=255

    Attributes
    ----------
    codewords_ : ndarray (M, M - 1), the class codewords y^k (row k for class code k)

    References
    ----------
    .. [1] M. J. Saberian, N. Vasconcelos. Multiclass boosting: theory and algorithms.
           NIPS 2011, sec. 3.2 and Algorithm 1 (right).
    """

    name = "gd_mcboost"
    family = "MCBoost"
    reference = _REFERENCE + " (GD-MCBoost, Alg. 1 right)"
    version = "1"
    param_specs = (N_ROUNDS, MAX_DEPTH, MAX_BINS)
    test_params = {"n_rounds": 15, "max_depth": 2}

    def __init__(self, n_rounds=100, max_depth=3, max_bins=255):
        self.n_rounds = n_rounds
        self.max_depth = max_depth
        self.max_bins = max_bins

    def _setup(self):
        self._setup_common()
        M = self.n_classes_
        # Leaf value v is codeword y^v; it adds alpha <y^v, y^k> to the score of class k.
        self._Q = simplex_gram(M)
        self._beta = M / (2.0 * (M - 1))
        self._criterion = CRITERION_MAX_CHANNEL
        self._n_channels_in = M

    def _boost(self, t, X_binned, y):
        n = y.shape[0]
        Z = cost_channels(self._c, y, self._beta, self._G)                 # eq. (31)
        if Z <= 0.0:
            self.stop_reason_ = "risk at its floor n (every off-class loss term is 0)"
            return RoundOutcome.DISCARD_STOP
        ws = self._ws
        m = self._grow(X_binned, y)                                         # eq. (32)
        edge = argmax_leaves(ws.left, m, ws.node_sum, self._leaf_v)
        if edge <= 0.0:
            self.stop_reason_ = ("no weak learner has a non-zero directional derivative "
                                 "(eq. (30))")
            return RoundOutcome.DISCARD_STOP
        _, outcome = self._line_step(m, y, n)                               # eq. (33)
        return outcome
