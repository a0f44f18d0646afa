"""How far a request's value is from what a rule's condition wanted: 0 when it holds, up to 1 when
nothing is alike. Near misses rank rules by the sum of these over the conditions they missed, so
the rule that wanted "weather in Oslo" is nearer to "weather in Olso please" than one that wanted
"hello inspector", though each missed one condition. Text is compared with difflib's ratio (the
share of characters the two have in common, in order, in runs of three or more), as WireMock ranks
near misses by a distance per field."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from difflib import SequenceMatcher

from zenmux_emulator.scenario.schema import TextMatch

Distance = Callable[[str], float]
"""A text's distance from a condition, 0 to 1."""

RUN = 3
"""The shortest run of characters two texts share that counts toward their similarity."""
WINDOW = 256
"""Characters of a text (and of what a condition wanted) compared at most, their first and last halves:
difflib's cost grows with the product of the lengths, so a near miss costs the same for a long text."""


def bounded(text: str) -> str:
    return text if len(text) <= WINDOW else text[: WINDOW // 2] + text[-WINDOW // 2 :]


def similarity(a: str, b: str) -> float:
    """difflib's ratio counting only the runs of at least `RUN` characters the two share: 1 for equal
    texts, 0 for texts with nothing in common (letters that happen to recur in unrelated words do not
    count, so "hello" is as far from "weather today?" as from "xyz")."""
    if a == b:
        return 1.0
    a, b = bounded(a), bounded(b)
    if not a or not b:
        return 0.0
    run = min(RUN, len(a), len(b))
    shared = sum(
        size for _, _, size in SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks() if size >= run
    )
    return 2.0 * shared / (len(a) + len(b))


def contained(needle: str, text: str) -> float:
    """How nearly `text` contains `needle`: the ratio of the needle and the stretch of the text as long as
    it where the longest block they share puts it."""
    if not needle or needle in text:
        return 1.0
    needle = bounded(needle)
    i, j, _ = SequenceMatcher(None, text, needle, autojunk=False).find_longest_match(0, len(text), 0, len(needle))
    start = max(0, i - j)
    return similarity(needle, text[start : start + len(needle)])


def _contains(needle: str) -> Distance:
    return lambda text: contained(needle, text)


def _equals(needle: str) -> Distance:
    return lambda text: similarity(needle, text)


def _starts(needle: str) -> Distance:
    return lambda text: similarity(needle, text[: len(needle)])


def _ends(needle: str) -> Distance:
    return lambda text: similarity(needle, text[-len(needle) :] if needle else "")


def _lacks(needle: str) -> Distance:
    return lambda text: 0.0 if needle in text else 1.0


def _similarities(spec: TextMatch, norm: Callable[[str], str]) -> list[Distance]:
    """One similarity (0 to 1) per condition of `spec`, each reading the text as folded by `norm`."""
    contains = [spec.contains] if isinstance(spec.contains, str) else list(spec.contains or ())
    found = [_contains(norm(needle)) for needle in contains]
    if spec.equals is not None:
        found.append(_equals(norm(spec.equals)))
    if spec.starts_with is not None:
        found.append(_starts(norm(spec.starts_with)))
    if spec.ends_with is not None:
        found.append(_ends(norm(spec.ends_with)))
    if spec.not_contains is not None:
        found.append(_lacks(norm(spec.not_contains)))
    return found


def text_distance(spec: TextMatch) -> Distance:
    """A text's distance from a text match: 1 less the mean similarity of its conditions (a regex, as
    sent, holds or not)."""
    norm: Callable[[str], str] = str.casefold if spec.ignore_case else (lambda s: s)
    parts = _similarities(spec, norm)
    pattern = None if spec.regex is None else re.compile(spec.regex, re.IGNORECASE if spec.ignore_case else 0)

    def distance(text: str) -> float:
        short = bounded(text)
        folded = norm(short)
        scores = [part(folded) for part in parts]
        if pattern is not None:
            scores.append(1.0 if pattern.search(text) is not None else 0.0)
        return 1.0 - sum(scores) / len(scores) if scores else 1.0

    return distance


def equals_distance(expected: str) -> Distance:
    return lambda text: 1.0 - similarity(expected, bounded(text))


def nearest(distance: Distance, texts: Iterable[str]) -> float:
    """The smallest distance of any of the texts (1 for none)."""
    return min((distance(text) for text in texts), default=1.0)
