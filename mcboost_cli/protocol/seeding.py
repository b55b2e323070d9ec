"""Seeds derived by hashing names, never from loop order (as benchopt does).

``derive_seed("letter", "fold", 3, "noise", 0.2, "seed", 0)`` is the same number in every process,
on every machine, whatever order the cells are run in.
"""

from __future__ import annotations

import hashlib

import numpy as np


def _canonical(part) -> str:
    if isinstance(part, float):
        # repr of a float is exact and stable (0.2 -> '0.2'); ints and floats that are equal
        # (1 and 1.0) must not hash alike by accident, so the type is part of the text.
        return f"f:{part!r}"
    if isinstance(part, (bool, np.bool_)):
        return f"b:{bool(part)}"
    if isinstance(part, (int, np.integer)):
        return f"i:{int(part)}"
    return f"s:{part}"


def derive_seed(*parts) -> int:
    """A 63-bit seed that is a pure function of ``parts`` (strings, ints, floats)."""
    text = "\x1f".join(_canonical(p) for p in parts)
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "little") >> 1


def rng_for(*parts) -> np.random.Generator:
    """A numpy Generator seeded by ``derive_seed(*parts)``."""
    return np.random.Generator(np.random.PCG64(derive_seed(*parts)))
