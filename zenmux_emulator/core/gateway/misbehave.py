"""Which fault of the misbehaviour catalogue a request gets, and the seeded generator it is drawn with.

Precedence, first that asks wins: the request's `X-Emulator-Misbehave` header (always strikes),
the session's fault set through the control API, the answering rule's `misbehave:`, then the
server's `--misbehave` list. A rate is drawn from `random.Random(seed, source, session, rule,
ordinal)`; the ordinal is the rule's hit number in the session for a rule's ask and the session's
request number otherwise, so the same requests in the same order misbehave the same way on every
run. The fault's own variant is drawn from the same generator.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from zenmux_emulator.foundation.errors import invalid_params
from zenmux_emulator.foundation.ids import seed_int
from zenmux_emulator.foundation.misbehaviours import HEADER, Ask, parse_ask


@dataclass(frozen=True, slots=True)
class Chosen:
    """The fault a request gets, what asked for it, and the generator its variant is drawn from."""

    ask: Ask
    source: str
    rng: random.Random


def header_ask(headers: Mapping[str, str]) -> Ask | None:
    """The request's `X-Emulator-Misbehave: NAME[;variant]`; a bad one is a 400 naming the header."""
    text = headers.get(HEADER)
    if text is None:
        return None
    try:
        return parse_ask(text)
    except ValueError as exc:
        raise invalid_params(f"Header {HEADER} is not valid: {exc}") from None


def _generator(seed: int, source: str, session: str, rule: str, ordinal: int) -> random.Random:
    return random.Random(seed_int("misbehave", seed, source, session, rule, ordinal))


def _struck(rate: float, rng: random.Random) -> bool:
    return rate >= 1 or rng.random() < rate


def _rule_strikes(ask: Ask, seed: int, session: str, rule: str, hit: int) -> random.Random | None:
    """The rule's draw at its `hit`-th answer; with `times`, None once that many earlier draws struck
    (worked out again from the seed: nothing is stored)."""
    if ask.times is not None:
        struck = 0
        for earlier in range(hit):
            if _struck(ask.rate, _generator(seed, "rule", session, rule, earlier)):
                struck += 1
                if struck >= ask.times:
                    return None
    rng = _generator(seed, "rule", session, rule, hit)
    return rng if _struck(ask.rate, rng) else None


def choose(
    *,
    header: Ask | None,
    standing: Ask | None,
    rule_ask: Ask | None,
    rule: str | None,
    hit: int,
    server: Sequence[Ask],
    seed: int,
    session: str,
    ordinal: int,
) -> Chosen | None:
    """The fault this request gets, or None."""
    if header is not None:
        return Chosen(header, "header", _generator(seed, "header", session, rule or "", ordinal))
    if standing is not None:
        rng = _generator(seed, "session", session, rule or "", ordinal)
        if _struck(standing.rate, rng):
            return Chosen(standing, "session", rng)
        return None
    if rule_ask is not None and rule is not None:
        found = _rule_strikes(rule_ask, seed, session, rule, hit)
        return Chosen(rule_ask, "rule", found) if found is not None else None
    if server:
        rng = _generator(seed, "server", session, rule or "", ordinal)
        draw, floor = rng.random(), 0.0
        for ask in server:  # one draw: each fault strikes its own share of the requests
            floor += ask.rate
            if draw < floor:
                return Chosen(ask, "server", rng)
    return None
