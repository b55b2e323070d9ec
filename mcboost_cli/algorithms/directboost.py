"""DirectBoost (binary): direct 0-1 loss minimisation, then margin maximisation.

Zhai, Xia, Tan & Wang (NIPS 2013) report three variants, all of which first run the greedy
coordinate descent on the 0-1 loss (Alg. 1) and then a greedy coordinate ascent on a margin
objective (sec. 2.2):

======================= ============================================ ==========================
variant                 Phase II objective                           Phase II constraint
======================= ============================================ ==========================
DirectBoost_avg         average margin of the bottom n' (Alg. 2)     stays where the training
                                                                     error does not rise
                                                                     ("alpha_t = d - epsilon")
DirectBoost^eps_avg     average margin of the bottom n'              none; epsilon-relaxation
DirectBoost_order       the n'-th smallest margin ("choose the       none; epsilon-relaxation
                        intersection point that led to the largest
                        increasing of the bottom n'th margin")
======================= ============================================ ==========================

With labels {-1, +1} a label tree h voting alpha for one class gives exactly the binary
ensemble f(x) = sum_t alpha_t h_t(x) of the paper (F(x, +1) - F(x, -1) = f(x)), and the
normalised multi-class margin is y f(x) / sum_t alpha_t (eq. 6). So the three variants are the
two-phase machinery of ``dmcboost.DirectBoosting`` with K = 2: Phase I is DirectBoost's Alg. 1
(lines 4-9 are DMCBoost Alg. 1.1's scenarios 1 and 2 for K = 2; ties between equal error
reductions go to the smallest exponential loss, line 13), and its line searches find the
maximiser of a quasi-concave bottom-n' average (Theorem 2) by bisection to th, and the n'-th
order margin's maximiser exactly among the intersection points. n'/n is chosen on validation
from {0.01, 0.05, 0.1, 0.2, 0.5, 0.8} (configs give the grid).

References
----------
.. [1] S. Zhai, T. Xia, M. Tan, S. Wang. Direct 0-1 loss minimization and margin maximization
       with boosting. NIPS 2013.
.. [2] S. Zhai, T. Xia, S. Wang. A multi-class boosting method with direct optimization.
       KDD 2014 (the multi-class line searches reused here with K = 2).
"""

from __future__ import annotations

from ..learners.margin_search_exhaustive import OBJ_BOTTOM_AVG, OBJ_ORDER
from ..learners.margin_tree_global import grow_margin_tree_global
from .dmcboost import EPSILON, PATIENCE, PHASE1_PATIENCE, TH, DirectBoosting
from .params import MAX_BINS, MAX_DEPTH, N_ROUNDS, ParamSpec
from .registry import register

N_PRIME_FRACTION = ParamSpec(
    "n_prime_fraction", "float", 0.1,
    "n'/n: the fraction of training examples whose margins Phase II targets (the paper's "
    "grid: 0.01, 0.05, 0.1, 0.2, 0.5, 0.8)", low=0.0, high=1.0, low_open=True)

EPSILON_REGION = ParamSpec(
    "epsilon", "float", 1e-9,
    "DirectBoost_avg: distance kept from the end d of the zero-error region when the step "
    "reaches it (alpha = d - epsilon; the paper's \"epsilon close\", no value given)",
    low=0.0, high=1.0, low_open=True)

_REFERENCE = ("Zhai, Xia, Tan & Wang, Direct 0-1 loss minimization and margin maximization "
              "with boosting, NIPS 2013")


class _DirectBoost(DirectBoosting):
    """Shared constructor and n' of the three DirectBoost variants."""

    family = "DirectBoost"
    reference = _REFERENCE
    # 2: Phase II corner tie-break by corner_key (was g(eps)); 3: a Phase II gain below the
    # bisection's resolution counts as no increase (the two bottom-n' average variants);
    # 4: Phase I takes error-neutral steps, every minimum interval compared by the
    # exponential loss (ALGORITHMS.md, "Phase I: error-neutral steps"); 5: two Phase I
    # proposals a round, the midpoint and the cut-aware kink placement, the exactly better
    # kept (ALGORITHMS.md, "Where the midpoint placement fails").
    version = "5"
    binary_only = True
    param_specs = (N_ROUNDS, MAX_DEPTH, MAX_BINS, N_PRIME_FRACTION, EPSILON, TH, PATIENCE,
                   PHASE1_PATIENCE)
    test_params = {"n_rounds": 15, "max_depth": 2}

    def __init__(self, n_rounds=100, max_depth=3, max_bins=255, n_prime_fraction=0.1,
                 epsilon=0.01, th=1e-5, patience=10, phase1_patience=50):
        self.n_rounds = n_rounds
        self.max_depth = max_depth
        self.max_bins = max_bins
        self.n_prime_fraction = n_prime_fraction
        self.epsilon = epsilon
        self.th = th
        self.patience = patience
        self.phase1_patience = phase1_patience

    def _n_prime(self, n):
        f = float(self.n_prime_fraction)
        if not 0.0 < f <= 1.0:
            raise ValueError(f"n_prime_fraction must be in (0, 1], got {f}")
        return max(1, min(n, int(round(f * n))))


