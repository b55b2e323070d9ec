"""The scikit-learn estimator API of every algorithm: base classes, fitted check, input
validation.

Every registered algorithm is a scikit-learn classifier (issue 35): ``BaseBoosting`` derives
from ``ESTIMATOR_BASES`` — scikit-learn's ``ClassifierMixin`` and ``BaseEstimator`` when
scikit-learn is importable — and validates its input here, so ``clone``, ``Pipeline``,
``GridSearchCV``, ``cross_val_score`` and scikit-learn's ``check_estimator``
(``tests/test_sklearn_compat.py``) take it as one of their own, and ``fit``, ``predict``,
``decision_function`` and ``score`` refuse bad input with one line.

scikit-learn stays an optional extra (``pip install -e '.[sklearn]'``): without it
``ESTIMATOR_BASES`` is empty and nothing else changes — ``BaseBoosting``'s own ``get_params``,
``set_params`` and ``__repr__`` are used in both cases (so a repr, a parameter dict and a fit's
checkpoint fingerprint are the same with and without scikit-learn), the validation below is
ours in both cases (one-line messages, the project's bad-input standard; scikit-learn's
``validate_data`` writes several lines), and what the bases add — the tags' defaults,
``isinstance(est, BaseEstimator)``, the HTML repr, metadata routing — is read only by
scikit-learn itself. The fallback is therefore no copy of scikit-learn.

The cost of the inheritance is scikit-learn's import, which pulls in most of SciPy: 2.2-2.4 s
in every process that imports the algorithms (measured 2026-11-29: the registry's import 2.9-3.2
s with scikit-learn installed, 0.7-0.8 s without). The ``mcboost`` command never hands its
estimators to scikit-learn, and it starts a process per command and per worker, so its entry
point (``cli.console_main``) sets ``MCBOOST_SKLEARN_BASES=0`` (``SKLEARN_BASES_ENV``), which
its worker processes inherit: there the bases are those of the core install, as if
scikit-learn were absent. Nothing the runner stores differs (the paragraph above; the SVM and
MLP baselines import scikit-learn inside their fit as before). Any other value, or none —
every ``import mcboost_cli`` in a user's own program — keeps scikit-learn's bases.

``NotFittedError`` and ``DataConversionWarning`` are scikit-learn's when it is importable
(its ``check_is_fitted`` and tests catch them by class), else a ``ValueError`` /
``AttributeError`` and a ``UserWarning`` of the same names.

Validation
----------
``check_X(est, X, reset)``: a ``learners.binning.Binned`` (the runner's folds) passes with its
column count checked; anything else becomes a float64 matrix (the values every algorithm
converted to before, so no number changes) after one-line refusals of sparse matrices,
complex numbers, non-numeric values, arrays that are not 2-d, empty matrices and, at
prediction, another number of features than in ``fit``. Missing values (NaN) are accepted:
the binned learners put them in their missing bin; an algorithm that reads values and cannot
take them (SVM, MLP, REBEL's similarities) refuses them itself, and says so in its tags
(``BaseBoosting._accepts_missing_values``).

``check_y(est, y, n_samples)``: the labels of a classifier, of any one type (integers,
negative ones included, strings, booleans, integral floats), as a 1-d array; a column vector
is flattened with a ``DataConversionWarning`` (scikit-learn's rule); ``None``, NaN, infinity,
non-integral numbers ("continuous"), complex numbers, strings mixed with numbers and
multi-output targets are refused.

References
----------
scikit-learn developers, "Developing scikit-learn estimators" (rolling your own estimator,
estimator tags), https://scikit-learn.org/stable/developers/develop.html
"""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np

from .._dtypes import X_DTYPE
from ..learners.binning import Binned

#: The environment variable that, set to ``0``, keeps scikit-learn out of the bases (and out of
#: the process's imports); ``cli.console_main`` sets it (module docstring).
SKLEARN_BASES_ENV = "MCBOOST_SKLEARN_BASES"

