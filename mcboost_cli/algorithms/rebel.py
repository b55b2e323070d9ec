"""REBEL with decision stumps, isolated or localized similarities (Appel & Perona, ICML 2017).

REBEL [1] returns a vector of class scores H(x) = sum_t f_t(x) a_t with binary weak learners
f_t: X -> {-1, +1} and accumulation vectors a_t in R^K (sec. 3); the class is
argmax_k H(x)_k. It minimises the exponential loss (eq. 2)

    L = 1/(2N) sum_n <exp[y_n (.) H(x_n)], 1>,   y_n = 1 - 2 delta_{y_n}

which upper-bounds the training error. Each round, with w_n = 1/2 exp[y_n (.) H(x_n)]
(eq. 3) and the weight sums s^T, s^F of a learner f, the best vector is in closed form

    a* = 1/2 (ln s^T - ln s^F),   L_f = 2 <sqrt(s^T (.) s^F), 1>          (eq. 5)

exact for learners with outputs +-1. A similarity's formula (sec. 5.1) has values in [-1, 1];
``similarity_outputs`` says what enters H (ALGORITHMS.md, "Binary or real-valued
similarities"): "sign" (reading (III)) adds the sign of every similarity — a ball around
x_i, or x_i's half-space of the bisector of x_i and x_j —, for which eq. 5 is exact;
"two_point_sign" (reading (V), the default: taken on training behaviour and validation
error) the sign of two-point learners and the real value of one-point ones; "real" (reading (II)) the real values. For real values the sums are
weighted by |f| (s^T = sum_n |f_n| 1[f_n y_n < 0] w_n, s^F likewise) and eq. 5's loss gains
the weight they abstain on, <sum_n (1 - |f_n|) w_n, 1>; a* is then the exact minimiser of an
upper bound of eq. 3. ``vector_step="exact"`` (not the paper's) replaces a* by the minimiser of eq. 3
itself for the chosen learner (the same a* for outputs +-1).

Three weak-learner families (``weak_learner``):

- ``stump``: the exhaustive search of decision stumps (sec. 3, "REBEL using shallow decision
  trees" of Fig. 8), on the binned codes: the stump of least eq. 5 loss.
- ``isolated``: sec. 5.2 steps 0-3 — the homogeneous learner f_1 (+1 everywhere) or the best
  one-point similarity that isolates a single training point (sec. 5.1, one-point mode).
- ``localized``: sec. 5.2 steps 0-6 — also two-point similarities f_ij between the isolated
  point x_i and its nearest partners of the other binarized class (sec. 4: the sign of the
  top eigenvector of U^T U, eq. 8), each partner pruning the candidates near it (step 6).

Similarities read the raw feature values (``BaseBoosting._raw``): for them the matrix the base
loop hands to ``_init_state``, ``_boost`` and the ensemble is the float feature matrix, not
the bin codes (``_bin_fit``/``_bin`` below); stumps use the codes as every tree booster.
The fitted rounds live in a ``learners.similarity.RebelEnsemble`` (``forest_``: the base
loop's name for the ensemble; it adds votes as ``Forest`` does). Weights are kept
normalised to sum 1 (the loss reaches 1e-200 on real data, Fig. 7) and the loss in log:
``train_log_loss_[t]`` = ln L after round t; ln L_0 = ln(K/2).

The guarantee (sec. 5): with a learner that isolates any single point, each round multiplies
the loss by at most 1 - 2/(K N^2), so the training error reaches 0 after finitely many
rounds on any data whose points are distinct; the loss decreases every round whatever the
family (a* minimises a bound of eq. 3 that a = 0 attains). Every reading of an unclear passage is in
ALGORITHMS.md ("REBEL").

References
----------
.. [1] R. Appel, P. Perona. A simple multi-class boosting framework with theoretical
       guarantees and empirical proficiency. ICML 2017 (PMLR 70).
.. [2] R. Appel, X. P. Burgos-Artizzu, P. Perona. Improved multi-class cost-sensitive
       boosting via estimation of the minimum-risk class. arXiv:1607.03547, 2016 (REBEL).
"""

