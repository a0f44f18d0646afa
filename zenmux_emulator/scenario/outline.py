"""Where things are in a scenario file, without YAML: the `PositionMap` the loaders make
(`scenario/positions.py`), and what reads it (`locate`, `snippet`, `dotted`). A start whose files
come from the parse cache unpickles these maps and reads where rules start, so it needs no YAML
library; the loaders are imported when a file is parsed (issue 43)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

KeyPath = tuple["str | int", ...]
LINE_BREAK = re.compile("\r\n|[\n\r\x85\u2028\u2029]")  # what PyYAML counts as a line break
_PLAIN_KEY = re.compile(r"[A-Za-z_][\w-]*\Z")


@dataclass(slots=True, eq=False)
class PositionMap:
    """Where one value starts (1-based), and where its children start: by key, or by list index."""

    line: int
    column: int
    mapping: dict[object, tuple[tuple[int, int], PositionMap]] = field(default_factory=dict)
    items: list[PositionMap] = field(default_factory=list)


def locate(positions: PositionMap, path: KeyPath, *, key: bool = False) -> tuple[int, int]:
    """Where the value at `path` starts, or the nearest ancestor's start when the path leaves the data.

    With `key=True` the position of the last key itself is preferred (for "unknown key" faults).
    """
    node, found = positions, (positions.line, positions.column)
    for depth, segment in enumerate(path):
        if isinstance(segment, int) and not isinstance(segment, bool) and -len(node.items) <= segment < len(node.items):
            node = node.items[segment]
            found = (node.line, node.column)
        elif node.mapping and _hashable(segment) and segment in node.mapping:
            key_position, node = node.mapping[segment]
            found = key_position if key and depth == len(path) - 1 else (node.line, node.column)
        else:
            break
    return found


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def snippet(text: str, line: int, column: int | None, context: int = 2) -> str:
    """Numbered source lines around `line`, marked with `>`, and a caret under `column` when given."""
    lines = LINE_BREAK.split(text)
    if lines and lines[-1] == "" and len(lines) > 1:
        lines.pop()  # the break that ends the last line does not start another
    lines += [""] * (line - len(lines))
    first, last = max(1, line - context), min(len(lines), line + context)
    width = max(3, len(str(last)))
    out = []
    for number in range(first, last + 1):
        source = lines[number - 1]
        out.append(f"{'>' if number == line else ' '}{number:>{width}} | {source}".rstrip())
        if number == line and column is not None:
            pad = "".join(ch if ch == "\t" else " " for ch in source[: column - 1])
            out.append(f" {'':>{width}} | {pad}^")
    return "\n".join(out)


def dotted(path: KeyPath) -> str:
    """`("rules", 0, "match", "model")` as `rules[0].match.model`; odd keys as `["a b"]`."""
    out = ""
    for segment in path:
        if isinstance(segment, int) and not isinstance(segment, bool):
            out += f"[{segment}]"
        elif isinstance(segment, str) and _PLAIN_KEY.match(segment):
            out += f".{segment}" if out else segment
        else:
            out += f"[{segment!r}]"
    return out
