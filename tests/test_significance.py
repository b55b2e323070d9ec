"""Significance tests (``report.significance``, ``report.cd_diagram``, ``mcboost compare``).

The reference numbers are Demšar's worked examples (J. Demšar, "Statistical Comparisons of
Classifiers over Multiple Data Sets", JMLR 7:1-30, 2006):

- Table 6: AUC of C4.5 with m = 0 and of C4.5 with m, cf or both tuned, on 14 UCI datasets,
  with the ranks used by the Friedman test. The values are those transcribed in SciPy's own
  test suite (scipy/scipy, ``scipy/stats/tests/test_stats.py``, ``TestFriedmanChiSquare.x1``,
  "From Demsar ... 2006, Xf=9.28 (no tie handling, tie corrected Xf >=9.28)", with its
  reference 10.2283464566929 for the tie-corrected statistic). The voting row prints 0.975
  for both C4.5+cf and C4.5+m+cf but ranks them 2 and 3; the transcription's 0.9751 keeps
  that order. Demšar's text gives the average ranks 3.143, 2.000, 2.893, 1.964,
  chi²_F = 9.28, F_F = 3.69 against the critical value F(3, 39) = 2.85 at alpha = 0.05, and
  for Nemenyi's test q_0.05 = 2.569 (Table 5a), CD = 2.569 sqrt(4 * 5 / (6 * 14)) = 1.25; at
  alpha = 0.10, q_0.10 = 2.291 (Table 5b) and CD = 1.12.
- Table 2: the first two columns of Table 6 (C4.5 and C4.5+m). With zero differences split,
  R+ = 93 (C4.5+m better), R- = 12, T = 12 <= 21, the exact critical value for N = 14 at
  alpha = 0.05: the difference is significant; the normal approximation
  z = (T - N(N+1)/4) / sqrt(N(N+1)(2N+1)/24) gives -2.54.
- Table 5: q_alpha of Nemenyi's test for k = 2..10 at alpha = 0.05 and 0.10.

Holm's procedure is checked against Table 16 of Derrac, García, Molina & Herrera, "A practical
tutorial on the use of nonparametric statistical tests ...", Swarm and Evolutionary
Computation 1:3-18, 2011 (unadjusted and Holm-adjusted p-values of 8 comparisons with a
control; as transcribed in the test suite of JiangtaoShen/DDMTOLab).
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from scipy import stats

from mcboost_cli.cli import main
from mcboost_cli.errors import UserError
from mcboost_cli.report import significance as sig
from mcboost_cli.report.cd_diagram import diagram_layout, draw_cd_diagram
from mcboost_cli.runner.config import validate_config

REPO = Path(__file__).resolve().parents[1]

C45_NAMES = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
# Demšar (2006), Table 6: AUC, one row per dataset (see the module docstring for the source).
DEMSAR_AUC = pd.DataFrame([
    [0.763, 0.768, 0.771, 0.798],       # adult (sample)
    [0.599, 0.591, 0.590, 0.569],       # breast cancer
    [0.954, 0.971, 0.968, 0.967],       # breast cancer wisconsin
    [0.628, 0.661, 0.654, 0.657],       # cmc
    [0.882, 0.888, 0.886, 0.898],       # ionosphere
    [0.936, 0.931, 0.916, 0.931],       # iris
    [0.661, 0.668, 0.609, 0.685],       # liver disorders
    [0.583, 0.583, 0.563, 0.625],       # lung cancer
    [0.775, 0.838, 0.866, 0.875],       # lymphography
    [1.000, 1.000, 1.000, 1.000],       # mushroom
    [0.940, 0.962, 0.965, 0.962],       # primary tumor
    [0.619, 0.666, 0.614, 0.669],       # rheum
    [0.972, 0.981, 0.9751, 0.975],      # voting
    [0.957, 0.978, 0.946, 0.970],       # wine
], columns=C45_NAMES, index=["adult (sample)", "breast cancer", "breast cancer wisconsin",
                             "cmc", "ionosphere", "iris", "liver disorders", "lung cancer",
                             "lymphography", "mushroom", "primary tumor", "rheum", "voting",
                             "wine"])
# The tests take errors (lower is better): AUC is a score, so 1 - AUC.
DEMSAR_ERRORS = 1.0 - DEMSAR_AUC


# -- ranks and Friedman ------------------------------------------------------------------------

def test_average_ranks_of_demsar_table6():
    ranks, mean_ranks = sig.average_ranks(DEMSAR_ERRORS)
    assert mean_ranks == pytest.approx([3.143, 2.000, 2.893, 1.964], abs=5e-4)
    # The ranks printed in Table 6, ties included (average ranks, 1 = best AUC).
    by_name = dict(zip(DEMSAR_ERRORS.index, ranks))
    assert list(by_name["iris"]) == [1, 2.5, 4, 2.5]
    assert list(by_name["lung cancer"]) == [2.5, 2.5, 4, 1]
    assert list(by_name["mushroom"]) == [2.5, 2.5, 2.5, 2.5]
    assert list(by_name["primary tumor"]) == [4, 2.5, 1, 2.5]
    assert list(by_name["voting"]) == [4, 1, 2, 3]
    assert ranks.sum(axis=1) == pytest.approx([10.0] * 14)


def test_values_equal_up_to_float_noise_tie():
    """Means equal in exact arithmetic but not in the last bits share their rank."""
    a = (0.1 + 0.2 + 0.3) / 3
    b = (0.3 + 0.2 + 0.1) / 3
    assert a != b
    ranks, _ = sig.average_ranks([[a, b, 0.5], [0.1, 0.2, 0.3]])
    assert list(ranks[0]) == [1.5, 1.5, 3]


def test_friedman_of_demsar_table6():
    fr = sig.friedman(DEMSAR_ERRORS, alpha=0.05)
    assert (fr.n_datasets, fr.n_algorithms) == (14, 4)
    assert fr.chi2 == pytest.approx(9.28, abs=0.005)          # Demšar: chi²_F = 9.28
    assert fr.f == pytest.approx(3.69, abs=0.005)             # Demšar: F_F = 3.69
    assert fr.f_df == (3, 39)
    assert fr.f_critical == pytest.approx(2.85, abs=0.005)    # Demšar: F(3, 39) = 2.85
    assert fr.f > fr.f_critical and fr.f_p < 0.05             # so the null is rejected
    assert fr.chi2_p == pytest.approx(stats.chi2.sf(fr.chi2, 3))
    assert fr.f_p == pytest.approx(stats.f.sf(fr.f, 3, 39))
    # SciPy's tie-corrected statistic on the same data (its own test's reference).
    assert fr.chi2_tie_corrected == pytest.approx(10.2283464566929, rel=1e-9)
    assert fr.chi2_tie_corrected_p == pytest.approx(0.0167215803284414, rel=1e-9)


def test_friedman_without_ties_is_scipys_statistic():
    rng = np.random.default_rng(5)
    x = rng.random((9, 5))
    fr = sig.friedman(x)
    ref = stats.friedmanchisquare(*x.T)
    assert fr.chi2 == pytest.approx(ref.statistic, rel=1e-12)
    assert fr.chi2_tie_corrected == pytest.approx(ref.statistic, rel=1e-12)
    n, k = x.shape
    assert fr.f == pytest.approx((n - 1) * fr.chi2 / (n * (k - 1) - fr.chi2))


def test_friedman_when_every_dataset_ranks_alike():
    x = np.array([[1.0, 2.0, 3.0], [1.5, 2.5, 3.5], [0.1, 0.2, 0.9]])
    fr = sig.friedman(x)
    assert fr.chi2 == pytest.approx(6.0)        # 12N/(k(k+1)) * (sum R² - k(k+1)²/4)
    assert math.isinf(fr.f) and fr.f_p == 0.0
    # No differences at all: chi²_F = 0, p = 1.
    fr0 = sig.friedman(np.ones((4, 3)))
    assert fr0.chi2 == 0.0 and fr0.chi2_p == pytest.approx(1.0) and fr0.f_p == pytest.approx(1.0)


# -- Nemenyi -----------------------------------------------------------------------------------

# Demšar (2006), Table 5: critical values of the two-tailed Nemenyi test, k = 2..10.
Q_005 = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
Q_010 = [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920]


@pytest.mark.parametrize("alpha, table", [(0.05, Q_005), (0.10, Q_010)])
def test_nemenyi_critical_values_of_demsar_table5(alpha, table):
    got = [sig.nemenyi_critical_value(k, alpha) for k in range(2, 11)]
    assert got == pytest.approx(table, abs=1e-3)


def test_critical_difference_of_demsar_example():
    assert sig.critical_difference(4, 14, 0.05) == pytest.approx(1.25, abs=0.005)
    assert sig.critical_difference(4, 14, 0.10) == pytest.approx(1.12, abs=0.005)
    comp = sig.compare(DEMSAR_ERRORS, alpha=0.05)
    assert comp.q_alpha == pytest.approx(2.569, abs=1e-3)
    # The largest difference (C4.5 against C4.5+m+cf, 1.179) is below CD: none differs,
    # and the four algorithms form one group.
    assert not any(p.nemenyi_differ for p in comp.pairs)
    assert comp.groups == (("C4.5+m+cf", "C4.5+m", "C4.5+cf", "C4.5"),)
    # At alpha = 0.10 (CD = 1.12), C4.5 differs from C4.5+m (1.143) and C4.5+m+cf (1.179).
    comp10 = sig.compare(DEMSAR_ERRORS, alpha=0.10)
    differ = {frozenset((p.first, p.second)) for p in comp10.pairs if p.nemenyi_differ}
    assert differ == {frozenset(("C4.5", "C4.5+m")), frozenset(("C4.5", "C4.5+m+cf"))}
    assert comp10.groups == (("C4.5+m+cf", "C4.5+m", "C4.5+cf"), ("C4.5+cf", "C4.5"))


def test_nemenyi_p_value_agrees_with_the_critical_difference():
    for k, n, alpha in [(4, 14, 0.05), (7, 8, 0.05), (3, 20, 0.10)]:
        cd = sig.critical_difference(k, n, alpha)
        assert sig.nemenyi_p_value(cd, k, n) == pytest.approx(alpha, abs=1e-6)
        assert sig.nemenyi_p_value(cd * 1.01, k, n) < alpha < sig.nemenyi_p_value(cd * 0.99,
                                                                                  k, n)


def test_a_rank_difference_of_exactly_cd_differs(monkeypatch):
    """Demšar: two algorithms differ when their ranks differ by "at least the critical
    difference" (CD is irrational in practice; here it is set to the difference)."""
    monkeypatch.setattr(sig, "critical_difference", lambda k, n, alpha: 1.0)
    comp = sig.compare(pd.DataFrame({"A": [1.0, 2.0, 3.0], "B": [2.0, 3.0, 4.0]}))
    assert comp.pairs[0].rank_difference == 1.0 and comp.pairs[0].nemenyi_differ
    assert comp.groups == ()


