"""GentleBoost.E: the multicategory GentleBoost of Zou, Zhu & Hastie (2008), boosting the
exponential loss exp(-f_c(x)) of a sum-to-zero margin vector f, with best-first
least-squares trees of ``max_leaves`` leaves (8 in the coherence paper's experiments [2],
which call it GentleBoost.E).

The steps as run here (``_class_trees`` runs the round; ALGORITHMS.md, "GentleBoost.E",
records where they come from and how they are read):

1. w_i = 1, G_j(x) = 0, j = 1..m.
2. Repeat for t = 1..``n_rounds``:
   (a) for j = 1..m:
       (i)   u_ij = I[c_i = j] - 1/m; w*_ij = w_i u_ij^2, normalised to sum 1 over i;
       (ii)  fit g_j(x) by weighted least squares of the working response 1/u_ij
             (m/(m-1) for the own class, -m for the others) with weights w*_.j;
       (iii) G_j <- G_j + g_j;
   (b) f_j = G_j - (1/m) sum_k G_k (so f += g - mean_k g_k: centring factor 1);
   (c) w_i = exp(-f_{c_i}(x_i)).
3. Output argmax_j f_j(x).

Why these are Newton steps: with f = G - mean G, d f_c / d G_j = u_j, so along G_j the loss
w_i exp(-u_ij delta) has gradient -w_i u_ij and curvature w_i u_ij^2 at delta = 0; the
per-sample Newton step is 1/u_ij, and its weighted least-squares fit with the curvatures as
weights is step (a)(ii). The m coordinates are stepped together with no (m-1)/m factor, so
for m = 2 a round moves f_1 = -f_2 by twice Gentle AdaBoost's step on F = f_1 (tested).

Weights are kept in log space and normalised (step (a)(i) normalises them anyway), so
exp(-f) never overflows.

References
----------
.. [1] Zou, Zhu, Hastie. New multicategory boosting algorithms based on multicategory
       Fisher-consistent losses. Annals of Applied Statistics 2(4), 1290-1306, 2008.
.. [2] Zhang, Jordan, Li, Yeung. Coherence functions for multicategory margin-based
       classification methods. AISTATS 2009.
"""

from __future__ import annotations

import numpy as np

from ._class_trees import MAX_LEAVES, PerClassTreeBoosting
from .params import MAX_BINS, N_ROUNDS
from .registry import register


def exponential_margin_loss(margins, labels) -> np.ndarray:
    """exp(-f_c(x_i)) per example: the loss GentleBoost.E minimises ([1]; [2] sec. 2.2).

    Parameters
    ----------
    margins : array_like of float, shape (n, m)
        Sum-to-zero margin vectors f(x_i).
    labels : array_like of int, shape (n,)

    Returns
    -------
    ndarray of float64, shape (n,)
    """
    f = np.asarray(margins, dtype=np.float64)
    c = np.asarray(labels, dtype=np.intp)
    return np.exp(-f[np.arange(f.shape[0]), c])


@register
class GentleBoostE(PerClassTreeBoosting):
    """Multicategory GentleBoost (Zou, Zhu & Hastie 2008) with ``max_leaves``-leaf trees.

    Parameters
    ----------
    n_rounds : int, default=100
        Rounds (each fits one tree per class).
    max_leaves : int, default=8
    max_bins : int, default=255
    """

    name = "gentleboost_e"
    family = "GentleBoost"
    reference = ("Zou, Zhu & Hastie, New multicategory boosting algorithms based on "
                 "multicategory Fisher-consistent losses, Annals of Applied Statistics 2008")
    version = "1"
    param_specs = (N_ROUNDS, MAX_LEAVES, MAX_BINS)
    test_params = {"n_rounds": 10, "max_leaves": 4}

    def _working_responses(self, t, y):
        n, m = self._margins.shape
        rows = np.arange(n)
        is_label = np.zeros((n, m), dtype=bool)
        is_label[rows, y] = True
        u = np.where(is_label, 1.0 - 1.0 / m, -1.0 / m)            # step (a)(i)
        # Step (c) of the previous round (w_i = 1 at the start), in log space.
        log_w = -self._margins[rows, y]
        w = np.exp(log_w - log_w.max())
        weights = w[:, None] * u * u
        weights /= weights.sum(axis=0, keepdims=True)                # "normalised"
        return 1.0 / u, weights                                       # step (a)(ii)

    def _centre_scale(self, m):
        return 1.0                                                    # step (b)
