"""MLP: a fully-connected neural network, scikit-learn's ``MLPClassifier`` (an optional extra:
``pip install -e '.[sklearn]'``), with hidden layers given relative to the data.

The REBEL paper (Appel & Perona 2017, sec. 7.1, Fig. 9) compares with four fully-connected
nets from d inputs to K outputs whose hidden layers are multiples of d and K ("[d − 2d − K]"
and the like; d the number of features, K of classes). ``hidden_layers`` says the same in a
config: comma-separated layer sizes, each a positive integer (``64``) or a positive multiple
of d or K (``d``, ``2d``, ``4K``), resolved at the fit against the training data's d and K
(``resolve_hidden_layers``): "2d,4K" on pendigits (d = 16, K = 10) is two hidden layers of
32 and 40 units. The paper gives no training setting; ours, and the readings, are in
ALGORITHMS.md ("SVM and neural networks"). The fit (``_sklearn_models``: one round):

1. standardise every feature on the training part (``StandardScaler``);
2. train the net (softmax output, cross-entropy loss with L2 penalty ``alpha``; solver,
   activation, learning rate and epochs as the parameters say), its initial weights and
   mini-batch order drawn from ``random_state``, which the runner derives from the cell
   (``runner.work.cell_random_state``): same cell, same net;
3. the round's vote is the net's predicted class.

References
----------
.. [1] R. Appel, P. Perona. A simple multi-class boosting framework with theoretical
       guarantees and empirical proficiency. ICML 2017 (sec. 7.1, Fig. 9).
.. [2] D. P. Kingma, J. Ba. Adam: a method for stochastic optimization. ICLR 2015 (the
       default solver).
"""

from __future__ import annotations

import re
import warnings

from ._sklearn_models import SklearnModel
from .params import ParamSpec
from .registry import register

# Bounds that keep a typo from allocating a net of billions of weights.
MAX_LAYER_UNITS = 100_000
MAX_MULTIPLE = 1_000
MAX_HIDDEN_LAYERS = 20

_LAYER = re.compile(r"([0-9]*)([dK]?)")
LAYERS_SYNTAX = ("comma-separated hidden-layer sizes, each a positive integer or a positive "
                 "multiple of d (features) or K (classes), e.g. '2d,4K' or '64'")


def parse_hidden_layers(spec: str) -> tuple[tuple[int, str], ...]:
    """The layers of ``spec`` as (multiple, unit) pairs, unit "" (units), "d" or "K".

    Raises ValueError saying which layer is wrong and why.
    """
    if not isinstance(spec, str):
        raise ValueError(f"expected a string, got {type(spec).__name__}")
    tokens = [tok.strip() for tok in spec.split(",")]
    if tokens == [""]:
        raise ValueError("no hidden layer")
    if len(tokens) > MAX_HIDDEN_LAYERS:
        raise ValueError(f"{len(tokens)} hidden layers, more than {MAX_HIDDEN_LAYERS}")
    layers = []
    for i, tok in enumerate(tokens, start=1):
        m = _LAYER.fullmatch(tok)
        if not tok or m is None or not (m.group(1) or m.group(2)):
            raise ValueError(f"layer {i} {tok!r} is neither an integer nor a multiple of d or K")
        digits, unit = m.groups()
        multiple = int(digits) if digits else 1
        bound = MAX_MULTIPLE if unit else MAX_LAYER_UNITS
        if not 1 <= multiple <= bound:
            raise ValueError(f"layer {i} {tok!r} must be between 1 and "
                             f"{bound}{unit and ' times ' + unit}")
        layers.append((multiple, unit))
    return tuple(layers)


def resolve_hidden_layers(spec: str, n_features: int, n_classes: int) -> tuple[int, ...]:
    """The hidden-layer sizes of ``spec`` for d = ``n_features`` and K = ``n_classes``
    (a resolved layer has at most MAX_LAYER_UNITS units)."""
    per_unit = {"": 1, "d": int(n_features), "K": int(n_classes)}
    sizes = tuple(multiple * per_unit[unit] for multiple, unit in parse_hidden_layers(spec))
    too_big = [s for s in sizes if s > MAX_LAYER_UNITS]
    if too_big:
        raise ValueError(f"hidden_layers {spec!r} gives a layer of {too_big[0]} units for "
                         f"d={n_features}, K={n_classes}; at most {MAX_LAYER_UNITS}")
    return sizes


def sklearn_seed(random_state: int) -> int:
    """The 32 low bits of ``random_state``: scikit-learn seeds numpy's legacy RandomState,
    which takes seeds below 2^32, while the runner's cell seeds have 63 bits
    (``protocol.seeding.derive_seed``; taking bits keeps them a pure function of the cell).
    Seeds below 2^32 are themselves."""
    return int(random_state) & 0xFFFF_FFFF


