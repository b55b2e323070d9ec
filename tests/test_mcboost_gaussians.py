"""The MCBoost paper's synthetic data (sec. 5.1): the generator, its closed-form Bayes rule and
the population Bayes error (``datasets/generators/mcboost_gaussians.py``)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from mcboost_cli.datasets import load_dataset
from mcboost_cli.datasets.generators import BAYES_RULES
from mcboost_cli.datasets.generators.mcboost_gaussians import (
    COVARIANCES,
    MEANS,
    bayes_error,
    bayes_log_scores,
    bayes_predict,
    mcboost_gaussians,
)

# The paper's parameters, typed in again from sec. 5.1 (not imported), so a typo in the module
# fails here.
PAPER_MEANS = [[1, 2], [-1, 0], [2, -1]]
PAPER_COVS = [[[1, 0.5], [0.5, 2]], [[1, 0.3], [0.3, 1]], [[0.4, 0.1], [0.1, 0.8]]]


@pytest.fixture(scope="module")
def population_error():
    return bayes_error()


def test_parameters_are_the_papers():
    assert np.array_equal(MEANS, PAPER_MEANS) and np.array_equal(COVARIANCES, PAPER_COVS)


def test_class_conditional_moments_match_the_paper():
    """Sample mean and covariance of each class of a large draw: within 5 standard errors."""
    data = mcboost_gaussians(n=60000, n_test=0, seed=3)
    for k in range(3):
        Xk = data.X[data.y == k]
        n = Xk.shape[0]
        var = np.diag(COVARIANCES[k])
        np.testing.assert_array_less(np.abs(Xk.mean(axis=0) - MEANS[k]), 5 * np.sqrt(var / n))
        # Var of a sample covariance entry (Gaussian): (s_ii s_jj + s_ij^2) / n.
        se = np.sqrt((np.outer(var, var) + COVARIANCES[k] ** 2) / n)
        np.testing.assert_array_less(np.abs(np.cov(Xk.T) - COVARIANCES[k]), 5 * se)


def test_labels_iid_equal_priors_or_balanced_counts():
    iid = mcboost_gaussians(n=30000, n_test=0, seed=4)
    frac = np.bincount(iid.y, minlength=3) / iid.y.size
    np.testing.assert_allclose(frac, 1 / 3, atol=5 * np.sqrt(2 / 9 / iid.y.size))
    bal = mcboost_gaussians(n=1000, n_test=1000, seed=4, balanced=True)
    assert np.bincount(bal.y[~bal.test_mask]).tolist() == [334, 333, 333]
    assert np.bincount(bal.y[bal.test_mask]).tolist() == [334, 333, 333]
    assert not np.array_equal(bal.y[:50], np.sort(bal.y[:50]))     # rows shuffled


def test_split_and_seed_zero_are_the_mcboost_test_samples():
    """Seed 0 draws the very samples of tests/test_mcboost.py::synthetic_example (training
    labels, training features by class, then the test set alike, from PCG64(0))."""
    data = mcboost_gaussians()
    assert data.X.shape == (2000, 2) and data.test_mask.sum() == 1000
    assert np.flatnonzero(data.test_mask).tolist() == list(range(1000, 2000))
    rng = np.random.default_rng(0)
    for part in (slice(0, 1000), slice(1000, 2000)):
        y = rng.integers(0, 3, 1000)
        X = np.empty((1000, 2))
        for k in range(3):
            X[y == k] = rng.multivariate_normal(PAPER_MEANS[k], PAPER_COVS[k], size=(y == k).sum())
        assert np.array_equal(data.y[part], y) and np.array_equal(data.X[part], X)


def test_catalog_entry_loads_the_generator():
    ds = load_dataset("mcboost-gaussians")
    ref = mcboost_gaussians(n=1000, n_test=1000, seed=0)
    assert np.array_equal(ds.X, ref.X) and np.array_equal(ds.y, ref.y)
    assert np.array_equal(ds.test_mask, ref.test_mask)
    assert ds.classes == ("1", "2", "3") and ds.n_features == 2


def test_bayes_rule_is_the_posterior_argmax():
    """Cross-check of the closed form against scipy's Gaussian densities."""
    pts = np.random.default_rng(5).uniform(-5, 6, size=(5000, 2))
    dens = np.column_stack([multivariate_normal(MEANS[k], COVARIANCES[k]).logpdf(pts)
                            for k in range(3)])
    np.testing.assert_allclose(bayes_log_scores(pts), dens + np.log(1 / 3), rtol=1e-12,
                               atol=1e-10)
    assert np.array_equal(bayes_predict(pts), np.argmax(dens, axis=1))
    assert BAYES_RULES["mcboost_gaussians"] is bayes_predict
    # Near each mean (well inside its own region) the rule answers that class.
    assert bayes_predict(MEANS).tolist() == [0, 1, 2]


def test_population_error_integration_is_accurate(population_error):
    """The midpoint rule of step 0.02 agrees with step 0.01 to 1e-6; the value is the one
    written in the docstring, ALGORITHMS.md and the catalog (11.445%)."""
    assert abs(population_error - bayes_error(step=0.01)) < 1e-6
    assert population_error == pytest.approx(0.1144502, abs=1e-6)


def test_bayes_rule_error_on_a_fresh_sample_matches_the_population(population_error):
    data = mcboost_gaussians(n=400000, n_test=0, seed=11)
    err = float(np.mean(bayes_predict(data.X) != data.y))
    se = np.sqrt(population_error * (1 - population_error) / data.y.size)
    assert abs(err - population_error) < 4 * se             # 4 SE = 0.002


@pytest.mark.parametrize("shift", [(0.3, 0, 0), (0, -0.4, 0), (0, 0, 0.5)])
def test_perturbed_rule_has_a_larger_population_error(population_error, shift):
    """The Bayes rule is the least-error rule: shifting one class's log prior costs error, by
    far more than the integration error; and the integrated error of the perturbed rule agrees
    with a Monte Carlo estimate."""
    log_priors = np.log(np.full(3, 1 / 3)) + np.array(shift)
    worse = bayes_error(log_priors=log_priors)
    assert worse > population_error + 5e-4
    data = mcboost_gaussians(n=200000, n_test=0, seed=12)
    mc = float(np.mean(bayes_predict(data.X, log_priors) != data.y))
    assert abs(mc - worse) < 4 * np.sqrt(worse * (1 - worse) / data.y.size)


def test_bayes_error_of_our_samples():
    """Our analogue of the paper's 11.67% (training) and 11.13% (test): the Bayes rule's
    error on the catalog entry's two samples (seed 0), as written in ALGORITHMS.md."""
    ds = load_dataset("mcboost-gaussians")
    wrong = bayes_predict(ds.X) != ds.y
    assert wrong[~ds.test_mask].mean() == pytest.approx(0.106, abs=1e-12)
    assert wrong[ds.test_mask].mean() == pytest.approx(0.106, abs=1e-12)


def test_bad_arguments():
    with pytest.raises(ValueError, match="non-negative"):
        mcboost_gaussians(n=-1)
    with pytest.raises(ValueError, match="shape"):
        bayes_predict(np.zeros((3, 3)))