def test_nemenyi_groups_are_maximal_runs_below_cd():
    ranks = [1.0, 1.5, 2.4, 3.0, 3.9, 6.0]
    # Runs starting at each rank: [1, 2.4], [1.5, 3.0], [2.4, 3.9], [3.0, 3.9], [3.9], [6].
    assert sig.nemenyi_groups(ranks, 1.6) == [(0, 1, 2), (1, 2, 3), (2, 3, 4)]
    # A difference of exactly CD differs (Demšar: "at least the critical difference").
    assert sig.nemenyi_groups([1.0, 2.0], 1.0) == []
    assert sig.nemenyi_groups([2.0, 1.0, 3.0], 5.0) == [(1, 0, 2)]


# -- Wilcoxon and Holm -------------------------------------------------------------------------

def test_wilcoxon_of_demsar_table2():
    # First C4.5+m, second C4.5: R+ sums the datasets where C4.5+m has the lower error.
    w = sig.wilcoxon_signed_rank(DEMSAR_ERRORS["C4.5+m"], DEMSAR_ERRORS["C4.5"])
    assert (w.n, w.n_zero) == (14, 2)
    assert (w.r_plus, w.r_minus, w.statistic) == (93.0, 12.0, 12.0)
    assert w.statistic <= 21                    # the exact critical value, N = 14, 0.05
    assert w.p < 0.05
    n = 14
    z_demsar = (12 - n * (n + 1) / 4) / math.sqrt(n * (n + 1) * (2 * n + 1) / 24)
    assert z_demsar == pytest.approx(-2.542, abs=1e-3)
    assert w.z == pytest.approx(z_demsar, abs=5e-3)  # SciPy's z also corrects for ties
    # Swapping the two swaps the sums and keeps the test.
    back = sig.wilcoxon_signed_rank(DEMSAR_ERRORS["C4.5"], DEMSAR_ERRORS["C4.5+m"])
    assert (back.r_plus, back.r_minus) == (12.0, 93.0) and back.p == pytest.approx(w.p)


