"""LPBoost by column generation (Demiriz, Bennett & Shawe-Taylor 2002), binary, soft margin.

The problem is the soft-margin linear program over every weak hypothesis h_j (j ranging over
the whole, finite, hypothesis space H of the trees the grower can make), with the margin matrix
M[j, i] = y_i h_j(x_i), y and h in {-1, +1}:

    primal   max_{a, xi, rho}  rho - D sum_i xi_i
             s.t.  sum_j a_j M[j, i] + xi_i >= rho   (i = 1..n),
                   sum_j a_j = 1,  a >= 0,  xi >= 0;

    dual     min_{u, beta}  beta
             s.t.  sum_i u_i M[j, i] <= beta         (every column j),
                   sum_i u_i = 1,  0 <= u_i <= D.

Column generation (Demiriz et al.'s LPBoost algorithm; the "restricted master" is the dual
over the columns generated so far):

1. u = (1/n, ..., 1/n), beta = 0, no column;
2. round t: the weak learner h_t maximises the edge sum_i u_i y_i h(x_i) under u;
3. if that edge is <= beta + ``tolerance``, stop: u is feasible for the full dual within the
   tolerance, so the restricted solution is optimal for the full problem (h_t is not kept);
4. else add the column M[t] and re-solve the restricted master LP for new u and beta; the
   ensemble weights a are the LP's Lagrange multipliers of the column constraints (the
   primal solution), and every a_j changes (totally corrective).

The master LP lives in one HiGHS model for the whole fit (``RestrictedMasterLP``, through
HiGHS's own Python bindings ``highspy``): step 4 adds the new column's row and HiGHS's dual
simplex re-solves from the previous optimal basis, which stays dual feasible when a row is
added (warm start; SciPy's ``linprog`` has none, and a cold solve's cost grows with the
columns). ``solve_restricted_master`` is the cold twin, SciPy's ``linprog``, which the tests
solve every round's LP with independently. The fit keeps the basis of the last solve in its
state: a resumed fit rebuilds the model from the columns and that basis
(``LPBoost._restore_master``) and continues with the uninterrupted fit's numbers.

D = 1/n' with n' = round(n_prime_fraction x n) (nu = n'/n in Demiriz et al.'s D = 1/(nu n)):
the DirectBoost paper (Zhai et al., NIPS 2013, sec. 3.1) picks n'/n for LPBoost from the grid
{0.01, 0.05, 0.1, 0.2, 0.5, 0.8} of its own bottom-n' average margin, because for a fixed a
the primal's inner maximum over (rho, xi) is the average of the n' smallest margins
y_i f(x_i): beta (the LP's value) is the largest bottom-n' average margin any convex
combination of the columns reaches (tested).

The weak learner is a tree of depth ``max_depth`` with leaves in {-1, +1} grown on the
signed weights G_i = u_i y_i (``learners.histogram_tree``'s ``CRITERION_ABS_SUM``): a leaf
outputs the sign of its weight sum, so the tree's edge is the sum over leaves of |leaf sum|,
and each split, chosen node by node, maximises that sum for the children as leaves. With
depth 1 it is the exact edge maximiser among all stumps on the binned features (and the two
constant hypotheses); deeper trees are greedy (ALGORITHMS.md, "LPBoost").

The fit records, on every set, the errors of the ensemble as the LP of each round left it
(``learners.forest.ReweightedForest``). The reported round is the fit's own: the ensemble at
termination (DirectBoost paper: "For LPBoost, the termination rule we use is same to the one
in [6]"; validation only chooses n'/n).

References
----------
.. [1] A. Demiriz, K. P. Bennett, J. Shawe-Taylor. Linear programming boosting via column
       generation. Machine Learning 46, 225-254, 2002.
.. [2] S. Zhai, T. Xia, M. Tan, S. Wang. Direct 0-1 loss minimization and margin maximization
       with boosting. NIPS 2013 (sec. 3.1: LPBoost's n'/n grid, termination, depth 1 or 3).
"""

from __future__ import annotations

import hashlib
import time

import numpy as np
from numba import njit

