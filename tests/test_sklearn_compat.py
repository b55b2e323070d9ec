"""Every registered algorithm is a scikit-learn classifier (issue 35).

* scikit-learn's own ``check_estimator`` suite (``parametrize_with_checks``: one test per
  check and estimator) runs on every registered algorithm with its ``test_params`` and on
  each of its ``test_param_variants``; checks that do not apply are listed in
  ``EXPECTED_FAILED_CHECKS`` with their reason (none today: every check the tags select
  passes; README, "Using the estimators from Python / scikit-learn", lists the checks the tags
  leave out and why).
* What the tags promise beyond the suite: NaN and infinity in X where ``allow_nan``.
* ``cross_val_score``, ``GridSearchCV`` over one parameter and ``Pipeline([StandardScaler,
  est])`` run, and their fits are those of the estimator fitted directly, and of the runner's
  path (a ``Binned`` X with an evaluation set), bit for bit.
* Labels of any type come back from ``predict`` as given (strings, negative integers,
  booleans, integral floats); ``decision_function`` has scikit-learn's shape.
* Bad input is a one-line ``ValueError`` naming what is wrong.
* Without scikit-learn (a fresh interpreter where it cannot be imported) the estimators
  fit and predict the very same numbers.
* The ``mcboost`` command imports its algorithms without scikit-learn's bases (nor
  scikit-learn) unless ``MCBOOST_SKLEARN_BASES`` says otherwise.
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.base import clone, is_classifier  # noqa: E402
from sklearn.exceptions import DataConversionWarning, NotFittedError  # noqa: E402
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score  # noqa: E402
from sklearn.pipeline import Pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.utils import get_tags  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from mcboost_cli.algorithms.registry import all_algorithms  # noqa: E402
from mcboost_cli.learners.binning import Binned, BinMapper  # noqa: E402

ALGORITHMS = all_algorithms()

#: Checks of scikit-learn's suite that fail for an algorithm because they do not apply, by
#: registry name: {check name: reason}. None does today. Checks the estimators' tags leave
#: out (sample weights, NaN refusal for the binned learners, predict_proba, multi-output,
#: partial_fit) are not run at all: README's table says why each does not apply.
EXPECTED_FAILED_CHECKS: dict[str, dict[str, str]] = {}


def _check_params(name: str, params: dict) -> dict:
    """The parameters the suite runs an algorithm with: its test parameters, but for REBEL's
    isolated similarities, whose 15 rounds classify the suite's three blobs at 46% (each round
    votes on one point's neighbourhood; check_classifiers_train asks for > 83% on the
    training set): 100 rounds, at which they classify them all."""
    if name == "rebel" and params.get("weak_learner") == "isolated":
        return dict(params, n_rounds=100)
    return dict(params)


def _estimators():
    """An instance of every registered algorithm with its test parameters and with each of
    its test_param_variants (the class itself: scikit-learn pickles and clones it)."""
    out = []
    for name, cls in ALGORITHMS.items():
        for params in (cls.test_params, *cls.test_param_variants):
            out.append(cls(**_check_params(name, params)))
    return out


ESTIMATORS = _estimators()


@parametrize_with_checks(ESTIMATORS,
                         expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS.get(
                             est.name, {}))
def test_sklearn_check_estimator(estimator, check):
    check(estimator)


def test_every_algorithm_is_in_the_suite():
    assert {est.name for est in ESTIMATORS} == set(ALGORITHMS)
    for est in ESTIMATORS:
        assert is_classifier(est)
        tags = get_tags(est)
        assert tags.classifier_tags.multi_class == (not getattr(est, "binary_only", False))
        assert not tags.input_tags.sparse


def _data(seed=0, n=150, K=3, d=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=n),
                    np.linspace(-1.0, 1.0, K - 1)).astype(int)
    return X, y


def _case(est):
    return f"{est.name}-" + ",".join(f"{k}={v}" for k, v in est.get_params().items()
                                     if v != type(est)().get_params()[k])


# -- what the tags promise beyond the suite -------------------------------------------------

@pytest.mark.parametrize("est", [e for e in ESTIMATORS if get_tags(e).input_tags.allow_nan],
                         ids=_case)
def test_missing_and_infinite_values_where_the_tags_allow_nan(est):
    # allow_nan keeps scikit-learn from checking that NaN is refused, and from trying it:
    # the binned learners put NaN in their missing bin and +-inf in the outer bins.
    K = 2 if est.binary_only else 3
    X, y = _data(1, K=K)
    rng = np.random.default_rng(2)
    X[rng.random(X.shape) < 0.1] = np.nan
    X[0, 1], X[1, 2] = np.inf, -np.inf
    fitted = clone(est).fit(X, y)
    pred = fitted.predict(X)
    assert set(pred) <= set(fitted.classes_)
    assert np.all(np.isfinite(fitted.class_scores(X)))
    # NaN is the missing bin: a row of NaN is predicted, not refused.
    fitted.predict(np.full((1, X.shape[1]), np.nan))


@pytest.mark.parametrize("est", [e for e in ESTIMATORS if not get_tags(e).input_tags.allow_nan],
                         ids=_case)
def test_nan_is_a_one_line_error_where_the_tags_refuse_it(est):
    X, y = _data(1)
    X[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN") as info:
        clone(est).fit(X, y)
    assert "\n" not in str(info.value)


# -- scikit-learn's tools, and the same numbers as the runner's path -----------------------

TOOLS_ALGORITHMS = ["samme", "adaboost", "cart", "gd_mcboost"]


def _binary_if_needed(est, X, y):
    return (X, (y > 0).astype(int)) if est.binary_only else (X, y)


@pytest.mark.parametrize("name", TOOLS_ALGORITHMS)
def test_cross_val_score_grid_search_and_pipeline_run(name):
    cls = ALGORITHMS[name]
    est = cls(**cls.test_params)
    X, y = _binary_if_needed(est, *_data(3, n=200))
    scores = cross_val_score(est, X, y, cv=KFold(3))
    assert scores.shape == (3,) and np.all((scores >= 0) & (scores <= 1))
    assert scores.mean() > 0.5          # a learnt rule, not a constant

    param = "max_depth" if "max_depth" in est.get_params() else "n_rounds"
    values = [1, 2] if param == "max_depth" else [2, 5]
    grid = GridSearchCV(est, {param: values}, cv=KFold(3)).fit(X, y)
    assert grid.best_params_[param] in values
    # The refitted best estimator is a plain fit with those parameters.
    direct = cls(**dict(cls.test_params, **grid.best_params_)).fit(X, y)
    np.testing.assert_array_equal(grid.best_estimator_.class_scores(X), direct.class_scores(X))

    pipe = Pipeline([("scale", StandardScaler()), ("model", est)]).fit(X, y)
    Xs = StandardScaler().fit_transform(X)
    np.testing.assert_array_equal(pipe.predict(X), cls(**cls.test_params).fit(Xs, y).predict(Xs))
    assert 0.0 <= pipe.score(X, y) <= 1.0


@pytest.mark.parametrize("est", ESTIMATORS, ids=_case)
def test_a_fit_through_sklearn_equals_the_runners_fit(est):
    # The runner fits on a Binned X (the raw values beside the codes) with evaluation sets;
    # scikit-learn clones the estimator and hands it lists or arrays. Same model, same numbers.
    X, y = _binary_if_needed(est, *_data(4))
    Xv, yv = _binary_if_needed(est, *_data(5))
    mapper = BinMapper(max_bins=est.get_params().get("max_bins", 255)).fit(X)
    runner = type(est)(**est.get_params()).fit(
        Binned(mapper.transform(X), mapper, raw=X), y,
        eval_set=[(Binned(mapper.transform(Xv), mapper, raw=Xv), yv)])
    through = clone(est).fit(X.tolist(), y.tolist())
    assert through.class_scores(Xv).tobytes() == runner.class_scores(Xv).tobytes()
    np.testing.assert_array_equal(through.predict(Xv), runner.predict(Xv))
    np.testing.assert_array_equal(through.train_errors_, runner.train_errors_)
    assert through.n_features_in_ == runner.n_features_in_ == X.shape[1]


# -- labels and decision_function ----------------------------------------------------------

LABELS = {
    "str": np.array(["setosa", "versicolor", "virginica"]),
    "negative int": np.array([-7, -1, 3]),
    "object str": np.array(["b", "a", "c"], dtype=object),
    "integral float": np.array([-1.0, 0.0, 2.0]),
    "bool": np.array([False, True]),
}


@pytest.mark.parametrize("name", ["samme", "adaboost_mh", "cart", "adaboost", "dmcboost",
                                  "svm"])
@pytest.mark.parametrize("kind", list(LABELS))
def test_labels_of_any_type_round_trip(name, kind):
    cls = ALGORITHMS[name]
    labels = LABELS[kind]
    if getattr(cls, "binary_only", False):
        labels = labels[:2]
    X, codes = _data(6, K=len(labels))
    y = labels[codes]
    est = cls(**cls.test_params).fit(X, y)
    np.testing.assert_array_equal(est.classes_, np.unique(y))
    pred = est.predict(X)
    assert pred.dtype == np.unique(y).dtype and set(pred) <= set(y)
    # The model is the one of the codes 0..K-1 (sorted labels), relabelled.
    coded = cls(**cls.test_params).fit(X, np.searchsorted(np.unique(y), y))
    np.testing.assert_array_equal(pred, est.classes_[coded.predict(X)])
    assert est.score(X, y) == coded.score(X, np.searchsorted(np.unique(y), y))


@pytest.mark.parametrize("name", ["samme", "adaboost", "lpboost"])
def test_decision_function_has_sklearns_shape(name):
    cls = ALGORITHMS[name]
    for K in ((2,) if cls.binary_only else (2, 4)):
        X, y = _data(7, K=K)
        est = cls(**cls.test_params).fit(X, y)
        F = est.class_scores(X)
        assert F.shape == (X.shape[0], K)
        d = est.decision_function(X)
        if K == 2:
            np.testing.assert_array_equal(d, F[:, 1] - F[:, 0])
            np.testing.assert_array_equal(est.classes_[(d > 0).astype(int)], est.predict(X))
        else:
            np.testing.assert_array_equal(d, F)
        staged = list(est.staged_decision_function(X))
        np.testing.assert_array_equal(staged[-1], d)
        assert staged[0].shape == d.shape


# -- bad input: one line, naming what is wrong ---------------------------------------------

def _bad_fits():
    X, y = _data(8)
    y2 = y.astype(float)
    y2[0] = 0.5
    mixed = y.astype(object)
    mixed[0] = "a"
    Xo = X.astype(object)
    Xo[0, 0] = "x"
    return [
        ("1-d X", X[:, 0], y, "Reshape your data"),
        ("3-d X", X[:, :, None], y, "2-d array"),
        ("empty X", np.empty((0, 4)), [], "0 sample"),
        ("no features", np.empty((12, 0)), y[:12], r"0 feature\(s\)"),
        ("complex X", X + 1j, y, "Complex data not supported"),
        ("strings in X", Xo, y, "X must hold numbers"),
        ("y is None", X, None, "requires y to be passed"),
        ("short y", X, y[:-1], "rows but y has"),
        ("continuous y", X, y2, "Unknown label type: continuous"),
        ("NaN in y", X, np.where(y == 0, np.nan, y), "Input y contains NaN"),
        ("mixed y", X, mixed, "mixes strings"),
        ("one class", X, np.zeros(len(y)), "one class"),
        ("2-column y", X, np.c_[y, y], "1d array"),
    ]


@pytest.mark.parametrize("what, X, y, message", _bad_fits(), ids=[c[0] for c in _bad_fits()])
def test_bad_input_to_fit_is_one_line(what, X, y, message):
    with pytest.raises(ValueError, match=message) as info:
        ALGORITHMS["samme"](n_rounds=3).fit(X, y)
    assert "\n" not in str(info.value)


def test_bad_input_to_predict_is_one_line():
    X, y = _data(9)
    est = ALGORITHMS["samme"](n_rounds=3)
    with pytest.raises(NotFittedError, match="not fitted yet") as info:
        est.predict(X)
    assert isinstance(info.value, ValueError)
    est.fit(X, y)
    for bad, message in [(X[:, :2], "X has 2 features, but SAMME is expecting 4 features"),
                         (X[0], "Reshape your data")]:
        for method in (est.predict, est.decision_function, est.class_scores,
                       est.staged_predict, lambda Z: est.score(Z, y)):
            with pytest.raises(ValueError, match=message) as info:
                method(bad)
            assert "\n" not in str(info.value)
    sparse = pytest.importorskip("scipy.sparse")
    with pytest.raises(ValueError, match="sparse input") as info:
        ALGORITHMS["samme"](n_rounds=3).fit(sparse.csr_matrix(X), y)
    assert "\n" not in str(info.value)


def test_column_vector_y_is_flattened_with_a_warning():
    X, y = _data(10)
    with pytest.warns(DataConversionWarning, match="column-vector y"):
        a = ALGORITHMS["samme"](n_rounds=3).fit(X, y[:, None])
    b = ALGORITHMS["samme"](n_rounds=3).fit(X, y)
    np.testing.assert_array_equal(a.class_scores(X), b.class_scores(X))


def test_runner_keyword_arguments_still_reach_fit():
    X, y = _data(11)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = ALGORITHMS["samme"](n_rounds=4).fit(X, y, eval_set=[(X, y)], checkpoint=None,
                                                  prefix=None)
    np.testing.assert_array_equal(est.eval_errors_[0], est.train_errors_)


# -- without scikit-learn ------------------------------------------------------------------

_WITHOUT_SKLEARN = r"""
import sys, warnings
class _NoSklearn:
    def find_spec(self, name, path=None, target=None):
        if name == "sklearn" or name.startswith("sklearn."):
            raise ImportError("scikit-learn is blocked in this test")
