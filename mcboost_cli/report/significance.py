"""Are a table's differences significant? Friedman, Nemenyi and Holm-corrected Wilcoxon
tests over the datasets of a table, after Demšar (2006), on the mean test errors the table
prints.

The tests take a matrix of N datasets (rows) by k algorithms (columns) of mean test errors,
lower being better; every distribution comes from ``scipy.stats`` (chi², F, studentized range,
Wilcoxon's signed-rank null distribution), only the statistics' formulas are written here.

Map of the module
-----------------
``average_ranks``           each dataset's ranks (1 = lowest error; ties share their average
                            rank) and their mean over the datasets
``friedman``                Friedman's chi²_F from the average ranks (Demšar, sec. 3.2.2),
                            Iman and Davenport's F_F, and SciPy's tie-corrected statistic
``nemenyi_critical_value``  q_alpha: the studentized range's quantile / sqrt(2)
``critical_difference``     Nemenyi's CD = q_alpha sqrt(k (k + 1) / (6 N))
``nemenyi_p_value``         the p-value of one pair's rank difference under Nemenyi's test
``nemenyi_groups``          maximal runs of algorithms (in rank order) whose average ranks
                            differ by less than CD: the bars of a CD diagram
``wilcoxon_signed_rank``    Wilcoxon's signed-ranks test of two algorithms (Demšar,
                            sec. 3.1.3: zero differences split between the sums)
``holm``                    Holm's step-down adjusted p-values
``compare``                 all of them on one matrix: a ``Comparison``
``error_matrix``            a table's matrix from the report's summary (``report.tables.
                            summarize``): the datasets lacking a complete result of some
                            algorithm are dropped, each with the reason
``write_comparisons``       every table (and noise rate) of a config: ``<table>.md``,
                            ``<table>.csv`` and the CD diagram (``report.cd_diagram``);
                            returns one summary line per table (or why it was skipped)

Readings (written before any result was looked at):

- Ranks. Rank 1 is the lowest mean test error. Values equal to ``RANK_DECIMALS`` decimals
  (of a percentage point) are ties: a mean over folds is a float whose last bits depend on
  the order of the sum, and two algorithms with the same errors must tie.
- Friedman. chi²_F is Demšar's formula on the average ranks, which has no correction for
  ties (his Table 6 example: chi²_F = 9.28); F_F (Iman and Davenport), which Demšar
  recommends, is computed from it. SciPy's ``friedmanchisquare`` corrects for ties (10.23 on
  the same data) and is reported beside it. When every dataset ranks the algorithms alike,
  N (k - 1) - chi²_F = 0 and F_F is infinite (p = 0).
- Nemenyi. Two algorithms differ when their average ranks differ by at least CD (Demšar,
  sec. 3.2.2); the p-value of a pair is the studentized range's survival function at
  |R_i - R_j| sqrt(2) / sqrt(k (k + 1) / (6 N)), so that it is <= alpha exactly then.
- Wilcoxon. d_i = error of the second - error of the first (positive: the first is better);
  |d_i| are ranked with average ranks; zero differences have their ranks split evenly
  between R+ and R-, one of them being dropped first when their number is odd (Demšar,
  sec. 3.1.3). The p-value is SciPy's (``zero_method="zsplit"``, ``method="auto"``: the exact
  null distribution for small N without ties, else SciPy's choice between permutations and
  the normal approximation), the z statistic SciPy's normal approximation (tie-corrected).
  Where SciPy chooses permutations (ties or zeros, N <= 13: all 2^N sign patterns), the same
  ``scipy.stats.permutation_test`` is run here with R+ computed for every pattern at once
  (``_signed_rank_p``): SciPy's own call computes it one pattern at a time (8,192 calls,
  about 5 s, for N = 13). The same null distribution, hence the same p (tested against
  ``scipy.stats.wilcoxon``).
- Holm. Post-hoc Wilcoxon tests are corrected with Holm's step-down procedure within each
  family: the k - 1 pairs of the best-ranked algorithm with every other one, and the
  k (k - 1) / 2 pairs of all algorithms (Benavoli, Corani & Mangili 2016 recommend these
  pairwise tests over the mean-rank tests).
- A cell counts only when complete: every planned fold (and grid point) done and fitted.
  A dataset lacking one is dropped (and said so); the tests need the same datasets for all.

References
----------
J. Demšar, "Statistical Comparisons of Classifiers over Multiple Data Sets", JMLR 7:1-30,
2006. R. L. Iman and J. M. Davenport, "Approximations of the critical region of the Friedman
statistic", Comm. Stat. 9(6), 1980. S. Holm, "A simple sequentially rejective multiple test
procedure", Scand. J. Stat. 6(2), 1979. A. Benavoli, G. Corani and F. Mangili, "Should we
really use post-hoc tests based on mean-ranks?", JMLR 17(5):1-10, 2016.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from ..runner.config import STATS_FORMATS as DIAGRAM_FORMATS  # noqa: F401 (file formats)

#: Values equal to this many decimals tie (mean errors in %; see the module's readings).
RANK_DECIMALS = 9


def _matrix(errors) -> np.ndarray:
    x = np.asarray(errors, dtype=float)
    if x.ndim != 2:
        raise ValueError(f"errors: expected a 2-D datasets x algorithms matrix; got "
                         f"{x.ndim} dimension(s)")
    if x.shape[0] < 2 or x.shape[1] < 2:
        raise ValueError(f"errors: {x.shape[0]} dataset(s) x {x.shape[1]} algorithm(s); "
                         "expected at least 2 of each")
    if not np.all(np.isfinite(x)):
        raise ValueError("errors: every entry must be a finite number (drop the datasets "
                         "lacking a result first)")
    return np.round(x, RANK_DECIMALS)


def average_ranks(errors) -> tuple[np.ndarray, np.ndarray]:
    """Rank the algorithms on each dataset, lowest error first.

    Parameters
    ----------
    errors : array of shape (N, k)
        Mean test errors of k algorithms (columns) on N datasets (rows).

    Returns
    -------
    ranks : array of shape (N, k)
        Rank 1 for the lowest error of a row; tied values share their average rank.
    mean_ranks : array of shape (k,)
        The average rank R_j of each algorithm over the datasets.

    References
    ----------
    Demšar (2006), sec. 3.2.2 and Table 6.
    """
    x = _matrix(errors)
    ranks = stats.rankdata(x, method="average", axis=1)
    return ranks, ranks.mean(axis=0)


@dataclass(frozen=True)
class FriedmanResult:
    """Friedman's test of N datasets and k algorithms.

    ``chi2`` / ``chi2_p``: Demšar's chi²_F (no tie correction), chi² with k - 1 degrees of
    freedom; ``f`` / ``f_p``: Iman and Davenport's F_F with ``f_df`` = (k - 1, (k - 1)(N - 1))
    degrees of freedom, and ``f_critical`` its critical value at ``alpha``;
    ``chi2_tie_corrected`` / ``chi2_tie_corrected_p``: ``scipy.stats.friedmanchisquare``
    (NaN for k < 3, which it does not take, or when every value ties)."""

    n_datasets: int
    n_algorithms: int
    chi2: float
    chi2_p: float
    f: float
    f_p: float
    f_df: tuple[int, int]
    f_critical: float
    chi2_tie_corrected: float
    chi2_tie_corrected_p: float


def friedman(errors, alpha: float = 0.05) -> FriedmanResult:
    """Friedman's test with Iman and Davenport's correction.

    chi²_F = 12 N / (k (k + 1)) [sum_j R_j² - k (k + 1)² / 4] and
    F_F = (N - 1) chi²_F / (N (k - 1) - chi²_F) (Demšar 2006, sec. 3.2.2).

    References
    ----------
    Demšar (2006), sec. 3.2.2; Iman and Davenport (1980).
    """
    x = _matrix(errors)
    _, mean_ranks = average_ranks(x)
    n, k = x.shape
    chi2 = 12.0 * n / (k * (k + 1)) * (float(np.sum(mean_ranks ** 2)) - k * (k + 1) ** 2 / 4.0)
    chi2 = max(chi2, 0.0)        # rounding of a zero statistic
    df1, df2 = k - 1, (k - 1) * (n - 1)
    denominator = n * (k - 1) - chi2
    if denominator > 1e-12 * n * (k - 1):
        f = (n - 1) * chi2 / denominator
        f_p = float(stats.f.sf(f, df1, df2))
    else:                        # every dataset ranks the algorithms alike
        f, f_p = math.inf, 0.0
    tie_chi2 = tie_p = math.nan
    if k >= 3:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            res = stats.friedmanchisquare(*x.T)
        tie_chi2, tie_p = float(res.statistic), float(res.pvalue)
    return FriedmanResult(
        n_datasets=n, n_algorithms=k, chi2=chi2, chi2_p=float(stats.chi2.sf(chi2, df1)),
        f=f, f_p=f_p, f_df=(df1, df2), f_critical=float(stats.f.ppf(1 - alpha, df1, df2)),
        chi2_tie_corrected=tie_chi2, chi2_tie_corrected_p=tie_p)


def nemenyi_critical_value(k: int, alpha: float = 0.05) -> float:
    """q_alpha of Nemenyi's test: the studentized range statistic's 1 - alpha quantile for k
    groups and infinite degrees of freedom, divided by sqrt(2) (Demšar 2006, Table 5a:
    2.569 for k = 4 at alpha = 0.05)."""
    return float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf) / math.sqrt(2.0))


def _rank_standard_error(k: int, n: int) -> float:
    return math.sqrt(k * (k + 1) / (6.0 * n))


def critical_difference(k: int, n: int, alpha: float = 0.05) -> float:
    """Nemenyi's critical difference of average ranks, CD = q_alpha sqrt(k (k + 1) / (6 N))
    (Demšar 2006, sec. 3.2.2)."""
    return nemenyi_critical_value(k, alpha) * _rank_standard_error(k, n)


def nemenyi_p_value(rank_difference: float, k: int, n: int) -> float:
    """The p-value of a difference of two average ranks under Nemenyi's test: <= alpha
    exactly when |difference| >= ``critical_difference(k, n, alpha)``."""
    q = abs(rank_difference) / _rank_standard_error(k, n) * math.sqrt(2.0)
    return float(stats.studentized_range.sf(q, k, np.inf))


def nemenyi_groups(mean_ranks, cd: float) -> list[tuple[int, ...]]:
    """The bars of a CD diagram: maximal runs of algorithms, in order of average rank, whose
    first and last ranks differ by less than ``cd`` (so no pair inside differs under
    Nemenyi's test); a run inside a longer one is left out, as are single algorithms.

    Returns the runs as tuples of column indices, best rank first."""
    r = np.asarray(mean_ranks, dtype=float)
    order = np.argsort(r, kind="stable")
    sorted_r = r[order]
    groups, last_end = [], -1
    for i in range(len(r)):
        j = i
        while j + 1 < len(r) and sorted_r[j + 1] - sorted_r[i] < cd:
            j += 1
        if j > i and j > last_end:
            groups.append(tuple(int(c) for c in order[i:j + 1]))
            last_end = j
    return groups


@dataclass(frozen=True)
class WilcoxonResult:
    """Wilcoxon's signed-ranks test of a first and a second algorithm over N datasets.

    ``r_plus``: the ranks of the datasets where the first has the lower error (with half the
    ranks of the ties), ``r_minus`` those where the second has; ``statistic`` T =
    min(R+, R-); ``n`` the differences ranked (one zero difference is dropped when their
    number is odd), ``n_zero`` the zero differences among them."""

    n: int
    n_zero: int
    r_plus: float
    r_minus: float
    statistic: float
    p: float
    z: float


def _scipy_wilcoxon(d: np.ndarray, method: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return stats.wilcoxon(d, zero_method="zsplit", method=method)


# SciPy's ``method="auto"`` runs an exhaustive permutation test up to this many differences
# when there are ties or zeros (2^13 = 8,192 sign patterns, within permutation_test's default
# 9,999 resamples, so the p-value is deterministic).
_PERMUTATION_MAX_N = 13


def _signed_rank_p(d: np.ndarray) -> float:
    """``scipy.stats.wilcoxon(d, zero_method="zsplit", method="auto")``'s p-value (two-sided).

    In SciPy's permutation case (tied |d_i| or zero differences, N <= 13) the test is
    ``scipy.stats.permutation_test`` over the sign patterns of d with R+ as the statistic;
    flipping signs leaves every |d_i|, hence its rank, in place, so R+ of all patterns is
    one vectorised sum (``vectorized=True``) instead of SciPy's call per pattern. Otherwise
    SciPy's own test (exact without ties or zeros, else its normal approximation)."""
    n = len(d)
    magnitude = np.abs(d)
    tied_or_zero = len(np.unique(magnitude)) < n or bool(np.any(d == 0))
    if not tied_or_zero or n > _PERMUTATION_MAX_N:
        return float(_scipy_wilcoxon(d, "auto").pvalue)
    ranks = stats.rankdata(magnitude, method="average")

    def r_plus(x, axis):
        # SciPy's zsplit R+ (scipy/stats/_wilcoxon.py, _wilcoxon_statistic): the ranks of
        # the positive differences plus half those of the zeros.
        return np.sum((x > 0) * ranks, axis=axis) + np.sum((x == 0) * ranks, axis=axis) / 2

    return float(stats.permutation_test((d,), r_plus, permutation_type="samples",
                                        vectorized=True, alternative="two-sided",
                                        axis=-1).pvalue)


def wilcoxon_signed_rank(first, second) -> WilcoxonResult:
    """Wilcoxon's signed-ranks test (two-sided) of two algorithms' errors over datasets.

    d_i = second_i - first_i; the |d_i| are ranked (average ranks for ties); R+ sums the
    ranks of d_i > 0 and R- of d_i < 0, the ranks of d_i = 0 split evenly between them after
    one is dropped when there is an odd number of them (Demšar 2006, sec. 3.1.3). The p-value
    and z are SciPy's (see the module's readings).

    References
    ----------
    Demšar (2006), sec. 3.1.3 and Table 2.
    """
    a = np.asarray(first, dtype=float)
    b = np.asarray(second, dtype=float)
    if a.shape != b.shape or a.ndim != 1 or len(a) == 0:
        raise ValueError("first, second: expected two 1-D arrays of the same non-zero length "
                         "(one error per dataset)")
    d = np.round(b - a, RANK_DECIMALS)
    zeros = np.flatnonzero(d == 0)
    if len(zeros) % 2:
        d = np.delete(d, zeros[0])           # Demšar: "if there is an odd number, one is
    n = len(d)                               # ignored"
    if n == 0 or not np.any(d != 0):
        half = n * (n + 1) / 4.0
        return WilcoxonResult(n=n, n_zero=n, r_plus=half, r_minus=half, statistic=half,
                              p=1.0, z=0.0)
    ranks = stats.rankdata(np.abs(d), method="average")
    zero_half = 0.5 * float(ranks[d == 0].sum())
    r_plus = float(ranks[d > 0].sum()) + zero_half
    r_minus = float(ranks[d < 0].sum()) + zero_half
    p = _signed_rank_p(d)
    try:
        z = float(_scipy_wilcoxon(d, "asymptotic").zstatistic)
    except ValueError:                       # SciPy < 1.15 calls it "approx"
        z = float(_scipy_wilcoxon(d, "approx").zstatistic)
    return WilcoxonResult(n=n, n_zero=int(np.sum(d == 0)), r_plus=r_plus, r_minus=r_minus,
                          statistic=min(r_plus, r_minus), p=p, z=z)


def holm(p_values) -> np.ndarray:
    """Holm's step-down adjusted p-values (a hypothesis is rejected at alpha when its
    adjusted p-value is <= alpha).

    The i-th smallest of m p-values becomes max_{j <= i} min(1, (m - j + 1) p_(j)), in the
    input's order.

    References
    ----------
    Holm (1979); Demšar (2006), sec. 3.2.2.
    """
    p = np.asarray(p_values, dtype=float)
    m = len(p)
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.minimum(stepped, 1.0)
    return out


@dataclass(frozen=True)
class PairComparison:
    """Two algorithms, ``first`` the better ranked (lower average rank; on equal ranks the
    first column). ``wilcoxon`` is of first against second; ``holm_p`` its p-value adjusted
    among all pairs, ``holm_p_vs_best`` among the pairs of the best-ranked algorithm (NaN for
    the other pairs)."""

    first: str
    second: str
    rank_difference: float
    nemenyi_p: float
    nemenyi_differ: bool
    wilcoxon: WilcoxonResult
    holm_p: float
    holm_p_vs_best: float


@dataclass(frozen=True)
class Comparison:
    """Every test of one datasets x algorithms matrix (``compare``)."""

    datasets: tuple[str, ...]
    algorithms: tuple[str, ...]
    errors: np.ndarray              # (N, k) mean test errors as given
    ranks: np.ndarray               # (N, k)
    mean_ranks: np.ndarray          # (k,)
    alpha: float
    friedman: FriedmanResult
    q_alpha: float
    critical_difference: float
    groups: tuple[tuple[str, ...], ...]
    pairs: tuple[PairComparison, ...]

    @property
    def best(self) -> str:
        return self.algorithms[int(np.argmin(self.mean_ranks))]

    @property
    def rank_order(self) -> list[int]:
        return [int(i) for i in np.argsort(self.mean_ranks, kind="stable")]

    def friedman_rejects(self) -> bool:
        """Whether Iman and Davenport's F_F rejects equal performance at ``alpha``."""
        return self.friedman.f_p <= self.alpha


def compare(errors: pd.DataFrame, alpha: float = 0.05) -> Comparison:
    """Friedman, Nemenyi and Holm-corrected Wilcoxon tests of a matrix of mean test errors.

    Parameters
    ----------
    errors : DataFrame
        Index: datasets (N >= 2); columns: algorithms (k >= 2); values: mean test errors
        (lower is better), all finite.
    alpha : float
        Significance level in (0, 1) of Nemenyi's CD and of the flags.

    Returns
    -------
    Comparison
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha: {alpha!r} is not valid; expected a number in (0, 1)")
    x = _matrix(errors.to_numpy(dtype=float))
    names = tuple(str(c) for c in errors.columns)
    ranks, mean_ranks = average_ranks(x)
    n, k = x.shape
    cd = critical_difference(k, n, alpha)
    order = [int(i) for i in np.argsort(mean_ranks, kind="stable")]
    best = order[0]
    raw = []
    for a_pos, i in enumerate(order):
        for j in order[a_pos + 1:]:
            diff = float(mean_ranks[j] - mean_ranks[i])
            raw.append((i, j, diff, nemenyi_p_value(diff, k, n),
                        wilcoxon_signed_rank(x[:, i], x[:, j])))
    all_holm = holm([w.p for *_, w in raw])
    best_idx = [t for t, (i, _, _, _, _) in enumerate(raw) if i == best]
    best_holm = dict(zip(best_idx, holm([raw[t][4].p for t in best_idx])))
    pairs = tuple(PairComparison(
        first=names[i], second=names[j], rank_difference=diff, nemenyi_p=p_nem,
        nemenyi_differ=bool(diff >= cd), wilcoxon=w, holm_p=float(all_holm[t]),
        holm_p_vs_best=float(best_holm.get(t, math.nan)))
        for t, (i, j, diff, p_nem, w) in enumerate(raw))
    return Comparison(
        datasets=tuple(str(d) for d in errors.index), algorithms=names, errors=x,
        ranks=ranks, mean_ranks=mean_ranks, alpha=alpha, friedman=friedman(x, alpha),
        q_alpha=nemenyi_critical_value(k, alpha), critical_difference=cd,
        groups=tuple(tuple(names[c] for c in g) for g in nemenyi_groups(mean_ranks, cd)),
        pairs=pairs)


# -- a table of the report -----------------------------------------------------------------------

def error_matrix(summary: pd.DataFrame, table, noise_rate: float, algorithms=None
                 ) -> tuple[pd.DataFrame, dict[str, str]]:
    """The datasets x algorithms matrix of a table's mean test errors (%) at one noise rate.

    Parameters
    ----------
    summary : DataFrame
        The long summary of ``report.tables.summarize`` (one row per table, noise rate,
        dataset and algorithm entry).
    table : runner.config.TableSpec
        The table (its datasets and algorithm entries, in order; columns that are not built
        have no results and are not among the algorithms).
    noise_rate : float
    algorithms : collection of str, optional
        Only these column labels (default: every algorithm entry of the table).

    Returns
    -------
    matrix : DataFrame
        The datasets where every algorithm has a complete result (every planned fold done and
        fitted), in the table's order.
    dropped : dict
        Every other dataset -> why (e.g. "DMCBoost: 3 of 5 folds; SAMME: no result").
    """
    labels = table_labels(table, algorithms)
    part = summary[(summary["table"] == table.id) & (summary["noise_rate"] == noise_rate)]
    by = {(r.dataset, r.algorithm): r for r in part.itertuples()}
    rows, dropped = {}, {}
    for ds in table.datasets:
        values, why = [], []
        for label in labels:
            r = by.get((ds, label))
            if r is None or r.n == 0:
                why.append(f"{label}: no result")
            elif r.n_no_fit:
                why.append(f"{label}: no fit on {r.n_no_fit} of {r.n} folds")
            elif not np.isfinite(r.mean):
                why.append(f"{label}: no result")
            elif not r.complete:
                why.append(f"{label}: " + ("grid not fully run" if r.n == r.n_planned
                                           else f"{r.n} of {r.n_planned} folds"))
            else:
                values.append(float(r.mean))
        if why:
            if len(why) == len(labels):
                dropped[ds] = "no result"
            else:
                dropped[ds] = "; ".join(why)
        else:
            rows[ds] = values
    matrix = pd.DataFrame.from_dict(rows, orient="index", columns=labels)
    matrix.index.name = "dataset"
    return matrix, dropped


def table_labels(table, algorithms=None) -> list[str]:
    """The table's algorithm columns (entries, not the columns that are not built), in order;
    only those among ``algorithms`` when given."""
    return [e.label for e in table.algorithms if algorithms is None or e.label in algorithms]


def _p(p: float) -> str:
    if math.isnan(p):
        return "n/a"
    if p == 0:
        return "0"
    return f"{p:.2e}" if p < 1e-4 else f"{p:.4f}"


def _num(v: float, digits: int = 3) -> str:
    return "n/a" if math.isnan(v) else ("inf" if math.isinf(v) else f"{v:.{digits}f}")


def comparison_markdown(comp: Comparison, dropped: dict[str, str], diagram: str | None) -> str:
    """The Markdown section of one comparison (ranks, Friedman, Nemenyi, Wilcoxon-Holm)."""
    fr, a = comp.friedman, comp.alpha
    n, k = fr.n_datasets, fr.n_algorithms
    out = [f"Datasets (N = {n}): {', '.join(comp.datasets)}."]
    if dropped:
        out.append("Left out (the tests need every algorithm's complete result on each "
                   "dataset): " + "; ".join(f"{d} ({why})" for d, why in dropped.items())
                   + ".")
    out.append("")
    means = comp.errors.mean(axis=0)
    rows = [f"| {comp.algorithms[j]} | {comp.mean_ranks[j]:.3f} | {means[j]:.2f} |"
            for j in comp.rank_order]
    out += ["| algorithm | average rank | mean test error % |", "|---|---:|---:|", *rows, ""]
    verdict = "rejects" if comp.friedman_rejects() else "does not reject"
    out.append(
        f"**Friedman.** chi²_F = {fr.chi2:.3f} (k - 1 = {k - 1} df), p = {_p(fr.chi2_p)}; "
        f"Iman-Davenport F_F = {_num(fr.f)} (df {fr.f_df[0]}, {fr.f_df[1]}; critical value "
        f"{fr.f_critical:.3f} at alpha = {a:g}), p = {_p(fr.f_p)}: F_F {verdict} equal "
        f"performance at alpha = {a:g}. "
        + (f"With SciPy's correction for ties: chi² = {fr.chi2_tie_corrected:.3f}, "
           f"p = {_p(fr.chi2_tie_corrected_p)}." if not math.isnan(fr.chi2_tie_corrected)
           else "(SciPy's tie-corrected statistic needs k >= 3 and values that do not all "
                "tie.)"))
    if not comp.friedman_rejects():
        out.append("The post-hoc tests below are shown for information: Demšar's procedure "
                   "runs them only after the Friedman test rejects.")
    out.append("")
    groups = "; ".join("{" + ", ".join(g) + "}" for g in comp.groups) or "none"
    out.append(f"**Nemenyi.** q_{a:g} = {comp.q_alpha:.3f}, CD = {comp.critical_difference:.3f}: "
               f"two algorithms differ when their average ranks differ by at least CD. Groups "
               f"not significantly different: {groups}."
               + (f" Diagram: `{diagram}`." if diagram else ""))
    out.append("")
    best = comp.best
    out.append(f"**Wilcoxon signed-ranks tests, Holm-corrected.** Against the best-ranked "
               f"algorithm ({best}; k - 1 = {k - 1} tests) and among all "
               f"{len(comp.pairs)} pairs. R+: the ranks of the datasets where the first is "
               f"better.")
    out.append("")
    out += ["| first | second | rank difference | Nemenyi p | R+ | R- | T | Wilcoxon p | "
            "Holm p (vs best) | Holm p (all pairs) |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for pr in comp.pairs:
        w = pr.wilcoxon
        mark = lambda p: f"**{_p(p)}**" if p <= a else _p(p)  # noqa: E731
        out.append(f"| {pr.first} | {pr.second} | {pr.rank_difference:.3f} | "
                   f"{mark(pr.nemenyi_p)} | {w.r_plus:g} | {w.r_minus:g} | {w.statistic:g} | "
                   f"{_p(w.p)} | "
                   f"{'' if math.isnan(pr.holm_p_vs_best) else mark(pr.holm_p_vs_best)} | "
                   f"{mark(pr.holm_p)} |")
    out.append("")
    out.append(f"Bold: significant at alpha = {a:g}.")
    return "\n".join(out)


def comparison_rows(comp: Comparison, table_id: str, noise_rate: float) -> pd.DataFrame:
    """One row per pair of algorithms, with the table's Friedman statistics on every row."""
    fr = comp.friedman
    rank = dict(zip(comp.algorithms, comp.mean_ranks))
    return pd.DataFrame([{
        "table": table_id, "noise_rate": noise_rate, "n_datasets": fr.n_datasets,
        "n_algorithms": fr.n_algorithms, "alpha": comp.alpha,
        "friedman_chi2": fr.chi2, "friedman_p": fr.chi2_p,
        "friedman_chi2_tie_corrected": fr.chi2_tie_corrected,
        "friedman_p_tie_corrected": fr.chi2_tie_corrected_p,
        "iman_davenport_f": fr.f, "iman_davenport_p": fr.f_p,
        "nemenyi_q": comp.q_alpha, "critical_difference": comp.critical_difference,
        "first": pr.first, "second": pr.second,
        "first_mean_rank": rank[pr.first], "second_mean_rank": rank[pr.second],
        "rank_difference": pr.rank_difference, "nemenyi_p": pr.nemenyi_p,
        "nemenyi_differ": pr.nemenyi_differ,
        "wilcoxon_n": pr.wilcoxon.n, "wilcoxon_r_plus": pr.wilcoxon.r_plus,
        "wilcoxon_r_minus": pr.wilcoxon.r_minus, "wilcoxon_t": pr.wilcoxon.statistic,
        "wilcoxon_z": pr.wilcoxon.z, "wilcoxon_p": pr.wilcoxon.p,
        "holm_p_vs_best": pr.holm_p_vs_best, "holm_p_all_pairs": pr.holm_p,
    } for pr in comp.pairs])


def summary_line(comp: Comparison, where: str, dropped: dict[str, str]) -> str:
    """One line for the terminal."""
    fr, a = comp.friedman, comp.alpha
    best = comp.best
    n_nem = sum(p.nemenyi_differ for p in comp.pairs)
    n_holm = sum(p.holm_p <= a for p in comp.pairs)
    n_best = sum(p.holm_p_vs_best <= a for p in comp.pairs)
    text = (f"{where}: N = {fr.n_datasets} datasets, k = {fr.n_algorithms}; Friedman "
            f"p = {_p(fr.chi2_p)}, Iman-Davenport p = {_p(fr.f_p)}; best {best} (rank "
            f"{comp.mean_ranks[comp.algorithms.index(best)]:.2f}); CD = "
            f"{comp.critical_difference:.2f} at alpha = {a:g}: Nemenyi {n_nem} of "
            f"{len(comp.pairs)} pairs differ; Holm-Wilcoxon {n_holm} of {len(comp.pairs)} "
            f"pairs, {n_best} of {fr.n_algorithms - 1} against {best}")
    if dropped:
        text += f"; left out: {', '.join(f'{d} ({w})' for d, w in dropped.items())}"
    return text


def _rate_suffix(rates, rate) -> str:
    return "" if len(rates) == 1 else f"_noise{rate:g}"


def write_comparisons(config, summary: pd.DataFrame, out_dir: Path, tables=None,
                      alpha: float = 0.05, fmt: str = "png", algorithms=None
                      ) -> tuple[list[str], list[Path]]:
    """Compare the algorithms of every table (each noise rate apart) and write, per table,
    ``<id>.md`` and ``<id>.csv`` and a CD diagram ``<id>_cd.<fmt>`` per noise rate
    (``<id>_noise<rate>_cd.<fmt>`` when the config has several) into ``out_dir``; only the
    tables of ids ``tables`` and the columns labelled ``algorithms`` when given.

    A table (or noise rate) with fewer than 2 datasets or 2 algorithms that have every
    result is skipped with the reason in its line (a table skipped at every noise rate
    writes no file). Returns (the lines, the written paths)."""
    from .cd_diagram import draw_cd_diagram
    from .tables import _atomic_write
    lines, paths = [], []
    chosen = [t for t in config.tables if tables is None or t.id in tables]
    rates = tuple(config.noise_rates)
    for table in chosen:
        md = [f"# Significance: {table.title}", "",
              f"Source: the mean test errors (%) of `{table.id}` (every planned fold done); "
              f"alpha = {alpha:g}. Tests: Demšar (JMLR 2006), `mcboost compare`.", ""]
        sources = [(d, src) for d, src in getattr(config, "sources", ()) if d in table.datasets]
        if sources:
            md += ["Rows not from the catalog's default source: "
                   + ", ".join(f"{d} ({src})" for d, src in sources) + ".", ""]
        frames = []
        for rate in rates:
            where = table.id + ("" if len(rates) == 1 else f" at noise {rate:g}")
            if len(rates) > 1:
                md += [f"## Noise rate {rate:g}", ""]
            labels = table_labels(table, algorithms)
            if len(labels) < 2:
                line = (f"{where}: skipped: {len(labels)} algorithm column(s)"
                        + (" among --algorithms" if algorithms is not None else "")
                        + " (at least 2 needed)")
                lines.append(line)
                md += [line, ""]
                continue
            matrix, dropped = error_matrix(summary, table, rate, algorithms)
            if len(matrix) < 2:
                line = (f"{where}: skipped: {len(matrix)} dataset(s) with every algorithm's "
                        f"complete result (at least 2 needed)"
                        + (f"; left out: {', '.join(f'{d} ({w})' for d, w in dropped.items())}"
                           if dropped else ""))
                lines.append(line)
                md += [line, ""]
                continue
            comp = compare(matrix, alpha)
            diagram = out_dir / f"{table.id}{_rate_suffix(rates, rate)}_cd.{fmt}"
            out_dir.mkdir(parents=True, exist_ok=True)
            title = table.title + ("" if len(rates) == 1 else f", noise {rate:g}")
            draw_cd_diagram(comp.algorithms, comp.mean_ranks, comp.critical_difference,
                            comp.groups, diagram,
                            title=f"{title}\nN = {len(comp.datasets)} datasets, "
                                  f"Nemenyi CD = {comp.critical_difference:.2f} "
                                  f"(alpha = {alpha:g}), Friedman (Iman-Davenport) "
                                  f"p = {_p(comp.friedman.f_p)}")
            paths.append(diagram)
            md += [comparison_markdown(comp, dropped, diagram.name), ""]
            frames.append(comparison_rows(comp, table.id, rate))
            lines.append(summary_line(comp, where, dropped))
        if not frames:          # skipped at every noise rate: its line says why
            continue
        md_path, csv_path = out_dir / f"{table.id}.md", out_dir / f"{table.id}.csv"
        _atomic_write(md_path, "\n".join(md).rstrip() + "\n")
        _atomic_write(csv_path, pd.concat(frames, ignore_index=True)
                      .to_csv(index=False, float_format="%.6g"))
        paths += [md_path, csv_path]
    return lines, paths
