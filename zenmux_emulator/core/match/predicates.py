"""A rule's `match` compiled once into predicates: each tests one condition and can say why it missed."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from zenmux_emulator.core.neutral.request import NeutralRequest
from zenmux_emulator.scenario.faces import FaceNames
from zenmux_emulator.scenario.schema import (
    Expect,
    Match,
    TextMatch,
    ToolResultMatch,
    TurnRange,
)

TextTest = Callable[[str], bool]
Far = Callable[[NeutralRequest], float]
"""How far a request is from a condition, 0 to 1 (`core/match/distance.py`); near misses rank by it."""


@dataclass(frozen=True, slots=True)
class Predicate:
    """One condition of a rule: `key` names it, `expected` describes it, `actual` reads the request."""

    key: str
    expected: str
    test: Callable[[NeutralRequest], bool]
    actual: Callable[[NeutralRequest], str]
    distance: Far | None = None
    """How far a request that misses it is: None for a condition that holds or not (a miss is 1)."""


def _later(make: Callable[[], Callable[[str], float]]) -> Callable[[str], float]:
    """A text's distance from a condition, made by `make` on its first use: distances are read only
    for a near miss, so `core/match/distance.py` (and difflib) load with the first one, not with the
    rules (issue 43)."""
    made: list[Callable[[str], float]] = []

    def far(text: str) -> float:
        if not made:
            made.append(make())
        return made[0](text)

    return far


def text_distance(spec: TextMatch) -> Callable[[str], float]:
    """`core/match/distance.py`'s `text_distance(spec)`, made on its first use."""

    def make() -> Callable[[str], float]:
        from zenmux_emulator.core.match import distance

        return distance.text_distance(spec)

    return _later(make)


def equals_distance(expected: str) -> Callable[[str], float]:
    """`core/match/distance.py`'s `equals_distance(expected)`, made on its first use."""

    def make() -> Callable[[str], float]:
        from zenmux_emulator.core.match import distance

        return distance.equals_distance(expected)

    return _later(make)


def nearest(far: Callable[[str], float], texts: Iterable[str]) -> float:
    """The smallest distance of any of the texts (1 for none)."""
    return min((far(text) for text in texts), default=1.0)


def _clip(text: str, limit: int = 60) -> str:
    text = text.replace("\n", " ")
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def _contains(needle: str) -> TextTest:
    return lambda text: needle in text


def _lacks(needle: str) -> TextTest:
    return lambda text: needle not in text


def _equals(needle: str) -> TextTest:
    return lambda text: text == needle


def _starts_with(needle: str) -> TextTest:
    return lambda text: text.startswith(needle)


def _ends_with(needle: str) -> TextTest:
    return lambda text: text.endswith(needle)


def _searches(pattern: re.Pattern[str]) -> TextTest:
    return lambda text: pattern.search(text) is not None


def _folded_tests(spec: TextMatch, norm: Callable[[str], str]) -> list[tuple[TextTest, str]]:
    """The conditions of `spec` that test the text as folded by `norm`, each with its description."""
    contains = [spec.contains] if isinstance(spec.contains, str) else list(spec.contains or ())
    found = [(_contains(norm(needle)), f"contains {needle!r}") for needle in contains]
    if spec.not_contains is not None:
        found.append((_lacks(norm(spec.not_contains)), f"does not contain {spec.not_contains!r}"))
    if spec.equals is not None:
        found.append((_equals(norm(spec.equals)), f"equals {spec.equals!r}"))
    if spec.starts_with is not None:
        found.append((_starts_with(norm(spec.starts_with)), f"starts with {spec.starts_with!r}"))
    if spec.ends_with is not None:
        found.append((_ends_with(norm(spec.ends_with)), f"ends with {spec.ends_with!r}"))
    return found


