"""Generic checks run over every registered algorithm with its own small test parameters
(as river's ``check_estimator``): a new algorithm gets these tests for free. An algorithm for
two classes only declares ``binary_only = True`` and is checked on two-class data. Each of an
algorithm's ``test_param_variants`` is checked too, as a subclass whose ``test_params`` is
the variant (test id ``name-key=value``)."""

import pickle

import numpy as np
import pytest

from mcboost_cli.algorithms.registry import all_algorithms
from mcboost_cli.learners.binning import Binned, BinMapper
from mcboost_cli.learners.forest import Forest
from mcboost_cli.runner.checkpoint import FitCheckpoint



def _with_variants(algorithms):
    """(id, class) of every algorithm and of each of its ``test_param_variants``: a subclass
    (same module and qualified name, so the same fit fingerprints) whose ``test_params`` is
    the variant."""
    out = []
    for name, cls in algorithms:
        out.append((name, cls))
        for params in cls.test_param_variants:
            variant = type(cls.__name__, (cls,), {"test_params": params,
                                                  "__module__": cls.__module__,
                                                  "__qualname__": cls.__qualname__})
            out.append((name + "-" + ",".join(f"{k}={v}" for k, v in params.items()),
                        variant))
    return out


ALGORITHMS = _with_variants(sorted(all_algorithms().items()))
CASE_ID = {cls: case for case, cls in ALGORITHMS}


def _data(seed=0, n=300, K=4, F=5, algo=None):
    if getattr(algo, "binary_only", False):
        K = 2
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, F))
    y = (np.digitize(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=n),
                     np.linspace(-1.5, 1.5, K - 1))).astype(int)
    return X, y


@pytest.fixture(params=[cls for _, cls in ALGORITHMS], ids=[case for case, _ in ALGORITHMS])
def algo(request):
    return request.param


def test_registry_attributes(algo):
    assert algo.name and algo.family and algo.reference and algo.version
    spec_names = {s.name for s in algo.param_specs}
    assert set(algo.test_params) <= spec_names
    # Every constructor argument is a declared parameter with the same default.
    est = algo()
    for s in algo.param_specs:
        assert est.get_params()[s.name] == s.default


def test_get_set_params_and_clone(algo):
    est = algo(**algo.test_params)
    params = est.get_params()
    clone = type(est)(**params)
    assert clone.get_params() == params
    if "n_rounds" in params:      # a single tree (CART) has one round and no such parameter
        est.set_params(n_rounds=3)
        assert est.n_rounds == 3
    last = algo.param_specs[-1]       # any algorithm's: set_params reaches get_params
    other = last.choices[-1] if last.kind == "choice" else last.default
    assert est.set_params(**{last.name: other}).get_params()[last.name] == other
    with pytest.raises(ValueError):
        est.set_params(no_such_param=1)


def test_fit_records_curves_that_match_staged_predictions(algo):
    X, y = _data(algo=algo)
    Xv, yv = _data(1, algo=algo)
    est = algo(**algo.test_params).fit(X, y, eval_set=[(Xv, yv)])
    assert est.n_rounds_ >= 1
    assert est.train_errors_.shape == (est.n_rounds_,)
    assert est.eval_errors_.shape == (1, est.n_rounds_)
    staged_train = [np.mean(p != y) for p in est.staged_predict(X)]
    staged_valid = [np.mean(p != yv) for p in est.staged_predict(Xv)]
    np.testing.assert_allclose(est.train_errors_, staged_train)
    np.testing.assert_allclose(est.eval_errors_[0], staged_valid)


