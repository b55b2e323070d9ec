"""GentleBoost.C: Algorithm 1 of Zhang, Jordan, Li & Yeung (AISTATS 2009), boosting the
coherence function C(g, c) = T log[1 + sum_{j != c} exp((1 + g_j - g_c)/T)] (eq. (6)) with
best-first least-squares trees of ``max_leaves`` leaves (8 in the paper's experiments).

Algorithm 1's steps, as run here (``_class_trees`` runs the round, ``coherence`` computes
its quantities; ALGORITHMS.md, "Coherence functions (GentleBoost.C)", gives the readings):

1. beta_j(x) = 1/m, g_j(x) = 0 (the uniform w_ij = 1/n are replaced in step 2(a)(i)).
2. Repeat for h = 1..``n_rounds``:
   (a)(i)   z_ij = (I[j = c_i] - beta_j(x_i)) / (beta_j(x_i)(1 - beta_j(x_i))),
            w_ij = beta_j(x_i)(1 - beta_j(x_i)) (``coherence.working_responses``; |z| capped
            at 4). Round 1 uses step 1's beta = 1/m, not eq. (5) at g = 0;
   (a)(ii)  fit g_j^(h)(x) by weighted least squares of z_.j with weights w_.j, j = 1..m;
   (a)(iii), (b)  g <- g + (m-1)/m (g^(h) - mean_l g_l^(h)): the sum-to-zero centring applied
            to the round's fits (``coherence.update_margins(centre="increment")``);
   (c)      beta_j(x_i) of eq. (5) at the new margins (computed at the next round's (a)(i)).
3. Output argmax_j g_j(x).
"""

from __future__ import annotations

import numpy as np

from ._class_trees import MAX_LEAVES, PerClassTreeBoosting
from .coherence import DEFAULT_MAX_ABS_RESPONSE, working_responses
from .params import MAX_BINS, N_ROUNDS, ParamSpec
from .registry import register

TEMPERATURE = ParamSpec("temperature", "float", 1.0,
                        "temperature T of the coherence function (the paper reports T = 1)",
                        low=0.0, low_open=True, high=1e6)


@register
class GentleBoostC(PerClassTreeBoosting):
    """GentleBoost.C (Zhang et al. 2009, Algorithm 1) with ``max_leaves``-leaf trees.

    Parameters
    ----------
    n_rounds : int, default=100
        H, the rounds (each fits one tree per class).
    max_leaves : int, default=8
    max_bins : int, default=255
    temperature : float, default=1.0
        T > 0.
    """

    name = "gentleboost_c"
    family = "GentleBoost"
    reference = ("Zhang, Jordan, Li & Yeung, Coherence functions for multicategory "
                 "margin-based classification methods, AISTATS 2009 (Algorithm 1)")
    # 2: each class's weights scaled to sum 1 before its tree is grown (the trees no longer
    # end at their roots once the training set is separated; ``_class_trees._boost``).
    version = "2"
    param_specs = (N_ROUNDS, MAX_LEAVES, MAX_BINS, TEMPERATURE)
    test_params = {"n_rounds": 10, "max_leaves": 4}

    def __init__(self, n_rounds=100, max_leaves=8, max_bins=255, temperature=1.0):
        self.n_rounds = n_rounds
        self.max_leaves = max_leaves
        self.max_bins = max_bins
        self.temperature = temperature

    def _working_responses(self, t, y):
        n, m = self._margins.shape
        if t == 0:
            # Step 1's beta = 1/m in step 2(a)(i): z = m (own class), -m/(m-1) (others),
            # capped as later rounds are; w = (1/m)(1 - 1/m) for all.
            own = min(float(m), DEFAULT_MAX_ABS_RESPONSE)
            other = min(m / (m - 1), DEFAULT_MAX_ABS_RESPONSE)
            z = np.full((n, m), -other)
            z[np.arange(n), y] = own
            return z, np.full((n, m), (1.0 / m) * (1.0 - 1.0 / m))
        # Step 2(c) of the previous round and 2(a)(i) of this one.
        return working_responses(self._margins, y, float(self.temperature),
                                 max_abs_response=DEFAULT_MAX_ABS_RESPONSE)

    def _centre_scale(self, m):
        return (m - 1) / m                 # step 2(b)