from __future__ import annotations

import math

import numpy as np

from .._dtypes import WEIGHT_DTYPE
from ..learners.binning import Binned, BinMapper
from ..learners.similarity import (KIND_CONSTANT, KIND_ONE_POINT, KIND_STUMP, KIND_TWO_POINT,
                                   RebelEnsemble, accumulate, best_stump, binarize,
                                   class_moments, exact_vector, isolation_losses,
                                   loss_of_moments, one_point_outputs_from_distances,
                                   squared_distances, stump_histogram, two_point_search)
from .base import BaseBoosting, RoundOutcome
from .params import MAX_BINS, N_ROUNDS, ParamSpec
from .registry import register

WEAK_LEARNER = ParamSpec(
    "weak_learner", "choice", "localized",
    "REBEL's weak learners: stump (decision stumps, exhaustive search), isolated (one-point "
    "similarities, sec. 5.2 steps 0-3) or localized (one- and two-point similarities, "
    "sec. 5.2 steps 0-6)", choices=("stump", "isolated", "localized"))
VECTOR_STEP = ParamSpec(
    "vector_step", "choice", "closed_form",
    "accumulation vector of a round: closed_form (eq. 5, the paper's; exact for stumps and "
    "sign similarities, a minimiser of an upper bound of the loss for real-valued ones) or "
    "exact (per-class Newton "
    "minimisation of eq. 3 for the chosen learner: not in the paper; ALGORITHMS.md)",
    choices=("closed_form", "exact"))
SIMILARITY_OUTPUTS = ParamSpec(
    "similarity_outputs", "choice", "two_point_sign",
    "what a one- or two-point similarity adds to H: real (the formulas of sec. 5.1, values in "
    "[-1, 1]), sign (their signs: a ball, a bisecting half-space; eq. 5 then exact) or "
    "two_point_sign (two-point learners their signs, one-point learners their real values). "
    "ALGORITHMS.md, 'Binary or real-valued similarities'",
    choices=("real", "sign", "two_point_sign"), default_in_key=False)
STOP_BELOW_ONE_OVER_N = ParamSpec(
    "stop_below_one_over_n", "bool", False,
    "stop after the round whose training loss (eq. 2) falls below 1/N, which makes the "
    "training error 0 (the paper's Fig. 9 runs: 'run until the training loss fell below 1/N')")

# The thresholds tau tried for the isolating one-point learner, as fractions of the squared
# distance from its anchor to the nearest other point: every one of them classifies the
# anchor +1 and every other training point -1 (sec. 5.2 step 2). 0 is the limit tau -> 0+,
# the isolating vector 2 delta_i - 1 of the guarantee (sec. 5). ALGORITHMS.md, "REBEL".
TAU_FRACTIONS = (0.0,) + tuple(2.0 ** -k for k in range(10, 0, -1))

# With sign outputs every tau below D_nn(i) gives the same training outputs 2 delta_i - 1; the
# ball's boundary is put half way to the nearest other point (tau = D_nn(i)/4). ALGORITHMS.md.
SIGN_TAU_FRACTION = 0.25

# Floor of s^T, s^F in a* = 1/2 ln(s^T/s^F) (weights sum to 1): a class whose weight lies
# wholly on one side of a binary learner would get an infinite entry; the floor keeps it
# finite (|a_k| <= 345) and between 0 and the minimiser, so the loss still decreases.
_S_FLOOR = 1e-300
# Newton steps of the exact vector step at most (each a pass over the rows per class).
_EXACT_MAX_ITER = 50


