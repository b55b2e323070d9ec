"""MulLogitBoost: K-class LogitBoost (Friedman, Hastie & Tibshirani 2000, Algorithm 6) on
best-first least-squares trees with ``max_leaves`` leaves (8 in [1]'s and [2]'s experiments).

Algorithm 6 of [1], K = m classes, the steps as run here (``_class_trees`` runs the round):

1. F_j(x) = 0, p_j(x) = 1/K.
2. Repeat for t = 1..``n_rounds``:
   (a) for j = 1..K: z_ij = (y*_ij - p_j(x_i)) / (p_j(x_i)(1 - p_j(x_i))),
       w_ij = p_j(x_i)(1 - p_j(x_i)) (``coherence.multinomial_working_responses``, |z| capped
       at z_max = 4, the top of [1]'s range [2, 4] and the cap of GentleBoost.C's identical
       response); fit f_tj(x) by weighted least squares of z_.j on x with weights w_.j;
   (b) f_tj <- (K-1)/K (f_tj - (1/K) sum_k f_tk), F_j <- F_j + f_tj;
   (c) p_j(x) = exp(F_j(x)) / sum_k exp(F_k(x)).
3. Output argmax_j F_j(x).

It minimises the multinomial deviance -sum_i log p_{c_i}(x_i) (eq. (2) of [2],
``coherence.multinomial_logit_loss``). For K = 2 it is binary LogitBoost ([1], Algorithm 3)
with F = F_1 = -F_2: [1]'s binary p = e^F / (e^F + e^-F) and its update F += f/2 (tested).

References
----------
.. [1] Friedman, Hastie, Tibshirani. Additive logistic regression: a statistical view of
       boosting. Annals of Statistics 28(2), 337-407, 2000.
.. [2] Zhang, Jordan, Li, Yeung. Coherence functions for multicategory margin-based
       classification methods. AISTATS 2009 (sec. 5: "MulLogitBoost").
"""

from __future__ import annotations

from ._class_trees import MAX_LEAVES, PerClassTreeBoosting
from .coherence import DEFAULT_MAX_ABS_RESPONSE, multinomial_working_responses
from .params import MAX_BINS, N_ROUNDS
from .registry import register


@register
class MulLogitBoost(PerClassTreeBoosting):
    """K-class LogitBoost (FHT 2000, Algorithm 6) with ``max_leaves``-leaf regression trees.

    Parameters
    ----------
    n_rounds : int, default=100
        Rounds (each fits one tree per class).
    max_leaves : int, default=8
    max_bins : int, default=255
    """

    name = "mullogitboost"
    family = "LogitBoost"
    reference = ("Friedman, Hastie & Tibshirani, Additive logistic regression: a statistical "
                 "view of boosting, Annals of Statistics 2000 (Algorithm 6)")
    # 2: each class's weights scaled to sum 1 before its tree is grown (the trees no longer
    # end at their roots once the training set is separated; ``_class_trees._boost``).
    version = "2"
    param_specs = (N_ROUNDS, MAX_LEAVES, MAX_BINS)
    test_params = {"n_rounds": 10, "max_leaves": 4}

    def _working_responses(self, t, y):
        # Step 2(a); at F = 0 the softmax is step 1's p = 1/K.
        return multinomial_working_responses(self._margins, y,
                                             max_abs_response=DEFAULT_MAX_ABS_RESPONSE)

    def _centre_scale(self, m):
        return (m - 1) / m                 # step 2(b)
