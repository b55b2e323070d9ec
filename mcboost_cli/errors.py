"""Errors that reach the user as one line (no traceback) and exit code 2.

``quote(value)`` is how such a line shows a value the user gave: its repr cut to a short
prefix, so that a huge or deeply nested value (a long string, a list built by YAML aliases)
neither floods the terminal nor costs memory to describe.
"""

import reprlib

# Longest quoted value in an error message, in characters (without the "…").
QUOTE_LIMIT = 80

# reprlib bounds the work on nested values before the text is cut: it never walks more than
# a few levels or items, so describing a value costs the same whatever its size.
_REPR = reprlib.Repr()
_REPR.maxlevel = 3
_REPR.maxlist = _REPR.maxtuple = _REPR.maxset = _REPR.maxdict = 8
_REPR.maxstring = _REPR.maxother = QUOTE_LIMIT + 2


def cut(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` cut to its first ``limit`` characters, marked with "…" when cut."""
    return text if len(text) <= limit else text[:limit] + "…"


def quote(value, limit: int = QUOTE_LIMIT) -> str:
    """The repr of ``value`` for an error message, at most ``limit`` characters and "…"."""
    if isinstance(value, str):
        return cut(repr(value[:limit + 1]) if len(value) > limit else repr(value), limit)
    try:
        if isinstance(value, (list, tuple, dict, set, frozenset)):
            return cut(_REPR.repr(value), limit)
        return cut(repr(value), limit)
    except ValueError:      # e.g. an int of more digits than Python converts to text
        return f"<{type(value).__name__}>"


class UserError(Exception):
    """A problem with the user's input: config, parameters, data files or network.

    The message is one line that names what is wrong and what would be right. The CLI prints it
    as ``error: <message>`` and exits with status 2.
    """

    exit_code = 2
