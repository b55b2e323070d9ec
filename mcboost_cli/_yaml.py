"""Reading a YAML file for the user: every problem is one UserError line naming the file."""

from __future__ import annotations

from pathlib import Path

import yaml

from .errors import UserError


def read_yaml(path, kind: str):
    """(text, data) of the YAML file ``path``; ``kind`` names the file in errors
    (e.g. "config file")."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"{path}: no such {kind}") from None
    except IsADirectoryError:
        raise UserError(f"{path}: cannot read {kind}: it is a directory, expected a YAML "
                        "file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise UserError(f"{path}: cannot read {kind} ({type(e).__name__}: "
                        f"{getattr(e, 'strerror', None) or e})") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(e, "problem", None) or "invalid syntax"
        raise UserError(f"{path}: malformed YAML{where}: {problem}") from None
    return text, data
