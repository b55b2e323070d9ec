"""The MCBoost paper's synthetic example: three two-dimensional Gaussian classes, with the
Bayes rule and its error in closed form -- random by definition, so in distribution.

Source: Saberian, M. J. and Vasconcelos, N. (2011), *Multiclass boosting: theory and
algorithms*, NIPS 24, sec. 5.1: "a three class problem, with two-dimensional Gaussian classes of
means [1, 2], [-1, 0], [2, -1] and covariances of [1,0.5;0.5,2], [1,0.3;0.3,1],
[.4,0.1;0.1,0.8] respectively. Training and test sets of 1,000 examples each were randomly
sampled and the Bayes rule computed in closed form. The associated Bayes error rate was 11.67%
in the training and 11.13% in the test set."

Map of the module
-----------------
``mcboost_gaussians``   the rows: ``n`` training then ``n_test`` test rows (``test_mask``)
``bayes_log_scores``    log prior + log Gaussian density of every class at any points
``bayes_predict``       the Bayes rule: the class of the largest posterior
``bayes_error``         the population error of a rule of that form, by numerical integration
``MEANS``, ``COVARIANCES``, ``PRIORS``   the paper's parameters (priors: our reading)

Readings (ALGORITHMS.md, "The paper's synthetic example"). The paper gives neither the class
priors nor how labels were drawn. ``balanced=False`` (the default) draws each label i.i.d.
uniform on the three classes (equal priors), then x from its class's Gaussian: this is the
distribution whose Bayes rule is the closed form the paper computes, and 1000 rows cannot be
split into three equal classes anyway. ``balanced=True`` is the other reading, fixed class
counts as equal as possible (334, 333, 333 of 1000), rows shuffled.

Random draws (``balanced=False``): ``Generator(PCG64(seed))`` draws the training labels
(``integers(0, 3, n)``), then the training features class by class (``multivariate_normal``),
then the test rows the same way; so seed 0 gives the very samples of
``tests/test_mcboost.py::synthetic_example``.

Classes ``'1', '2', '3'`` (codes 0, 1, 2, in the paper's order of the means); features
``x1, x2``.
"""

from __future__ import annotations

import numpy as np

from ..._dtypes import X_DTYPE, Y_DTYPE
from ._base import GeneratedData, rng_for

__all__ = ["CLASSES", "COVARIANCES", "MEANS", "PRIORS", "bayes_error", "bayes_log_scores",
           "bayes_predict", "mcboost_gaussians"]

CLASSES = ("1", "2", "3")
MEANS = np.array([[1.0, 2.0], [-1.0, 0.0], [2.0, -1.0]])
COVARIANCES = np.array([[[1.0, 0.5], [0.5, 2.0]],
                        [[1.0, 0.3], [0.3, 1.0]],
                        [[0.4, 0.1], [0.1, 0.8]]])
PRIORS = np.full(3, 1.0 / 3.0)      # our reading: equal priors (the paper does not say)