def test_wilcoxon_drops_one_zero_of_an_odd_number():
    first = np.zeros(6)
    second = np.array([0.0, 0.0, 0.0, 1.0, -2.0, 3.0])
    w = sig.wilcoxon_signed_rank(first, second)
    # Left: 0, 0, 1, -2, 3 -> ranks 1.5, 1.5, 3, 4, 5; the zeros' ranks split.
    assert (w.n, w.n_zero) == (5, 2)
    assert (w.r_plus, w.r_minus, w.statistic) == (9.5, 5.5, 5.5)
    assert w.statistic == stats.wilcoxon(second[1:], zero_method="zsplit").statistic


def test_wilcoxon_of_identical_algorithms():
    w = sig.wilcoxon_signed_rank([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    assert w.p == 1.0 and w.z == 0.0


def test_wilcoxon_exact_without_ties():
    rng = np.random.default_rng(2)
    a, b = rng.random(10), rng.random(10)
    w = sig.wilcoxon_signed_rank(a, b)
    ref = stats.wilcoxon(b - a, method="exact")
    assert w.statistic == ref.statistic and w.p == pytest.approx(ref.pvalue)
    assert w.r_plus + w.r_minus == 55


# Derrac et al. (2011), Table 16: unadjusted p-values against the control and Holm's APVs.
DERRAC_P = [0.000006, 0.000332, 0.009823, 0.014171, 0.083642, 0.141093, 0.518605, 0.660706]
DERRAC_HOLM = [0.000050, 0.002324, 0.058940, 0.070857, 0.334569, 0.423278, 1.0, 1.0]


def test_holm_of_derrac_table16():
    # The printed p-values are rounded to 6 decimals; times m = 8 that is up to 4e-6.
    assert sig.holm(DERRAC_P) == pytest.approx(DERRAC_HOLM, abs=8 * 5e-7)
    # Any order in, the same order out.
    assert sig.holm(DERRAC_P[::-1]) == pytest.approx(DERRAC_HOLM[::-1], abs=8 * 5e-7)


def test_holm_step_down():
    assert sig.holm([0.01, 0.02, 0.03]) == pytest.approx([0.03, 0.04, 0.04])
    assert sig.holm([0.04, 0.001]) == pytest.approx([0.04, 0.002])
    rng = np.random.default_rng(0)
    p = rng.random(12) ** 3
    adj = sig.holm(p)
    assert np.all(adj >= p) and np.all(adj <= np.minimum(1, 12 * p) + 1e-15)
    order = np.argsort(p)
    assert np.all(np.diff(adj[order]) >= 0)
    # Holm rejects exactly what the sequential procedure rejects at alpha.
    for alpha in (0.01, 0.05, 0.2):
        rejected = set()
        for i, j in enumerate(order):
            if p[j] > alpha / (12 - i):
                break
            rejected.add(j)
        assert rejected == set(np.flatnonzero(adj <= alpha))


def test_compare_families_of_demsar_table6():
    comp = sig.compare(DEMSAR_ERRORS, alpha=0.05)
    assert comp.best == "C4.5+m+cf"
    assert [comp.algorithms[i] for i in comp.rank_order] == [
        "C4.5+m+cf", "C4.5+m", "C4.5+cf", "C4.5"]
    assert len(comp.pairs) == 6
    vs_best = [p for p in comp.pairs if p.first == "C4.5+m+cf"]
    assert len(vs_best) == 3
    assert [p.holm_p_vs_best for p in vs_best] == pytest.approx(
        sig.holm([p.wilcoxon.p for p in vs_best]))
    assert [p.holm_p for p in comp.pairs] == pytest.approx(
        sig.holm([p.wilcoxon.p for p in comp.pairs]))
    assert all(math.isnan(p.holm_p_vs_best) for p in comp.pairs if p.first != "C4.5+m+cf")
    for p in comp.pairs:      # the first is the better ranked
        assert p.rank_difference >= 0
        i, j = comp.algorithms.index(p.first), comp.algorithms.index(p.second)
        assert p.wilcoxon == sig.wilcoxon_signed_rank(comp.errors[:, i], comp.errors[:, j])


def test_compare_refuses_bad_input():
    with pytest.raises(ValueError, match=r"alpha: 1.5 is not valid"):
        sig.compare(DEMSAR_ERRORS, alpha=1.5)
    with pytest.raises(ValueError, match="at least 2"):
        sig.compare(DEMSAR_ERRORS.iloc[:1])
    bad = DEMSAR_ERRORS.copy()
    bad.iloc[0, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        sig.compare(bad)


# -- a table of the report ---------------------------------------------------------------------

CONFIG = {
    "experiment": "sig", "datasets": ["d1", "d2", "d3", "d4"],
    "tables": [
        {"id": "t", "title": "T", "algorithms": [
            {"algorithm": "samme", "label": "A"}, {"algorithm": "samme", "label": "B",
                                                   "params": {"max_depth": 2}},
            {"algorithm": "samme", "label": "C", "params": {"max_depth": 3}}]},
        {"id": "one", "title": "One", "datasets": ["d1"], "algorithms": [
            {"algorithm": "samme", "label": "A"}, {"algorithm": "samme", "label": "B",
                                                   "params": {"max_depth": 2}}]},
    ],
}


def _config(extra=None):
    return validate_config({**CONFIG, **(extra or {})}, "sig.yaml", "",
                           known_datasets=["d1", "d2", "d3", "d4"], split_datasets=[])


def _summary(rows):
    """Summary rows (table, dataset, algorithm, mean, n, n_no_fit, complete) at noise 0."""
    return pd.DataFrame([{"table": t, "dataset": d, "noise_rate": 0.0, "algorithm": a,
                          "mean": m, "std": 0.0, "n": n, "n_no_fit": nf, "n_planned": 5,
                          "complete": c} for t, d, a, m, n, nf, c in rows])


SUMMARY = _summary([
    ("t", "d1", "A", 10.0, 5, 0, True), ("t", "d1", "B", 12.0, 5, 0, True),
    ("t", "d1", "C", 11.0, 5, 0, True),
    ("t", "d2", "A", 20.0, 5, 0, True), ("t", "d2", "B", 25.0, 5, 0, True),
    ("t", "d2", "C", 21.0, 5, 0, True),
    ("t", "d3", "A", 5.0, 3, 0, False), ("t", "d3", "B", 6.0, 5, 0, True),
    ("t", "d3", "C", np.nan, 5, 5, True),
    ("t", "d4", "A", 1.0, 5, 0, True), ("t", "d4", "B", 3.0, 5, 0, True),
    ("t", "d4", "C", 2.0, 5, 0, True),
    ("one", "d1", "A", 10.0, 5, 0, True), ("one", "d1", "B", 12.0, 5, 0, True),
])


def test_error_matrix_drops_datasets_and_says_why():
    config = _config()
    matrix, dropped = sig.error_matrix(SUMMARY, config.tables[0], 0.0)
    assert list(matrix.index) == ["d1", "d2", "d4"] and list(matrix.columns) == ["A", "B", "C"]
    assert matrix.loc["d2"].tolist() == [20.0, 25.0, 21.0]
    assert dropped == {"d3": "A: 3 of 5 folds; C: no fit on 5 of 5 folds"}
    # Without C, d3 still lacks A's folds; without A and C it is kept.
    matrix_b, dropped_b = sig.error_matrix(SUMMARY, config.tables[0], 0.0, ["B"])
    assert list(matrix_b.index) == ["d1", "d2", "d3", "d4"] and not dropped_b


def test_write_comparisons_files_and_skips(tmp_path):
    config = _config()
    lines, paths = sig.write_comparisons(config, SUMMARY, tmp_path, alpha=0.05, fmt="svg")
    assert [p.name for p in paths] == ["t_cd.svg", "t.md", "t.csv"]
    assert lines[0].startswith("t: N = 3 datasets, k = 3; ") and "best A (rank 1.00)" in lines[0]
    assert "left out: d3 (A: 3 of 5 folds; C: no fit on 5 of 5 folds)" in lines[0]
    assert lines[1].startswith("one: skipped: 1 dataset(s)")
    md = (tmp_path / "t.md").read_text()
    assert "Datasets (N = 3): d1, d2, d4." in md and "t_cd.svg" in md
    csv = pd.read_csv(tmp_path / "t.csv")
    assert len(csv) == 3 and set(csv["first"]) == {"A", "C"}
    assert csv["n_datasets"].eq(3).all()
    # Again: the same files, byte for byte (the SVG too).
    before = {p.name: p.read_bytes() for p in paths}
    sig.write_comparisons(config, SUMMARY, tmp_path, alpha=0.05, fmt="svg")
    assert {p.name: p.read_bytes() for p in paths} == before


def test_cd_diagram_layout_and_file(tmp_path):
    names = ["w", "x", "y", "z", "v"]
    ranks = [4.5, 1.2, 2.0, 3.1, 4.2]
    lay = diagram_layout(names, ranks, 1.5, [("x", "y"), ("z", "v", "w")])
    # Better three on the left, best first; the other two on the right, worst first.
    assert [(names[j], side) for j, side, _ in lay.rows] == [
        ("x", "left"), ("y", "left"), ("z", "left"), ("w", "right"), ("v", "right")]
    left_y = [y for _, side, y in lay.rows if side == "left"]
    assert left_y == sorted(left_y)
    assert [(a, b) for a, b, _ in lay.group_bars] == [(1.2, 2.0), (3.1, 4.5)]
    assert (lay.lo, lay.hi) == (1.0, 5.0)
    assert diagram_layout(names, ranks, 6.2, []).hi == 8.0     # the CD bar fits
    png = draw_cd_diagram(names, ranks, 1.5, [("x", "y")], tmp_path / "cd.png", title="T")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# -- the command -------------------------------------------------------------------------------

def test_stats_section_of_a_config():
    config = _config({"stats": {"alpha": 0.1, "format": "svg", "tables": ["t"]}})
    assert (config.stats.alpha, config.stats.format, config.stats.tables) == (0.1, "svg", ("t",))
    assert _config().stats.alpha == 0.05
    for bad, match in [({"alpha": 0}, r"stats.alpha: 0 is not valid"),
                       ({"format": "pdf"}, r"stats.format: 'pdf' is not valid"),
                       ({"tables": ["x"]}, r"stats.tables\[0\]: 'x' is not valid"),
                       ({"level": 1}, r"stats.level: unknown key")]:
        with pytest.raises(UserError, match=match):
            _config({"stats": bad})


def _invoke(args):
    return CliRunner().invoke(main, args, catch_exceptions=False)


@pytest.mark.parametrize("args, message", [
    (["--table", "nope"], "error: --table nope: not a table of"),
    (["--alpha", "1.5"], "error: --alpha: 1.5 is not valid; expected a number in (0, 1)"),
    (["--alpha", "0"], "error: --alpha: 0.0 is not valid"),
    (["--format", "jpg"], "error: Invalid value for '--format'"),
    (["--algorithms", "Nope"], "error: --algorithms Nope: not a column"),
])
def test_compare_bad_input_is_one_line(args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    res = _invoke(["compare", "configs/directboost.yaml", "--output-dir", str(tmp_path / "o"),
                   *args])
    assert res.exit_code == 2
    assert message in res.output and "Traceback" not in res.output
    assert len(res.output.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()


def test_compare_on_committed_results(tmp_path, monkeypatch):
    """The DirectBoost paper's committed results: Table 1 is compared from the same numbers
    as its committed table, nothing is fitted, the committed files stay as they are."""
    monkeypatch.chdir(REPO)
    results = REPO / "results" / "directboost_nips13"
    before = {p.name: p.stat().st_mtime_ns for p in results.iterdir()}
    out = tmp_path / "sig"
    res = _invoke(["compare", "configs/directboost.yaml", "--table", "table1",
                   "--output-dir", str(out)])
    assert res.exit_code == 0, res.output
    assert res.output.count("\n") >= 1 and "table1: N = " in res.output
    assert {p.name for p in out.iterdir()} == {"table1.md", "table1.csv", "table1_cd.png"}
    assert {p.name: p.stat().st_mtime_ns for p in results.iterdir()} == before
    # The matrix holds the committed table's means of its complete cells, on the datasets
    # where every column has one.
    committed = pd.read_csv(results / "table1.csv")
    k = committed["algorithm"].nunique()
    complete = committed[committed["complete"].astype(bool) & (committed["n_no_fit"] == 0)]
    full = complete.groupby("dataset")["algorithm"].count()
    kept = set(full[full == k].index)
    md = (out / "table1.md").read_text()
    assert f"Datasets (N = {len(kept)}): " in md
    expected = complete[complete["dataset"].isin(kept)].groupby("algorithm")["mean"].mean()
    shown = {}
    for row in md.split("| algorithm | average rank | mean test error % |")[1].splitlines()[2:]:
        if not row.startswith("|"):
            break
        name, _, mean = [c.strip() for c in row.strip("|").split("|")]
        shown[name] = float(mean)
    assert shown == pytest.approx(expected.round(2).to_dict(), abs=0.006)
    csv = pd.read_csv(out / "table1.csv")
    assert len(csv) == k * (k - 1) // 2 and csv["n_datasets"].eq(len(kept)).all()


def test_signed_rank_p_is_scipys_wilcoxon_p_with_ties_and_zeros():
    # The permutation case is run through permutation_test with a vectorised R+
    # (_signed_rank_p); its p must be SciPy's wilcoxon's, bit for bit, in every case SciPy's
    # "auto" takes: permutations (ties or zeros, N <= 13), exact, asymptotic (N > 13, ties).
    rng = np.random.default_rng(7)
    cases = [np.array([0.5, -0.5, 1.0, 0.0, 2.0, -1.5, 0.5, 1.0, 0.0, -2.0, 0.5, 1.5]),
             np.array([0.1, 0.2, -0.3, 0.4, 0.5, 0.6, -0.7])]
    for n in (2, 3, 5, 6, 8, 9, 10, 11):
        cases.append(rng.integers(-3, 4, size=n) * 0.5)
    cases.append(rng.integers(-3, 4, size=16) * 0.5)
    taken = set()
    for d in cases:
        if not np.any(d != 0):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = float(stats.wilcoxon(d, zero_method="zsplit", method="auto").pvalue)
        assert sig._signed_rank_p(d) == want, d
        tied = len(np.unique(np.abs(d))) < len(d) or np.any(d == 0)
        taken.add("permutation" if tied and len(d) <= 13 else "scipy")
    assert taken == {"permutation", "scipy"}
