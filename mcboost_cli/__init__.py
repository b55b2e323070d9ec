"""mcboost: an experiment runner for multi-class boosting research.

Layers (one sub-package each, see ``README.md`` and ``ALGORITHMS.md``):

``datasets``    catalog, checksummed download with mirrors, cache, parsers
``protocol``    folds, label noise, seeds derived from names, model selection
``learners``    feature binning and compiled histogram trees (with naive twins)
``algorithms``  the boosting methods and their registry
``runner``      config → plan → cells, executors, SQLite result store
``report``      paper-style tables (Markdown, CSV, LaTeX)
``cli``         click commands only
"""

__version__ = "0.1.0"

# Compiled kernels are cached per version of their sources (numba's own cache can keep a
# kernel whose callee in another module changed); before anything imports numba.
from ._kernel_cache import use_kernel_cache_dir as _use_kernel_cache_dir  # noqa: E402

_use_kernel_cache_dir()
