"""Base class of every booster: the round loop, staged bookkeeping and the estimator API.

``BaseBoosting.fit`` owns the loop, as scikit-learn's ``BaseWeightBoosting.fit`` does: it
bins the features (unless given ``Binned`` data), encodes the labels, asks the subclass to set
up its state (``_init_state``), then calls ``_boost`` once per round. ``_boost`` grows one weak
learner, appends it to the ``Forest`` and updates the sample weights; it returns a
``RoundOutcome``. After every kept round the loop adds that round's votes to running score
matrices of the training set and of every evaluation set and records their 0-1 error — so the
protocol picks the best round on validation (early stopping) and reads the test error at that
round without refitting, and the same arrays are the papers' training/test-error curves.
Boosters whose round gives each training sample one label (SAMME, AdaBoost.M1) hand those
labels over instead (``_train_vote_attr``), and the loop applies them a batch of rounds at a
time (``forest.DeferredLabelVotes``): the same numbers, with each row of the training scores
read once per batch; everything is applied before a checkpoint, a shared prefix or the end.

Subclasses implement ``_init_state(X_binned, y, n_bins)`` and ``_boost(t, X_binned, y)``.

A totally corrective booster (LPBoost), which sets the vote weights of every kept round anew
in each round, keeps its trees in a ``forest.ReweightedForest``: that forest's
``add_round(t, ...)`` rewrites a set's running scores as those of the ensemble after round t
rather than adding round t's votes, so this loop records, and ``staged_predict`` replays, the
ensemble as it stood after each round with no change here (its ``_add_train_round`` does the
same for the training set).

Checkpoints
-----------
A fit that may outlive its process (a long DMCBoost fit, a session or a cluster job that is
stopped) can be given a ``checkpoint``: after a kept round, whenever ``checkpoint.due()``, the
loop hands it the whole state between two rounds — the running score matrices and errors and
every attribute of the estimator except the per-fit scratch buffers a subclass names in
``_scratch_attrs`` (re-made by ``_init_state``). A later ``fit`` of the same data with the same
checkpoint continues after that round and ends with the very numbers of an uninterrupted fit:
nothing random is drawn between rounds and floats are restored bit for bit. A checkpoint whose
fingerprint (class, version, parameters, data, library versions) differs is ignored.

Shared prefixes
---------------
Some fits share their first rounds with other fits of a grid: DMCBoost's Phase I does not
depend on n' or on any other Phase II parameter, so the four n' of a grid point run the very
same Phase I. A subclass names those parameters in ``_prefix_free_params`` (and the attributes
``_init_state`` derives from them in ``_prefix_derived_attrs``) and calls
``self._prefix_reached()`` once, at the round where the shared part ends. Given a ``prefix``
store (``load(fingerprint)``/``save(fingerprint, state)``, e.g.
``runner.checkpoint.PrefixStore``), ``fit`` saves the state at that point under a fingerprint
that leaves those parameters out, and a later fit of a sibling starts from it instead of
recomputing it. Its numbers are those of a fit from round 1 (tested bit for bit); only its
fit time is shorter. A fit that reaches ``n_rounds`` still inside the shared part (a
DMCBoost Phase I that neither ends nor stops before the cap: ``_in_shared_prefix``) is its
siblings' whole fit, so it is saved as their prefix too and they run no round.
"""

from __future__ import annotations

import hashlib
import inspect
from abc import ABC, abstractmethod
from enum import Enum

import numpy as np

from .._dtypes import SCORE_DTYPE, X_DTYPE, Y_DTYPE
from ..learners.binning import Binned, BinMapper
from ..learners.forest import DeferredLabelVotes
from ._estimator_api import ESTIMATOR_BASES, check_eval_set, check_fitted, check_X, check_y


class RoundOutcome(Enum):
    """What ``_boost`` did in one round."""

    CONTINUE = "continue"          # round kept, go on
    STOP_AFTER = "stop_after"      # round kept, then stop (e.g. a perfect weak learner)
    DISCARD_STOP = "discard_stop"  # round rejected (e.g. weighted error >= 1/2), stop


