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
from . import _kernel_cache  # noqa: E402

_kernel_cache.use_kernel_cache_dir()
# A kernel compiled but not written to the cache runs from memory (imports numba, now that
# its cache folder is set).
_kernel_cache.tolerate_cache_write_failures()