from .._dtypes import WEIGHT_DTYPE
from ..errors import UserError
from ..learners.forest import ReweightedForest
from ..learners.histogram_tree import (
    CRITERION_ABS_SUM,
    CRITERION_GINI,
    TreeWorkspace,
    grow_tree,
    n_channels,
)
from .base import BaseBoosting, RoundOutcome
from .directboost import N_PRIME_FRACTION
from .params import MAX_BINS, MAX_DEPTH, SPLIT_CRITERION, ParamSpec
from .registry import register

LP_ROUNDS = ParamSpec(
    "n_rounds", "int", 1000,
    "at most this many columns (rounds); the fit ends earlier at Demiriz et al.'s optimality "
    "test", low=1, high=1_000_000)

TOLERANCE = ParamSpec(
    "tolerance", "float", 1e-6,
    "the fit stops when no weak learner's edge exceeds the LP's beta by more than this "
    "(above HiGHS's 1e-7 feasibility tolerance, so that a column already in the LP is "
    "never added again)", low=1e-7, high=0.5)

# The trees' split rule (ALGORITHMS.md, "LPBoost", weak learner): ``error`` grows on the
# signed weights G_i = u_i y_i with CRITERION_ABS_SUM (each split maximises the children's
# edge, i.e. minimises their u-weighted error: the edge maximiser among stumps), ``gini`` on
# the class weights u with CRITERION_GINI (the label trees of the paper's AdaBoost). Leaves
# answer the sign of their sum of u_i y_i under both.
LP_SPLIT_CRITERION = ParamSpec(
    "split_criterion", "choice", "error",
    "split rule of the {-1, +1} trees grown under the dual weights u: error (each split "
    "maximises the children's edge = least u-weighted error; the exact edge maximiser among "
    "stumps) or gini (weighted Gini impurity of the classes under u, CART, as the label trees "
    "of adaboost); leaves answer the sign of their sum of u_i y_i",
    choices=SPLIT_CRITERION.choices, default_in_key=False)
_TREE_CRITERION = {"error": CRITERION_ABS_SUM, "gini": CRITERION_GINI}


@njit(cache=True, nogil=True)
def sign_leaves_margin_row(left, threshold, node_sum, n_nodes, node_start, node_end,
                           sample_index, y, u, leaf_label, row):
    """Each leaf answers the sign of its weight sum sum_i u_i y_i (+1 = class 1 on a tie of 0);
    row[i] = y_i h(x_i) in {-1, +1}; returns the tree's edge sum_i u_i row[i].

    IN: the workspace's tree (its partition groups each leaf's samples in
    ``sample_index[node_start:node_end]``), node_sum: one channel, the leaves' sums of
    G_i = u_i y_i (CRITERION_ABS_SUM), or two, the leaves' u-weights of class 0 and class 1
    (CRITERION_GINI; their difference is that sum), y (n,) class codes 0/1, u (n,).
    OUT: leaf_label (nodes,), row (n,).
    IN/OUT: threshold: a leaf's entry, never read by a tree walk, still holds what an earlier
    tree of the workspace left there (a node that stops early); it is set to 0 so that the
    stored forest depends on this tree alone (a resumed fit's forest equals, bit for bit, an
    uninterrupted one's).
    """
    for nd in range(n_nodes):
        if left[nd] >= 0:
            continue
        threshold[nd] = 0
        if node_sum.shape[1] == 1:
            signed = node_sum[nd, 0]
        else:
            signed = node_sum[nd, 1] - node_sum[nd, 0]
        label = 1 if signed >= 0.0 else 0
        leaf_label[nd] = label
        for p in range(node_start[nd], node_end[nd]):
            i = sample_index[p]
            row[i] = 1.0 if y[i] == label else -1.0
    edge = 0.0
    for i in range(row.shape[0]):
        edge += u[i] * row[i]
    return edge


