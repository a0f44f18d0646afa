"""Strings that match a JSON Schema `pattern`, made by rstr from the regular expression with the
draft's seeded random, within a bound on their length and on the work of making them.

A pattern is read by Python's `re` (JSON Schema's ECMA-262 dialect where the two agree: nearly
every pattern a tool schema holds). Before any string is made, the parsed pattern's reach is worked
out (the longest string and the work it can take); one past the budget is refused without trying.
A repetition is made between its minimum and a few more (rstr's own cap is a hundred); the last
tries stretch it towards `minLength`. A made string is kept only when `re.search` finds the
pattern in it (JSON Schema patterns are not anchored) and its length is within bounds.
"""

from __future__ import annotations

import re
from random import Random
from typing import Any

from rstr.xeger import Xeger

try:  # the parser rstr reads patterns with
    import re._parser as sre_parse  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse  # type: ignore[no-redef,unused-ignore]

MAX_WORK = 100_000
"""What making one string may cost: characters, plus the width of each character class drawn from."""
SPREAD = 8
"""How many repetitions past its minimum a quantifier may take (`*` is 0 to 8 times)."""
TRIES = 8
_REPEATS = frozenset({"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"})


class _Xeger(Xeger):
    """rstr's generator, with repetitions kept near their minimum (or stretched, see `stretch`)."""

    stretch: int | None = None
    """When set, every repetition takes its minimum plus this many (within its maximum)."""

    def _handle_repeat(self, start_range: int, end_range: int, value: str) -> str:
        if self.stretch is not None:
            times = max(start_range, min(end_range, start_range + self.stretch))
        else:
            times = self._random.randint(start_range, max(start_range, min(end_range, start_range + SPREAD)))
        return "".join("".join(self._handle_state(state) for state in value) for _ in range(times))


class PatternStrings:
    """Strings matching patterns, drawn from one seeded random."""

    def __init__(self, random: Random) -> None:
        self._xeger = _Xeger(random)

    def matching(self, pattern: str, low: int, high: int | None, left: int) -> str:
        """A string `re.search` finds `pattern` in, of `low` to `high` characters and at most
        `left` bytes of UTF-8. ValueError, saying why, when none is found within the bounds."""
        try:
            compiled = re.compile(pattern)
            parsed = sre_parse.parse(pattern)
        except (re.error, RecursionError, OverflowError) as exc:
            raise ValueError(f"{pattern!r} is not a regular expression the emulator reads ({exc})") from None
        longest, work = reach(parsed, {})
        if work > MAX_WORK or longest > max(left, 0):
            raise ValueError(
                f"strings matching {pattern!r} may need more than the budget allows "
                f"({longest} characters, {work} steps of work)"
            )
        schedule: list[int | None] = [None] * (TRIES // 2) + [max(0, low - 1), low, 2 * low, SPREAD]
        for stretch in schedule[:TRIES]:
            self._xeger.stretch = stretch
            try:
                text = self._xeger.xeger(pattern)
            except (KeyError, IndexError, ValueError) as exc:
                raise ValueError(
                    f"{pattern!r} uses a construct the emulator cannot make strings for ({type(exc).__name__}: {exc})"
                ) from None
            finally:
                self._xeger.stretch = None
            if (
                low <= len(text)
                and (high is None or len(text) <= high)
                and len(text.encode()) <= left
                and compiled.search(text) is not None
            ):
                return text
        span = f"{low} to {high}" if high is not None else f"at least {low}"
        raise ValueError(f"no string of {span} characters matching {pattern!r} was found in {TRIES} tries")


def _width(kind: str, value: Any) -> int:
    """What drawing from one part of a character class costs rstr: the characters it lists."""
    if kind == "RANGE":
        return int(value[1]) - int(value[0]) + 1
    return 100 if kind in ("CATEGORY", "NEGATE") else 1


def reach(parsed: Any, groups: dict[int, tuple[int, int]]) -> tuple[int, int]:
    """(the longest string, the work) the generator may make for a parsed pattern."""
    longest = work = 0
    for op, av in parsed:
        name = op.name
        if name in _REPEATS:
            low, high, inner = av
            times = max(low, min(high, low + SPREAD))
            size, cost = reach(inner, groups)
            longest, work = longest + times * size, work + times * cost + 1
        elif name == "SUBPATTERN":
            size, cost = reach(av[-1], groups)
            if av[0] is not None:
                groups[av[0]] = (size, cost)
            longest, work = longest + size, work + cost
        elif name == "BRANCH":
            found = [reach(branch, groups) for branch in av[1]]
            longest, work = longest + max(s for s, _ in found), work + max(c for _, c in found)
        elif name in ("ASSERT", "ASSERT_NOT"):
            size, cost = reach(av[1], groups)
            longest, work = longest + size, work + cost
        elif name == "ATOMIC_GROUP":
            size, cost = reach(av, groups)
            longest, work = longest + size, work + cost
        elif name == "GROUPREF":
            size, cost = groups.get(av, (0, 0))
            longest, work = longest + size, work + size + 1
        elif name == "IN":
            longest, work = longest + 1, work + 1 + sum(_width(kind.name, value) for kind, value in av)
        else:
            longest, work = longest + 1, work + 1
    return longest, work