def test_staged_predict_ends_at_predict(algo):
    X, y = _data(2, algo=algo)
    est = algo(**algo.test_params).fit(X, y)
    *_, last = est.staged_predict(X)
    np.testing.assert_array_equal(last, est.predict(X))
    np.testing.assert_array_equal(np.argmax(est.class_scores(X), axis=1),
                                  np.searchsorted(est.classes_, est.predict(X)))
    # class_scores(n_rounds=t) is the t-th staged score.
    staged = list(est.staged_class_scores(X))
    t = max(1, est.n_rounds_ // 2)
    np.testing.assert_allclose(est.class_scores(X, n_rounds=t), staged[t - 1])


def test_deterministic(algo):
    X, y = _data(3, algo=algo)
    a = algo(**algo.test_params).fit(X, y)
    b = algo(**algo.test_params).fit(X, y)
    np.testing.assert_array_equal(a.class_scores(X), b.class_scores(X))
    np.testing.assert_array_equal(a.train_errors_, b.train_errors_)


def test_prebinned_input_gives_the_same_model(algo):
    X, y = _data(4, algo=algo)
    mapper = BinMapper().fit(X)
    a = algo(**algo.test_params).fit(X, y)
    # With the raw values as the runner's folds carry them (the models that read values,
    # not bins, need them: similarity learners, SVM, neural nets; the others ignore them).
    b = algo(**algo.test_params).fit(Binned(mapper.transform(X), mapper, raw=X), y)
    np.testing.assert_array_equal(a.class_scores(X), b.class_scores(X))


def test_string_labels_and_unseen_eval_labels(algo):
    X, y = _data(5, K=3, algo=algo)
    names = np.array(["cat", "dog", "eel"])[y]
    yv = names.copy()
    yv[:10] = "fox"                       # a label never seen in training is always an error
    est = algo(**algo.test_params).fit(X, names, eval_set=[(X, yv)])
    assert list(est.classes_) == ["cat", "dog", "eel"][:len(np.unique(y))]
    assert set(est.predict(X)) <= set(est.classes_)
    assert np.all(est.eval_errors_[0] >= 10 / len(yv) - 1e-12)


def test_fitted_attributes_end_with_underscore(algo):
    X, y = _data(6, algo=algo)
    est = algo(**algo.test_params)
    before = set(vars(est))
    est.fit(X, y)
    new_public = {k for k in set(vars(est)) - before if not k.startswith("_")}
    assert new_public and all(k.endswith("_") for k in new_public)


class _Stop(Exception):
    """Stands for the end of a process in the middle of a fit."""


class _StoppingCheckpoint(FitCheckpoint):
    """Saves after every round; raises ``_Stop`` once it has saved ``stop_after`` times."""

    def __init__(self, path, stop_after=None):
        super().__init__(path, every_seconds=0)
        self.stop_after = stop_after
        self.saves = 0

    def save(self, fingerprint, state):
        super().save(fingerprint, state)
        self.saves += 1
        if self.stop_after is not None and self.saves >= self.stop_after:
            raise _Stop()


def _fitted_state(est):
    """Every fitted attribute (name ending in '_') and the forest, as comparable values."""
    out = {}
    for k, v in vars(est).items():
        if k.endswith("_") and not k.startswith("_") and k not in ("bin_mapper_", "forest_"):
            out[k] = v
    f = est.forest_
    if hasattr(f, "state_arrays"):       # an ensemble of other learners than trees (REBEL)
        out["forest"] = f.state_arrays()
        return out
    if not isinstance(f, Forest):
        # A single non-boosting model (algorithms._sklearn_models.FittedModel): its bytes.
        out["forest"] = (np.frombuffer(pickle.dumps(f.model), np.uint8),)
        return out
    n = f.n_nodes_total
    out["forest"] = (f.feature[:n], f.threshold[:n], f.left[:n], f.leaf_label[:n],
                     f.leaf_value[:n] if f.leaf_value.shape[0] > 1 else f.leaf_value,
                     list(f.tree_offset), list(f.alpha))
    return out


def _assert_same_fit(a, b):
    sa, sb = _fitted_state(a), _fitted_state(b)
    assert sa.keys() == sb.keys()
    for k in sa:
        va, vb = sa[k], sb[k]
        if k == "forest":
            for xa, xb in zip(va, vb):
                np.testing.assert_array_equal(np.asarray(xa), np.asarray(xb), err_msg=k)
        elif isinstance(va, np.ndarray):
            np.testing.assert_array_equal(va, vb, err_msg=k)
        else:
            assert va == vb or (va != va and vb != vb), k   # NaN == NaN here


# Checkpoints are saved between rounds: they concern the algorithms of several rounds.
MULTI_ROUND = [cls for _, cls in ALGORITHMS if "n_rounds" in cls().get_params()]


@pytest.mark.parametrize("algo", [cls for _, cls in ALGORITHMS if cls not in MULTI_ROUND],
                         ids=CASE_ID.get)
def test_single_round_fit_ignores_checkpoints(algo, tmp_path):
    X, y = _data(6, algo=algo)
    ck = _StoppingCheckpoint(tmp_path / "fit.ckpt", stop_after=1)
    with_ck = algo(**algo.test_params).fit(X, y, checkpoint=ck)
    assert with_ck.n_rounds_ == 1 and ck.saves == 0 and ck.resumed_round == 0
    _assert_same_fit(with_ck, algo(**algo.test_params).fit(X, y))


@pytest.mark.parametrize("algo", MULTI_ROUND, ids=CASE_ID.get)
def test_fit_stopped_midway_resumes_from_its_checkpoint_bit_for_bit(algo, tmp_path):
    X, y = _data(6, algo=algo)       # every algorithm runs >= 5 rounds on it
    Xv, yv = _data(7, algo=algo)
    params = dict(algo.test_params, n_rounds=12)
    full = algo(**params).fit(X, y, eval_set=[(Xv, yv)])
    assert full.n_rounds_ >= 4, "the check needs a fit of several rounds"
    stop = full.n_rounds_ // 2
    path = tmp_path / "fit.ckpt"
    with pytest.raises(_Stop):
        algo(**params).fit(X, y, eval_set=[(Xv, yv)], checkpoint=_StoppingCheckpoint(path, stop))
    assert path.exists()
    resumed_ckpt = _StoppingCheckpoint(path)
    resumed = algo(**params).fit(X, y, eval_set=[(Xv, yv)], checkpoint=resumed_ckpt)
    assert resumed_ckpt.resumed_round == stop
    _assert_same_fit(full, resumed)
    np.testing.assert_array_equal(full.class_scores(Xv), resumed.class_scores(Xv))


@pytest.mark.parametrize("algo", MULTI_ROUND, ids=CASE_ID.get)
def test_checkpoint_of_other_data_or_parameters_is_ignored(algo, tmp_path):
    X, y = _data(6, algo=algo)
    path = tmp_path / "fit.ckpt"
    params = dict(algo.test_params, n_rounds=6)
    with pytest.raises(_Stop):
        algo(**params).fit(X, y, checkpoint=_StoppingCheckpoint(path, 2))
    # Other labels (same shapes): the checkpoint is not this fit's.
    y2 = np.roll(y, 1)
    ck = _StoppingCheckpoint(path)
    other = algo(**params).fit(X, y2, checkpoint=ck)
    assert ck.resumed_round == 0
    _assert_same_fit(other, algo(**params).fit(X, y2))
    # Other parameters.
    with pytest.raises(_Stop):
        algo(**params).fit(X, y, checkpoint=_StoppingCheckpoint(path, 2))
    ck = _StoppingCheckpoint(path)
    algo(**dict(params, n_rounds=5)).fit(X, y, checkpoint=ck)
    assert ck.resumed_round == 0


def _prefix_variant(algo, params):
    """The same parameters with every prefix-free one (algorithms.base, "Shared prefixes")
    set to another valid value."""
    out = dict(params)
    for s in algo.param_specs:
        if s.name not in algo._prefix_free_params:
            continue
        v = params.get(s.name, s.default)
        if s.kind == "choice":
            out[s.name] = next(c for c in s.choices if c != v)
        elif s.kind == "int":
            out[s.name] = v + 3
        else:
            out[s.name] = v / 2
    return out


class _RecordingPrefixes:
    """An in-memory ``PrefixStore`` (pickled, as the files are: the state holds the live
    arrays of the fit that saves it)."""

    def __init__(self):
        self.states = {}

    def load(self, fingerprint):
        got = self.states.get(fingerprint)
        return None if got is None else pickle.loads(got)

    def save(self, fingerprint, state):
        self.states[fingerprint] = pickle.dumps(state)


@pytest.mark.parametrize("algo", [cls for _, cls in ALGORITHMS if cls._prefix_free_params],
                         ids=CASE_ID.get)
def test_a_fit_from_a_siblings_shared_prefix_equals_a_fit_from_round_one(algo):
    X, y = _data(6, algo=algo)
    Xv, yv = _data(7, algo=algo)
    params = dict(algo.test_params, n_rounds=40)
    if "phase1_patience" in algo().get_params():
        params["phase1_patience"] = 2     # Phase I (the prefix) ends well before round 40
    other = _prefix_variant(algo, params)
    assert other != params
    store = _RecordingPrefixes()
    first = algo(**params).fit(X, y, eval_set=[(Xv, yv)], prefix=store)
    assert first.prefix_rounds_ == 0 and len(store.states) == 1
    sibling = algo(**other).fit(X, y, eval_set=[(Xv, yv)], prefix=store)
    fresh = algo(**other).fit(X, y, eval_set=[(Xv, yv)])
    assert sibling.prefix_rounds_ >= 1
    sibling.prefix_rounds_ = 0           # the one attribute that tells them apart
    _assert_same_fit(fresh, sibling)
    np.testing.assert_array_equal(fresh.class_scores(Xv), sibling.class_scores(Xv))
    # A parameter the prefix depends on (the tree depth) makes another prefix.
    deeper = algo(**dict(other, max_depth=other.get("max_depth", 3) + 1))
    deeper.fit(X, y, prefix=store)
    assert deeper.prefix_rounds_ == 0 and len(store.states) == 2
