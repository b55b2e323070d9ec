"""LogitBoost (two classes): Friedman, Hastie & Tibshirani 2000, Algorithm 3, on depth-wise
weighted least-squares regression trees of depth ``max_depth``.

Algorithm 3 of [1], as run here, with y* in {0, 1} (class code 1 is y* = 1) and y = 2y* - 1:

1. F(x) = 0, p(x) = 1/2 (w_i = 1/N is implied by step 2(a) at p = 1/2).
2. Repeat for t = 1..``n_rounds``:
   (a) z_i = (y*_i - p(x_i)) / (p(x_i)(1 - p(x_i))), w_i = p(x_i)(1 - p(x_i))
       (``_working_responses``: in closed form from F; |z| capped at ``max_abs_response``,
       [1]'s z_max, 4 by default; the weights scaled to sum 1, which changes no fit);
   (b) f_t(x): the weighted least-squares regression tree of z on x with weights w, grown
       depth-first to ``max_depth`` (``learners.histogram_tree``, ``CRITERION_LEAST_SQUARES``;
       a leaf answers the weighted mean of z over its samples, ``_newton_leaves``);
   (c) F(x) <- F(x) + f_t(x) / 2, p(x) = e^F / (e^F + e^-F).
3. Output sign F(x).

Step 2 is a Newton step on the binomial log-likelihood, leaf by leaf: with
l(F) = sum_i log(1 + e^{-2 y_i F_i}) (minus the log-likelihood), l' = -2 (y* - p) and
l'' = 4 p (1 - p), so the minimiser of l's second-order expansion in a common step c of a
leaf's samples is c = sum (y* - p) / (2 sum p (1 - p)) = f / 2 (tested against a brute-force
minimiser; uncapped z). Where the leaf's weight sum p (1 - p) is tiny — its examples all
classified with confidence, but for one that is not — that step is huge (it diverges on wdbc);
[1]'s cap |z| <= z_max makes f a weighted mean of values in [-z_max, z_max], so every step is
at most z_max / 2, at the price of steps that are no longer Newton's for the examples whose
z is capped (the training loss then need not fall every round).

The ensemble's scores are (-F, F) for classes (0, 1): the K = 2 case of FHT's multinomial
form (F_1 = -F_0), so p = softmax and argmax = sign F (F = 0 goes to class 0). Each tree is a
``VECTOR_VOTE`` tree whose leaf of fit f votes (-f/2, f/2); the training F is updated from the
grower's partition with the very values the forest stores, so the training scores equal the
forest's bit for bit.

The training loss after each round is the mean binomial loss (1/n) sum_i log(1 + e^{-2 y_i F_i})
(``train_losses_``; log 2 at F = 0). With ``loss_tolerance`` > 0 the fit stops after the round
that changed it by less than the tolerance: the DirectBoost paper's rule for its convex
baselines [2] (ALGORITHMS.md, "Binary AdaBoost and LogitBoost").

Map of the module: the kernels ``_working_responses``, ``_newton_leaves``, ``_binomial_loss``,
``_training_scores`` with their numpy twins (``*_naive``, for the tests), the parameter
``MAX_ABS_RESPONSE`` and the estimator ``LogitBoost``.

References
----------
.. [1] J. Friedman, T. Hastie, R. Tibshirani. Additive logistic regression: a statistical view
       of boosting. Annals of Statistics 28(2), 337-407, 2000 (Algorithm 3, LogitBoost (two
       classes), and its advice to cap z at z_max in [2, 4]).
.. [2] S. Zhai, T. Xia, M. Tan, S. Wang. Direct 0-1 loss minimization and margin maximization
       with boosting. NIPS 2013 (sec. 3.1: "the change of loss is less than 1e-6").
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .._dtypes import SCORE_DTYPE, WEIGHT_DTYPE
from ..learners.forest import VECTOR_VOTE, Forest
from ..learners.histogram_tree import CRITERION_LEAST_SQUARES, TreeWorkspace, grow_tree
from .base import BaseBoosting, RoundOutcome
from .coherence import DEFAULT_MAX_ABS_RESPONSE
from .params import LOSS_TOLERANCE, LOSS_TOLERANCE_OF, MAX_BINS, MAX_DEPTH, N_ROUNDS, ParamSpec
from .registry import register

MAX_ABS_RESPONSE = ParamSpec(
    "max_abs_response", "float", DEFAULT_MAX_ABS_RESPONSE,
    "cap z_max on the working response |z| (Friedman, Hastie & Tibshirani 2000: z_max in "
    "[2, 4]); it bounds a leaf's step by z_max / 2; |z| >= 1 always, so it acts only on "
    "examples whose true class has p < 1/z_max; 0 = no cap, Algorithm 3 as printed (its "
    "Newton steps can diverge: ALGORITHMS.md)", low=1.0, also=(0,))


# ---------------------------------------------------------------------------------------------
# Kernels (numba) and their naive twins (numpy, used by the tests)
# ---------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _working_responses(F, y, max_abs_response, z, channels):
    """Alg. 3 step 2(a) in closed form, and the tree's channels (w, w z) with the weights
    scaled to sum 1; returns sum_i w_i before the scaling.

    With p = 1 / (1 + e^{-2F}) and y = 2y* - 1 in {-1, +1}: y* = 1 gives
    z = (1 - p) / (p (1 - p)) = 1 / p = 1 + e^{-2F}, y* = 0 gives z = -1 / (1 - p) =
    -(1 + e^{2F}); so z = y (1 + e^{-2yF}), capped at |z| <= max_abs_response. And
    w = p (1 - p) = 1 / (2 + e^{2F} + e^{-2F}) = u / (1 + u)^2 with u = e^{-2|F|} <= 1: no
    cancellation in 1 - p, finite for every F (it underflows to 0 only past |F| ~ 372). Where z
    is not capped, w z = y* - p = y / (1 + e^{2yF}) in closed form: an overflowing z times an
    underflowing w never makes a NaN.

    IN: F (n,) float64, y (n,) int32 class codes 0/1, max_abs_response > 0 (inf: no cap).
    OUT: z (n,); channels (n, 2) = (w, w z), both divided by sum w (when it is > 0).
    """
    total = 0.0
    for i in range(F.shape[0]):
        sign = 1.0 if y[i] == 1 else -1.0
        magnitude = 1.0 + math.exp(-2.0 * sign * F[i])     # inf past the exponent's range
        u = math.exp(-2.0 * abs(F[i]))
        w = u / ((1.0 + u) * (1.0 + u))
        if magnitude <= max_abs_response:
            z[i] = sign * magnitude
            channels[i, 1] = sign / (1.0 + math.exp(2.0 * sign * F[i]))
        else:
            z[i] = sign * max_abs_response
            channels[i, 1] = w * z[i]
        channels[i, 0] = w
        total += w
    if total > 0.0:
        for i in range(F.shape[0]):
            channels[i, 0] /= total
            channels[i, 1] /= total
    return total


def _working_responses_naive(F, y, max_abs_response):
    """Twin of ``_working_responses`` from the printed formulas (p, then z and w; unscaled
    w), for F of moderate size (|F| < 15, where 1 - p keeps enough digits)."""
    F = np.asarray(F, np.float64)
    p = np.exp(F) / (np.exp(F) + np.exp(-F))
    y_star = (np.asarray(y) == 1).astype(np.float64)
    z = (y_star - p) / (p * (1.0 - p))
    return np.clip(z, -max_abs_response, max_abs_response), p * (1.0 - p)


@njit(cache=True, nogil=True)
def _newton_leaves(left, n_nodes, node_start, node_end, sample_index, channels, threshold,
                   leaf_vote, F):
    """Alg. 3 steps 2(b)-(c) on a grown tree: each leaf's weighted least-squares fit
    f = sum w z / sum w over its samples (0 for a leaf of zero weight), summed directly over
    the samples (not from histograms, whose subtraction leaves rounding residue); the leaf
    votes (-f/2, f/2) and F += f/2 on its samples.

    IN: the workspace's node arrays (leaf nd holds ``sample_index[node_start[nd]:
    node_end[nd]]``), channels (n, 2) = (w, w z). OUT: leaf_vote (n_nodes, 2) (0 for internal nodes); a leaf's
    ``threshold`` set to 0 (it is never read; a stale value from an earlier tree would make
    the stored forest depend on the workspace's past). IN/OUT: F (n,).
    """
    for nd in range(n_nodes):
        leaf_vote[nd, 0] = 0.0
        leaf_vote[nd, 1] = 0.0
        if left[nd] >= 0:
            continue
        threshold[nd] = 0
        sw = 0.0
        swz = 0.0
        for q in range(node_start[nd], node_end[nd]):
            i = sample_index[q]
            sw += channels[i, 0]
            swz += channels[i, 1]
        step = 0.5 * (swz / sw) if sw > 0.0 else 0.0                 # step 2(c): f / 2
        leaf_vote[nd, 0] = -step
        leaf_vote[nd, 1] = step
        for q in range(node_start[nd], node_end[nd]):
            F[sample_index[q]] += step


@njit(cache=True, nogil=True)
def _binomial_loss(F, y):
    """(1/n) sum_i log(1 + e^{-2 y_i F_i}) with y = 2y* - 1, without overflow: for
    a = -2yF > 0 it is a + log(1 + e^{-a})."""
    total = 0.0
    for i in range(F.shape[0]):
        a = (-2.0 if y[i] == 1 else 2.0) * F[i]
        if a > 0.0:
            total += a + math.log1p(math.exp(-a))
        else:
            total += math.log1p(math.exp(a))
    return total / max(F.shape[0], 1)


def _binomial_loss_naive(F, y):
    """Twin of ``_binomial_loss`` (np.logaddexp(0, -2yF))."""
    ypm = np.where(np.asarray(y) == 1, 1.0, -1.0)
    return float(np.mean(np.logaddexp(0.0, -2.0 * ypm * np.asarray(F, np.float64))))


@njit(cache=True, nogil=True)
def _training_scores(F, y, scores, pred):
    """scores = (-F, F), pred = their first argmax (class 1 iff F > 0); returns #errors."""
    n_errors = 0
    for i in range(F.shape[0]):
        scores[i, 0] = -F[i]
        scores[i, 1] = F[i]
        p = 1 if F[i] > -F[i] else 0
        pred[i] = p
        n_errors += np.int64(p != y[i])
    return n_errors


# ---------------------------------------------------------------------------------------------
# The estimator
# ---------------------------------------------------------------------------------------------


@register
class LogitBoost(BaseBoosting):
    """Binary LogitBoost (FHT 2000, Algorithm 3) with depth-``max_depth`` least-squares trees.

    Parameters
    ----------
    n_rounds : int, default=100
    max_depth : int, default=3
        Depth of each regression tree (1 = stump); 1 or 3 in the DirectBoost paper.
    max_bins : int, default=255
    max_abs_response : float, default=4.0
        [1]'s z_max: |z| is capped at it, which bounds every leaf's step by z_max / 2; 0 (or
        numpy.inf): no cap, Algorithm 3 as printed (ALGORITHMS.md, "Binary AdaBoost and
        LogitBoost": its Newton steps diverge on wdbc).
    loss_tolerance : float, default=0.0
        Stop after the round that changed the mean binomial loss by less than this (0: run
        ``n_rounds``).
    loss_tolerance_of : {"mean", "sum"}, default="mean"
        Compare ``loss_tolerance`` with the change of the mean training loss or of the loss
        summed over the training rows (n times the mean's change; the DirectBoost paper's
        configs, ALGORITHMS.md).

    Fitted attributes (besides the base class's)
    ---------------------------------------------
    train_losses_ : ndarray (n_rounds_,), the mean binomial loss after each round

    References
    ----------
    See the module docstring.
    """

    name = "logitboost"
    family = "LogitBoost"
    reference = ("Friedman, Hastie & Tibshirani, Additive logistic regression: a statistical "
                 "view of boosting, Annals of Statistics 2000 (Algorithm 3)")
    version = "1"
    binary_only = True
    param_specs = (N_ROUNDS, MAX_DEPTH, MAX_BINS, MAX_ABS_RESPONSE, LOSS_TOLERANCE,
                   LOSS_TOLERANCE_OF)
    test_params = {"n_rounds": 15, "max_depth": 2}
    test_param_variants = ({"n_rounds": 200, "max_depth": 1, "loss_tolerance": 1e-4},
                           {"n_rounds": 200, "max_depth": 1, "loss_tolerance": 1e-4,
                            "loss_tolerance_of": "sum"})

    def __init__(self, n_rounds=100, max_depth=3, max_bins=255,
                 max_abs_response=DEFAULT_MAX_ABS_RESPONSE, loss_tolerance=0.0,
                 loss_tolerance_of="mean"):
        self.n_rounds = n_rounds
        self.max_depth = max_depth
        self.max_bins = max_bins
        self.max_abs_response = max_abs_response
        self.loss_tolerance = loss_tolerance
        self.loss_tolerance_of = loss_tolerance_of

    _scratch_attrs = ("_ws", "_z", "_channels", "_leaf_vote")

    def _init_state(self, X_binned, y, n_bins, hist_width):
        if self.n_classes_ != 2:
            raise ValueError(f"Only binary classification is supported by logitboost, "
                             f"two-class LogitBoost (FHT 2000, Algorithm 3): y has "
                             f"{self.n_classes_} classes, expected 2 (use mullogitboost for "
                             f"more)")
        if not float(self.max_abs_response) >= 0.0:
            raise ValueError(f"max_abs_response must be a cap > 0 or 0 (no cap), got "
                             f"{self.max_abs_response!r}")
        self._init_loss_rule(X_binned.shape[0])
        n, n_features = X_binned.shape
        self._n_bins = n_bins
        self._z_max = float(self.max_abs_response) or math.inf
        self._F = np.zeros(n, SCORE_DTYPE)                        # step 1: F = 0
        self._loss = math.log(2.0)                                # its binomial loss
        self._losses = []
        self._z = np.zeros(n, WEIGHT_DTYPE)
        self._channels = np.zeros((n, 2), WEIGHT_DTYPE)           # (w, w z) per sample
        self._ws = TreeWorkspace(n, n_features, hist_width, 2, int(self.max_depth))
        self._leaf_vote = np.zeros((self._ws.max_nodes, 2), SCORE_DTYPE)
        self.forest_ = Forest(VECTOR_VOTE, 2, node_capacity=self._ws.max_nodes * 64)

    def _free_state(self):
        self.train_losses_ = np.array(self._losses[:self.n_rounds_], np.float64)
        del self._F, self._loss, self._losses, self._z, self._channels, self._ws
        del self._leaf_vote

    def _boost(self, t, X_binned, y):
        ws = self._ws
        # Step 2(a). The weighted least-squares fit does not depend on the weights' scale,
        # but the grower's tie tolerance is absolute near zero gain (1e-12 (1 + |score|)):
        # once the training set is separated, w = p (1 - p) shrinks towards 0 and every split
        # would look like a tie. The kernel scales them to sum 1 (as MulLogitBoost's,
        # ``_class_trees``), which changes no fit.
        _working_responses(self._F, y, self._z_max, self._z, self._channels)
        m = grow_tree(ws, X_binned, y, self._n_bins, CRITERION_LEAST_SQUARES,      # 2(b)
                      channel_values=self._channels)
        _newton_leaves(ws.left, m, ws.node_start, ws.node_end, ws.sample_index,    # 2(c)
                       self._channels, ws.threshold, self._leaf_vote, self._F)
        self.forest_.append(ws, m, leaf_value=self._leaf_vote)
        previous, self._loss = self._loss, _binomial_loss(self._F, y)
        self._losses.append(self._loss)
        if self._loss_change_stops(previous, self._loss, self._n_train):
            return RoundOutcome.STOP_AFTER
        return RoundOutcome.CONTINUE

    def _add_train_round(self, t, X_binned, y, scores, pred) -> int:
        """The training scores after round t are (-F, F) (the same additions in the same
        order as the forest's walk)."""
        return _training_scores(self._F, y, scores, pred)
