"""Safe YAML loading that remembers where every value came from, so scenario faults point at a line.

`load_yaml` returns the plain data and a `PositionMap`: a tree that mirrors the data (shared under
aliases, so an alias bomb costs nothing) and answers `locate(positions, path)` in O(depth).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from emulator.errors import ScenarioError, ScenarioProblem

KeyPath = tuple["str | int", ...]
_MERGE_TAG = "tag:yaml.org,2002:merge"
_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
_LINE_BREAK = re.compile("\r\n|[\n\r\x85\u2028\u2029]")  # what PyYAML counts as a line break
_PLAIN_KEY = re.compile(r"[A-Za-z_][\w-]*\Z")


@dataclass(slots=True, eq=False)
class PositionMap:
    """Where one value starts (1-based), and where its children start: by key, or by list index."""

    line: int
    column: int
    mapping: dict[object, tuple[tuple[int, int], PositionMap]] = field(default_factory=dict)
    items: list[PositionMap] = field(default_factory=list)


class _Loader(yaml.SafeLoader):
    """SafeLoader without the timestamp resolver, noting duplicate keys instead of keeping the last."""

    yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != _TIMESTAMP_TAG]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.duplicates: list[tuple[object, Node]] = []
        self._checked: set[int] = set()
        self.keys: dict[int, object] = {}  # id(key node) -> constructed key, reused by `_positions`

    def flatten_mapping(self, node: MappingNode) -> None:
        # Every mapping passes here before merge keys rewrite `node.value`: check its own keys once.
        if id(node) not in self._checked:
            self._checked.add(id(node))
            seen: set[object] = set()
            for key_node, _ in node.value:
                if key_node.tag == _MERGE_TAG or not isinstance(key_node, ScalarNode):
                    continue
                key = self.keys[id(key_node)] = self.construct_object(key_node)
                if key in seen:
                    self.duplicates.append((key, key_node))
                seen.add(key)
        super().flatten_mapping(node)


def _mark(node: Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


def _positions(loader: _Loader, node: Node, memo: dict[int, PositionMap]) -> PositionMap:
    """The position tree of a constructed node graph (merge keys already flattened)."""
    if id(node) in memo:  # an alias: share the subtree (also ends recursive aliases)
        return memo[id(node)]
    here = memo[id(node)] = PositionMap(*_mark(node))
    if isinstance(node, SequenceNode):
        here.items = [_positions(loader, item, memo) for item in node.value]
    elif isinstance(node, MappingNode):
        for key_node, value_node in node.value:
            if isinstance(key_node, ScalarNode) and key_node.tag != _MERGE_TAG:
                key = loader.keys[id(key_node)] if id(key_node) in loader.keys else loader.construct_object(key_node)
                # Later pairs win, as in the data (an own key overrides a merged one).
                here.mapping[key] = (
                    _mark(key_node),
                    _positions(loader, value_node, memo),
                )
    return here


def load_yaml(text: str, filename: str) -> tuple[object, PositionMap]:
    """Parse one YAML document safely; raise `ScenarioError` on syntax errors, unsafe tags, duplicate keys."""
    loader = None
    try:
        loader = _Loader(text)
        node = loader.get_single_node()
        if node is None:
            return None, PositionMap(1, 1)
        data = loader.construct_document(node)
        if loader.duplicates:
            raise ScenarioError([_problem(text, filename, f"duplicate key {key!r}", key_node.start_mark)
                                 for key, key_node in loader.duplicates])
        return data, _positions(loader, node, {})
    except yaml.MarkedYAMLError as exc:
        reason = exc.problem or exc.context or "invalid YAML"
        if exc.problem and exc.context and exc.context_mark is not None:
            reason += f" ({exc.context} at line {exc.context_mark.line + 1})"
        raise ScenarioError([_problem(text, filename, reason, exc.problem_mark or exc.context_mark)]) from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow
        before = _LINE_BREAK.split(text[: exc.position])
        line, column = len(before), len(before[-1]) + 1
        reason = f"unacceptable character #x{exc.character:04x}: {exc.reason}"
        raise ScenarioError([ScenarioProblem(filename, line, column, "", reason, snippet(text, line, column))]) from None
    finally:
        if loader is not None:
            loader.dispose()


def _problem(text: str, filename: str, reason: str, mark: yaml.Mark | None) -> ScenarioProblem:
    if mark is None:
        return ScenarioProblem(filename, None, None, "", reason)
    line, column = mark.line + 1, mark.column + 1
    return ScenarioProblem(filename, line, column, "", reason, snippet(text, line, column))


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
    lines = _LINE_BREAK.split(text)
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
