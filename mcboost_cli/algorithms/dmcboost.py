"""DMCBoost: multi-class boosting by direct optimisation of the 0-1 loss and the margins.

The ensemble is a weighted plurality vote of label trees, F(x, k) = sum_t alpha_t
[h_t(x) = k] (``LABEL_VOTE``), fitted in two phases (Zhai, Xia & Wang, KDD 2014):

Phase I (Alg. 1) — greedy coordinate descent on the empirical 0-1 loss (eq. 2)
    Each round grows a tree on the 0-1 loss (Alg. 1.2, ``learners.zero_one_phase1``), finds the
    interval of alpha with the minimum training error exactly (Alg. 1.1,
    ``learners.line_search.line_search_zero_one``) and takes its midpoint (Alg. 1 lines 4-6).
    It ends at a coordinatewise local minimum (line 7): when the round's best alpha no longer
    lowers the training error, that tree is not added and Phase II starts in the same round.

Phase II (Alg. 2) — greedy coordinate ascent on the average margin of the bottom n'
    examples (eqs. 4-5), margins normalised by c = sum_t alpha_t so they lie in [-1, 1]. Each
    round grows a tree on that objective (``learners.margin_tree``), maximises it along the
    tree's coordinate by bisection on the sign of the derivative (eq. 9, Alg. 2.1, threshold
    th; Theorem 3 makes the objective quasi-concave) and adds the tree (Alg. 2 lines 4-6). With
    epsilon-relaxation, a round in which no step increases the objective (a corner) takes the
    step epsilon past the maximiser instead. The fit stops when the objective no longer
    increases (line 7): without relaxation at the first corner, with relaxation when the best
    objective has not increased for ``patience`` rounds.

n' is a hyper-parameter chosen on validation ("1", "n/100", ..., "n"; configs give the grid).
Every reading of an unclear passage is listed in ALGORITHMS.md ("DMCBoost and DirectBoost").

References
----------
.. [1] S. Zhai, T. Xia, S. Wang. A multi-class boosting method with direct optimization.
       KDD 2014.
.. [2] S. Zhai, T. Xia, M. Tan, S. Wang. Direct 0-1 loss minimization and margin maximization
       with boosting. NIPS 2013.
.. [3] D. P. Bertsekas. Network Optimization: Continuous and Discrete Models. Athena
       Scientific, 1998 (epsilon-relaxation).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._dtypes import SCORE_DTYPE
from ..learners.forest import LABEL_VOTE, Forest
from ..learners.line_search import (
    OBJ_TIE_EPS,
    bottom_avg_value,
    line_search_bottom_avg,
    line_search_zero_one_exp,
    max_order_margin_exact,
    order_margin_value,
    piece_terms,
    unnormalised_margins,
)
from ..learners.margin_search_exhaustive import OBJ_BOTTOM_AVG, OBJ_ORDER
from ..learners.margin_tree import grow_margin_tree
from ..learners.zero_one_phase1 import (
    PAIR_SAME,
    grow_phase1_pair,
    grow_zero_one_tree,
    resume_cut_tree,
)
from ..learners.zero_one_workspace import ZeroOneWorkspace
from .base import BaseBoosting, RoundOutcome
from .params import MAX_BINS, MAX_DEPTH, N_ROUNDS, ParamSpec
from .registry import register

# Alpha of the first round, and the step past the last breakpoint whenever the interval of
# minimum 0-1 loss is unbounded (its midpoint is undefined; see ALGORITHMS.md).
UNBOUNDED_STEP = 1.0

N_PRIME_CHOICES = ("1", "n/100", "n/20", "n/10", "n/4", "n/2", "n")


def n_prime_from_choice(choice: str, n: int) -> int:
    """n' for a training set of n examples: "1", "n" or "n/d" (rounded, at least 1)."""
    if choice == "1":
        return 1
    if choice == "n":
        return n
    d = int(choice.split("/")[1])
    return max(1, min(n, int(round(n / d))))