class BaseBoosting(*ESTIMATOR_BASES, ABC):
    """Template for multi-class boosters over binned features.

    Every algorithm is a scikit-learn classifier (``_estimator_api``: scikit-learn's
    ``ClassifierMixin`` and ``BaseEstimator`` are the bases when it is installed):
    ``fit(X, y)`` takes labels of any one type, ``predict`` returns them, ``decision_function``
    has scikit-learn's shape (``class_scores`` is the papers' F(x, k) of every class), and
    bad input is a one-line ``ValueError``.

    Class attributes (the registry reads them): ``name``, ``family``, ``reference``,
    ``version``, ``param_specs``, ``test_params``; optionally ``test_param_variants``
    (further parameter sets for the generic checks).

    Fitted attributes
    -----------------
    classes_ : ndarray, the class labels in code order (sorted, as ``np.unique(y)``)
    n_classes_ : int
    n_features_in_ : int, columns of the X given to ``fit``
    bin_mapper_ : BinMapper
    forest_ : Forest
    n_rounds_ : int, rounds kept
    train_errors_ : ndarray (n_rounds_,), training 0-1 error after each round
    eval_errors_ : ndarray (n_eval_sets, n_rounds_), 0-1 error on each eval set after each round
    stop_reason_ : str
    """

    # -- scikit-learn style parameter handling ---------------------------------------------------
    @classmethod
    def _param_names(cls):
        sig = inspect.signature(cls.__init__)
        return [p for p in sig.parameters if p != "self"]

    def get_params(self, deep=True):
        return {k: getattr(self, k) for k in self._param_names()}

    def set_params(self, **params):
        valid = self._param_names()
        for k, v in params.items():
            if k not in valid:
                raise ValueError(f"invalid parameter {k!r} for {type(self).__name__}; "
                                 f"valid: {valid}")
            setattr(self, k, v)
        return self

    def __repr__(self):
        ps = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({ps})"

    # -- scikit-learn's estimator protocol -------------------------------------------------------
    # Two-class algorithms (binary AdaBoost, LogitBoost, LPBoost, BrownBoost, DirectBoost)
    # declare ``binary_only = True``: the generic checks then give them two classes, and their
    # scikit-learn tags say they are not multi-class.
    binary_only = False

    def _accepts_missing_values(self) -> bool:
        """Whether X may hold NaN: the binned learners put it in the missing bin (always the
        right side of a split); an algorithm that reads the values themselves and refuses
        NaN (SVM, MLP, REBEL's similarities) says False."""
        return True

    def __sklearn_tags__(self):
        # Called by scikit-learn only, hence with scikit-learn's bases present.
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self._accepts_missing_values()
        tags.input_tags.sparse = False
        tags.classifier_tags.multi_class = not self.binary_only
        return tags

    def __sklearn_is_fitted__(self) -> bool:
        # ``n_rounds_`` is set when a fit ends (an interrupted fit leaves no model).
        return hasattr(self, "n_rounds_")

    # -- data preparation ------------------------------------------------------------------------
    def _bin_fit(self, X):
        if isinstance(X, Binned):
            return X.codes, X.mapper
        mapper = BinMapper(max_bins=getattr(self, "max_bins", 255)).fit(X)
        return mapper.transform(X), mapper

    def _bin(self, X):
        if isinstance(X, Binned):
            return X.codes
        return self.bin_mapper_.transform(X)

    @staticmethod
    def _raw(X) -> np.ndarray:
        """The float feature values of X (n, d), for learners that need values rather than
        bins: ``X.raw`` of a ``Binned`` (the runner's folds carry it), or X itself."""
        if isinstance(X, Binned):
            if X.raw is None:
                raise ValueError("this algorithm needs the raw feature values: pass "
                                 "Binned(codes, mapper, raw=X) or the unbinned X")
            return X.raw
        return np.ascontiguousarray(X, dtype=X_DTYPE)

    def _encode(self, y):
        """Codes of y in ``classes_``; labels unseen in training get -1 (always an error)."""
        y = np.asarray(y)
        pos = np.searchsorted(self.classes_, y)
        pos = np.clip(pos, 0, len(self.classes_) - 1)
        codes = np.where(self.classes_[pos] == y, pos, -1)
        return codes.astype(Y_DTYPE)

    # Further small parameter sets the generic checks run (tests/test_estimator_checks.py),
    # beside ``test_params``: e.g. a second kind of weak learner.
    test_param_variants: tuple[dict, ...] = ()

    # -- the loop --------------------------------------------------------------------------------
    # Attributes that are per-fit scratch (re-made by _init_state, never carried from one round
    # to the next): left out of checkpoints. Everything else in __dict__ is saved. Every
    # booster's tree workspace is ``_ws``; the generic check (tests/test_estimator_checks.py)
    # fails for an algorithm whose scratch list holds real state.
    _scratch_attrs: tuple[str, ...] = ("_ws",)
    # Shared prefixes (module docstring): parameters that do not change the rounds before
    # ``_prefix_reached()``, and the attributes ``_init_state`` derives from them.
    _prefix_free_params: tuple[str, ...] = ()
    _prefix_derived_attrs: tuple[str, ...] = ()
    # A booster whose round gives every training sample one label (LABEL_VOTE), known from
    # the grower's partition, names the attribute holding them (n,) after ``_boost``: the
    # loop then applies them to the training scores a batch of rounds at a time
    # (``forest.DeferredLabelVotes``: the same numbers, each row of the scores read once per
    # batch instead of once per round) instead of calling ``_add_train_round``.
    _train_vote_attr: str | None = None
    # Distributions besides NumPy and numba whose version can change a subclass's numbers
    # (LPBoost: highspy, its LP solver): their versions join the checkpoint fingerprint, so a
    # checkpoint written under another version is not resumed. Empty (the default) leaves
    # the fingerprint as it was.
    _fingerprint_libraries: tuple[str, ...] = ()

    def fit(self, X, y, eval_set=None, checkpoint=None, prefix=None):
        """Fit the booster and record per-round 0-1 errors.

        Parameters
        ----------
        X : array-like (n_samples, n_features) or Binned
        y : array-like (n_samples,)
        eval_set : list of (X, y) pairs, optional
            Their 0-1 error after every round is stored in ``eval_errors_``; they are never
            used to choose anything inside the fit.
        checkpoint : object, optional
            Saves and restores the state between rounds (see the module docstring):
            ``load(fingerprint)`` returns a saved state or None, ``due()`` says whether to
            save after this round, ``save(fingerprint, state)`` stores one
            (``runner.checkpoint.FitCheckpoint``). The fitted model does not depend on it.
        prefix : object, optional
            Shares the state at ``_prefix_reached()`` with sibling fits (module docstring,
            "Shared prefixes"): ``load(fingerprint)`` and ``save(fingerprint, state)``. Used
            only by algorithms with ``_prefix_free_params``; the fitted model does not depend
            on it. ``prefix_rounds_`` tells how many rounds came from it (0: none).
        """
        X = check_X(self, X, reset=True)
        n_features = X.codes.shape[1] if isinstance(X, Binned) else X.shape[1]
        y = check_y(self, y, X.codes.shape[0] if isinstance(X, Binned) else X.shape[0])
        classes = np.unique(y)
        if classes.shape[0] < 2:
            raise ValueError(f"y has one class ({classes.tolist()[0]!r}); a classifier "
                             f"needs at least two classes")
        self.n_features_in_ = n_features
        eval_set = check_eval_set(self, eval_set)
        X_binned, self.bin_mapper_ = self._bin_fit(X)
        self.classes_ = classes
        self.n_classes_ = len(self.classes_)
        y_code = self._encode(y)
        sets = [(X_binned, y_code)]
        for Xe, ye in eval_set:
            sets.append((self._bin(Xe), self._encode(ye)))
        # Histogram width: one past the largest bin present (the missing bin 255 if any).
        n_bins = self.bin_mapper_.n_bins_.astype(np.int32)
        hist_width = int(X_binned.max()) + 1 if X_binned.size else 1
        self._init_state(X_binned, y_code, n_bins, hist_width)

        n_rounds = int(self.n_rounds)
        K = self.n_classes_
        scores = [np.zeros((Xs.shape[0], K), SCORE_DTYPE) for Xs, _ in sets]
        preds = [np.zeros(Xs.shape[0], Y_DTYPE) for Xs, _ in sets]
        errors = np.empty((len(sets), n_rounds), dtype=np.float64)
        self.stop_reason_ = "n_rounds"
        kept = 0
        fingerprint = None
        if checkpoint is not None:
            fingerprint = self._fit_fingerprint(sets)
            state = checkpoint.load(fingerprint)
            if state is not None:
                kept = self._restore(state, scores, preds, errors)
        deferred = (DeferredLabelVotes(X_binned.shape[0]) if self._train_vote_attr else None)

        def flush_train_votes():
            # Scores, preds and training errors are complete up to the last kept round.
            if deferred is not None:
                deferred.flush(y_code, scores[0], preds[0], errors[0])

        self.prefix_rounds_ = 0
        self._prefix_cb = None
        if prefix is not None and self._prefix_free_params:
            prefix_fp = self._fit_fingerprint(sets, leave_out=self._prefix_free_params)
            if kept == 0:
                state = prefix.load(prefix_fp)
                if state is not None:
                    own = set(self.get_params()) | set(self._prefix_derived_attrs)
                    kept = self._restore(state, scores, preds, errors, keep=own)
                    self.prefix_rounds_ = kept

            def save_prefix():
                # ``kept`` is read when the subclass reaches the end of the shared part.
                flush_train_votes()
                prefix.save(prefix_fp, self._snapshot(kept, scores, preds, errors))
            self._prefix_cb = save_prefix
        for t in range(kept, n_rounds):
            outcome = self._boost(t, X_binned, y_code)
            if outcome is RoundOutcome.DISCARD_STOP:
                self.forest_.truncate(t)
                break
            for s, (Xs, ys) in enumerate(sets):
                if s == 0 and deferred is not None:
                    if deferred.add(t, getattr(self, self._train_vote_attr),
                                    self.forest_.alpha[t]):
                        flush_train_votes()
                    continue
                if s == 0:
                    n_err = self._add_train_round(t, Xs, ys, scores[0], preds[0])
                else:
                    n_err = self.forest_.add_round(t, Xs, ys, scores[s], preds[s])
                errors[s, t] = n_err / max(Xs.shape[0], 1)
            kept = t + 1
            if outcome is RoundOutcome.STOP_AFTER:
                break
            if checkpoint is not None and checkpoint.due():
                flush_train_votes()
                checkpoint.save(fingerprint, self._snapshot(kept, scores, preds, errors))
        flush_train_votes()
        if (self._prefix_cb is not None and kept == n_rounds and kept > self.prefix_rounds_
                and self._in_shared_prefix()):
            # The cap came before the shared part ended: every sibling's fit is this one.
            self._prefix_cb()
        # kept == 0 is a legitimate outcome (e.g. AdaBoost.M1 whose first tree has weighted
        # error >= 1/2 aborts with T = 0): the ensemble is empty, its scores are all zero.
        self.n_rounds_ = kept
        self.train_errors_ = errors[0, :kept].copy()
        self.eval_errors_ = errors[1:, :kept].copy()
        del self._prefix_cb
        self._free_state()
        return self

    def _in_shared_prefix(self) -> bool:
        """The fit has not left the part its siblings share (``_prefix_reached`` not yet
        called); subclasses with ``_prefix_free_params`` say so."""
        return False

    def _prefix_reached(self):
        """The subclass's shared prefix ends here (module docstring, "Shared prefixes"): the
        state after the rounds kept so far is the same for every value of the
        ``_prefix_free_params``; hand it to the fit's ``prefix`` store, if any."""
        if self._prefix_cb is not None:
            self._prefix_cb()

    # -- checkpoints -----------------------------------------------------------------------------
    def _fit_fingerprint(self, sets, leave_out=()) -> str:
        """Digest of what determines the fit: class, version, parameters (but those in
        ``leave_out``; a shared prefix's digest is marked as such), the binned data and
        labels of every set, and the versions of the numeric libraries (NumPy, numba and the
        subclass's ``_fingerprint_libraries``)."""
        import numba

        h = hashlib.sha256()
        params = sorted((k, v) for k, v in self.get_params().items() if k not in leave_out)
        what = (type(self).__module__, type(self).__qualname__, getattr(self, "version", ""),
                params, np.__version__, numba.__version__)
        if self._fingerprint_libraries:
            from importlib.metadata import version

            what += (tuple((d, version(d)) for d in self._fingerprint_libraries),)
        if leave_out:
            what += (("prefix", tuple(sorted(leave_out))),)
        h.update(repr(what).encode())
        for Xs, ys in sets:
            for a in (Xs, ys):
                a = np.ascontiguousarray(a)
                h.update(repr((a.dtype.str, a.shape)).encode())
                h.update(a.tobytes())
        return h.hexdigest()

    def _snapshot(self, kept, scores, preds, errors) -> dict:
        """The state after ``kept`` rounds: loop arrays and non-scratch attributes."""
        skip = set(self._scratch_attrs) | {"_prefix_cb"}
        attrs = {k: v for k, v in vars(self).items() if k not in skip}
        return {"kept": kept, "scores": scores, "preds": preds,
                "errors": errors[:, :kept], "attrs": attrs}

    def _restore(self, state, scores, preds, errors, keep=()) -> int:
        """Put a ``_snapshot`` back in place (after ``_init_state``), but for the attributes
        in ``keep`` (a shared prefix: this fit's own parameters); returns its round."""
        kept = int(state["kept"])
        for s in range(len(scores)):
            scores[s][...] = state["scores"][s]
            preds[s][...] = state["preds"][s]
        errors[:, :kept] = state["errors"]
        vars(self).update({k: v for k, v in state["attrs"].items() if k not in keep})
        return kept

    # -- hooks -----------------------------------------------------------------------------------
    @abstractmethod
    def _init_state(self, X_binned, y, n_bins, hist_width):
        """Allocate the fit's state once: weights, a TreeWorkspace, ``self.forest_``."""

    @abstractmethod
    def _boost(self, t, X_binned, y) -> RoundOutcome:
        """Round t: grow one weak learner, append it to ``self.forest_``, update weights."""

    def _add_train_round(self, t, X_binned, y, scores, pred) -> int:
        """Add round t to the training set's scores; subclasses that know each training
        sample's leaf from the grower's partition override this to skip the traversal."""
        return self.forest_.add_round(t, X_binned, y, scores, pred)

    def _free_state(self):
        """Drop per-fit buffers after fitting (weights, workspace)."""

    # -- stopping on the training loss -----------------------------------------------------------
    def _init_loss_rule(self, n: int) -> None:
        """Check ``loss_tolerance`` / ``loss_tolerance_of`` at the start of a fit and keep
        the number of training rows ``n`` (the "sum" rule scales the mean's change by it)."""
        if not float(self.loss_tolerance) >= 0.0:
            raise ValueError(f"loss_tolerance must be >= 0, got {self.loss_tolerance!r}")
        if self.loss_tolerance_of not in ("mean", "sum"):
            raise ValueError(f"loss_tolerance_of must be mean or sum, got "
                             f"{self.loss_tolerance_of!r}")
        self._n_train = int(n)

    def _loss_change_stops(self, previous_loss: float, loss: float, n: int) -> bool:
        """The stopping rule of a booster with a ``loss_tolerance`` parameter: True (and
        ``stop_reason_`` says why) when the round just kept changed the mean training loss
        from ``previous_loss`` to ``loss`` by less than the tolerance (absolute change;
        0 switches the rule off) — or, with ``loss_tolerance_of`` "sum", changed the loss
        summed over the ``n`` training rows by less than it. The round is kept; ``_boost``
        then returns ``RoundOutcome.STOP_AFTER``. The DirectBoost paper's rule for its convex
        baselines (``params.LOSS_TOLERANCE``, ``params.LOSS_TOLERANCE_OF``)."""
        tolerance = float(self.loss_tolerance)
        if not tolerance > 0.0:
            return False
        of = getattr(self, "loss_tolerance_of", "mean")
        change = abs(loss - previous_loss) * (n if of == "sum" else 1)
        if change < tolerance:
            self.stop_reason_ = (f"{'summed ' if of == 'sum' else ''}training loss changed "
                                 f"by {change:.3g} < loss_tolerance {tolerance:g}")
            return True
        return False

    # -- prediction ------------------------------------------------------------------------------
    def _checked_X(self, X):
        """X of a prediction method, checked (``_estimator_api.check_X``) after ``fit``."""
        check_fitted(self)
        return check_X(self, X, reset=False)

    def _staged_scores(self, X):
        """Running class scores and argmax codes after each round, of a checked X (the
        arrays are updated in place: copy what is kept)."""
        X_binned = self._bin(X)
        n = X_binned.shape[0]
        scores = np.zeros((n, self.n_classes_), SCORE_DTYPE)
        pred = np.zeros(n, Y_DTYPE)
        dummy_y = np.full(n, -1, Y_DTYPE)
        for t in range(self.n_rounds_):
            self.forest_.add_round(t, X_binned, dummy_y, scores, pred)
            yield scores, pred

    def _class_scores(self, X, n_rounds=None):
        n_rounds = self.n_rounds_ if n_rounds is None else int(n_rounds)
        n = X.codes.shape[0] if isinstance(X, Binned) else X.shape[0]
        out = np.zeros((n, self.n_classes_), SCORE_DTYPE)
        if n_rounds <= 0:
            return out
        for t, (scores, _) in enumerate(self._staged_scores(X)):
            out = scores        # updated in place by the generator: stop before the next round
            if t + 1 >= n_rounds:
                break
        return out.copy()

    def class_scores(self, X, n_rounds=None):
        """Scores F(x, k) of every class (n_samples, n_classes_), of the ensemble of the first
        ``n_rounds`` rounds (default: all); ``predict`` is the class of the largest (the
        first of equal ones)."""
        return self._class_scores(self._checked_X(X), n_rounds)

    def staged_class_scores(self, X):
        """``class_scores`` after each round."""
        X = self._checked_X(X)
        return (scores.copy() for scores, _ in self._staged_scores(X))

    @staticmethod
    def _decision(scores):
        # scikit-learn's shape: with two classes one column, F(x, 1) - F(x, 0), positive for
        # classes_[1] (its sign agrees with predict's argmax, ties going to classes_[0]).
        return scores[:, 1] - scores[:, 0] if scores.shape[1] == 2 else scores

    def decision_function(self, X, n_rounds=None):
        """scikit-learn's decision function of the first ``n_rounds`` rounds (default: all):
        ``class_scores`` (n_samples, n_classes_), or with two classes the vector
        F(x, 1) - F(x, 0) (n_samples,), as scikit-learn's ``AdaBoostClassifier``."""
        return self._decision(self.class_scores(X, n_rounds))

    def staged_decision_function(self, X):
        """``decision_function`` after each round."""
        return (self._decision(scores) for scores in self.staged_class_scores(X))

    def staged_predict(self, X):
        """Predictions after each round, as scikit-learn's ``staged_predict``."""
        X = self._checked_X(X)
        return (self.classes_[pred] for _, pred in self._staged_scores(X))

    def predict(self, X, n_rounds=None):
        """The class labels (of ``classes_``, as given to ``fit``) of the ensemble of the
        first ``n_rounds`` rounds (default: all)."""
        scores = self.class_scores(X, n_rounds)     # checks X (and the fit) first
        return self.classes_[np.argmax(scores, axis=1)]

    def score(self, X, y, sample_weight=None):
        """Accuracy of ``predict`` on (X, y) (weighted by ``sample_weight`` if given)."""
        return float(np.average(self.predict(X) == np.asarray(y), weights=sample_weight))