def text_test(spec: TextMatch) -> tuple[TextTest, str]:
    """A function testing every condition of `spec`, and a description of them."""
    fold = spec.ignore_case
    norm: Callable[[str], str] = str.casefold if fold else (lambda s: s)
    folded = _folded_tests(spec, norm)
    tests = [test for test, _ in folded]
    words = [words for _, words in folded]
    as_sent: list[TextTest] = []  # a regex runs on the text as sent; IGNORECASE does its folding
    if spec.regex is not None:
        as_sent.append(_searches(re.compile(spec.regex, re.IGNORECASE if fold else 0)))
        words.append(f"matches /{spec.regex}/")
    description = " and ".join(words) + (" (ignoring case)" if fold else "")
    if not fold and len(tests) + len(as_sent) == 1:
        return (tests or as_sent)[0], description

    def check(text: str) -> bool:
        folded = norm(text)
        return all(test(folded) for test in tests) and all(test(text) for test in as_sent)

    return check, description


def _value_test(spec: str | TextMatch) -> tuple[TextTest, str]:
    if isinstance(spec, str):
        return (lambda t, v=spec: t == v), f"equals {spec!r}"
    return text_test(spec)


def _value_distance(spec: str | TextMatch) -> Callable[[str], float]:
    return equals_distance(spec) if isinstance(spec, str) else text_distance(spec)


def model_regex(globs: list[str]) -> re.Pattern[str]:
    """One compiled pattern for a list of model globs."""
    return re.compile("|".join(f"(?:{fnmatch.translate(g)})" for g in globs))


def is_glob(text: str) -> bool:
    return any(ch in text for ch in "*?[")


def _turn_test(spec: TurnRange) -> tuple[Callable[[int], bool], str]:
    low = spec.min if spec.min is not None else 0
    high = spec.max
    if low == high:
        return (lambda n: n == low), f"turn {low}"
    description = f"turn ≥ {low}" + (f" and ≤ {high}" if high is not None else "")
    return (lambda n: n >= low and (high is None or n <= high)), description


def _tool_result(spec: bool | ToolResultMatch) -> list[Predicate]:
    def actual(f: NeutralRequest) -> str:
        result = f.last_tool_result
        return "last message is not a tool result" if result is None else f"result of {result[0]!r}: {_clip(result[1])}"

    if spec is True or spec is False:
        want = spec
        return [
            Predicate(
                "tool_result",
                "last message is a tool result" if want else "last message is not a tool result",
                lambda f: (f.last_tool_result is not None) == want,
                actual,
            )
        ]
    found: list[Predicate] = [
        Predicate("tool_result", "last message is a tool result", lambda f: f.last_tool_result is not None, actual)
    ]
    if spec.name is not None:
        name = spec.name
        found.append(
            Predicate(
                "tool_result.name",
                f"result of tool {name!r}",
                lambda f: f.last_tool_result is not None and f.last_tool_result[0] == name,
                actual,
            )
        )
    if spec.content is not None:
        test, words = text_test(spec.content)
        far = text_distance(spec.content)
        found.append(
            Predicate(
                "tool_result.content",
                words,
                lambda f: f.last_tool_result is not None and test(f.last_tool_result[1]),
                actual,
                lambda f: 1.0 if f.last_tool_result is None else far(f.last_tool_result[1]),
            )
        )
    for path, expected in (spec.json_fields or {}).items():
        found.append(json_field("tool_result.json", path, expected, lambda f: f.last_tool_json))
    return found


_MISSING = object()


def json_at(document: Any, path: str) -> Any:
    """The value at a dotted path (`a.b.0.c`: keys, and list positions as numbers); _MISSING if absent."""
    value = document
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return _MISSING
    return value