@njit(cache=True, nogil=True)
def set_scores_from_margin_rows(M, weights, used, y, scores, pred):
    """The training set's scores of the ensemble sum_j weights[j] h_j, from its margin rows
    (M[j, i] = y_i h_j(x_i)): scores[i, c] = sum of weights[j] over the j in ``used`` whose
    h_j(x_i) is class c, added in the order of ``used`` (the same floats as
    ``forest._set_label_scores`` walking the trees); pred = first argmax; returns #errors.
    """
    n_errors = 0
    for i in range(M.shape[1]):
        s0 = 0.0
        s1 = 0.0
        yi = y[i]
        for k in range(used.shape[0]):
            j = used[k]
            # h_j(x_i) is class y_i where the margin row is +1, the other class where -1.
            c = yi if M[j, i] > 0.0 else 1 - yi
            if c == 1:
                s1 += weights[j]
            else:
                s0 += weights[j]
        scores[i, 0] = s0
        scores[i, 1] = s1
        p = 1 if s1 > s0 else 0
        pred[i] = p
        n_errors += np.int64(p != yi)
    return n_errors


def solve_restricted_master(M, D):
    """The restricted master LP of column generation (the dual above, over the columns M
    (T, n)) solved from scratch with SciPy's HiGHS; returns (u, beta, a, rho, xi).

    The cold twin of ``RestrictedMasterLP`` (the fit's warm-started solver): the tests solve
    every round's LP with it, independently of the fit's HiGHS model.

    Variables (u_1..u_n, beta), objective beta; rows sum_i u_i M[j, i] - beta <= 0, one per
    column; sum_i u_i = 1; bounds 0 <= u_i <= D, beta free. The primal solution comes from
    the duals HiGHS reports (``marginals``, the objective's sensitivities to each right-hand
    side): a_j = -(row j's marginal) >= 0, rho = the equality's marginal, xi_i = -(u_i's upper
    bound marginal) >= 0.
    """
    from scipy.optimize import linprog

    T, n = M.shape
    c = np.zeros(n + 1)
    c[n] = 1.0
    A_ub = np.empty((T, n + 1))
    A_ub[:, :n] = M
    A_ub[:, n] = -1.0
    A_eq = np.ones((1, n + 1))
    A_eq[0, n] = 0.0
    bounds = [(0.0, D)] * n + [(None, None)]
    res = linprog(c, A_ub=A_ub, b_ub=np.zeros(T), A_eq=A_eq, b_eq=np.ones(1), bounds=bounds,
                  method="highs")
    if res.status != 0:
        raise RuntimeError(f"HiGHS did not solve LPBoost's restricted master LP ({T} columns, "
                           f"{n} examples): {res.message}")
    u = np.clip(res.x[:n], 0.0, D)
    beta = float(res.x[n])
    # Multipliers of the wrong sign are the solver's rounding (~1e-17): a >= 0, xi >= 0.
    a = np.maximum(-res.ineqlin.marginals, 0.0)
    rho = float(res.eqlin.marginals[0])
    xi = np.maximum(-res.upper.marginals[:n], 0.0)
    return u, beta, a, rho, xi


