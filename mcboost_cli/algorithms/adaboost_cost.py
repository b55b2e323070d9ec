"""AdaBoost-Cost: AdaBoost.MM of Mukherjee & Schapire with the exponential cost matrix.

The MCBoost paper's "AdaBoost-Cost [16]" is the cost-matrix multi-class boosting algorithm of
Mukherjee & Schapire, *A theory of multiclass boosting* (NIPS 2010; journal version JMLR 14,
2013, where it is written out as AdaBoost.MM). Scores f_t(i, l) = sum_{s <= t} alpha_s
[h_s(x_i) = l] start at 0; in round t:

1. cost matrix (exponential loss): C_t(i, l) = exp(f_{t-1}(i, l) - f_{t-1}(i, y_i)) for
   l != y_i, and C_t(i, y_i) = -sum_{l != y_i} C_t(i, l);
2. the weak learner returns h_t: X -> {1..K} of small total cost sum_i C_t(i, h_t(x_i)). Here
   a tree of depth ``max_depth`` grown greedily to minimise that cost, as the MCBoost paper
   prescribes for its AdaBoost-Cost baseline ("minimize the classification cost"): every leaf
   answers the label of least summed cost over its samples, and each split is the one that
   lowers the summed leaf costs most (``CRITERION_MAX_CHANNEL`` on G = -C / Z);
3. edge delta_t = -sum_i C_t(i, h_t(x_i)) / Z_t with Z_t = sum_i sum_{l != y_i} C_t(i, l);
4. alpha_t = 1/2 ln((1 + delta_t) / (1 - delta_t));
5. f_t(i, l) = f_{t-1}(i, l) + alpha_t [h_t(x_i) = l];

and the classifier is H(x) = argmax_l f_T(x, l) (a label vote of weight alpha_t,
``LABEL_VOTE``). The state is the matrix of terms exp(f(i, l) - f(i, y_i)) (the costs),
updated multiplicatively (``_pairwise_exp``; lam = 1, Q = identity). With the tree's argmin
leaves delta_t >= 0 always (each cost row sums to zero, so a leaf's least summed cost is <= 0).

Stopping (ALGORITHMS.md / .notes/issue6_algorithms.md): delta_t = 0 (no edge; alpha_t = 0
would add nothing and the weights would not change) ends the fit with the round discarded; a
tree that classifies every training sample correctly has delta_t = 1 and an infinite alpha_t,
and — as for AdaBoost.M1 and SAMME in this project — gets the vote 1 + sum of the previous
alphas, which makes the ensemble predict its labels, and ends the fit.

References
----------
.. [1] I. Mukherjee, R. E. Schapire. A theory of multiclass boosting. NIPS 2010.
.. [2] I. Mukherjee, R. E. Schapire. A theory of multiclass boosting. JMLR 14:437-497, 2013
       (AdaBoost.MM written out as an algorithm).
.. [3] M. J. Saberian, N. Vasconcelos. Multiclass boosting: theory and algorithms. NIPS 2011
       (sec. 5.3: AdaBoost-Cost with trees of depth 2 minimising the classification cost).
"""

from __future__ import annotations

import math

import numpy as np

from ..learners.forest import LABEL_VOTE
from ..learners.histogram_tree import CRITERION_MAX_CHANNEL
from ._pairwise_exp import PairwiseExpBoosting, argmax_leaves, cost_channels
from .base import RoundOutcome
from .params import MAX_BINS, MAX_DEPTH, N_ROUNDS
from .registry import register


@register
class AdaBoostCost(PairwiseExpBoosting):
    """AdaBoost.MM (Mukherjee & Schapire 2010) with cost-minimising multi-class trees.

    Parameters
    ----------
    n_rounds : int, default=100
    max_depth : int, default=3
        Depth of the label-valued trees (the MCBoost paper's comparison uses 2).
    max_bins : int, default=255

    References
    ----------
    .. [1] I. Mukherjee, R. E. Schapire. A theory of multiclass boosting. NIPS 2010;
           JMLR 14, 2013 (AdaBoost.MM).
    """

    name = "adaboost_cost"
    family = "AdaBoost"
    reference = ("Mukherjee & Schapire, A theory of multiclass boosting, NIPS 2010 "
                 "(AdaBoost.MM, exponential cost matrix)")
    version = "1"
    param_specs = (N_ROUNDS, MAX_DEPTH, MAX_BINS)
    test_params = {"n_rounds": 15, "max_depth": 2}

    def __init__(self, n_rounds=100, max_depth=3, max_bins=255):
        self.n_rounds = n_rounds
        self.max_depth = max_depth
        self.max_bins = max_bins

    def _setup(self):
        K = self.n_classes_
        self._lam = 1.0                     # terms exp(f(i, l) - f(i, y_i))
        self._Q = np.eye(K)                 # answering l adds alpha to f(., l)
        self._criterion = CRITERION_MAX_CHANNEL
        self._n_channels_in = K
        self._vote = LABEL_VOTE
        self._alpha_sum = 0.0

    def _init_state(self, X_binned, y, n_bins, hist_width):
        super()._init_state(X_binned, y, n_bins, hist_width)
        # u = -1: a correctly labelled sample's terms (f(i, y_i) grows); u = +1: the term of
        # the wrong label a sample received; u = 0: its other terms.
        self._i_down = int(np.flatnonzero(self._U == -1.0)[0])
        self._i_up = int(np.flatnonzero(self._U == 1.0)[0])
        self._i_rest = self._zero_u

    def _boost(self, t, X_binned, y):
        Z = cost_channels(self._c, y, 1.0, self._G)           # G = -C_t / Z_t (step 1)
        if Z <= 0.0:
            self.stop_reason_ = "loss at 0 (every off-label cost is 0)"
            return RoundOutcome.DISCARD_STOP
        ws = self._ws
        m = self._grow(X_binned, y)                           # step 2: min-cost tree
        argmax_leaves(ws.left, m, ws.node_sum, self._leaf_v)  # leaf label = least cost
        self._collect(m, y)                                   # labels h_t(x_i), masses
        down = self._A[self._i_down]     # correct samples: sum of their off-label costs
        up = self._A[self._i_up]         # wrong samples: sum of C(i, h(x_i))
        rest = self._A[self._i_rest]     # wrong samples: costs of the other labels
        # Step 3: delta_t = (down - up) / Z_t (= the tree's summed leaf maxima of G).
        if down <= up:
            self.stop_reason_ = (f"edge delta_t = {(down - up) / Z:.6g} <= 0 (no weak "
                                 "learner with an edge)")
            return RoundOutcome.DISCARD_STOP
        if up <= 0.0:
            # delta_t = 1: infinite alpha_t; the project's perfect-learner convention.
            alpha = 1.0 + self._alpha_sum
            self._take_step(alpha, m, y)
            self.stop_reason_ = "edge 1 (the tree labels every training sample correctly)"
            return RoundOutcome.STOP_AFTER
        # Step 4 without cancellation: 1 + delta = (2 down + rest) / Z, 1 - delta =
        # (2 up + rest) / Z (Z = down + up + rest).
        alpha = 0.5 * math.log((2.0 * down + rest) / (2.0 * up + rest))
        self._alpha_sum += alpha
        self._take_step(alpha, m, y)                          # step 5
        return RoundOutcome.CONTINUE