try:
    if os.environ.get(SKLEARN_BASES_ENV, "").strip() == "0":
        raise ImportError(f"{SKLEARN_BASES_ENV}=0")
    from sklearn.base import BaseEstimator as _SklearnBaseEstimator
    from sklearn.base import ClassifierMixin as _SklearnClassifierMixin
    from sklearn.exceptions import DataConversionWarning as _SklearnDataConversionWarning
    from sklearn.exceptions import NotFittedError as _SklearnNotFittedError
except ImportError:          # the core install (scikit-learn is an optional extra), or opted out
    SKLEARN_AVAILABLE = False
    #: The bases of ``BaseBoosting`` besides ``ABC``: scikit-learn's classifier mixin and base
    #: estimator (the mixin first, as scikit-learn requires), or none without scikit-learn.
    ESTIMATOR_BASES: tuple[type, ...] = ()

    class NotFittedError(ValueError, AttributeError):
        """Raised by ``predict`` and its kin before ``fit`` (scikit-learn's, when present)."""

    class DataConversionWarning(UserWarning):
        """A column-vector y was flattened (scikit-learn's, when present)."""
else:
    SKLEARN_AVAILABLE = True
    ESTIMATOR_BASES = (_SklearnClassifierMixin, _SklearnBaseEstimator)
    NotFittedError = _SklearnNotFittedError
    DataConversionWarning = _SklearnDataConversionWarning


def _name(est) -> str:
    return type(est).__name__


def _is_sparse(X) -> bool:
    # A SciPy sparse matrix exists only once scipy.sparse is imported: no import for the check.
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and sparse.issparse(X)


def check_fitted(est) -> None:
    """Raise ``NotFittedError`` (one line) unless ``est`` has been fitted."""
    if not est.__sklearn_is_fitted__():
        raise NotFittedError(f"this {_name(est)} instance is not fitted yet; call "
                             f"fit(X, y) before using it")


def check_X(est, X, reset: bool):
    """X as the algorithms take it: a ``Binned`` as it is, else a float64 matrix.

    Parameters
    ----------
    est : BaseBoosting
    X : array-like (n_samples, n_features) or Binned
    reset : bool
        True in ``fit`` (X must have rows and columns); False afterwards (X must have
        ``est.n_features_in_`` columns).

    Raises
    ------
    ValueError, TypeError
        One line naming what is wrong with X and what would be right.
    """
    if isinstance(X, Binned):
        n_features = X.codes.shape[1]
    else:
        if X is None:
            raise ValueError(f"{_name(est)} needs a feature matrix X (n_samples, n_features), "
                             f"got None")
        if _is_sparse(X):
            raise ValueError(f"{_name(est)} does not take sparse input (X is a "
                             f"{type(X).__name__}); pass a dense array, e.g. X.toarray()")
        X = np.asarray(X)
        if np.iscomplexobj(X):
            raise ValueError("Complex data not supported: X holds complex numbers; give real "
                             "feature values")
        if X.dtype != X_DTYPE:
            try:
                X = X.astype(X_DTYPE)
            except (TypeError, ValueError) as e:
                # The type is kept: "argument must be a string or a number" is a TypeError.
                raise type(e)(f"X must hold numbers: {e}; encode categorical features as "
                              f"numbers") from None
        if X.ndim != 2:
            raise ValueError(f"X must be a 2-d array (n_samples, n_features), got a "
                             f"{X.ndim}-d array of shape {X.shape}; Reshape your data: "
                             f"X.reshape(-1, 1) for one feature, X.reshape(1, -1) for one "
                             f"sample")
        if reset and X.shape[0] == 0:
            raise ValueError(f"X has 0 sample(s) (shape={X.shape}) while a minimum of 1 is "
                             f"required: give at least one row")
        n_features = X.shape[1]
    if reset:
        if n_features == 0:
            raise ValueError(f"X has 0 feature(s) (shape={tuple(np.shape(X))}) while a "
                             f"minimum of 1 is required: give at least one feature column")
    elif n_features != est.n_features_in_:
        raise ValueError(f"X has {n_features} features, but {_name(est)} is expecting "
                         f"{est.n_features_in_} features as input")
    return X