sys.meta_path.insert(0, _NoSklearn())
import numpy as np
from mcboost_cli.algorithms import _estimator_api as api
from mcboost_cli.algorithms.registry import all_algorithms
assert not api.SKLEARN_AVAILABLE and api.ESTIMATOR_BASES == ()
X, y = np.load(sys.argv[1])["X"], np.load(sys.argv[1])["y"]
labels = np.array(["c", "a", "b"])[y]
out = {}
for name in ("samme", "adaboost_mh", "cart", "dmcboost"):
    cls = all_algorithms()[name]
    est = cls(**cls.test_params)
    try:
        est.predict(X)
    except api.NotFittedError as e:
        assert isinstance(e, ValueError)
    est.fit(X, labels)
    out[name + "_scores"] = est.class_scores(X)
    out[name + "_pred"] = est.predict(X)
    assert repr(est).startswith(cls.__name__ + "(")
    assert est.set_params(**est.get_params()) is est
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    all_algorithms()["samme"](n_rounds=2).fit(X, y[:, None])
assert any(issubclass(x.category, api.DataConversionWarning) for x in w)
try:
    all_algorithms()["svm"]().fit(X, y)
except Exception as e:
    assert "pip install -e '.[sklearn]'" in str(e), e
else:
    raise AssertionError("svm fitted without scikit-learn")
