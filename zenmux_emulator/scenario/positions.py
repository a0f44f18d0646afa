"""Safe YAML loading that remembers where every value came from, so scenario faults point at a line.

`load_yaml` returns the plain data and a `PositionMap`: a tree that mirrors the data (shared under
aliases, so an alias bomb costs nothing) and answers `locate(positions, path)` in O(depth). It runs
PyYAML's pure-Python parser, the reference every report (line, column, message) is written against;
it is also several times slower than libyaml.

`load_yaml_fast` is the common case: libyaml's parser under the same safe constructor and checks,
giving the data and only where each rule starts. It gives up (returns None) on anything it cannot
vouch for: a syntax error, a duplicate key, an unsafe tag, a value its tag cannot read, deep nesting,
or a construct that libyaml reads otherwise than PyYAML's scanner. The caller then runs `load_yaml`,
which reports the problem exactly as it always has (or loads the file, should libyaml have been the
stricter one).

Data nested deeper than `MAX_DEPTH` collections, in the source or through aliases, and a value that
contains itself (a recursive alias) are refused, so that nothing downstream (validation, positions,
the JSON of tool call arguments) recurses without bound; a value its tag cannot read (`!!bool tre`,
`!!int x`, `!!timestamp nope`) is a problem like any other. `load_yaml` reports each at the node (or
the alias) in question; `load_yaml_fast` leaves them to it.

Aliases may repeat at most `MAX_ALIAS_VALUES` values in one file (an alias bomb, some hundred bytes
that expand into millions of values, is refused at the alias that crosses the limit): the data is
shared under aliases while it loads, but validation and the replies made from it copy it out.

Scalars are also kept to what a JSON reply can carry, since any of them may end up in one: an integer
beyond 64 bits is refused, and so is a lone UTF-16 surrogate from an escape (`"\\ud800"`), which is no
character and cannot be sent as UTF-8; an escaped surrogate pair (`"\\ud83d\\ude00"`, as JSON writers
escape characters past U+FFFF) is joined into the one character it stands for, as JSON reads it.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

import yaml
from yaml.composer import Composer, ComposerError
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.events import (
    AliasEvent,
    CollectionStartEvent,
    MappingStartEvent,
    NodeEvent,
    ScalarEvent,
    SequenceStartEvent,
)
from yaml.nodes import CollectionNode, MappingNode, Node, ScalarNode, SequenceNode

from zenmux_emulator.foundation.errors import ScenarioError, ScenarioProblem
from zenmux_emulator.foundation.release import drop_gradually
from zenmux_emulator.scenario.outline import LINE_BREAK, PositionMap
from zenmux_emulator.scenario.outline import KeyPath as KeyPath
from zenmux_emulator.scenario.outline import dotted as dotted
from zenmux_emulator.scenario.outline import locate as locate
from zenmux_emulator.scenario.outline import snippet as snippet
from zenmux_emulator.scenario.syntax import plain_reason

_MERGE_TAG = "tag:yaml.org,2002:merge"
_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
_INT_TAG = "tag:yaml.org,2002:int"
_STR_TAG = "tag:yaml.org,2002:str"

INT64 = (-(2**63), 2**63 - 1)
"""The integers a scenario may hold: what every JSON reader takes (orjson, which writes the replies,
stops at 64 bits too)."""

_SURROGATE = re.compile("[\ud800-\udfff]")
_LONE_SURROGATE = re.compile("[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]")

MAX_DEPTH = 100
"""Collections nested deeper than this, in the source or through an alias, are refused ("nesting
deeper than 100 levels"). Scenario data is a handful of levels deep; the limit keeps PyYAML's composer
(three Python frames a level) and whatever walks the data after it well within Python's recursion
limit, and tool call arguments within orjson's (255 levels)."""

MAX_ALIAS_VALUES = 100_000
"""How many values (collections and scalars, counted as the data will hold them) the aliases of one
file may repeat in all: far beyond what reusing a reply or a tool schema takes, far below the
millions an alias bomb makes, which validation would copy out one by one."""


_RESOLVERS = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != _TIMESTAMP_TAG]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _shown(text: str, node: Node) -> str:
    """The node quoted as written: its first line, shortened."""
    source = text[node.start_mark.index : node.end_mark.index].strip()
    first = LINE_BREAK.split(source, 1)[0].rstrip()
    if first != source:
        first += " ..."
    return repr(first) if len(repr(first)) <= 60 else repr(first[:54] + " ...")