def json_field(key: str, path: str, expected: object, document: Callable[[NeutralRequest], Any]) -> Predicate:
    """`<key>.<path>` in a JSON document of the request: equal to a scalar, or (as text) passing a text match."""
    far: Callable[[str], float] | None = None
    if isinstance(expected, TextMatch):
        test, words = text_test(expected)
        far = text_distance(expected)

        def holds(value: Any) -> bool:
            return value is not _MISSING and test(value if isinstance(value, str) else orjson.dumps(value).decode())
    else:
        far = equals_distance(expected) if isinstance(expected, str) else None
        words = f"equals {orjson.dumps(expected).decode()}"

        def holds(value: Any) -> bool:
            return value is not _MISSING and value == expected and isinstance(value, bool) == isinstance(expected, bool)

    def actual(f: NeutralRequest) -> str:
        value = json_at(document(f), path)
        if value is _MISSING:
            return "absent"
        text = orjson.dumps(value).decode()  # shown as JSON, as the request had it
        return text if len(text) <= 60 else text[:59] + "…"

    def distance(f: NeutralRequest) -> float:
        value = json_at(document(f), path)
        if far is None or value is _MISSING or (not isinstance(value, str) and not isinstance(expected, TextMatch)):
            return 1.0
        return far(value if isinstance(value, str) else orjson.dumps(value).decode())

    return Predicate(f"{key}.{path}", words, lambda f: holds(json_at(document(f), path)), actual, distance)


def compile_expect(expect: Expect, faces: FaceNames) -> tuple[Predicate, ...]:
    """An `expect` block's conditions (the signed-reasoning one is checked apart: it needs the key)."""
    body = tuple(json_field("body", path, value, lambda f: f.body) for path, value in (expect.body or {}).items())
    return compile_match(expect, faces, rule=False) + body


def _mapping(
    key: str, specs: Mapping[str, str | TextMatch], read: Callable[[NeutralRequest, str], str | None]
) -> list[Predicate]:
    found = []
    for name, spec in specs.items():
        test, words = _value_test(spec)
        far = _value_distance(spec)

        def holds(f: NeutralRequest, n: str = name, t: TextTest = test) -> bool:
            return (v := read(f, n)) is not None and t(v)

        def actual(f: NeutralRequest, n: str = name) -> str:
            return "absent" if (v := read(f, n)) is None else _clip(v)

        def distance(f: NeutralRequest, n: str = name, d: Callable[[str], float] = far) -> float:
            return 1.0 if (v := read(f, n)) is None else d(v)

        found.append(Predicate(f"{key}.{name}", words, holds, actual, distance))
    return found


def _query_predicates(match: Match) -> list[Predicate]:
    found = []
    if match.query_model is not None:
        glob = match.query_model
        pattern = model_regex([glob])
        found.append(
            Predicate(
                "query_model",
                repr(glob),
                lambda f: pattern.match(f.query_model) is not None,
                lambda f: repr(f.query_model),
            )
        )
    if match.query_llms is not None:
        globs = list(match.query_llms)
        patterns = [model_regex([g]) for g in globs]
        found.append(
            Predicate(
                "query_llms",
                "has LLMs " + ", ".join(repr(g) for g in globs),
                lambda f: all(any(p.match(slug) for slug in f.query_llms) for p in patterns),
                lambda f: "has LLMs " + ", ".join(repr(slug) for slug in f.query_llms),
            )
        )
    return found


def _api_predicates(match: Match, faces: FaceNames, rule: bool) -> list[Predicate]:
    """The faces a match answers: the ones it names, else (for a rule) every face but the ones
    that answer only rules naming them."""
    if match.api is not None:
        apis = faces.expand(match.apis)
        return [Predicate("api", " or ".join(sorted(apis)), lambda f: f.face in apis, lambda f: f.face)]
    if not rule:
        return []
    named_only = faces.named_only()
    return [
        Predicate(
            "api",
            f"any face but {' or '.join(sorted(named_only))}",
            lambda f: f.face not in named_only,
            lambda f: f.face,
        )
    ]