np.savez(sys.argv[2], **out)
"""


def test_without_sklearn_the_estimators_give_the_same_numbers(tmp_path):
    X, y = _data(12)
    np.savez(tmp_path / "data.npz", X=X, y=y)
    script = tmp_path / "no_sklearn.py"
    script.write_text(_WITHOUT_SKLEARN)
    # This checkout's package first, as in this process.
    root = str(Path(__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (root, os.environ.get("PYTHONPATH", "")) if p))
    proc = subprocess.run([sys.executable, str(script), str(tmp_path / "data.npz"),
                           str(tmp_path / "out.npz")], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    got = np.load(tmp_path / "out.npz")
    labels = np.array(["c", "a", "b"])[y]
    for name in ("samme", "adaboost_mh", "cart", "dmcboost"):
        cls = ALGORITHMS[name]
        est = cls(**cls.test_params).fit(X, labels)
        assert got[name + "_scores"].tobytes() == est.class_scores(X).tobytes(), name
        np.testing.assert_array_equal(got[name + "_pred"], est.predict(X))


_CONSOLE = """\
import sys
from mcboost_cli.cli import console_main
try:
    console_main()
except SystemExit:
    pass
import mcboost_cli.algorithms._estimator_api as api
print(api.ESTIMATOR_BASES == (), "sklearn" in sys.modules)
"""


@pytest.mark.parametrize("setting, want", [(None, "True False"), ("1", "False True")])
def test_the_mcboost_command_imports_its_algorithms_without_sklearns_bases(setting, want):
    # ``mcboost algorithms`` imports every algorithm (the registry).
    root = str(Path(__file__).resolve().parents[1])
    env = {k: v for k, v in os.environ.items() if k != "MCBOOST_SKLEARN_BASES"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    if setting is not None:
        env["MCBOOST_SKLEARN_BASES"] = setting
    proc = subprocess.run([sys.executable, "-c", _CONSOLE, "algorithms"], capture_output=True,
                          text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "samme" in proc.stdout
    assert proc.stdout.strip().splitlines()[-1] == want
