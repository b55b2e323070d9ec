"""Reading a YAML file for the user: every problem is one UserError line naming the file.

The files are small documents a person writes (configs, published numbers), so anything far
beyond that is refused before it costs time or memory:

* a file larger than ``MAX_BYTES`` (1 MB; the largest shipped config is a few KB);
* a document whose aliases would expand to more than ``MAX_NODES`` values, or refer to
  themselves (a "billion laughs" document: nine lines that expand to 9^9 values). Aliases are
  counted on the composed node graph, where each anchor is one shared node, so the check costs
  the size of the file, not of the expansion; nothing is constructed when it fails;
* nesting deeper than ``MAX_DEPTH`` levels.

Values that YAML parses but Python cannot hold (e.g. an integer of 5,000 digits) are also one
line. Error messages quote at most a short prefix of a value (``errors.quote``).
"""

from __future__ import annotations

from pathlib import Path

import yaml

from .errors import UserError, cut

MAX_BYTES = 1 << 20         # 1 MB
MAX_NODES = 100_000         # values after alias expansion (the largest config has ~500)
MAX_DEPTH = 64              # nesting levels of sequences and mappings


class _TooBig(Exception):
    """The composed document breaks one of the bounds; the message says which."""


def _check_bounds(root: yaml.Node) -> None:
    """Raise _TooBig when ``root`` expands to more than MAX_NODES values, nests deeper than
    MAX_DEPTH, or holds a recursive alias. Each distinct node is visited once (iteratively):
    its expanded size is memoised, so shared (aliased) nodes cost nothing more."""
    size: dict[int, int] = {}
    on_path: set[int] = set()
    stack = [(root, 0, False)]
    while stack:
        node, depth, children_done = stack.pop()
        key = id(node)
        children = []
        if isinstance(node, yaml.SequenceNode):
            children = node.value
        elif isinstance(node, yaml.MappingNode):
            children = [n for pair in node.value for n in pair]
        if children_done:
            on_path.discard(key)
            size[key] = 1 + sum(size[id(c)] for c in children)
            if size[key] > MAX_NODES:
                raise _TooBig(f"its aliases expand to more than {MAX_NODES:,} values "
                              "(a 'billion laughs' document?); write the values out instead")
            continue
        if key in size:
            continue
        if depth > MAX_DEPTH:
            raise _TooBig(f"it nests more than {MAX_DEPTH} levels deep")
        on_path.add(key)
        stack.append((node, depth, True))
        for child in children:
            if id(child) in on_path:
                raise _TooBig("an alias refers to a value that contains it (a recursive "
                              "alias); write the values out instead")
            if id(child) not in size:
                stack.append((child, depth + 1, False))


class BoundedSafeLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that checks the composed document with ``_check_bounds`` before
    constructing any Python object from it."""

    def compose_document(self):
        node = super().compose_document()
        if node is not None:
            _check_bounds(node)
        return node


def _fmt_bytes(n: int) -> str:
    return f"{n / (1 << 20):.1f} MB" if n >= 1 << 20 else f"{n:,} bytes"


def read_yaml(path, kind: str):
    """(text, data) of the YAML file ``path``; ``kind`` names the file in errors
    (e.g. "config file")."""
    p = Path(path)
    try:
        with open(p, "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
            if len(raw) > MAX_BYTES:
                size = max(p.stat().st_size, len(raw))
                raise UserError(f"{path}: the {kind} is {_fmt_bytes(size)}; a {kind} may be "
                                f"at most {MAX_BYTES >> 20} MB; is it the right file?")
        text = raw.decode("utf-8")
    except FileNotFoundError:
        raise UserError(f"{path}: no such {kind}") from None
    except IsADirectoryError:
        raise UserError(f"{path}: cannot read {kind}: it is a directory, expected a YAML "
                        "file") from None
    except NotADirectoryError:
        raise UserError(f"{path}: no such {kind} (a part of the path is a file, not a "
                        "folder)") from None
    except UnicodeDecodeError as e:
        raise UserError(f"{path}: cannot read {kind}: not UTF-8 text (byte {e.start})") from None
    except OSError as e:
        raise UserError(f"{path}: cannot read {kind} ({type(e).__name__}: "
                        f"{getattr(e, 'strerror', None) or e})") from None
    try:
        data = yaml.load(text, Loader=BoundedSafeLoader)  # noqa: S506 - a SafeLoader
    except _TooBig as e:
        raise UserError(f"{path}: {kind} refused: {e}") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(e, "problem", None) or "invalid syntax"
        raise UserError(f"{path}: malformed YAML{where}: {problem}") from None
    except RecursionError:
        raise UserError(f"{path}: {kind} refused: it nests too deeply") from None
    except (ValueError, OverflowError) as e:
        # A scalar YAML accepts but Python cannot hold, e.g. int('9' * 5000).
        raise UserError(f"{path}: {kind} holds a value that cannot be read: "
                        f"{cut(str(e).splitlines()[0] if str(e) else type(e).__name__, 120)}"
                        ) from None
    return text, data
