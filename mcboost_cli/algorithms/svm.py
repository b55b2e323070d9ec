"""SVM: a multi-class support vector machine with the RBF kernel, LIBSVM's (Chang & Lin 2011)
through scikit-learn's ``SVC`` (an optional extra: ``pip install -e '.[sklearn]'``).

The REBEL paper (Appel & Perona 2017, sec. 7.1, Fig. 9) compares with "a multi-class SVM
(Chang & Lin, 2011) ... validated using a 5 × 6 parameter sweep for C and γ", giving neither
the kernel, the sweep's values nor any scaling; our readings are in ALGORITHMS.md ("SVM and
neural networks"). The fit (``_sklearn_models``: one round):

1. standardise every feature on the training part (``StandardScaler``: zero mean, unit
   variance; LIBSVM's guide scales features before training, Hsu, Chang & Lin 2003, sec. 2.2);
2. train LIBSVM's C-SVC with the kernel K(x, x') = exp(−γ ||x − x'||²) and penalty C; for K
   classes LIBSVM trains the K(K − 1)/2 one-against-one classifiers and predicts by their
   vote, a tie going to the class that comes first (Chang & Lin 2011, sec. 7);
3. the round's vote is that prediction.

C and γ are parameters; the paper's sweep is a config ``grid:`` over them (validation picks
the grid point, as for every grid). ``gamma`` 0 means 1/d, LIBSVM's default. SVC's other
settings are LIBSVM's defaults (tolerance 1e-3, shrinking, no class weights); the fit draws
nothing at random (no probability estimates), so it has no ``random_state``.

References
----------
.. [1] C.-C. Chang, C.-J. Lin. LIBSVM: a library for support vector machines. ACM TIST 2(3),
       2011.
.. [2] C.-W. Hsu, C.-C. Chang, C.-J. Lin. A practical guide to support vector
       classification. 2003.
.. [3] R. Appel, P. Perona. A simple multi-class boosting framework with theoretical
       guarantees and empirical proficiency. ICML 2017 (sec. 7.1, Fig. 9).
"""

from __future__ import annotations

from ._sklearn_models import SklearnModel
from .params import ParamSpec
from .registry import register

SVM_C = ParamSpec("C", "float", 1.0, "penalty C of the soft margin (LIBSVM's -c)", low=0.0,
                  low_open=True)
SVM_GAMMA = ParamSpec("gamma", "float", 0.0,
                      "gamma of the RBF kernel exp(-gamma |x - x'|^2) on standardised "
                      "features; 0: 1/d, LIBSVM's default (-g)", low=0.0, low_open=True,
                      also=(0.0,))


@register
class SVM(SklearnModel):
    """LIBSVM's C-SVC, RBF kernel, one-against-one, on standardised features.

    Parameters
    ----------
    C : float, default=1.0
    gamma : float, default=0.0
        The RBF kernel's gamma; 0 stands for 1/d (d features), LIBSVM's default.

    Fitted attributes (besides the base class's)
    ---------------------------------------------
    forest_ : FittedModel, its ``model`` the fitted pipeline (StandardScaler, SVC)
    gamma_ : float, the gamma used
    n_support_vectors_ : int, support vectors over all classes
    best_round_ : int, 1
    """

    name = "svm"
    family = "SVM"
    reference = ("Chang & Lin, LIBSVM: a library for support vector machines, ACM TIST 2011 "
                 "(C-SVC, RBF kernel, one-against-one)")
    version = "1"
    param_specs = (SVM_C, SVM_GAMMA)
    test_params = {"C": 2.0}

    def __init__(self, C=1.0, gamma=0.0):
        self.C = C
        self.gamma = gamma

    def _classifier(self, n_features: int):
        from sklearn.svm import SVC
        self.gamma_ = float(self.gamma) if self.gamma > 0 else 1.0 / max(n_features, 1)
        return SVC(C=float(self.C), kernel="rbf", gamma=self.gamma_)

    def _describe(self, model) -> str:
        self.n_support_vectors_ = int(model.n_support_.sum())
        return (f"SVC C={float(self.C):g} gamma={self.gamma_:g}, "
                f"{self.n_support_vectors_} support vectors")
