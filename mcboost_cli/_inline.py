"""The small helpers of the compiled kernels: inlined by LLVM, compiled without reference counts.

A kernel's helpers (a heap sift, a bound on a label's margin, a tree-layout write...) are
called inside its hottest loops, so they must be inlined. numba offers two ways:

- ``inline="always"`` inlines at the level of numba's own IR, before typing: at every call
  site, in every compiled signature of the caller, numba runs the helper's untyped passes
  again (inlining the helper's own helpers afresh) and deep-copies the result twice.
  DMCBoost's Phase II grower, whose node search has 37 such helpers at many sites, spent
  most of its cold compile there (``ALGORITHMS.md``, Speed, "Compile time").
- ``forceinline=True`` compiles the helper once per signature, as its own function with
  LLVM's ``alwaysinline`` attribute, and LLVM inlines the machine-level code into each caller
  when the caller's module is linked and optimised.

The second compiles faster, but a separately compiled function increfs each array it receives
on entry and decrefs it on exit (numba's runtime, NRT; an atomic add each), and after LLVM
inlines it those pairs stay in the caller's loops wherever the pruning of reference counts
does not see them. Compiled with ``_nrt=False`` (numba's switch for code without the runtime)
the helper has no reference counting at all: it reads the caller's arrays as the caller holds
them. Measured on DMCBoost (``ALGORITHMS.md``, "LLVM-inlined helpers"): ``forceinline`` alone
made the warm Phase II fits about 30% slower; with ``_nrt=False`` they were faster than with
IR inlining, and the cold compile shorter.

What a helper may not do without the runtime: return, or store, a reference-counted value (an
array, a list): the caller would own a reference the helper never took. Helpers take arrays
and views of them and return scalars or tuples of scalars; ``tests/test_inline_helpers.py``
checks every compiled signature of every helper registered here.

Phase I's 0-1 helpers (``learners/zero_one_phase1.py``) stay with ``inline="always"``: their
kernel was about 10% slower with LLVM inlining, and its compile is not the cold start's
critical path (``ALGORITHMS.md``).
"""

from __future__ import annotations

from numba import njit

# Every helper made by ``inline_helper``, for the test of their signatures.
INLINE_HELPERS: list = []


def inline_helper(fn):
    """``fn`` compiled as a helper LLVM inlines into its callers, without NRT (module docstring).

    Parameters
    ----------
    fn : function
        A numba-compilable function that returns no reference-counted value.

    Returns
    -------
    numba.core.registry.CPUDispatcher
        The compiled helper (cached like every kernel), also listed in ``INLINE_HELPERS``.
    """
    dispatcher = njit(cache=True, nogil=True, forceinline=True, _nrt=False)(fn)
    INLINE_HELPERS.append(dispatcher)
    return dispatcher