@njit(cache=True, nogil=True)
def _add_votes(scores, vote, alpha):
    """scores[i, vote[i]] += alpha (the same float operation as the forest's vote kernel)."""
    for i in range(vote.shape[0]):
        scores[i, vote[i]] += alpha


@njit(cache=True, nogil=True)
def _errors_after_step(scores, y, vote, alpha):
    """Training errors (ties are errors) of scores[i, vote[i]] += alpha, computed with the
    same float additions as ``_add_votes``, without changing scores."""
    n_err = 0
    for i in range(vote.shape[0]):
        yi = y[i]
        h = vote[i]
        ay = scores[i, yi] + alpha if h == yi else scores[i, yi]
        top = -np.inf
        for k in range(scores.shape[1]):
            if k != yi:
                v = scores[i, k] + alpha if k == h else scores[i, k]
                if v > top:
                    top = v
        if not ay > top:
            n_err += 1
    return n_err


@njit(cache=True, nogil=True)
def _fill_pieces(scores, y, vote, margin, p, s, w):
    """(p, s, w) of every training example under the round's votes (see line_search)."""
    for i in range(vote.shape[0]):
        pi, si, wi = piece_terms(scores, i, y[i], vote[i], margin[i])
        p[i] = pi
        s[i] = si
        w[i] = wi


@njit(cache=True, nogil=True)
def _error_free_limit(s, p, w, hi):
    """Largest alpha range [0, d) on which no currently-right example turns wrong."""
    d = hi
    for i in range(p.shape[0]):
        if s[i] == 0.0 and p[i] > 0.0 and w[i] < d:
            d = w[i]
    return d


@njit(cache=True, nogil=True)
def _split_lines(p, s, inc, dec):
    """Sorted intercepts of the rising (s = 1) and falling numerators (binary case)."""
    n_inc = 0
    n_dec = 0
    for i in range(p.shape[0]):
        if s[i] > 0.5:
            inc[n_inc] = p[i]
            n_inc += 1
        else:
            dec[n_dec] = p[i]
            n_dec += 1
    inc[:n_inc].sort()
    dec[:n_dec].sort()
    return n_inc, n_dec


def _proposal_better(a, b):
    """Phase I proposal a beats b (``line_search_zero_one_exp`` results): fewer training
    errors at its step, or as many and an exponential loss lower by more than the relative
    ``OBJ_TIE_EPS``."""
    if a[1] != b[1]:
        return a[1] < b[1]
    return a[5] < b[5] - OBJ_TIE_EPS * (1.0 + abs(b[5]))


