"""AdaBoost.ECC: multi-class boosting through a random binary coloring of the classes per round.

Guruswami & Sahai [1] (building on Schapire's AdaBoost.OC [2]) keep a distribution D over
(example, wrong label) pairs and, each round, reduce the K-class problem to a binary one by a
*coloring* mu_t: {1..K} -> {-1, +1} of the labels. As run here (the discrete variant, the
weak learner's two outputs weighted alike; ALGORITHMS.md, "AdaBoost.ECC", records every
reading):

1. D_1(i, l) = 1 / (n (K - 1)) for l != y_i, D_1(i, y_i) = 0.
2. For t = 1..T:
   (a) mu_t: a random half of the labels +1, the rest -1 ("random half" colorings: the first
       floor(K/2) labels of a uniformly drawn permutation are +1; ``coloring_of_round``);
   (b) U_t = sum_{i,l} D_t(i, l) [mu_t(l) != mu_t(y_i)] and the binary weights
       Dt~(i) = sum_l D_t(i, l) [mu_t(l) != mu_t(y_i)] / U_t;
   (c) h_t: X -> {-1, +1}, a binary tree (a stump at the default ``max_depth`` 1) of least
       weighted error eps_t = sum_i Dt~(i) [h_t(x_i) != mu_t(y_i)] on the binary labels
       mu_t(y_i): the grower's ``CRITERION_ABS_SUM`` on G_i = Dt~(i) mu_t(y_i), each leaf
       answering the sign of its sum;
   (d) alpha_t = 1/2 ln((1 - eps_t) / eps_t); eps_t >= 1/2 discards the round and stops (no
       binary hypothesis better than chance under this coloring's weights); eps_t = 0 takes
       alpha_t = 1/2 ln(1000) (ALGORITHMS.md);
   (e) D_{t+1}(i, l) = D_t(i, l) exp(-alpha_t h_t(x_i) mu_t(y_i)) / Z_t for the pairs the
       coloring separates (mu_t(l) != mu_t(y_i)); the others are only renormalised.
3. H(x) = argmax_l f(x, l), f(x, l) = sum_t alpha_t h_t(x) mu_t(l): the label whose color
   string agrees best, in alpha-weighted Hamming terms, with the weak hypotheses' outputs.

alpha_t is the exact minimiser of the round's factor
Z_t = (1 - U_t) + U_t ((1 - eps_t) e^{-alpha} + eps_t e^{alpha}), so the pseudo-loss
L_T = (1 / (n (K-1))) sum_i sum_{l != y_i} exp((f(x_i, l) - f(x_i, y_i)) / 2) = prod_t Z_t
falls every kept round (Z_t < 1 whenever eps_t < 1/2; tested). With K = 2 every coloring
separates the two labels and the algorithm is discrete AdaBoost with the same trees (tested
against SAMME, which is AdaBoost.M1 for two classes).

Each round grows one binary tree: with stumps, 200 stumps are 200 rounds.

References
----------
.. [1] V. Guruswami, A. Sahai. Multiclass learning, boosting, and error-correcting codes.
       COLT 1999.
.. [2] R. E. Schapire. Using output codes to boost multiclass learning problems. ICML 1997.
.. [3] L. Li. Multiclass boosting with repartitioning. ICML 2006 (AdaBoost.ECC with random-half
       colorings; its LEMGA library's ``AdaBoost_ECOC`` is the implementation compared here).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .._dtypes import WEIGHT_DTYPE
from ..learners.forest import VECTOR_VOTE, Forest
from ..learners.histogram_tree import CRITERION_ABS_SUM, TreeWorkspace, grow_tree
from ..protocol.seeding import rng_for
from .base import BaseBoosting, RoundOutcome
from .params import MAX_BINS, N_ROUNDS, ParamSpec
from .registry import register

ECC_MAX_DEPTH = ParamSpec("max_depth", "int", 1,
                          "depth of each binary tree (1 = decision stump, the weak learner "
                          "of the REBEL paper's Figure 8)", low=1, high=30)

# alpha_t of a round whose weak hypothesis makes no weighted error on its coloring: the exact
# minimiser is infinite; LEMGA's AdaBoost_ECOC takes (1 - eps) / eps = 1000 (ALGORITHMS.md).
PERFECT_ODDS = 1000.0


def coloring_of_round(random_state: int, t: int, n_classes: int) -> np.ndarray:
    """mu_t as int8 (K,) in {-1, +1}: the first floor(K/2) labels of a uniformly drawn
    permutation are +1, the others -1 (a "random half" coloring, [3]). Drawn from a generator
    seeded by (random_state, t) alone, so a fit resumed at round t draws the same colorings."""
    rng = rng_for("adaboost_ecc", "coloring", int(random_state), int(t))
    perm = rng.permutation(n_classes)
    mu = np.full(n_classes, -1, np.int8)
    mu[perm[:n_classes // 2]] = 1
    return mu


# ---------------------------------------------------------------------------------------------
# Kernels (numba) and their naive twins (numpy, used by the tests)
# ---------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _binary_weights(D, y, mu, G):
    """Step 2(b): G[i, 0] = Dt~(i) mu(y_i); returns U_t.

    IN: D (n, K) pair weights (D[i, y_i] = 0), y (n,) int32, mu (K,) int8. OUT: G (n, 1).
    """
    n, K = D.shape
    u = 0.0
    for i in range(n):
        my = mu[y[i]]
        s = 0.0
        for l in range(K):
            if mu[l] != my:
                s += D[i, l]
        G[i, 0] = s * my
        u += s
    if u > 0.0:
        for i in range(n):
            G[i, 0] /= u
    return u


def binary_weights_naive(D, y, mu):
    """``_binary_weights`` in numpy: (G (n,), U)."""
    separated = mu[None, :] != mu[y][:, None]
    s = (D * separated).sum(axis=1)
    u = s.sum()
    return s * mu[y] / u, u


@njit(cache=True, nogil=True)
def _leaf_signs_and_error(left, node_sum, n_nodes, node_start, node_end, sample_index, y, mu,
                          G, leaf_sign, h):
    """Step 2(c): each leaf answers the sign of its sum of G (+1 on a zero sum); h (n,) the
    answer of each training sample; returns eps_t = sum_i |G_i| [h_i != mu(y_i)].

    IN: the workspace's tree. OUT: leaf_sign (nodes,) int8, h (n,) int8.
    """
    err = 0.0
    for nd in range(n_nodes):
        if left[nd] >= 0:
            continue
        s = 1 if node_sum[nd, 0] >= 0.0 else -1
        leaf_sign[nd] = s
        for p in range(node_start[nd], node_end[nd]):
            i = sample_index[p]
            h[i] = s
            if s != mu[y[i]]:
                err += abs(G[i, 0])
    return err


@njit(cache=True, nogil=True)
def _reweight(D, y, mu, h, alpha):
    """Step 2(e): D(i, l) *= exp(-alpha h_i mu(y_i)) where mu(l) != mu(y_i), then D /= Z_t.

    IN/OUT: D (n, K), summing to 1 on entry and on return. Returns Z_t.
    """
    n, K = D.shape
    down = math.exp(-alpha)
    up = math.exp(alpha)
    z = 0.0
    for i in range(n):
        my = mu[y[i]]
        f = down if h[i] == my else up
        for l in range(K):
            if mu[l] != my:
                D[i, l] *= f
            z += D[i, l]
    for i in range(n):
        for l in range(K):
            D[i, l] /= z
    return z


def reweight_naive(D, y, mu, h, alpha):
    """``_reweight`` in numpy: returns (new D, Z_t)."""
    separated = mu[None, :] != mu[y][:, None]
    factor = np.exp(-alpha * (h * mu[y]).astype(float))[:, None]
    D = np.where(separated, D * factor, D)
    z = D.sum()
    return D / z, z


def alpha_of_error(eps: float) -> float:
    """Step 2(d) for 0 <= eps < 1/2."""
    odds = PERFECT_ODDS if eps <= 0.0 else (1.0 - eps) / eps
    return 0.5 * math.log(odds)


@register
class AdaBoostECC(BaseBoosting):
    """AdaBoost.ECC (Guruswami & Sahai 1999), discrete, with random-half colorings.

    Parameters
    ----------
    n_rounds : int, default=100
        Rounds; each grows one binary tree (a stump at ``max_depth`` 1).
    max_depth : int, default=1
    max_bins : int, default=255
    random_state : int, default=0
        Seed of the colorings; not a configurable parameter: ``runner.work.run_cell`` sets it
        from the cell, whose key already fixes it.

    Fitted attributes (besides the base class's)
    ---------------------------------------------
    colorings_ : ndarray int8 (n_rounds_, K), mu_t of each kept round
    alphas_ : ndarray (n_rounds_,); errors_binary_ : ndarray (n_rounds_,), eps_t
    loss_factors_ : ndarray (n_rounds_,), Z_t (the pseudo-loss after round t is their product)
    """

    name = "adaboost_ecc"
    family = "AdaBoost"
    reference = ("Guruswami & Sahai, Multiclass learning, boosting, and error-correcting "
                 "codes, COLT 1999 (AdaBoost.ECC)")
    version = "1"
    param_specs = (N_ROUNDS, ECC_MAX_DEPTH, MAX_BINS)
    test_params = {"n_rounds": 15}
    test_param_variants = ({"n_rounds": 10, "max_depth": 2},)

    def __init__(self, n_rounds=100, max_depth=1, max_bins=255, random_state=0):
        self.n_rounds = n_rounds
        self.max_depth = max_depth
        self.max_bins = max_bins
        self.random_state = random_state

    _scratch_attrs = ("_ws", "_G", "_h", "_leaf_sign", "_leaf_value")

    def _init_state(self, X_binned, y, n_bins, hist_width):
        n, n_features = X_binned.shape
        K = self.n_classes_
        self._n_bins = n_bins
        D = np.full((n, K), 1.0 / (n * (K - 1)), WEIGHT_DTYPE)      # step 1
        D[np.arange(n), y] = 0.0
        self._D = D
        self._ws = TreeWorkspace(n, n_features, hist_width, 1, int(self.max_depth))
        self._G = np.zeros((n, 1), WEIGHT_DTYPE)
        self._h = np.zeros(n, np.int8)
        self._leaf_sign = np.zeros(self._ws.max_nodes, np.int8)
        self._leaf_value = np.zeros((self._ws.max_nodes, K), np.float64)
        self.forest_ = Forest(VECTOR_VOTE, K, node_capacity=self._ws.max_nodes * 64)
        self._colorings = []
        self._alphas = []
        self._eps = []
        self._z = []

    def _free_state(self):
        kept = self.n_rounds_
        K = self.n_classes_
        self.colorings_ = np.array(self._colorings[:kept], np.int8).reshape(kept, K)
        self.alphas_ = np.array(self._alphas[:kept], np.float64)
        self.errors_binary_ = np.array(self._eps[:kept], np.float64)
        self.loss_factors_ = np.array(self._z[:kept], np.float64)
        del self._D, self._ws, self._G, self._h, self._leaf_sign, self._leaf_value
        del self._colorings, self._alphas, self._eps, self._z

    def _boost(self, t, X_binned, y):
        K = self.n_classes_
        mu = coloring_of_round(self.random_state, t, K)                         # 2(a)
        _binary_weights(self._D, y, mu, self._G)                                  # 2(b)
        ws = self._ws
        m = grow_tree(ws, X_binned, y, self._n_bins, CRITERION_ABS_SUM,           # 2(c)
                      channel_values=self._G)
        eps = _leaf_signs_and_error(ws.left, ws.node_sum, m, ws.node_start, ws.node_end,
                                    ws.sample_index, y, mu, self._G, self._leaf_sign, self._h)
        if not eps < 0.5:                                                          # 2(d)
            return RoundOutcome.DISCARD_STOP
        alpha = alpha_of_error(eps)
        z = _reweight(self._D, y, mu, self._h, alpha)                              # 2(e)
        # The leaf's vote on f(x, .): alpha h mu(l) (step 3).
        self._leaf_value[:m] = (alpha * self._leaf_sign[:m].astype(np.float64))[:, None] * mu
        self.forest_.append(ws, m, leaf_value=self._leaf_value)
        self._colorings.append(mu)
        self._alphas.append(alpha)
        self._eps.append(eps)
        self._z.append(z)
        return RoundOutcome.CONTINUE