def check_y(est, y, n_samples: int) -> np.ndarray:
    """The class labels y as a 1-d array of ``n_samples`` labels of one type.

    Integers (negative ones too), strings, booleans and integral floats are labels; the
    array is returned as given (a column vector flattened, with a ``DataConversionWarning``),
    so the classes and their order are ``np.unique(y)``'s, as before.

    Raises
    ------
    ValueError
        One line naming what is wrong with y and what would be right.
    """
    if y is None:
        raise ValueError(f"{_name(est)} requires y to be passed, but the target y is None; "
                         f"give the class label of every row of X")
    if _is_sparse(y):
        raise ValueError(f"{_name(est)} does not take sparse input (y is a "
                         f"{type(y).__name__}); pass a 1-d array of class labels")
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn("A column-vector y was passed when a 1d array was expected. Please "
                      "change the shape of y to (n_samples, ), for example using ravel().",
                      DataConversionWarning, stacklevel=3)
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"y should be a 1d array of class labels, got an array of shape "
                         f"{y.shape}; multi-output targets are not supported")
    if y.shape[0] != n_samples:
        raise ValueError(f"X has {n_samples} rows but y has {y.shape[0]}; give one label "
                         f"per row")
    kind = y.dtype.kind
    if kind == "c":
        raise ValueError("Complex data not supported: y holds complex numbers; give class "
                         "labels (integers or strings)")
    if kind == "O":
        is_str = np.fromiter((isinstance(v, str) for v in y), bool, count=y.shape[0])
        if is_str.all():
            return y
        if is_str.any():
            raise ValueError("Unknown label type: y mixes strings and other values; give "
                             "labels of one type")
        try:
            numbers = y.astype(np.float64)
        except (TypeError, ValueError):
            kinds = sorted({type(v).__name__ for v in y})
            raise ValueError(f"Unknown label type: y holds {', '.join(kinds)} values; give "
                             f"class labels (integers or strings)") from None
        _check_float_labels(numbers)
    elif kind == "f":
        _check_float_labels(y)
    elif kind not in "biuUS":
        raise ValueError(f"Unknown label type: y has dtype {y.dtype}; give class labels "
                         f"(integers or strings)")
    return y


def _check_float_labels(y: np.ndarray) -> None:
    if np.isnan(y).any():
        raise ValueError("Input y contains NaN; every row needs a class label")
    if np.isinf(y).any():
        raise ValueError("Input y contains infinity; every row needs a class label")
    if (y != np.floor(y)).any():
        raise ValueError("Unknown label type: continuous (y holds non-integral numbers); a "
                         "classifier needs class labels (integers or strings)")


def check_eval_set(est, eval_set):
    """The evaluation sets of ``fit`` as (X, y) pairs, each X checked as at prediction and
    each y a 1-d array of its rows' labels (labels unseen in training are allowed: they are
    always errors)."""
    out = []
    for i, pair in enumerate(eval_set or []):
        try:
            Xe, ye = pair
        except (TypeError, ValueError):
            raise ValueError(f"eval_set[{i}] must be an (X, y) pair") from None
        Xe = check_X(est, Xe, reset=False)
        ye = np.asarray(ye)
        n = Xe.codes.shape[0] if isinstance(Xe, Binned) else Xe.shape[0]
        if ye.ndim != 1 or ye.shape[0] != n:
            raise ValueError(f"eval_set[{i}]: X has {n} rows but y has shape {ye.shape}; "
                             f"give one label per row")
        out.append((Xe, ye))
    return out