@register
class DirectBoostAvg(_DirectBoost):
    """DirectBoost_avg: Alg. 1, then Alg. 2 (bottom-n' average margin) inside the region where
    the training error does not rise, without epsilon-relaxation.

    Along a new tree's coordinate, d is the weight at which the first currently-right example
    would turn wrong; the maximiser is searched in [0, d] and a step that would reach d stops
    at d - epsilon ("we set alpha_t = d - epsilon"). The fit ends when no step increases the
    objective (Alg. 2 line 17).

    Parameters
    ----------
    n_rounds : int, default=100
    max_depth : int, default=3
    max_bins : int, default=255
    n_prime_fraction : float, default=0.1
        n'/n.
    epsilon : float, default=1e-9
        Distance kept from the region's end d ("we set alpha_t = d - epsilon", "its weight
        epsilon close to the right value"); the paper's 0.01 is the epsilon-relaxation's,
        which DirectBoost_avg does not use (ALGORITHMS.md, "DirectBoost variants").
    th : float, default=1e-5
        Bisection threshold of the line search.
    patience : int, default=10
        Not used (no relaxation): the fit ends at the first round without an increase.
    phase1_patience : int, default=50
        Phase I ends when this many rounds in a row have not lowered the training error.

    Phase II trees are keyed on the whole tree (``margin_tree_global``): each node candidate
    by the bottom-n' average the round would reach with the tree it makes, inside
    [0, d - epsilon]; ties by the corner key.
    """

    name = "directboost_avg"
    # 5: Phase II trees keyed on the whole tree's step inside [0, d - epsilon] (was: each
    # node's own examples, d without epsilon), ties by the corner key; epsilon 0.01 -> 1e-9;
    # 6: Phase I's two proposals (as _DirectBoost's 5).
    version = "6"
    param_specs = (N_ROUNDS, MAX_DEPTH, MAX_BINS, N_PRIME_FRACTION, EPSILON_REGION, TH,
                   PATIENCE, PHASE1_PATIENCE)
    _objective = OBJ_BOTTOM_AVG
    _constrain = True
    _relax = False
    # "local": version 4's node-local Phase II trees (kept for measurements); corner: the
    # tie-break of candidates whose keys tie.
    _tree_key = "global"
    _corner = True

    def __init__(self, n_rounds=100, max_depth=3, max_bins=255, n_prime_fraction=0.1,
                 epsilon=1e-9, th=1e-5, patience=10, phase1_patience=50):
        super().__init__(n_rounds=n_rounds, max_depth=max_depth, max_bins=max_bins,
                         n_prime_fraction=n_prime_fraction, epsilon=epsilon, th=th,
                         patience=patience, phase1_patience=phase1_patience)

    def _grow_phase2_tree(self, X_binned, y, eps):
        if self._tree_key == "local":
            return super()._grow_phase2_tree(X_binned, y, eps)
        return grow_margin_tree_global(self._ws, X_binned, y, self._n_bins, self._scores,
                                       self._c, self.n_prime_, float(self.epsilon),
                                       self._corner)


@register
class DirectBoostEpsAvg(_DirectBoost):
    """DirectBoost^eps_avg: Alg. 1, then the bottom-n' average margin over the whole parameter
    space with epsilon-relaxation (a corner round steps epsilon past the coordinate's
    maximiser; the fit ends when the best objective has not increased for ``patience``
    rounds).

    Parameters as ``DirectBoostAvg``; ``epsilon`` (default 0.01, the paper's) is the
    relaxation step.
    """

    name = "directboost_eps_avg"
    _objective = OBJ_BOTTOM_AVG
    _constrain = False
    _relax = True


@register
class DirectBoostOrder(_DirectBoost):
    """DirectBoost_order: Alg. 1, then the bottom n'-th order margin with epsilon-relaxation.

    The line search evaluates the n'-th smallest margin at alpha = 0, at the end of the range
    and at every point where it turns from an increasing to a decreasing margin curve (the
    intersection points), and takes the best (the smallest weight on ties).

    Parameters as ``DirectBoostAvg``; ``epsilon`` (default 0.01) is the relaxation step.
    """

    name = "directboost_order"
    # 2: exact line search (version 3's resolution bound does not apply); 4, 5: Phase I as
    # above.
    version = "5"
    _objective = OBJ_ORDER
    _constrain = False
    _relax = True