@register
class REBEL(BaseBoosting):
    """REBEL (Appel & Perona, ICML 2017) with stumps, isolated or localized similarities.

    Parameters
    ----------
    n_rounds : int, default=100
    weak_learner : {"stump", "isolated", "localized"}, default="localized"
    vector_step : {"closed_form", "exact"}, default="closed_form"
        "closed_form": eq. 5 with the |f|-weighted sums (the paper's step; the exact
        minimiser for outputs +-1). "exact": the minimiser of eq. 3 for the chosen learner by
        Newton's method per class (the same for stumps; not in the paper).
    stop_below_one_over_n : bool, default=False
        Stop after the round whose training loss (eq. 2) is below 1/N.
    similarity_outputs : {"two_point_sign", "sign", "real"}, default="two_point_sign"
        "sign": a similarity adds its sign (a ball or a bisecting half-space) to H, for which
        eq. 5 is exact; "real": its real value (sec. 5.1); "two_point_sign": the sign of
        two-point learners, the real value of one-point ones. ALGORITHMS.md.
    max_bins : int, default=255
        Bins per feature of the stumps (similarities use the raw values).

    Fitted attributes (beside the base's)
    -------------------------------------
    forest_ : RebelEnsemble
    train_log_loss_ : ndarray (n_rounds_,), ln of the training loss (eq. 2) after each round
    """

    name = "rebel"
    family = "REBEL"
    reference = ("Appel & Perona, A simple multi-class boosting framework with theoretical "
                 "guarantees and empirical proficiency, ICML 2017")
    # 2: similarities output their signs by default (reading (III), ALGORITHMS.md).
    # 3: two-point learners their signs, one-point learners their real values (reading (V)).
    version = "3"
    param_specs = (N_ROUNDS, WEAK_LEARNER, VECTOR_STEP, STOP_BELOW_ONE_OVER_N, SIMILARITY_OUTPUTS,
                   MAX_BINS)
    test_params = {"n_rounds": 15, "weak_learner": "localized"}
    test_param_variants = ({"n_rounds": 15, "weak_learner": "isolated"},
                           {"n_rounds": 15, "weak_learner": "stump"},
                           {"n_rounds": 15, "similarity_outputs": "real"},
                           {"n_rounds": 15, "similarity_outputs": "sign"},
                           {"n_rounds": 15, "similarity_outputs": "real",
                            "vector_step": "exact"})
    _scratch_attrs = ("_binary_one", "_binary_two", "_ws", "_Y", "_V", "_b", "_v", "_f", "_G", "_P", "_iso", "_dist",
                      "_alive",
                      "_hist", "_below", "_mid", "_half")

    def __init__(self, n_rounds=100, weak_learner="localized", vector_step="closed_form",
                 stop_below_one_over_n=False, similarity_outputs="two_point_sign",
                 max_bins=255):
        self.n_rounds = n_rounds
        self.weak_learner = weak_learner
        self.vector_step = vector_step
        self.stop_below_one_over_n = stop_below_one_over_n
        self.similarity_outputs = similarity_outputs
        self.max_bins = max_bins

    # -- the feature matrix the loop hands around: codes (stumps) or raw values ------------------
    def _uses_values(self) -> bool:
        if self.weak_learner not in WEAK_LEARNER.choices:
            raise ValueError(f"weak_learner must be one of {', '.join(WEAK_LEARNER.choices)}, "
                             f"got {self.weak_learner!r}")
        return self.weak_learner != "stump"

    def _values(self, X) -> np.ndarray:
        raw = self._raw(X)
        if raw.ndim != 2:
            raise ValueError(f"X must be a 2-d matrix, got shape {raw.shape}")
        if np.isnan(raw).any():
            raise ValueError("REBEL's similarities need every feature value; X has missing "
                             "values (NaN): impute them or use weak_learner='stump'")
        if np.isinf(raw).any():
            raise ValueError("REBEL's similarities need finite feature values; X has "
                             "infinite values (inf): clip them or use weak_learner='stump'")
        return raw

    def _accepts_missing_values(self) -> bool:
        # Stumps read bins (NaN in the missing bin); similarities read the values.
        return self.weak_learner == "stump"

    def _bin_fit(self, X):
        for spec in (VECTOR_STEP, SIMILARITY_OUTPUTS):
            value = getattr(self, spec.name)
            if value not in spec.choices:
                raise ValueError(f"{spec.name} must be one of {', '.join(spec.choices)}, "
                                 f"got {value!r}")
        if not self._uses_values():
            return super()._bin_fit(X)
        mapper = X.mapper if isinstance(X, Binned) else BinMapper(
            max_bins=self.max_bins).fit(np.asarray(X, dtype=np.float64))
        return self._values(X), mapper

    def _bin(self, X):
        if not self._uses_values():
            return super()._bin(X)
        raw = self._values(X)
        n_features = len(self.bin_mapper_.n_bins_)
        if raw.shape[1] != n_features:
            raise ValueError(f"X has {raw.shape[1]} features; the model was fitted on "
                             f"{n_features}")
        return raw

    # -- the loop's hooks ------------------------------------------------------------------------
    def _init_state(self, X, y, n_bins, hist_width):
        n, d = X.shape
        K = self.n_classes_
        self._Y = np.ones((n, K), WEIGHT_DTYPE)          # y_n = 1 - 2 delta_{y_n} (eq. 2)
        self._Y[np.arange(n), y] = -1.0
        self._w = np.full((n, K), 1.0 / (n * K), WEIGHT_DTYPE)   # w_n = 1/2 (eq. 3), normalised
        self._log_loss = math.log(K / 2.0)                      # L_0 = K/2 (sec. 5)
        self.train_log_loss_ = np.full(int(self.n_rounds), np.nan)
        self._binary_one = self.similarity_outputs == "sign"
        self._binary_two = self.similarity_outputs in ("sign", "two_point_sign")
        self.forest_ = RebelEnsemble(K, d if self._uses_values() else 0,
                                     capacity=min(int(self.n_rounds), 4096),
                                     binary_one_point=self._binary_one,
                                     binary_two_point=self._binary_two)
        self._V = np.empty((n, K), WEIGHT_DTYPE)
        self._f = np.empty(n, np.float64)
        self._G = np.empty(K, np.float64)
        self._P = np.empty(K, np.float64)
        if self._uses_values():
            self._v = np.empty(n, np.float64)
            self._b = np.empty(n, np.bool_)
            self._iso = np.empty(n, np.float64)
            self._dist = np.empty(n, np.float64)
            self._alive = np.empty(n, np.bool_)
            self._mid = np.empty(d, np.float64)
            self._half = np.empty(d, np.float64)
        else:
            self._hist = np.empty((d, hist_width, K), np.float64)
            self._below = np.empty(K, np.float64)

    def _free_state(self):
        self.train_log_loss_ = self.train_log_loss_[:self.n_rounds_].copy()
        self.forest_.compact()
        for name in self._scratch_attrs + ("_w",):
            if hasattr(self, name):
                delattr(self, name)

    def _boost(self, t, X, y):
        w, V = self._w, self._V
        np.multiply(w, self._Y, out=V)            # w_n (.) y_n, the signed weights
        W = w.sum(axis=0)                          # s^T + s^F (sec. 3)
        if self._uses_values():
            loss, kind, params = self._select_similarity(X, V, W)
        else:
            loss, kind, params = self._select_stump(X, V, W)
        if not loss < W.sum():
            self.stop_reason_ = "no weak learner lowers the loss (eq. 5)"
            return RoundOutcome.DISCARD_STOP
        ens = self.forest_
        ens.append(kind, **params)           # index t
        f = ens.outputs(t, X, self._f)
        G, P = self._moments(f, V)
        s_true = np.maximum(0.5 * (P - G), _S_FLOOR)
        s_false = np.maximum(0.5 * (P + G), _S_FLOOR)
        a = 0.5 * (np.log(s_true) - np.log(s_false))        # eq. 5
        if self.vector_step == "exact":
            exact_vector(f, self._Y, w, a, _EXACT_MAX_ITER)
        ens.accum[t] = a
        ratio = accumulate(f, ens.accum[t], self._Y, w)      # eq. 3
        self._log_loss += math.log(ratio)
        self.train_log_loss_[t] = self._log_loss
        if self.stop_below_one_over_n and self._log_loss < -math.log(X.shape[0]):
            self.stop_reason_ = "training loss below 1/N (eq. 2: training error 0)"
            return RoundOutcome.STOP_AFTER
        return RoundOutcome.CONTINUE

    def _moments(self, f, V):
        """(G, P) of outputs f (``class_moments``)."""
        class_moments(f, V, self._G, self._P)
        return self._G, self._P

    def _add_train_round(self, t, X, y, scores, pred):
        # self._f holds round t's outputs on the training rows (computed in _boost by the
        # ensemble's own kernel, so the same numbers as ``add_round``).
        return self.forest_.add_votes(t, self._f, y, scores, pred)

    # -- learner selection -----------------------------------------------------------------------
    def _select_stump(self, codes, V, W):
        """The decision stump of least eq. 5 loss (sec. 3); threshold -1 = constant +1."""
        stump_histogram(codes, V, self._hist)
        loss, j, b = best_stump(self._hist, W, V.sum(axis=0), self._below)
        if b < 0:
            return loss, KIND_CONSTANT, {}
        return loss, KIND_STUMP, {"feature": j, "threshold": b}

    def _select_similarity(self, X, V, W):
        """Sec. 5.2: steps 0-3 (``isolated``), and 4-6 (``localized``)."""
        G_all = V.sum(axis=0)
        # Step 0: the homogeneous learner f_1 (+1 everywhere) and its eq. 5 loss.
        best = (loss_of_moments(W, W, G_all), KIND_CONSTANT, {})
        # Step 2: the isolating learner of least eq. 5 loss, first over the anchors i with
        # the isolating vector 2 delta_i - 1 (tau -> 0+, sec. 5), then over tau.
        isolation_losses(V, W, -G_all, self._iso)
        i = int(np.argmin(self._iso))
        dist = self._dist
        squared_distances(X, i, dist)
        others = dist[dist > 0.0]
        nearest = float(others.min()) if others.size else 0.0
        iso = None
        fractions = (SIGN_TAU_FRACTION,) if self._binary_one else TAU_FRACTIONS
        for frac in fractions if nearest > 0.0 else (0.0,):
            tau = frac * nearest
            one_point_outputs_from_distances(dist, tau, self._binary_one, self._f)
            G, P = self._moments(self._f, V)
            loss = loss_of_moments(W, P, G)
            if iso is None or loss < iso[0]:
                iso = (loss, tau)
        # Step 3: keep the better of f_1 and f_i (f_1 on a tie).
        if iso[0] < best[0]:
            best = (iso[0], KIND_ONE_POINT, {"tau": iso[1], "center": X[i]})
        if self.weak_learner == "isolated":
            return best
        # Step 1: binarize by the sign of the top eigenvector v1 of U^T U (sec. 4, eqs. 7-8).
        b = self._b
        binarize(V, W, self._v, b)
        # Steps 4-6: partners x_j of the other binarized class, nearest first, each pruning
        # the candidates f_ij(x_n) <= f_ij(x_j)/2. A copy of x_i (distance 0) is no partner.
        alive = self._alive
        np.not_equal(b, b[i], out=alive)
        alive &= dist > 0.0
        order = np.argsort(dist, kind="stable")
        loss, j, _ = two_point_search(X, i, order, V, W, alive, self._binary_two, self._mid,
                                      self._half, self._f, self._G, self._P)
        if j >= 0 and loss < best[0]:
            half = 0.5 * (X[i] - X[j])
            mid = 0.5 * (X[i] + X[j])
            best = (loss, KIND_TWO_POINT, {"center": mid, "half": half})
        return best
