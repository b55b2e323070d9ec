"""Registry: config names → estimator classes.

An algorithm class registers itself with ``@register``; it declares ``name``, ``family``,
``reference``, ``version`` (bump it when a change alters its numbers: cell keys include it),
``param_specs`` and ``test_params`` (small parameters for the generic check suite in
``tests/test_estimator_checks.py`` — a new algorithm gets those checks for free); it may
add ``test_param_variants``, further small parameter sets the suite runs too (another weak
learner of the same booster, e.g. AdaBoost.MH's best-first trees).

An algorithm built on an optional library (the SVM and the neural net on scikit-learn) names
it in ``requires``, triples (module, distribution, extra of pyproject.toml): its module
imports without the library (``mcboost algorithms`` lists every algorithm), and
``get_algorithm``, the way configs and cells reach a class, says in one line which extra to
install.
"""

from __future__ import annotations

import importlib.util

from ..errors import UserError, quote

_REGISTRY: dict[str, type] = {}


def register(cls):
    for attr in ("name", "family", "reference", "version", "param_specs", "test_params"):
        if not hasattr(cls, attr):
            raise TypeError(f"{cls.__name__} lacks the registry attribute {attr!r}")
    if cls.name in _REGISTRY:
        raise TypeError(f"algorithm name {cls.name!r} registered twice")
    _REGISTRY[cls.name] = cls
    return cls


_INFRASTRUCTURE = {"base", "params", "registry"}
_loaded: list[bool] = []


def _load_all():
    """Import every module of this package: importing a module registers its classes, so a
    new algorithm module needs no edit here. Once per process: the report looks a class up
    per cell (``plan.full_params``), and listing the package's folder each time was a third
    of ``mcboost compare configs/noise_sweep.yaml`` (27,750 lookups, 2026-11-29)."""
    if _loaded:
        return
    import importlib
    import pkgutil

    from .. import algorithms
    for mod in pkgutil.iter_modules(algorithms.__path__):
        if mod.name not in _INFRASTRUCTURE and not mod.name.startswith("_"):
            importlib.import_module(f"{algorithms.__name__}.{mod.name}")
    _loaded.append(True)


def all_algorithms() -> dict[str, type]:
    _load_all()
    return dict(sorted(_REGISTRY.items()))


def get_algorithm(name: str, where: str = "algorithm"):
    algos = all_algorithms()
    if name not in algos:
        raise UserError(f"{where}: unknown algorithm {quote(name)}; known: {', '.join(algos)}")
    cls = algos[name]
    check_requirements(cls, where)
    return cls


def check_requirements(cls, where: str = "algorithm") -> None:
    """Raise UserError, one line naming the extra to install, when a library that ``cls``
    declares in ``requires`` is not importable."""
    for module, distribution, extra in getattr(cls, "requires", ()):
        if importlib.util.find_spec(module) is None:
            raise UserError(f"{where}: {cls.name} needs {distribution}, an optional "
                            f"dependency that is not installed; install the extra: "
                            f"pip install -e '.[{extra}]'")


def validate_params(cls, params: dict, where: str) -> dict:
    """Check a params mapping against the class's specs; returns converted values."""
    specs = {s.name: s for s in cls.param_specs}
    out = {}
    for k, v in params.items():
        if k not in specs:
            raise UserError(f"{where}.{k}: unknown parameter of {cls.name}; valid: "
                            f"{', '.join(specs)}")
        out[k] = specs[k].validate(v, f"{where}.{k}")
    return out