def _construct_int(loader: _Checks, node: ScalarNode) -> int:
    value = SafeConstructor.construct_yaml_int(loader, node)
    if not INT64[0] <= value <= INT64[1]:
        raise ConstructorError(
            None,
            None,
            f"integer {_shown(loader._text, node)} is beyond 64 bits: JSON replies carry -2**63 to 2**63-1",
            node.start_mark,
        )
    return value


def _construct_str(loader: _Checks, node: ScalarNode) -> str:
    value = SafeConstructor.construct_yaml_str(loader, node)
    if value.isascii() or not _SURROGATE.search(value):
        return value
    lone = _LONE_SURROGATE.search(value)
    if lone is not None:
        raise ConstructorError(
            None,
            None,
            f"\\u{ord(lone.group()):04x} is half of a surrogate pair: alone it is "
            "not a character and cannot be sent as UTF-8",
            node.start_mark,
        )
    return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le")  # each pair joined into its character


class _Checks(SafeConstructor):
    """What both loaders add to PyYAML's safe loading: no timestamp resolver (dates stay strings),
    duplicate keys noted instead of the last one silently kept, the nesting counted, and integers and
    strings kept to what JSON can carry (64 bits; surrogate pairs joined, lone ones refused)."""

    yaml_implicit_resolvers = _RESOLVERS
    yaml_constructors: ClassVar[dict[Any, Any]] = {
        **yaml.SafeLoader.yaml_constructors,
        _INT_TAG: _construct_int,
        _STR_TAG: _construct_str,
    }
    _text: str

    def _start_checks(self, text: str) -> None:
        self._text = text
        self.duplicates: list[tuple[object, Node]] = []
        self._checked: set[int] = set()
        self.keys: dict[int, object] = {}  # id(key node) -> constructed key, reused by `_positions`
        self._depth = 0  # the nodes being composed: collections enclosing the current node, and itself

    # The composer calls `descend_resolver` before every node but an alias, `ascend_resolver` after
    # it. They serve path resolvers, which no loader here has (PyYAML's own return at once then):
    # each loader counts the nesting in its `descend_resolver` instead.
    def ascend_resolver(self) -> None:
        self._depth -= 1

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


_CORE = "tag:yaml.org,2002:"
_WHAT = {"bool": "a boolean", "int": "an integer", "float": "a number", "timestamp": "a timestamp"}
_PARSE_FAILURES = ("invalid literal", "could not convert")  # int()'s and float()'s own "not a number"


