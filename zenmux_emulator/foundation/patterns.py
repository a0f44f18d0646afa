"""Regular expressions given by users (scenario `regex`, `--redact`): checked once, where given."""

from __future__ import annotations

import re


def regex_problem(pattern: str) -> str | None:
    """Why `pattern` is not a Python regular expression, or None when it is one."""
    try:
        re.compile(pattern)
    except re.error as exc:
        return str(exc)
    return None