class DirectBoosting(BaseBoosting):
    """Shared two-phase round of DMCBoost and DirectBoost (not registered itself).

    Subclasses set ``_objective`` (bottom-n' average or n'-th order margin), ``_constrain``
    (Phase II stays where no currently-right example turns wrong: DirectBoost_avg),
    ``_relax`` (epsilon-relaxation) and ``_n_prime(n)``.

    Extra fitted attributes: ``phase_`` (1 or 2 per kept round), ``objective_`` (after each
    round: the training 0-1 error with ties counted as errors in Phase I, the Phase II
    objective in Phase II), ``relaxed_`` (round took a relaxed step), ``n_prime_``,
    ``n_phase1_rounds_``, ``phase2_start_objective_`` (the Phase II objective of the Phase I
    ensemble), ``best_round_`` (number of rounds of the ensemble with the best Phase II
    objective; with relaxation the fit may end up to ``patience`` rounds after it).
    """

    early_stopping = False   # the paper stops at the margin maximum, no validation stopping
    _scratch_attrs = ("_ws", "_plus", "_minus", "_inc", "_dec", "_kinks", "_cs", "_ds",
                      "_korder", "_cpre", "_dpre")
    # Phase I never reads these (shared prefixes: the n' of a grid share their Phase I).
    _prefix_free_params = ("n_prime", "n_prime_fraction", "epsilon", "th", "patience")
    _prefix_derived_attrs = ("n_prime_",)
    _objective = OBJ_BOTTOM_AVG
    _constrain = False
    _relax = True
    binary_only = False

    # -- setup -----------------------------------------------------------------------------------
    def _init_state(self, X_binned, y, n_bins, hist_width):
        n, n_features = X_binned.shape
        K = self.n_classes_
        if self.binary_only and K != 2:
            raise ValueError(f"Only binary classification is supported by "
                             f"{type(self).__name__}, a binary classifier (DirectBoost, NIPS "
                             f"2013): y has {K} classes")
        self._n_bins = n_bins
        self._y = y
        self._ws = ZeroOneWorkspace(n, n_features, hist_width, K, int(self.max_depth))
        self._scores = np.zeros((n, K), SCORE_DTYPE)
        self._plus = np.empty(n, np.float64)
        self._minus = np.empty(n, np.float64)
        self._inc = np.empty(n, np.float64)
        self._dec = np.empty(n, np.float64)
        self._kinks = np.empty(n, np.float64)
        self._cs = np.empty(n, np.float64)
        self._ds = np.empty(n, np.float64)
        self._korder = np.empty(n, np.int64)
        self._cpre = np.empty(n + 1, np.float64)
        self._dpre = np.empty(n + 1, np.float64)
        self.forest_ = Forest(LABEL_VOTE, K, node_capacity=self._ws.max_nodes * 64)
        self.n_prime_ = int(self._n_prime(n))
        cap = int(self.n_rounds)
        self._phase_log = np.zeros(cap, np.int8)
        self._objective_log = np.zeros(cap, np.float64)
        self._relaxed_log = np.zeros(cap, np.bool_)
        self._phase = 1
        self._p1_since_decrease = 0
        self.phase1_stop_ = ""
        self._c = 0.0
        self._g = 0.0
        self._g_best = -np.inf
        self._since_best = 0
        self.n_phase1_rounds_ = 0
        self.phase2_start_objective_ = float("nan")
        self.best_round_ = 0

    def _free_state(self):
        kept = self.n_rounds_
        self.phase_ = self._phase_log[:kept].copy()
        self.objective_ = self._objective_log[:kept].copy()
        self.relaxed_ = self._relaxed_log[:kept].copy()
        del self._ws, self._scores, self._y, self._plus, self._minus, self._inc, self._dec
        del self._kinks, self._cs, self._ds, self._korder, self._cpre, self._dpre
        del self._phase_log, self._objective_log, self._relaxed_log

    def _in_shared_prefix(self):
        # Phase I has neither ended nor handed over to Phase II (base, "Shared prefixes").
        return self._phase == 1 and not self.phase1_stop_

    def _add_train_round(self, t, X_binned, y, scores, pred):
        # The grower left each training sample's label of this round in ws.vote.
        return self.forest_.add_round_votes(t, self._ws.vote, y, scores, pred)

    # -- one round -------------------------------------------------------------------------------
    def _keep(self, t, m, alpha, phase, objective, relaxed=False):
        ws = self._ws
        self.forest_.append(ws, m, leaf_label=ws.node_label, alpha=alpha)
        _add_votes(self._scores, ws.vote, alpha)       # Alg. 1 / Alg. 2 line 6
        self._c += alpha
        self._phase_log[t] = phase
        self._objective_log[t] = objective
        self._relaxed_log[t] = relaxed
        return RoundOutcome.CONTINUE

    def _boost(self, t, X_binned, y):
        if self._phase == 1:
            if not self.phase1_stop_:
                outcome = self._boost_phase1(t, X_binned, y)
                if outcome is not None:
                    return outcome
                # Phase I is over (it set phase1_stop_). Nothing so far depended on the Phase
                # II parameters: the state is the same for every n' (base, "Shared prefixes");
                # a sibling restored from it starts here, at the first Phase II round.
                self._prefix_reached()
            # Coordinatewise local minimum of the 0-1 loss: Phase II starts (Alg. 2 line 1).
            self._phase = 2
            self._g = self._objective_value()
            self._g_best = self._g
            self.phase2_start_objective_ = self._g
            self.best_round_ = t           # the Phase I ensemble (t rounds)
        return self._boost_phase2(t, X_binned, y)

    def _boost_phase1(self, t, X_binned, y):
        """One round of Alg. 1 (DirectBoost Alg. 1): returns None when Phase I is over.

        Reading (ALGORITHMS.md, "Phase I: error-neutral steps"): the round's tree is taken
        at the step chosen among all intervals of minimum error by the exponential loss
        (``line_search_zero_one_exp``) even when the error does not fall — the "largest error
        reduction" of DirectBoost's Alg. 1 line 12 may be zero, and line 13 then picks by the
        exponential loss. Phase I ends at zero training error (line 14: "until training error
        reaches minimum") or when ``phase1_patience`` rounds in a row have not lowered it
        (the coordinatewise local minimum of line 7, as far as the greedy trees can tell);
        that round's tree is not added.
        """
        ws = self._ws
        n = y.shape[0]
        # Lines 3-4 with two proposals (ALGORITHMS.md, "Where the midpoint placement fails"):
        # Alg. 1.2 grown under the key's midpoint kink placement and under the cut-aware one;
        # DirectBoost Alg. 1 lines 12-13 then decide between the two trees exactly — the
        # larger error reduction of the line search, then the smaller exponential loss —
        # and the midpoint tree on a tie.
        if self._phase1_pair:
            # Both trees from one growth where they agree (``grow_phase1_pair``): the same
            # two trees, so the same choice below.
            m, status = grow_phase1_pair(ws, X_binned, y, self._n_bins, self._scores,
                                         self._c, UNBOUNDED_STEP,
                                         borrow_views=self._borrow_views)     # line 4
            found = self._line_search_phase1(y)                       # line 5
            cut_grown = status != PAIR_SAME
            if not cut_grown:
                found_cut = None
            else:
                ws.save_tree(m)
                m_cut = resume_cut_tree(ws, X_binned, y, self._n_bins, self._scores, status,
                                        self._c, UNBOUNDED_STEP,
                                        borrow_views=self._borrow_views)
                found_cut = (None if ws.same_votes_as_saved()
                             else self._line_search_phase1(y))
        else:
            m = grow_zero_one_tree(ws, X_binned, y, self._n_bins, self._scores, self._c,
                                   UNBOUNDED_STEP,
                                   borrow_views=self._borrow_views)   # line 4
            found = self._line_search_phase1(y)                       # line 5
            ws.save_tree(m)
            cut_grown = True
            m_cut = grow_zero_one_tree(ws, X_binned, y, self._n_bins, self._scores, self._c,
                                       UNBOUNDED_STEP, cut_aware=True,
                                       borrow_views=self._borrow_views)
            found_cut = None if ws.same_votes_as_saved() else self._line_search_phase1(y)
        if found_cut is not None and _proposal_better(found_cut, found):
            m, found = m_cut, found_cut
        elif cut_grown:
            ws.restore_tree(m)
        alpha, err_min, err_now, _, _, loss, loss0 = found
        if err_now == 0:
            self.phase1_stop_ = "zero training error"
            return None
        # The error the step realises in floating point: an interval narrower than the
        # scores' resolution can put alpha on a breakpoint (a tie, counted as an error).
        err_min = _errors_after_step(self._scores, y, ws.vote, alpha)
        if err_min > err_now:
            self.phase1_stop_ = "the best step lies below the resolution of the scores"
            return None
        if err_min < err_now:
            self._p1_since_decrease = 0
        else:
            if not loss < loss0 - OBJ_TIE_EPS * (1.0 + abs(loss0)):
                # Neither the 0-1 loss nor the exponential loss falls along the best tree:
                # its step would be a no-op (alpha -> 0); the greedy builder, deterministic,
                # would propose the same tree again.
                self.phase1_stop_ = "no tree lowers the training error or the exponential loss"
                return None
            self._p1_since_decrease += 1
            if self._p1_since_decrease > int(self.phase1_patience):
                self.phase1_stop_ = (f"{self.phase1_patience} rounds without a lower "
                                     f"training error")
                return None    # line 7: a coordinatewise local minimum
        self.n_phase1_rounds_ += 1
        return self._keep(t, m, alpha, 1, err_min / n)

    def _line_search_phase1(self, y):
        """``line_search_zero_one_exp`` of the tree in the workspace (Alg. 1.1 with the
        exponential-loss choice among the minimum intervals)."""
        return line_search_zero_one_exp(
            self._scores, y, self._ws.vote, UNBOUNDED_STEP, self._plus, self._minus,
            self._kinks, self._cs, self._ds, self._korder, self._cpre, self._dpre)

    def _objective_value(self):
        """The Phase II objective of the current ensemble."""
        ws = self._ws
        n = self._scores.shape[0]
        unnormalised_margins(self._scores, self._y, ws.margin)
        if self._objective == OBJ_ORDER:
            v = np.partition(ws.margin, self.n_prime_ - 1)[self.n_prime_ - 1]
            return float(v / self._c)
        ws.p[:] = ws.margin
        ws.s[:] = 0.0
        ws.w[:] = np.inf
        return float(bottom_avg_value(ws.p, ws.s, ws.w, n, self.n_prime_, self._c, 0.0,
                                      ws.buf))

    def _line_search_phase2(self, y):
        """Alg. 2.1 (bisection) for the bottom-n' average; the exact intersection search for
        the n'-th order margin. Returns (alpha at the maximiser, objective there, upper end of
        the search range)."""
        ws = self._ws
        n = y.shape[0]
        c = self._c
        unnormalised_margins(self._scores, y, ws.margin)
        _fill_pieces(self._scores, y, ws.vote, ws.margin, ws.p, ws.s, ws.w)
        hi = 2.0 * c + 1.0      # every kink of the objective lies in [0, 2c]
        if self._constrain:
            hi = _error_free_limit(ws.s, ws.p, ws.w, hi)
        if self._objective == OBJ_ORDER:
            n_inc, n_dec = _split_lines(ws.p, ws.s, self._inc, self._dec)
            q, g = max_order_margin_exact(self._inc, n_inc, self._dec, n_dec, self.n_prime_,
                                          c, hi)
            return q, g, hi
        q = line_search_bottom_avg(ws.p, ws.s, ws.w, n, self.n_prime_, c, hi,
                                   float(self.th), ws.buf)
        g = bottom_avg_value(ws.p, ws.s, ws.w, n, self.n_prime_, c, q, ws.buf)
        return q, g, hi

    def _boost_phase2(self, t, X_binned, y):
        eps = float(self.epsilon)
        relax = self._relax and eps > 0.0
        name = "bottom n'-th margin" if self._objective == OBJ_ORDER else "bottom-n' average margin"
        if relax and self._since_best >= int(self.patience):
            self.stop_reason_ = (f"phase II: the {name} has not increased for {self.patience} "
                                 f"rounds")
            return RoundOutcome.DISCARD_STOP
        m = self._grow_phase2_tree(X_binned, y, eps if relax else 0.0)              # line 4
        q, g_q, hi = self._line_search_phase2(y)                                     # line 5
        if self._constrain and q > hi - eps:
            # DirectBoost_avg: stay inside the region where no right example turns wrong
            # ("we set alpha_t = d - epsilon").
            q = hi - eps
            g_q = self._value_at(q) if q > 0.0 else self._g
        relaxed = False
        if q > 0.0 and g_q > self._g + self._increase_tol(self._g, q):
            alpha = q                       # an ascent step
            self._g = g_q
        elif relax:
            # A corner: no step raises the objective. epsilon-relaxation moves the coordinate
            # epsilon past its maximiser anyway.
            alpha = q + eps
            relaxed = True
            self._g = self._value_at(alpha)
        else:
            self.stop_reason_ = f"phase II: the {name} no longer increases"
            return RoundOutcome.DISCARD_STOP
        if self._g > self._g_best + self._increase_tol(self._g_best, alpha):
            self._g_best = self._g
            self._since_best = 0
            self.best_round_ = t + 1
        else:
            self._since_best += 1
        return self._keep(t, m, alpha, 2, self._g, relaxed=relaxed)

    # Phase I's two proposals from one growth where they agree (``grow_phase1_pair``, True)
    # or each grown on its own (False, the tests' reference); the same trees either way.
    _phase1_pair = True
    # The tree growers' node searches on borrowed array views (True; ``learners.borrowed``)
    # or on the arrays themselves (False, the tests' reference); the same trees either way.
    _borrow_views = True

    # The node search of the binary n'-th order margin: ``margin_search_order`` (True) or the
    # plain exhaustive one (False, the tests' reference); the same trees either way.
    _order_fast = True

    # The runner's warm-up (``runner.warm_up``): Phase II's tree grower, the largest compile
    # (ALGORITHMS.md, Speed, "Compile time"), in one process while another compiles Phase I's
    # in a first small fit; that fit ends Phase I after one round without a lower error, so it
    # reaches Phase II's other kernels too.
    _warm_up_parts = ("margin tree",)
    _warm_up_params = {"phase1_patience": 1}

    def _warm_up(self, part, X, y):
        """Part ``"margin tree"`` of the warm-up: grow one Phase II tree on ``(X, y)`` from the
        state after a first round (each example's vote on one label, weight 1). Compiles the
        grower and nothing of Phase I; the tree itself is thrown away."""
        if part != "margin tree":
            raise ValueError(f"no warm-up part {part!r} (parts: {self._warm_up_parts})")
        X_binned, self.bin_mapper_ = self._bin_fit(X)
        self.classes_ = np.unique(y)
        self.n_classes_ = len(self.classes_)
        y_code = self._encode(y)
        self._init_state(X_binned, y_code, self.bin_mapper_.n_bins_.astype(np.int32),
                         int(X_binned.max()) + 1)
        n = y_code.shape[0]
        self._scores[np.arange(n), (y_code + np.arange(n) % 2) % self.n_classes_] = 1.0
        self._c = 1.0
        self._grow_phase2_tree(X_binned, y_code, float(self.epsilon))

    def _grow_phase2_tree(self, X_binned, y, eps):
        return grow_margin_tree(self._ws, X_binned, y, self._n_bins, self._scores, self._c,
                                self.n_prime_, self._objective, self._constrain, eps,
                                order_fast=self._order_fast, borrow_views=self._borrow_views)

    def _increase_tol(self, g, alpha):
        """Smallest gain over objective value g that counts as an increase (Alg. 2 line 7).

        The exact search of the n'-th order margin resolves the objective to rounding
        (OBJ_TIE_EPS, relative). Alg. 2.1 places the maximiser only within th/2 (the midpoint
        of a bracket narrower than th), and along a tree's coordinate the bottom-n' average
        has slope |g'(a)| = |mean bottom slope - g(a)| / (c + a) <= (1 + |g|) / (c + a), the
        slopes being -1, 0 or 1. So the search fixes g only to within th (1 + |g|) /
        (2 (c + a)): a smaller gain is below the algorithm's own resolution and counts as no
        increase. Without this bound a fit can "creep" — ascent steps of alpha ~ th gaining
        1e-9..1e-7 every round, which never trigger the stopping rule (ALGORITHMS.md,
        "What counts as an increase").
        """
        tol = OBJ_TIE_EPS * (1.0 + abs(g))
        if self._objective == OBJ_ORDER:
            return tol
        return max(tol, 0.5 * float(self.th) * (1.0 + abs(g)) / (self._c + alpha))

    def _value_at(self, alpha):
        """Phase II objective after adding the round's tree with weight alpha."""
        ws = self._ws
        n = ws.p.shape[0]
        if self._objective == OBJ_ORDER:
            n_inc, n_dec = _split_lines(ws.p, ws.s, self._inc, self._dec)
            return float(order_margin_value(self._inc, n_inc, self._dec, n_dec,
                                            self.n_prime_, self._c, alpha))
        return float(bottom_avg_value(ws.p, ws.s, ws.w, n, self.n_prime_, self._c, alpha,
                                      ws.buf))