def _draw(rng: np.random.Generator, n: int, balanced: bool) -> tuple[np.ndarray, np.ndarray]:
    if balanced:
        y = np.repeat(np.arange(3), [n // 3 + (k < n % 3) for k in range(3)])
        y = rng.permutation(y)
    else:
        y = rng.integers(0, 3, n)
    X = np.empty((n, 2))
    for k in range(3):
        rows = y == k
        X[rows] = rng.multivariate_normal(MEANS[k], COVARIANCES[k], size=int(rows.sum()))
    return X, y


def mcboost_gaussians(n: int = 1000, n_test: int = 1000, seed: int = 0,
                      balanced: bool = False) -> GeneratedData:
    """``n`` training and ``n_test`` test rows of the three Gaussian classes.

    Parameters
    ----------
    n, n_test : int
        Rows of the training and of the test part (the paper: 1000 each).
    seed : int
        Seed of ``Generator(PCG64(seed))``.
    balanced : bool
        False: labels i.i.d. uniform (equal priors); True: class counts as equal as possible
        in each part (the module docstring gives both readings).

    Returns
    -------
    GeneratedData
        X: (n + n_test, 2) float64; y: codes 0, 1, 2; ``test_mask`` marks the last ``n_test``
        rows (None when ``n_test == 0``).
    """
    if isinstance(n, bool) or isinstance(n_test, bool) or n < 0 or n_test < 0:
        raise ValueError(f"n and n_test must be non-negative integers, got {n!r}, {n_test!r}")
    rng = rng_for(seed)
    X, y = _draw(rng, int(n), bool(balanced))
    Xt, yt = _draw(rng, int(n_test), bool(balanced))
    test_mask = None
    if n_test:
        test_mask = np.zeros(n + n_test, dtype=bool)
        test_mask[n:] = True
    return GeneratedData(
        X=np.concatenate([X, Xt]).astype(X_DTYPE), y=np.concatenate([y, yt]).astype(Y_DTYPE),
        classes=CLASSES, feature_names=("x1", "x2"), categorical=np.zeros(2, dtype=bool),
        test_mask=test_mask, categories=(None, None),
        source=f"generator mcboost_gaussians(n={n}, n_test={n_test}, seed={seed}, "
               f"balanced={bool(balanced)}): MCBoost paper's three Gaussians (in distribution)")


def bayes_log_scores(X, log_priors=None) -> np.ndarray:
    """log prior + log N(x; mean_k, cov_k) of every class k at every point.

    Parameters
    ----------
    X : array-like (n_points, 2)
    log_priors : array-like (3,), optional
        Default: log of ``PRIORS``. Other values give other rules of the same form (a test
        perturbs them to show that the Bayes rule's error is the least).

    Returns
    -------
    ndarray (n_points, 3)
        The log of prior x density (the log posterior up to a per-point constant).
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"X must have shape (n_points, 2), got {X.shape}")
    log_priors = np.log(PRIORS) if log_priors is None else np.asarray(log_priors, float)
    out = np.empty((X.shape[0], 3))
    for k in range(3):
        d = X - MEANS[k]
        inv = np.linalg.inv(COVARIANCES[k])
        maha = np.einsum("ij,jk,ik->i", d, inv, d)
        _, logdet = np.linalg.slogdet(COVARIANCES[k])
        out[:, k] = log_priors[k] - 0.5 * maha - 0.5 * logdet - np.log(2.0 * np.pi)
    return out


def bayes_predict(X, log_priors=None) -> np.ndarray:
    """The Bayes rule: class code (0, 1, 2) of the largest posterior at every point (the
    lowest code on an exact tie); with ``log_priors`` the rule of those priors instead."""
    return np.argmax(bayes_log_scores(X, log_priors), axis=1).astype(Y_DTYPE)


def bayes_error(step: float = 0.02, log_priors=None, half_width: float = 9.0) -> float:
    """Population 0-1 error of the rule ``bayes_predict(., log_priors)`` under the true
    distribution (equal priors), by the midpoint rule on a square grid.

    error = 1 - sum_k PRIORS[k] * P_k(rule(x) = k)
          = 1 - integral of PRIORS[rule(x)] * N(x; mean_rule(x), cov_rule(x)) dx.

    For the Bayes rule itself the integrand is max_k PRIORS[k] N(x; mean_k, cov_k): continuous,
    with kinks only on the decision boundaries, so the midpoint rule's error falls as step²;
    the Bayes error is 0.1144502 (step 0.02, 0.01 and 0.005 agree to 1e-7;
    ``tests/test_mcboost_gaussians.py`` checks that halving the default step changes the result
    by less than 1e-6). For another rule the integrand jumps at that rule's boundaries and the
    error falls as step only (still far below Monte Carlo noise at the default step).

    Parameters
    ----------
    step : float
        Grid spacing. The default (0.02) integrates in under a second.
    log_priors : array-like (3,), optional
        The priors of the rule whose error is wanted (default: the true ones, the Bayes rule).
    half_width : float
        The grid covers every mean +- half_width in both coordinates: at least 6.3 standard
        deviations of every class along each axis for the default 9, so the mass left out is
        below 1e-9.

    Returns
    -------
    float
    """
    lo = MEANS.min(axis=0) - half_width
    hi = MEANS.max(axis=0) + half_width
    x1 = np.arange(lo[0] + step / 2, hi[0], step)
    x2 = np.arange(lo[1] + step / 2, hi[1], step)
    true_log_priors = np.log(PRIORS)
    correct = 0.0
    for start in range(0, x2.size, 256):               # rows of the grid, a block at a time
        g1, g2 = np.meshgrid(x1, x2[start:start + 256])
        pts = np.column_stack([g1.ravel(), g2.ravel()])
        true = bayes_log_scores(pts, true_log_priors)
        rule = true if log_priors is None else bayes_log_scores(pts, log_priors)
        pick = np.argmax(rule, axis=1)
        correct += float(np.exp(true[np.arange(pts.shape[0]), pick]).sum())
    return 1.0 - correct * step * step