def _request_predicates(match: Match) -> list[Predicate]:
    """Conditions on the request's framing: stream, model, turn and tool choice."""
    found: list[Predicate] = []
    if match.stream is not None:
        want = match.stream
        found.append(
            Predicate(
                "stream",
                f"stream is {str(want).lower()}",
                lambda f: f.stream == want,
                lambda f: f"stream is {str(f.stream).lower()}",
            )
        )
    if match.model is not None:
        globs = [match.model] if isinstance(match.model, str) else list(match.model)
        pattern = model_regex(globs)
        wanted = [equals_distance(glob) for glob in globs]  # a glob's own text: "openai/*" is near "openai/gpt-5"
        found.append(
            Predicate(
                "model",
                " or ".join(repr(g) for g in globs),
                lambda f: pattern.match(f.model) is not None,
                lambda f: repr(f.model),
                lambda f: min(d(f.model) for d in wanted),
            )
        )
    if match.turn is not None:
        turn_test, words = _turn_test(match.turn)
        found.append(Predicate("turn", words, lambda f: turn_test(f.turn), lambda f: f"turn {f.turn}"))
    if match.tool_choice is not None:
        choice = match.tool_choice
        found.append(
            Predicate("tool_choice", repr(choice), lambda f: f.tool_choice == choice, lambda f: repr(f.tool_choice))
        )
    return found


def _tool_predicates(match: Match) -> list[Predicate]:
    """Conditions on the tools offered and the tool result answered."""
    found: list[Predicate] = []
    if match.tools is not None:
        needed = frozenset(match.tools)
        found.append(
            Predicate(
                "tools",
                "offers " + ", ".join(sorted(needed)),
                lambda f: needed.issubset(f.tools),
                lambda f: "offers " + (", ".join(f.tools) or "no tools"),
            )
        )
    if match.tool_result is not None:
        found.extend(_tool_result(match.tool_result))
    return found


def _mapping_predicates(match: Match) -> list[Predicate]:
    """Conditions on the request's metadata and headers."""
    found: list[Predicate] = []
    if match.metadata is not None:
        found.extend(_mapping("metadata", match.metadata, lambda f, n: f.metadata.get(n)))
    if match.headers is not None:
        found.extend(_mapping("headers", match.headers, lambda f, n: f.headers.get(n)))
    return found


MESSAGES_COMPARED = 16
"""The last messages an `any_message` near miss compares (a near miss costs the same for a long conversation)."""


def _text_predicates(match: Match) -> list[Predicate]:
    """Conditions on the conversation's texts, the dearest to test, so they come last."""
    found: list[Predicate] = []
    if match.last_user is not None:
        user_test, words = text_test(match.last_user)
        user_far = text_distance(match.last_user)
        found.append(
            Predicate(
                "last_user",
                words,
                lambda f: user_test(f.last_user),
                lambda f: _clip(f.last_user),
                lambda f: user_far(f.last_user),
            )
        )
    if match.system is not None:
        system_test, words = text_test(match.system)
        system_far = text_distance(match.system)
        found.append(
            Predicate(
                "system",
                words,
                lambda f: system_test(f.system),
                lambda f: _clip(f.system),
                lambda f: system_far(f.system),
            )
        )
    if match.any_message is not None:
        any_test, words = text_test(match.any_message)
        any_far = text_distance(match.any_message)
        found.append(
            Predicate(
                "any_message",
                words,
                lambda f: any(any_test(t) for t in f.texts),
                lambda f: f"{len(f.texts)} messages, none matching",
                lambda f: nearest(any_far, f.texts[-MESSAGES_COMPARED:]),
            )
        )
    return found


def compile_match(match: Match, faces: FaceNames, *, rule: bool = True) -> tuple[Predicate, ...]:
    """Every condition of a `match`, cheapest first so a miss is found early. A rule's match
    without `api` answers every face but ObjectiveAI's (spec §5: chat rules never answer Query
    requests); an `expect` without `api` says nothing about the face."""
    return (
        *_api_predicates(match, faces, rule),
        *_query_predicates(match),
        *_request_predicates(match),
        *_tool_predicates(match),
        *_mapping_predicates(match),
        *_text_predicates(match),
    )