N_PRIME = ParamSpec("n_prime", "choice", "n/10",
                    "n': how many smallest margins Phase II averages (n = training size)",
                    choices=N_PRIME_CHOICES)
EPSILON = ParamSpec("epsilon", "float", 0.01,
                    "epsilon-relaxation step past a corner's maximiser (0 = no relaxation)",
                    low=0.0, high=1.0)
TH = ParamSpec("th", "float", 1e-5, "bisection threshold of the Phase II line search (Alg. 2.1)",
               low=0.0, high=1.0, low_open=True)
PHASE1_PATIENCE = ParamSpec("phase1_patience", "int", 50,
                            "Phase I ends when this many rounds in a row have not lowered "
                            "the training error (error-neutral steps are taken)",
                            low=0, high=1_000_000)
PATIENCE = ParamSpec("patience", "int", 10,
                     "with epsilon-relaxation: stop when the best Phase II objective has not "
                     "increased for this many rounds", low=1, high=1_000_000)


@register
class DMCBoost(DirectBoosting):
    """DMCBoost (Zhai, Xia & Wang, KDD 2014): 0-1 loss minimisation, then bottom-n' average
    margin maximisation, with multi-class label trees.

    Parameters
    ----------
    n_rounds : int, default=100
        Maximum number of rounds (the paper allows 5000); the fit usually ends earlier, when
        the bottom-n' average margin stops increasing.
    max_depth : int, default=3
    max_bins : int, default=255
    n_prime : {"1", "n/100", "n/20", "n/10", "n/4", "n/2", "n"}, default="n/10"
        Size of the bottom set of eq. (5), as a function of the training size n.
    epsilon : float, default=0.01
        epsilon-relaxation (sec. 2.2); 0 disables it (the objective then never decreases).
    th : float, default=1e-5
        Bracket width at which the bisection of Alg. 2.1 stops.
    patience : int, default=10
        With epsilon-relaxation, the fit stops when the best Phase II objective has not
        increased for this many rounds (the paper gives no rule for relaxed runs).
    phase1_patience : int, default=50
        Phase I ends when this many rounds in a row have not lowered the training error
        (error-neutral steps are taken; ALGORITHMS.md).
    """

    name = "dmcboost"
    family = "DMCBoost"
    reference = ("Zhai, Xia & Wang, A multi-class boosting method with direct optimization, "
                 "KDD 2014")
    # 2: Phase II corner tie-break by corner_key (was g(eps)); 3: a Phase II gain below the
    # line search's resolution counts as no increase (was: above 1e-12 relative); 4: Phase I
    # takes error-neutral steps, every minimum interval compared by the exponential loss;
    # 5: each Phase I round grows a tree under each kink placement of the key (midpoint,
    # cut-aware) and keeps the exactly better one.
    version = "5"
    param_specs = (N_ROUNDS, MAX_DEPTH, MAX_BINS, N_PRIME, EPSILON, TH, PATIENCE,
                   PHASE1_PATIENCE)
    test_params = {"n_rounds": 15, "max_depth": 2}

    def __init__(self, n_rounds=100, max_depth=3, max_bins=255, n_prime="n/10", epsilon=0.01,
                 th=1e-5, patience=10, phase1_patience=50):
        self.n_rounds = n_rounds
        self.max_depth = max_depth
        self.max_bins = max_bins
        self.n_prime = n_prime
        self.epsilon = epsilon
        self.th = th
        self.patience = patience
        self.phase1_patience = phase1_patience

    def _n_prime(self, n):
        if self.n_prime not in N_PRIME_CHOICES:
            raise ValueError(f"n_prime must be one of {N_PRIME_CHOICES}, got {self.n_prime!r}")
        return n_prime_from_choice(self.n_prime, n)
