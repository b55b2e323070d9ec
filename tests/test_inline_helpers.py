"""The LLVM-inlined helpers (``mcboost_cli._inline``) are compiled without numba's runtime, so
none may return a reference-counted value: its caller would release a reference the helper
never took (a freed array under a live one). Checked on every signature the helpers were
compiled for, in this process or in the kernel cache, after small fits that reach them."""

from __future__ import annotations

import numpy as np

from mcboost_cli._inline import INLINE_HELPERS
from mcboost_cli.algorithms.registry import get_algorithm


def _signatures(dispatcher):
    """Every compiled signature of ``dispatcher``: loaded here, or listed in its cache index."""
    sigs = {tuple(s) for s in dispatcher.signatures}
    cache = dispatcher._cache
    index = cache._cache_file._load_index() if hasattr(cache, "_cache_file") else {}
    for key in index:
        sigs.add(tuple(key[0]))
    return sigs


def _fit_some_kernels():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=60) > 0).astype(np.int64) + (X[:, 1] > 0.5)
    fits = [("dmcboost", dict(n_rounds=6, max_depth=2, n_prime="1", phase1_patience=1)),
            ("dmcboost", dict(n_rounds=6, max_depth=2, n_prime="n/10", phase1_patience=1)),
            ("samme", dict(n_rounds=3, max_depth=2)),
            ("aoso_logitboost", dict(n_rounds=3))]
    for name, params in fits:
        get_algorithm(name)(**params).fit(X, y)


def test_no_inline_helper_returns_a_reference_counted_value():
    from numba.core.registry import cpu_target

    _fit_some_kernels()
    dmm = cpu_target.target_context.data_model_manager
    compiled = 0
    for helper in INLINE_HELPERS:
        for sig in _signatures(helper):
            compiled += 1
            if sig not in helper.overloads:
                helper.compile(sig)     # loads it from the kernel cache
            ret = helper.overloads[sig].signature.return_type
            assert not dmm[ret].contains_nrt_meminfo(), (helper.py_func.__qualname__, sig, ret)
    # The fits above reach most helpers; a test that saw none would check nothing.
    assert compiled >= len(INLINE_HELPERS) // 2, (compiled, len(INLINE_HELPERS))
