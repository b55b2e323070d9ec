"""Non-boosting classifiers taken from scikit-learn (an optional extra), fitted and scored
through the ``BaseBoosting`` interface so that the runner, the store and the reports treat
them as every other algorithm (the REBEL paper's Figure 9 compares with an SVM and neural
nets: ``algorithms.svm``, ``algorithms.mlp``).

A fit is one "round", as CART's (``algorithms.cart``): ``_boost`` fits one scikit-learn
pipeline — ``StandardScaler`` fitted on the training part, then the classifier — and the
round's vote is its predicted class (weight 1), so the curves have length 1, the staged
predictions are one stage, ``predict`` is the pipeline's own ``predict`` and the round ends
the fit itself (``early_stopping = False``, ``best_round_ = 1``; a grid's validation error
chooses among grid points, as for every grid). A single round is never checkpointed (the
base loop saves between rounds only).

These models read feature values, not bins: ``SklearnModel`` overrides ``_bin_fit`` and
``_bin`` so that everything the base loop hands around (the training matrix of ``_boost``,
the evaluation sets, the rows of ``staged_predict``) is the raw float matrix
(``BaseBoosting._raw``: a ``Binned``'s ``raw``, or the unbinned X), and the fit's
fingerprint hashes values. ``FittedModel`` stands where boosters keep their ``Forest``: it
adds the one round's votes to score matrices (``add_round``).

scikit-learn is imported inside the fit only (``import_sklearn``): without it this module
imports, ``mcboost algorithms`` lists the algorithms, and the registry's ``requires`` check
(``registry.check_requirements``) or the fit says in one line which extra to install.
"""

from __future__ import annotations

from abc import abstractmethod

import numpy as np

from .._dtypes import Y_DTYPE
from ..errors import UserError
from ..learners.binning import Binned, BinMapper
from .base import BaseBoosting, RoundOutcome

#: The extra of pyproject.toml that installs scikit-learn (``pip install -e '.[sklearn]'``).
SKLEARN_EXTRA = "sklearn"
SKLEARN_REQUIRES = (("sklearn", "scikit-learn", SKLEARN_EXTRA),)


def import_sklearn(algorithm: str):
    """The ``sklearn`` package, or a one-line UserError naming the extra to install."""
    try:
        import sklearn
    except ImportError:
        raise UserError(f"{algorithm} needs scikit-learn, an optional dependency that is not "
                        f"installed; install the extra: pip install -e '.[{SKLEARN_EXTRA}]'"
                        ) from None
    return sklearn


class FittedModel:
    """The one round of a non-boosting classifier, where a booster keeps its ``Forest``.

    ``model`` is a fitted scikit-learn estimator trained on class codes 0..K-1; the round
    adds 1 to F(x, c) for its predicted code c, so the argmax of the scores is exactly the
    model's ``predict`` (its own tie rule included: LIBSVM's vote, the MLP's argmax).
    """

    def __init__(self, model):
        self.model = model

    def add_round(self, t, X, y, scores, pred) -> int:
        """F(x, c) += 1 for the predicted code c of every row of X (raw values); pred = the
        argmax of the scores (np.argmax's lowest-index rule); returns #errors against y
        (codes < 0 never match)."""
        if t != 0:
            raise IndexError(f"a single model has round 0 only, not round {t}")
        codes = np.asarray(self.model.predict(X), dtype=np.intp)
        scores[np.arange(X.shape[0]), codes] += 1.0
        pred[:] = np.argmax(scores, axis=1)
        return int(np.count_nonzero(pred != y))


class SklearnModel(BaseBoosting):
    """One scikit-learn classifier on standardised feature values, as one round.

    Subclasses set the registry attributes and implement ``_classifier(n_features)`` (the
    unfitted scikit-learn classifier for this fit) and ``_describe(model)`` (the end of
    ``stop_reason_``: what the fitted model is).
    """

    requires = SKLEARN_REQUIRES
    n_rounds = 1
    early_stopping = False
    _scratch_attrs = ()

    def _bin_fit(self, X):
        # The model reads values: hand the raw matrix around in place of the bin codes. The
        # mapper is kept (a Binned's own, or fitted here) so that the fitted estimator has
        # the attributes of every other.
        raw = self._finite_raw(X)
        mapper = X.mapper if isinstance(X, Binned) else BinMapper().fit(raw)
        return raw, mapper

    def _bin(self, X):
        return self._finite_raw(X)

    def _accepts_missing_values(self) -> bool:
        return False     # the pipeline reads values: NaN is refused (``_finite_raw``)

    def _finite_raw(self, X) -> np.ndarray:
        raw = self._raw(X)
        if not np.isfinite(raw).all():
            raise ValueError(f"{self.name} needs complete feature values; X has missing "
                             "(NaN) or infinite values")
        return raw

    def _init_state(self, X, y, n_bins, hist_width):
        self._sklearn = import_sklearn(self.name)

    def _free_state(self):
        del self._sklearn

    @abstractmethod
    def _classifier(self, n_features: int):
        """The unfitted scikit-learn classifier of this fit."""

    @abstractmethod
    def _describe(self, model) -> str:
        """What the fitted model is, for ``stop_reason_``."""

    def _fit_pipeline(self, pipeline, X, y):
        """Fit the pipeline (a subclass may wrap the call, e.g. to catch warnings)."""
        return pipeline.fit(X, y)

    def pipeline(self, n_features: int):
        """The unfitted pipeline of this fit: ``StandardScaler`` (fitted on the training
        part), then ``_classifier``. The tests fit the same pipeline on the same data."""
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler
        return make_pipeline(StandardScaler(), self._classifier(n_features))

    def _boost(self, t, X, y):
        model = self._fit_pipeline(self.pipeline(X.shape[1]), X, y.astype(Y_DTYPE))
        self.forest_ = FittedModel(model)
        self.best_round_ = 1
        self.stop_reason_ = (f"one model (scikit-learn {self._sklearn.__version__}): "
                             f"{self._describe(model[-1])}")
        return RoundOutcome.STOP_AFTER