class RestrictedMasterLP:
    """The restricted master LP of column generation kept in one HiGHS model for a whole fit,
    one row added per column and re-solved from the previous optimal basis.

    The LP is ``solve_restricted_master``'s: variables (u_1..u_n, beta), objective beta,
    bounds 0 <= u_i <= D, beta free; row 0: sum_i u_i = 1; row j + 1 (column j):
    sum_i M[j, i] u_i - beta <= 0. Adding a row keeps the old optimal basis dual feasible
    (the new row's slack enters the basis, only that row can be violated: the new column's
    edge exceeds beta), so HiGHS's dual simplex starts from it rather than from scratch.

    The solution is read as SciPy reads HiGHS's (``scipy.optimize._linprog_highs``, whose
    ``marginals`` are HiGHS's duals): a_j = -(row j + 1's dual), rho = row 0's dual,
    xi_i = -(u_i's dual) where u_i is nonbasic at its upper bound D, else 0; values of the
    wrong sign at rounding level are set to 0 and u is clipped to [0, D] (tested against
    ``solve_restricted_master`` round by round).

    Determinism: HiGHS runs serially here (dual simplex, one thread) and a solve after a row
    is added is a function of the LP and the basis it starts from: a model rebuilt from the
    rows (``add_column``) and given the saved basis (``basis``, ``set_basis``) solves the next
    LP as the model that never stopped (tested after every round), which is how a resumed fit
    continues exactly.

    Parameters
    ----------
    n : int, examples (the u variables)
    D : float, the cap on u_i (1/n')

    References
    ----------
    .. [1] A. Demiriz, K. P. Bennett, J. Shawe-Taylor. Linear programming boosting via column
           generation. Machine Learning 46, 2002 (the restricted master of the soft-margin
           LP's column generation).
    .. [2] Q. Huangfu, J. A. J. Hall. Parallelizing the dual revised simplex method.
           Mathematical Programming Computation 10, 2018 (HiGHS's dual simplex).
    """

    def __init__(self, n, D):
        # ``highspy._core._Highs`` rather than ``highspy.Highs``: the latter's constructor
        # registers its Python callbacks, and HiGHS writes its banner to stdout at the first
        # call while output_flag is still on (HiGHS issues #1702, #2749); on the bare model
        # output_flag is set before any other call, so a fit prints nothing (tested).
        from highspy import kHighsInf
        from highspy._core import _Highs

        self.n = int(n)
        self.D = float(D)
        self.n_columns = 0
        self.iterations = 0
        self.col_status = self.row_status = None      # the basis of the last solve
        h = _Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("solver", "simplex")
        h.setOptionValue("simplex_strategy", 1)      # dual simplex (kSimplexStrategyDual)
        h.setOptionValue("presolve", "off")          # a warm start skips presolve anyway
        h.setOptionValue("threads", 1)
        cost = np.zeros(n + 1)
        cost[n] = 1.0                                          # min beta
        lower = np.zeros(n + 1)
        lower[n] = -kHighsInf
        upper = np.full(n + 1, self.D)
        upper[n] = kHighsInf
        self._check(h.addCols(n + 1, cost, lower, upper, 0, np.zeros(n + 1, np.int32),
                              np.zeros(0, np.int32), np.zeros(0)), "add the variables")
        self._check(h.addRow(1.0, 1.0, n, np.arange(n, dtype=np.int32), np.ones(n)),
                    "add the row sum u = 1")
        self._h = h
        self._inf = kHighsInf
        self._index = np.arange(n + 1, dtype=np.int32)
        self._values = np.empty(n + 1)
        self._values[n] = -1.0                                 # ... - beta <= 0

    @staticmethod
    def _check(status, what):
        from highspy import HighsStatus

        if status == HighsStatus.kError:
            raise RuntimeError(f"HiGHS could not {what} in LPBoost's restricted master LP")

    def add_column(self, margin_row):
        """Add the row of the column ``margin_row`` (n,) = y_i h(x_i), without solving."""
        self._values[:self.n] = margin_row
        self._check(self._h.addRow(-self._inf, 0.0, self.n + 1, self._index, self._values),
                    "add a column's row")
        self.n_columns += 1

    def add_column_and_solve(self, margin_row):
        """Add the column's row and re-solve from the current basis; returns
        (u, beta, a, rho, xi) as ``solve_restricted_master`` does; ``iterations``,
        ``col_status`` and ``row_status`` are then this solve's simplex iterations and
        final basis (``basis()``)."""
        from highspy import HighsBasisStatus, HighsModelStatus

        self.add_column(margin_row)
        h = self._h
        n = self.n
        self._check(h.run(), "solve")
        status = h.getModelStatus()
        if status != HighsModelStatus.kOptimal:
            raise RuntimeError(f"HiGHS did not solve LPBoost's restricted master LP "
                               f"({self.n_columns} columns, {n} examples): "
                               f"{h.modelStatusToString(status)}")
        self.iterations = int(h.getInfo().simplex_iteration_count)
        solution = h.getSolution()
        x = np.asarray(solution.col_value, dtype=np.float64)
        row_dual = np.asarray(solution.row_dual, dtype=np.float64)
        col_dual = np.asarray(solution.col_dual[:n], dtype=np.float64)
        self.col_status, self.row_status = self.basis()
        at_upper = self.col_status[:n] == int(HighsBasisStatus.kUpper)
        u = np.clip(x[:n], 0.0, self.D)
        beta = float(x[n])
        # Multipliers of the wrong sign are the solver's rounding (~1e-17): a >= 0, xi >= 0.
        a = np.maximum(-row_dual[1:], 0.0)
        rho = float(row_dual[0])
        xi = np.maximum(-np.where(at_upper, col_dual, 0.0), 0.0)
        return u, beta, a, rho, xi

    def basis(self):
        """The current basis: HiGHS's status codes (``HighsBasisStatus``) of the n + 1
        variables and of the rows, two int8 arrays."""
        b = self._h.getBasis()
        return (np.asarray(b.col_status, dtype=np.int8),
                np.asarray(b.row_status, dtype=np.int8))

    def set_basis(self, col_status, row_status):
        """Make ``basis()``'s arrays the model's basis (HiGHS checks it fits the LP)."""
        from highspy import HighsBasis, HighsBasisStatus

        if col_status.shape != (self.n + 1,) or row_status.shape != (self.n_columns + 1,):
            raise RuntimeError(f"a basis of {col_status.shape[0]} variables and "
                               f"{row_status.shape[0]} rows does not fit LPBoost's master LP "
                               f"({self.n + 1} variables, {self.n_columns + 1} rows)")
        b = HighsBasis()
        b.col_status = [HighsBasisStatus(int(s)) for s in col_status]
        b.row_status = [HighsBasisStatus(int(s)) for s in row_status]
        b.alien = False            # a basis HiGHS gave: checked, not repaired
        self._check(self._h.setBasis(b), "set the saved basis")


