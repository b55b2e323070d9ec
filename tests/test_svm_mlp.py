"""The SVM and the neural net of the REBEL paper's Figure 9 (``algorithms.svm``,
``algorithms.mlp``): the same predictions as scikit-learn's own pipeline (StandardScaler, then
SVC / MLPClassifier with the same parameters) on the same data, determinism, hidden layers
relative to d and K, the runner's raw values and seed, and the one-line errors: a bad layer
spec, and scikit-learn missing (the optional extra)."""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest
from click.testing import CliRunner

pytest.importorskip("sklearn")

from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.neural_network import MLPClassifier  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.svm import SVC  # noqa: E402

from mcboost_cli.algorithms.mlp import (  # noqa: E402
    MLP,
    parse_hidden_layers,
    resolve_hidden_layers,
)
from mcboost_cli.algorithms.registry import all_algorithms, get_algorithm  # noqa: E402
from mcboost_cli.algorithms.svm import SVM  # noqa: E402
from mcboost_cli.cli import main  # noqa: E402
from mcboost_cli.errors import UserError  # noqa: E402
from mcboost_cli.learners.binning import Binned, BinMapper  # noqa: E402
from mcboost_cli.runner.config import validate_config  # noqa: E402


def _data(seed, n=240, d=6, K=4, scale=None):
    """Classes from a noisy linear score; features on very different scales (``scale``),
    so that standardising matters."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.digitize(X[:, 0] + 0.7 * X[:, 1] - 0.5 * X[:, 2] + 0.4 * rng.normal(size=n),
                    np.linspace(-1.2, 1.2, K - 1))
    if scale is not None:
        X = X * np.asarray(scale)[:d] + 5.0
    return X, y


SCALES = [1.0, 100.0, 0.01, 10.0, 1.0, 1000.0]


# -- the same predictions as scikit-learn's pipeline ----------------------------------------

@pytest.mark.parametrize("C, gamma, sk_gamma", [(1.0, 0.0, "auto"), (16.0, 0.05, 0.05),
                                                (0.25, 2.0, 2.0)])
def test_svm_predicts_as_sklearns_pipeline(C, gamma, sk_gamma):
    X, y = _data(0, scale=SCALES)
    Xt, _ = _data(1, scale=SCALES)
    labels = np.array(["b", "a", "d", "c"])[y]        # the order of classes_ is not y's
    ours = SVM(C=C, gamma=gamma).fit(X, labels)
    ref = make_pipeline(StandardScaler(), SVC(C=C, kernel="rbf", gamma=sk_gamma)).fit(X, labels)
    for rows in (X, Xt):
        np.testing.assert_array_equal(ours.predict(rows), ref.predict(rows))
    assert ours.gamma_ == (1.0 / X.shape[1] if gamma == 0 else gamma)
    assert ours.n_support_vectors_ == ref[-1].n_support_.sum()
    assert f"{ours.n_support_vectors_} support vectors" in ours.stop_reason_


def test_svm_is_one_against_one_libsvm_with_scaling_that_matters():
    X, y = _data(2, scale=SCALES)
    est = SVM(C=4.0).fit(X, y)
    svc = est.forest_.model[-1]
    assert isinstance(svc, SVC) and svc.kernel == "rbf"
    # LIBSVM's one-against-one: K (K - 1) / 2 binary machines.
    K = len(est.classes_)
    assert svc.dual_coef_.shape[0] == K - 1 and svc.intercept_.shape[0] == K * (K - 1) // 2
    # Without standardising, the large-scale features swamp the kernel: it memorises the
    # training rows and fails on new ones.
    Xt, yt = _data(12, scale=SCALES)
    unscaled = SVC(C=4.0, gamma=1.0 / X.shape[1]).fit(X, y)
    assert np.mean(unscaled.predict(Xt) != yt) > np.mean(est.predict(Xt) != yt) + 0.2


@pytest.mark.parametrize("params", [
    {"hidden_layers": "2d", "max_iter": 60},
    {"hidden_layers": "d,4K", "activation": "tanh", "alpha": 1e-3, "max_iter": 40},
    {"hidden_layers": "7", "solver": "lbfgs", "max_iter": 30},
    {"hidden_layers": "2K", "solver": "sgd", "learning_rate_init": 0.01, "max_iter": 30},
])
def test_mlp_predicts_as_sklearns_pipeline(params):
    X, y = _data(3, scale=SCALES)
    Xt, _ = _data(4, scale=SCALES)
    ours = MLP(random_state=11, **params).fit(X, y)
    d, K = X.shape[1], 4
    sizes = resolve_hidden_layers(params["hidden_layers"], d, K)
    sk = {k: v for k, v in params.items() if k != "hidden_layers"}
    ref = make_pipeline(StandardScaler(), MLPClassifier(hidden_layer_sizes=sizes,
                                                        random_state=11, **sk))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)     # a short training, on purpose
        ref.fit(X, y)
    for rows in (X, Xt):
        np.testing.assert_array_equal(ours.predict(rows), ref.predict(rows))
    net = ours.forest_.model[-1]
    assert [w.shape for w in net.coefs_] == [w.shape for w in ref[-1].coefs_]
    assert ours.hidden_layer_sizes_ == sizes
    assert ours.n_iter_ == ref[-1].n_iter_
    assert ours.converged_ == (ours.n_iter_ < params["max_iter"])


# -- determinism, seed, curves ----------------------------------------------------------------

def test_mlp_is_deterministic_for_a_seed_and_the_seed_matters():
    X, y = _data(5)
    a = MLP(hidden_layers="2d", max_iter=40, random_state=3).fit(X, y)
    b = MLP(hidden_layers="2d", max_iter=40, random_state=3).fit(X, y)
    c = MLP(hidden_layers="2d", max_iter=40, random_state=4).fit(X, y)
    for wa, wb, wc in zip(a.forest_.model[-1].coefs_, b.forest_.model[-1].coefs_,
                          c.forest_.model[-1].coefs_):
        np.testing.assert_array_equal(wa, wb)
        assert not np.array_equal(wa, wc)


def test_one_round_whose_votes_are_the_predictions_and_curves_of_every_set():
    X, y = _data(6)
    Xv, yv = _data(7)
    for est in (SVM(C=2.0), MLP(max_iter=40)):
        est.fit(X, y, eval_set=[(Xv, yv), (X, y)])
        assert est.n_rounds_ == 1 and est.best_round_ == 1 and not est.early_stopping
        pred = est.predict(Xv)
        assert est.eval_errors_[0, 0] == np.mean(pred != yv)
        assert est.eval_errors_[1, 0] == est.train_errors_[0] == np.mean(est.predict(X) != y)
        scores = est.class_scores(Xv)
        assert set(np.unique(scores)) == {0.0, 1.0} and np.all(scores.sum(axis=1) == 1.0)
        assert est.stop_reason_.startswith("one model (scikit-learn ")


def test_they_read_the_raw_values_of_a_binned_input_not_its_bins():
    X, y = _data(8, scale=SCALES)
    mapper = BinMapper(max_bins=4).fit(X)           # coarse bins: a model of bins would differ
    binned = Binned(mapper.transform(X), mapper, raw=X)
    a = SVM(C=8.0).fit(binned, y, eval_set=[(binned, y)])
    b = SVM(C=8.0).fit(X, y)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_array_equal(a.predict(binned), b.predict(X))
    with pytest.raises(ValueError, match="needs the raw feature values"):
        SVM().fit(Binned(mapper.transform(X), mapper), y)
    X_nan = X.copy()
    X_nan[3, 2] = np.nan
    with pytest.raises(ValueError, match="needs complete feature values"):
        MLP().fit(X_nan, y)


def test_the_runner_gives_the_net_its_cells_seed_and_the_folds_raw_values(uci_dir):
    from mcboost_cli.runner.cells import Cell
    from mcboost_cli.runner.work import _fold, cell_random_state, run_cell

    def cell(seed):
        return Cell("e", "glass", "five_fold", 0, 0.0, seed, "mlp", MLP.version,
                    (("hidden_layers", "d"), ("max_iter", 30)))
    r0 = run_cell(cell(0), fetch=True, mirror=str(uci_dir))
    again = run_cell(cell(0), fetch=True, mirror=str(uci_dir))
    assert r0.curves == again.curves and r0.test_error == again.test_error
    assert r0.selected_round == 1 and r0.n_rounds == 1
    assert "MLPClassifier 9-9-6" in r0.extra["stop_reason"]
    # The same fit by hand, from the fold's raw values and the cell's seed.
    split, binned = _fold("glass", "five_fold", 0, 0, 255, True, str(uci_dir))
    seed = cell_random_state(cell(0))
    assert seed >= 2 ** 32                  # 63 bits: the net is seeded by its low 32
    est = MLP(hidden_layers="d", max_iter=30, random_state=seed)
    est.fit(binned["train"].raw, _labels(uci_dir)[split.train])
    assert np.mean(est.predict(binned["test"].raw) != _labels(uci_dir)[split.test]) == \
        r0.test_error
    ref = make_pipeline(StandardScaler(), MLPClassifier(hidden_layer_sizes=(9,), max_iter=30,
                                                        random_state=seed % 2 ** 32))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ref.fit(binned["train"].raw, _labels(uci_dir)[split.train])
    np.testing.assert_array_equal(est.predict(binned["test"].raw),
                                  ref.predict(binned["test"].raw))


def _labels(uci_dir):
    from mcboost_cli.runner.work import _dataset
    return _dataset("glass", True, str(uci_dir)).y


# -- hidden layers ----------------------------------------------------------------------------

def test_hidden_layers_are_integers_or_multiples_of_d_and_K():
    assert parse_hidden_layers("2d,4K") == ((2, "d"), (4, "K"))
    assert parse_hidden_layers(" d , K ,64") == ((1, "d"), (1, "K"), (64, ""))
    # The paper's sizes {d, 2d, 4d, 2K, 4K} on pendigits (d = 16, K = 10).
    assert resolve_hidden_layers("d,2d,4d", 16, 10) == (16, 32, 64)
    assert resolve_hidden_layers("2K,4K", 16, 10) == (20, 40)
    X, y = _data(9, d=5, K=3)
    est = MLP(hidden_layers="2d,K", max_iter=20).fit(X, y)
    assert est.hidden_layer_sizes_ == (10, 3)
    assert [w.shape for w in est.forest_.model[-1].coefs_] == [(5, 10), (10, 3), (3, 3)]


@pytest.mark.parametrize("spec, message", [
    ("", "no hidden layer"),
    ("2d,", "layer 2 '' is neither"),
    ("2x", "layer 1 '2x' is neither"),
    ("d2", "layer 1 'd2' is neither"),
    ("2k", "layer 1 '2k' is neither"),         # K is the paper's capital
    ("-1", "layer 1 '-1' is neither"),
    ("0d", "between 1 and 1000 times d"),
    ("0", "between 1 and 100000"),
    ("1.5d", "is neither"),
    (",".join(["d"] * 21), "21 hidden layers"),
])
def test_a_bad_layer_spec_is_a_one_line_error_naming_it(spec, message):
    cfg = {"experiment": "x", "datasets": ["glass"],
           "algorithms": [{"algorithm": "mlp", "params": {"hidden_layers": spec}}]}
    with pytest.raises(UserError) as e:
        validate_config(cfg, "c.yaml")
    text = str(e.value)
    assert "\n" not in text and message in text, text
    assert text.startswith("c.yaml: algorithms[0].params.hidden_layers: ")
    assert "positive multiple of d (features) or K (classes)" in text
    with pytest.raises(ValueError, match=message.split("'")[0]):
        MLP(hidden_layers=spec).fit(*_data(10))
    # In a grid too, and not a string at all.
    cfg["algorithms"][0] = {"algorithm": "mlp", "grid": {"hidden_layers": ["d", spec]}}
    with pytest.raises(UserError, match="grid.hidden_layers"):
        validate_config(cfg, "c.yaml")


def test_a_layer_spec_that_is_not_a_string_or_too_big_for_the_data():
    cfg = {"experiment": "x", "datasets": ["glass"],
           "algorithms": [{"algorithm": "mlp", "params": {"hidden_layers": 64}}]}
    with pytest.raises(UserError, match="64 is not valid; expected comma-separated"):
        validate_config(cfg, "c.yaml")
    with pytest.raises(ValueError, match="gives a layer of 200000 units"):
        resolve_hidden_layers("1000d", 200, 3)


def test_a_grid_over_C_and_gamma_is_a_config_grid():
    cfg = {"experiment": "x", "datasets": ["glass"],
           "algorithms": [{"algorithm": "svm", "grid": {"C": [0.25, 2, 16, 128, 1024],
                                                        "gamma": [2 ** -k for k in
                                                                  (11, 9, 7, 5, 3, 1)]}}]}
    entry = validate_config(cfg, "c.yaml").tables[0].algorithms[0]
    points = entry.grid_points("glass", max_rounds=5)       # --quick: no n_rounds to cap
    assert len(points) == 30 and all("n_rounds" not in p for p in points)
    for bad in ({"C": 0}, {"gamma": -1.0}):
        cfg["algorithms"][0] = {"algorithm": "svm", "params": bad}
        with pytest.raises(UserError, match="is not valid; expected a number"):
            validate_config(cfg, "c.yaml")


# -- scikit-learn missing: the optional extra -------------------------------------------------

@pytest.fixture
def without_sklearn(monkeypatch):
    """As if scikit-learn were not installed: importing it fails, and so does finding it."""
    for name in list(sys.modules):
        if name == "sklearn" or name.startswith("sklearn."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "sklearn", None)


@pytest.mark.parametrize("algorithm", ["svm", "mlp"])
def test_without_sklearn_a_config_using_it_is_one_line_naming_the_extra(algorithm, tmp_path,
                                                                       monkeypatch,
                                                                       without_sklearn):
    (tmp_path / "c.yaml").write_text(
        f"experiment: x\ndatasets: [glass]\nalgorithms:\n  - algorithm: {algorithm}\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["run", "c.yaml", "--dry-run", "--store", "s.sqlite"])
    assert isinstance(result.exception, SystemExit) and result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output
    assert lines[0] == (f"error: c.yaml: algorithms[0].algorithm: {algorithm} needs "
                        "scikit-learn, an optional dependency that is not installed; install "
                        "the extra: pip install -e '.[sklearn]'")
    assert not (tmp_path / "s.sqlite").exists()
    # A fit from Python says the same.
    with pytest.raises(UserError, match=r"needs scikit-learn.*pip install -e '\.\[sklearn\]'"):
        all_algorithms()[algorithm]().fit(*_data(11))
    with pytest.raises(UserError, match="optional dependency"):
        get_algorithm(algorithm)


def test_without_sklearn_every_algorithm_is_still_listed(without_sklearn):
    result = CliRunner().invoke(main, ["algorithms"])
    assert result.exit_code == 0, result.output
    names = [line.split()[0] for line in result.stdout.splitlines()[2:] if line.strip()
             and not line.startswith(" ")]
    assert {"svm", "mlp", "cart", "samme"} <= set(names)
    assert "hidden_layers='2d'" in result.stdout
    get_algorithm("cart")                      # the others need nothing optional


def test_the_extra_is_declared_in_pyproject():
    import tomllib
    from pathlib import Path
    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    extras = project["project"]["optional-dependencies"]
    assert any(r.startswith("scikit-learn") for r in extras["sklearn"])
    assert not any(r.startswith("scikit-learn") for r in project["project"]["dependencies"])