HIDDEN_LAYERS = ParamSpec("hidden_layers", "text", "2d",
                          "hidden-layer sizes, input to output: integers or multiples of d "
                          "(features) and K (classes), e.g. '2d,4K'",
                          parse=parse_hidden_layers, syntax=LAYERS_SYNTAX)
ACTIVATION = ParamSpec("activation", "choice", "relu", "activation of the hidden units",
                       choices=("relu", "tanh", "logistic"))
SOLVER = ParamSpec("solver", "choice", "adam",
                   "weight optimiser: adam (mini-batches), sgd (mini-batches, momentum) or "
                   "lbfgs (full batch)", choices=("adam", "sgd", "lbfgs"))
ALPHA = ParamSpec("alpha", "float", 1e-4, "L2 penalty of the weights", low=0.0)
LEARNING_RATE = ParamSpec("learning_rate_init", "float", 1e-3,
                          "initial step size of adam and sgd", low=0.0, low_open=True)
MAX_ITER = ParamSpec("max_iter", "int", 200,
                     "most epochs (adam, sgd) or iterations (lbfgs); training also stops "
                     "when the loss improves by less than 1e-4 for 10 epochs", low=1,
                     high=100_000)


@register
class MLP(SklearnModel):
    """A fully-connected net (scikit-learn's ``MLPClassifier``) on standardised features.

    Parameters
    ----------
    hidden_layers : str, default="2d"
        Hidden-layer sizes from the input to the output (``parse_hidden_layers``).
    activation : {"relu", "tanh", "logistic"}, default="relu"
    solver : {"adam", "sgd", "lbfgs"}, default="adam"
    alpha : float, default=1e-4
    learning_rate_init : float, default=1e-3
    max_iter : int, default=200
    random_state : int, default=0
        Seed of the initial weights and the mini-batch order (its 32 low bits:
        ``sklearn_seed``); not a configurable parameter: ``runner.work.run_cell`` sets it
        from the cell, whose key already fixes it.

    Fitted attributes (besides the base class's)
    ---------------------------------------------
    forest_ : FittedModel, its ``model`` the fitted pipeline (StandardScaler, MLPClassifier)
    hidden_layer_sizes_ : tuple of int, the resolved sizes
    n_iter_ : int, epochs (iterations for lbfgs) run
    converged_ : bool, whether training stopped before ``max_iter``
    best_round_ : int, 1
    """

    name = "mlp"
    family = "neural network"
    reference = ("Appel & Perona, ICML 2017, sec. 7.1 (fully-connected nets d-...-K); "
                 "scikit-learn's MLPClassifier")
    version = "1"
    param_specs = (HIDDEN_LAYERS, ACTIVATION, SOLVER, ALPHA, LEARNING_RATE, MAX_ITER)
    # A step of 0.01 (not Adam's default 0.001): 50 epochs then learn scikit-learn's
    # check_classifiers_train blobs (training accuracy > 0.83; tests/test_sklearn_compat.py).
    test_params = {"hidden_layers": "2d,K", "max_iter": 50, "learning_rate_init": 0.01}

    def __init__(self, hidden_layers="2d", activation="relu", solver="adam", alpha=1e-4,
                 learning_rate_init=1e-3, max_iter=200, random_state=0):
        self.hidden_layers = hidden_layers
        self.activation = activation
        self.solver = solver
        self.alpha = alpha
        self.learning_rate_init = learning_rate_init
        self.max_iter = max_iter
        self.random_state = random_state

    def _classifier(self, n_features: int):
        from sklearn.neural_network import MLPClassifier
        self.hidden_layer_sizes_ = resolve_hidden_layers(self.hidden_layers, n_features,
                                                         self.n_classes_)
        return MLPClassifier(hidden_layer_sizes=self.hidden_layer_sizes_,
                             activation=self.activation, solver=self.solver,
                             alpha=float(self.alpha),
                             learning_rate_init=float(self.learning_rate_init),
                             max_iter=int(self.max_iter),
                             random_state=sklearn_seed(self.random_state))

    def _fit_pipeline(self, model, X, y):
        # Reaching max_iter is recorded (converged_, stop_reason_) rather than warned about
        # once per cell. catch_warnings swaps the process's filters for the fit's duration.
        from sklearn.exceptions import ConvergenceWarning
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return model.fit(X, y)

    def _describe(self, model) -> str:
        self.n_iter_ = int(model.n_iter_)
        self.converged_ = self.n_iter_ < int(self.max_iter)
        layers = "-".join(map(str, (model.n_features_in_, *self.hidden_layer_sizes_,
                                    model.n_outputs_)))
        state = "converged" if self.converged_ else "stopped at max_iter, not converged"
        return (f"MLPClassifier {layers} {self.activation} {self.solver}, "
                f"{self.n_iter_} iterations ({state})")
