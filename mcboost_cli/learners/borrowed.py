"""Borrowed array views for the numba kernels: the same array without its reference count.

Every array a compiled function receives is increfed on entry and decrefed on exit (numba's
runtime, NRT; an atomic add each), and LLVM's reference-count pruning removes those pairs only
in simple control flow. A node search that calls its helpers hundreds of thousands of times
per tree, each with tens of arrays, spent most of its time there (DMCBoost's Phase II:
ALGORITHMS.md, "Speed"). ``borrowed(a)`` is ``a`` with a null meminfo and parent: the same
type, data, shape and strides, so every kernel that receives it is the very same compiled
code, and the runtime's increments and decrements of it are a null test. The view owns
nothing: it is valid while the array it was made from lives, so a kernel makes views of its
arguments on entry and hands them only to the functions it calls (never returns or stores
them).
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def borrowed(typingctx, arr):
    """``arr`` without its reference count (module docstring); for numba-compiled code."""
    if not isinstance(arr, types.Array):
        return None
    sig = arr(arr)

    def codegen(context, builder, signature, args):
        src = context.make_array(signature.args[0])(context, builder, value=args[0])
        out = context.make_array(signature.return_type)(context, builder)
        out.meminfo = cgutils.get_null_value(out.meminfo.type)
        out.parent = cgutils.get_null_value(out.parent.type)
        out.nitems = src.nitems
        out.itemsize = src.itemsize
        out.data = src.data
        out.shape = src.shape
        out.strides = src.strides
        return out._getvalue()

    return sig, codegen