class _Loader(_Checks, yaml.SafeLoader):
    """The pure-Python SafeLoader, with the checks: the reference every report is written against.

    It also refuses, as a `ComposerError` where it stands, a collection more than `MAX_DEPTH` deep,
    an alias that puts its value deeper than that, and a recursive alias; and a value its tag cannot
    read as a `ConstructorError` at the node."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._start_checks(stream)
        self._heights: dict[int, int] = {}  # id(anchored collection, or one inside it) -> its levels
        self._sizes: dict[int, int] = {}  # the same collections -> the values they hold, aliases expanded
        self._measuring = 0  # anchored nodes being composed
        self._repeated = 0  # values the aliases so far repeat

    def descend_resolver(self, current_node: Node | None, current_index: object) -> None:
        self._depth += 1
        if self._depth > MAX_DEPTH:
            # the node's own, peeked already by the composer
            event: NodeEvent = self.peek_event()  # type: ignore[no-untyped-call]  # types-PyYAML leaves Parser.peek_event unannotated
            if isinstance(event, (SequenceStartEvent, MappingStartEvent)):
                raise ComposerError(None, None, f"nesting deeper than {MAX_DEPTH} levels", event.start_mark)  # type: ignore[arg-type]  # stub too narrow: PyYAML takes libyaml's marks too

    def compose_node(self, parent: Node | None, index: object) -> Node:
        event: NodeEvent = self.peek_event()  # type: ignore[no-untyped-call]  # types-PyYAML leaves Parser.peek_event unannotated
        if event.anchor is None and not self._measuring:  # neither an alias nor what one may repeat
            return super().compose_node(parent, index)  # type: ignore[arg-type, return-value]  # stub: index is an int, a key node or None; never returns None
        if isinstance(event, AliasEvent):
            node: Node = super().compose_node(parent, index)  # type: ignore[arg-type, assignment]  # stub: index is an int, a key node or None; never returns None
            if isinstance(node, ScalarNode):
                self._repeated += 1
                if self._repeated > MAX_ALIAS_VALUES:
                    raise ComposerError(
                        None,
                        None,
                        f"aliases repeat more than {MAX_ALIAS_VALUES:,} values (the "
                        f"file expands past that), at alias *{event.anchor}",
                        event.start_mark,  # type: ignore[arg-type]  # stub too narrow: PyYAML takes libyaml's marks too
                    )
                return node
            height = self._heights.get(id(node))
            if height is None:  # the anchored collection is still being composed: it encloses its alias
                raise ComposerError(
                    None,
                    None,
                    f"recursive alias *{event.anchor}: the value would contain itself",
                    event.start_mark,  # type: ignore[arg-type]  # stub too narrow: PyYAML takes libyaml's marks too
                )
            if self._depth + height > MAX_DEPTH:
                raise ComposerError(
                    None,
                    None,
                    f"nesting deeper than {MAX_DEPTH} levels, through alias *{event.anchor}",
                    event.start_mark,  # type: ignore[arg-type]  # stub too narrow: PyYAML takes libyaml's marks too
                )
            self._repeated += self._sizes[id(node)]
            if self._repeated > MAX_ALIAS_VALUES:
                raise ComposerError(
                    None,
                    None,
                    f"aliases repeat more than {MAX_ALIAS_VALUES:,} values (the file "
                    f"expands past that), at alias *{event.anchor}",
                    event.start_mark,  # type: ignore[arg-type]  # stub too narrow: PyYAML takes libyaml's marks too
                )
            return node
        # An anchored node, or one inside it: what an alias may repeat, so measure how deep it nests.
        self._measuring += 1
        node = super().compose_node(parent, index)  # type: ignore[arg-type, assignment]  # stub: index is an int, a key node or None; never returns None
        self._measuring -= 1
        if not isinstance(node, ScalarNode):
            children = _children(node)
            self._heights[id(node)] = 1 + max((self._heights.get(id(child), 0) for child in children), default=0)
            self._sizes[id(node)] = 1 + sum(self._sizes.get(id(child), 1) for child in children)
        return node

    def construct_object(self, node: Node, deep: bool = False) -> object:
        # PyYAML's scalar constructors fail on a value their tag cannot read (`!!bool tre`: KeyError,
        # `!!int x`: ValueError, `!!int` with nothing: IndexError, `!!timestamp nope`: AttributeError):
        # make that a `ConstructorError` at the node, as every other construction fault is.
        try:
            return super().construct_object(node, deep)
        except (yaml.YAMLError, RecursionError, MemoryError):
            raise
        except Exception as exc:
            raise ConstructorError(None, None, self._unreadable(node, exc), node.start_mark) from exc

    def _unreadable(self, node: Node, exc: Exception) -> str:
        """ "cannot read '!!bool tre': not a boolean", the node quoted as written (first line, shortened)."""
        shown = _shown(self._text, node)
        tag = node.tag.removeprefix(_CORE) if node.tag.startswith(_CORE) else None
        what = _WHAT.get(tag or "", f"a value of {'!!' + tag if tag else node.tag}")
        reason = f"cannot read {shown}: not {what}"
        if isinstance(exc, ValueError) and not str(exc).startswith(_PARSE_FAILURES):
            reason += f" ({str(exc).split(';')[0]})"  # a month 13; more than 4300 digits (not Python's advice)
        return reason


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        items: list[Node] = node.value
        return items
    if isinstance(node, MappingNode):
        return [child for pair in node.value for child in pair]
    return []


class _TooDeep(Exception):
    """`_alias_height` is past its limit, or on a recursive alias."""


def _alias_height(anchored: list[Node], limit: int) -> int | None:
    """How many collections deep the data of the deepest of `anchored` nests, aliases followed; None
    past `limit` or on a recursive alias. Each node is measured once: for `load_yaml_fast`, which
    has no marks to give and leaves the report to `load_yaml`."""
    heights: dict[int, int] = {}
    on_path: set[int] = set()

    def measure(node: Node, depth: int) -> int:
        key = id(node)
        height = heights.get(key)
        if height is not None:
            return height
        if key in on_path or depth > limit:
            raise _TooDeep
        on_path.add(key)
        height = 0
        for child in _children(node):
            if not isinstance(child, ScalarNode):
                height = max(height, measure(child, depth + 1))
        on_path.discard(key)
        heights[key] = height + 1
        return height + 1

    try:
        return max((measure(node, 1) for node in anchored if not isinstance(node, ScalarNode)), default=0)
    except _TooDeep:
        return None


def _repeated(root: Node) -> int:
    """How many values the aliases under `root` repeat: the data's values, aliases expanded, less the
    nodes the source holds (called once nesting is known to be within `MAX_DEPTH`)."""
    sizes: dict[int, int] = {}

    def size(node: Node) -> int:
        known = sizes.get(id(node))
        if known is None:
            known = sizes[id(node)] = 1 + sum(size(child) for child in _children(node))
        return known

    return size(root) - len(sizes)


_FAST_DEPTH = 64
"""Nodes nested deeper than this are left to `load_yaml`, which then fails (past `MAX_DEPTH`) or loads."""


class _FastBail(Exception):
    """`load_yaml_fast` cannot vouch for this source."""


if yaml.__with_libyaml__:  # False (and no yaml.CSafeLoader) when PyYAML was built without libyaml

    class _FastLoader(_Checks, Composer, yaml.CSafeLoader):
        """CSafeLoader (libyaml's parser; PyYAML's safe constructor and resolver) with the checks, under
        PyYAML's Python composer: libyaml's own composer overflows the C stack (a crash, not an
        exception) on a source nested some ten thousand levels deep, and this one stops at `_FAST_DEPTH`."""

        def __init__(self, stream: str) -> None:
            yaml.CSafeLoader.__init__(self, stream)
            Composer.__init__(self)
            self._start_checks(stream)
            self.deepest = 0  # the deepest node of the source, not following aliases
            self.anchored: list[Node] = []  # what an alias may repeat

        def compose_document(self) -> Node:
            anchors = self.anchors  # filled while composing, replaced by an empty one at the end
            node: Node = super().compose_document()  # type: ignore[assignment]  # stub: never None once a document started
            self.anchored = list(anchors.values())
            return node

        def descend_resolver(self, current_node: CollectionNode | None, current_index: object) -> None:
            self._depth += 1
            if self._depth > self.deepest:
                if self._depth > _FAST_DEPTH:
                    raise _FastBail
                self.deepest = self._depth
            event = self.peek_event()  # the node's own event, peeked already by the composer
            if current_node is not None and current_node.flow_style:
                # In a flow collection libyaml ends a tag at `,[]` and reads a plain scalar on past
                # `?` (PyYAML's scanner does neither), and takes `[? ,,]`: leave these to PyYAML.
                if (isinstance(event, (ScalarEvent, CollectionStartEvent)) and event.tag is not None) or (
                    isinstance(event, ScalarEvent) and not event.style and "?" in event.value
                ):
                    raise _FastBail
                if isinstance(event, MappingStartEvent) and (
                    event.start_mark is None or self._text[event.start_mark.index] != "{"
                ):
                    raise _FastBail  # a single-pair mapping in a flow sequence: `[a: b]`, `[? a]`
            if isinstance(event, ScalarEvent) and event.tag == "!":
                raise _FastBail  # when empty, PyYAML reads it as null, libyaml as ""


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
    """Parse one YAML document safely; raise `ScenarioError` on syntax errors, unsafe tags, duplicate keys,
    values their tag cannot read, nesting past `MAX_DEPTH` and recursive aliases."""
    loader = None
    try:
        loader = _Loader(text)
        node = loader.get_single_node()
        if node is None:
            return None, PositionMap(1, 1)
        data = loader.construct_document(node)
        if loader.duplicates:
            raise ScenarioError(
                [
                    _problem(text, filename, f"duplicate key {key!r}", key_node.start_mark)
                    for key, key_node in loader.duplicates
                ]
            )
        return data, _positions(loader, node, {})
    except yaml.MarkedYAMLError as exc:
        raise ScenarioError(
            [_problem(text, filename, plain_reason(exc), exc.problem_mark or exc.context_mark)]
        ) from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow
        before = LINE_BREAK.split(text[: exc.position])
        line, column = len(before), len(before[-1]) + 1
        reason = f"unacceptable character #x{exc.character:04x}: {exc.reason}"
        raise ScenarioError(
            [ScenarioProblem(filename, line, column, "", reason, snippet(text, line, column))]
        ) from None
    except RecursionError:  # `MAX_DEPTH` levels fit, unless the stack was nearly full already
        problem = ScenarioProblem(filename, None, None, "", "nesting too deep to load here")
        raise ScenarioError([problem]) from None
    finally:
        if loader is not None:
            loader.dispose()


# Where libyaml and PyYAML's own scanner part ways, on what each accepts, what it reads or where it
# puts a node: tabs as separators (PyYAML issues #450, #594), a BOM past the start (libyaml skips it),
# NEL/LS/PS line breaks, a comment glued to a block scalar header (`|#`, which libyaml takes).
_NOT_FAST = re.compile("[\t\ufeff\x85\u2028\u2029]|[|>][-+0-9]{0,2}#")


def load_yaml_fast(text: str) -> tuple[object, PositionMap] | None:
    """`load_yaml`'s data, parsed by libyaml, with an outline of positions: the document, and under its
    `rules` key where each rule starts (what every loaded rule's line needs), nothing else.

    None when the source is not one this path vouches for — a syntax error, a duplicate key, an unsafe
    tag, a value its tag cannot read, deep nesting (in the source, or through aliases: measured only
    when there are anchors), a recursive alias, or any construct on which libyaml and PyYAML's
    scanner disagree: `load_yaml` then decides, and reports whatever it finds exactly as it always has.
    """
    if not yaml.__with_libyaml__ or _NOT_FAST.search(text, 1 if text.startswith("\ufeff") else 0):
        return None
    loader = node = None
    try:
        loader = _FastLoader(text)
        node = loader.get_single_node()
        if node is None:
            return None, PositionMap(1, 1)
        if loader.anchored:
            # An alias stands no deeper than the source's deepest node; its value's levels go below.
            height = _alias_height(loader.anchored, MAX_DEPTH)
            if height is None or loader.deepest + height > MAX_DEPTH or _repeated(node) > MAX_ALIAS_VALUES:
                return None
        data = loader.construct_document(node)
        if loader.duplicates:
            return None
        return data, _outline(loader, node)
    except Exception:  # noqa: BLE001  # whatever it is, `load_yaml` finds it again and reports it as before
        return None
    finally:
        if loader is not None:
            loader.dispose()
            loader.keys.clear()
        if isinstance(node, MappingNode):  # the nodes of a long `rules` list: a slice at a time
            for _, value_node in node.value:
                if isinstance(value_node, CollectionNode):
                    drop_gradually(value_node.value)


def _outline(loader: _Checks, node: Node) -> PositionMap:
    """What `_positions` gives for the document and the items of its `rules` sequence; nothing else."""
    here = PositionMap(*_mark(node))
    if isinstance(node, MappingNode):
        for key_node, value_node in node.value:  # later pairs win, as in `_positions`
            if isinstance(key_node, ScalarNode) and key_node.tag != _MERGE_TAG and loader.keys[id(key_node)] == "rules":
                rules = PositionMap(*_mark(value_node))
                if isinstance(value_node, SequenceNode):
                    rules.items = [PositionMap(*_mark(item)) for item in value_node.value]
                here.mapping["rules"] = (_mark(key_node), rules)
    return here


def _problem(text: str, filename: str, reason: str, mark: yaml.Mark | None) -> ScenarioProblem:
    if mark is None:
        return ScenarioProblem(filename, None, None, "", reason)
    line, column = mark.line + 1, mark.column + 1
    return ScenarioProblem(filename, line, column, "", reason, snippet(text, line, column))