@register
class LPBoost(BaseBoosting):
    """LPBoost by column generation (Demiriz, Bennett & Shawe-Taylor 2002), soft margin.

    Each round: grow the tree of largest edge under the dual weights u (the module
    docstring's step 2); stop if its edge is at most beta + ``tolerance`` (step 3, the round
    is not kept); else add its column and re-solve the restricted master LP with HiGHS
    (step 4), warm-started from the last round's basis (``RestrictedMasterLP``), which
    re-weights every tree.

    Parameters
    ----------
    n_rounds : int, default=1000
        Most columns generated; the fit usually ends earlier at the optimality test.
    max_depth : int, default=3
        Depth of the {-1, +1}-valued trees (the DirectBoost paper uses 1 or 3).
    max_bins : int, default=255
    n_prime_fraction : float, default=0.1
        n'/n: D = 1/n', n' = max(1, round(n_prime_fraction x n)) (the DirectBoost paper's
        grid 0.01, 0.05, 0.1, 0.2, 0.5, 0.8).
    tolerance : float, default=1e-6
        Stop when the best edge is at most beta + tolerance.
    split_criterion : {"error", "gini"}, default="error"
        How the tree is grown under u: each split maximising the children's edge (least
        u-weighted error), or least weighted Gini impurity of the classes (ALGORITHMS.md,
        "LPBoost"). Leaves answer the sign of their sum of u_i y_i under both.

    Attributes
    ----------
    n_prime_ : int, n'
    dual_weights_ : ndarray (n,), u of the last LP (the distribution the stopping test used)
    beta_ : float, the last LP's value: the soft margin, = the bottom-n' average margin of
        the final ensemble
    rho_ : float, the primal's margin rho
    slacks_ : ndarray (n,), the primal's xi
    soft_margins_ : ndarray (n_rounds_,), beta after each round
    edges_ : ndarray (n_rounds_,), the edge of each kept column when it was generated
    converged_ : bool, whether the optimality test ended the fit (not the round budget)
    lp_seconds_ : ndarray (n_rounds_,), wall time of each round's LP solve (not a result:
        left out of checkpoints' comparisons as a property)
    lp_iterations_ : ndarray (n_rounds_,), HiGHS's simplex iterations in each round's solve

    References
    ----------
    .. [1] A. Demiriz, K. P. Bennett, J. Shawe-Taylor. Linear programming boosting via column
           generation. Machine Learning 46, 2002 (LPBoost algorithm, soft-margin LP).
    .. [2] S. Zhai, T. Xia, M. Tan, S. Wang. Direct 0-1 loss minimization and margin
           maximization with boosting. NIPS 2013, sec. 3.1.
    """

    name = "lpboost"
    family = "LPBoost"
    reference = ("Demiriz, Bennett & Shawe-Taylor, Linear programming boosting via column "
                 "generation, Machine Learning 2002")
    # Version 2: the master LP warm-started in one HiGHS model (highspy) instead of solved
    # from scratch by SciPy's linprog each round; where the LP has several optimal vertices
    # the two can return different ensemble weights a (ALGORITHMS.md, "LPBoost").
    version = "2"
    binary_only = True
    # Termination is the algorithm's (Demiriz et al.'s optimality test); validation chooses
    # n'/n only (DirectBoost paper, sec. 3.1): the reported round is the last one.
    early_stopping = False
    param_specs = (LP_ROUNDS, MAX_DEPTH, MAX_BINS, N_PRIME_FRACTION, TOLERANCE,
                   LP_SPLIT_CRITERION)
    test_params = {"n_rounds": 40, "max_depth": 1}
    test_param_variants = ({"n_rounds": 15, "max_depth": 3, "n_prime_fraction": 0.3},
                           {"n_rounds": 15, "max_depth": 2, "split_criterion": "gini"})
    # ``_master`` (the HiGHS model) is rebuilt from ``_M`` and ``_lp_basis`` on resume
    # (``_restore_master``).
    _scratch_attrs = ("_ws", "_G", "_row", "_master")
    # The master LP's numbers are HiGHS's: a checkpoint of another highspy is not resumed.
    _fingerprint_libraries = ("highspy",)

    def __init__(self, n_rounds=1000, max_depth=3, max_bins=255, n_prime_fraction=0.1,
                 tolerance=1e-6, split_criterion="error"):
        self.n_rounds = n_rounds
        self.max_depth = max_depth
        self.max_bins = max_bins
        self.n_prime_fraction = n_prime_fraction
        self.tolerance = tolerance
        self.split_criterion = split_criterion

    @property
    def lp_seconds_(self):
        return np.asarray(self._lp_seconds, dtype=np.float64)

    @property
    def lp_iterations_(self):
        return np.asarray(self._lp_iterations, dtype=np.int64)

    def _check_params(self):
        for spec in self.param_specs:
            try:
                spec.validate(getattr(self, spec.name), f"{self.name} {spec.name}")
            except UserError as e:
                raise ValueError(str(e)) from None

    # -- state -----------------------------------------------------------------------------------
    def _init_state(self, X_binned, y, n_bins, hist_width):
        self._check_params()
        K = self.n_classes_
        if K != 2:
            raise ValueError(f"Only binary classification is supported by lpboost, a binary "
                             f"classifier (Demiriz et al. 2002): y has {K} classes; for more "
                             f"classes use a multi-class booster such as samme or gd_mcboost")
        n, n_features = X_binned.shape
        self._n_bins = n_bins
        self.n_prime_ = max(1, min(n, int(round(float(self.n_prime_fraction) * n))))
        self._D = 1.0 / self.n_prime_                        # D = 1/(nu n), nu = n'/n
        self._y_pm = np.where(y == 1, 1.0, -1.0)
        # Step 1: u uniform, beta = 0 (no column yet).
        self.dual_weights_ = np.full(n, 1.0 / n, WEIGHT_DTYPE)
        self.beta_ = 0.0
        self.rho_ = 0.0
        self.slacks_ = np.zeros(n)
        self._soft_margins = []
        self._edges = []
        self._lp_seconds = []
        self._lp_iterations = []
        self._row_of = {}                 # digest of a margin row -> its column (duplicates)
        cap = max(1, min(int(self.n_rounds), 64))
        self._M = np.zeros((cap, n), np.float64)             # margin rows of the columns
        self._row = np.zeros(n, np.float64)
        self._G = np.zeros((n, 1), WEIGHT_DTYPE)
        self._criterion = _TREE_CRITERION[self.split_criterion]
        self._ws = TreeWorkspace(n, n_features, hist_width, n_channels(self._criterion, K),
                                 int(self.max_depth))
        self._leaf_label = np.zeros(self._ws.max_nodes, np.int32)
        self.forest_ = ReweightedForest(K, node_capacity=self._ws.max_nodes * 64)
        self.converged_ = False
        self._master = RestrictedMasterLP(n, self._D)        # no column yet
        self._lp_basis = None         # the master's basis after the last solve (checkpoints)

    def _free_state(self):
        self.soft_margins_ = np.asarray(self._soft_margins, dtype=np.float64)
        self.edges_ = np.asarray(self._edges, dtype=np.float64)
        del self._M, self._row, self._G, self._ws, self._leaf_label, self._y_pm, self._row_of
        del self._master, self._lp_basis

    def _restore_master(self, t):
        """The master LP of a fit resumed after round t: a new model given the t columns'
        rows and the basis the last solve ended at (saved in the checkpoint). HiGHS's next
        solve then takes the path the uninterrupted fit's took (the LP after a new row and
        the basis determine it: tested bit for bit), without repeating the t solves.
        """
        for j in range(t):
            self._master.add_column(self._M[j])
        self._master.set_basis(*self._lp_basis)

    # -- one round -------------------------------------------------------------------------------
    def _boost(self, t, X_binned, y):
        u = self.dual_weights_
        ws = self._ws
        # Step 2: the tree of largest edge sum_i u_i y_i h(x_i) (greedy beyond depth 1).
        if self._criterion == CRITERION_ABS_SUM:
            np.multiply(u, self._y_pm, out=self._G[:, 0])
            m = grow_tree(ws, X_binned, y, self._n_bins, CRITERION_ABS_SUM,
                          channel_values=self._G)
        else:
            m = grow_tree(ws, X_binned, y, self._n_bins, CRITERION_GINI, weight=u)
        edge = sign_leaves_margin_row(ws.left, ws.threshold, ws.node_sum, m, ws.node_start,
                                      ws.node_end, ws.sample_index, y, u, self._leaf_label,
                                      self._row)
        # Step 3: optimality test (Demiriz et al.: stop when the new column's edge does not
        # exceed beta; with our tolerance, see TOLERANCE).
        if edge <= self.beta_ + float(self.tolerance):
            self.stop_reason_ = (f"optimal: the best weak learner's edge {edge:.9g} <= beta "
                                 f"{self.beta_:.9g} + tolerance {float(self.tolerance):g}")
            self.converged_ = True
            return RoundOutcome.DISCARD_STOP
        key = hashlib.blake2b(self._row.tobytes(), digest_size=16).digest()
        if key in self._row_of:
            # The same column is in the LP already (its edge there is <= beta up to HiGHS's
            # tolerance): adding it again changes nothing, so the LP is optimal.
            self.stop_reason_ = (f"optimal: the weak learner returned column "
                                 f"{self._row_of[key] + 1} again (edge {edge:.9g}, beta "
                                 f"{self.beta_:.9g})")
            self.converged_ = True
            return RoundOutcome.DISCARD_STOP
        if self._master.n_columns < t:
            self._restore_master(t)          # a fit resumed from a checkpoint after round t
        # Step 4: add the column, re-solve the restricted master LP (warm start).
        if t >= self._M.shape[0]:
            grown = np.zeros((min(2 * self._M.shape[0], int(self.n_rounds)), self._M.shape[1]))
            grown[:t] = self._M[:t]
            self._M = grown
        self._M[t] = self._row
        self._row_of[key] = t
        self.forest_.append(ws, m, leaf_label=self._leaf_label, alpha=0.0)
        start = time.perf_counter()
        u, beta, a, rho, xi = self._master.add_column_and_solve(self._row)
        self._lp_seconds.append(time.perf_counter() - start)
        self._lp_iterations.append(self._master.iterations)
        self._lp_basis = (self._master.col_status, self._master.row_status)
        self.dual_weights_ = u
        self.beta_ = beta
        self.rho_ = rho
        self.slacks_ = xi
        self.forest_.set_weights(a)
        self._soft_margins.append(beta)
        self._edges.append(edge)
        return RoundOutcome.CONTINUE

    def _add_train_round(self, t, X_binned, y, scores, pred):
        # The ensemble of round t, from the training margin rows (no tree walk).
        w = self.forest_.weight_path[t]
        used = np.flatnonzero(w).astype(np.int64)
        return set_scores_from_margin_rows(self._M, w, used, y, scores, pred)
