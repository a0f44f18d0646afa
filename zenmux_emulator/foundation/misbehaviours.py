"""The misbehaviour catalogue: semantic faults a model commits while its HTTP stays fine.

Names are aimock's (unreleased as of its 1.43.0), so users moving over recognise them. Each fault
lists its variants (none: one way to be wrong) and says what is wrong; `core/draft/misbehave.py` alters
a drafted reply accordingly and every face renders the altered draft in its own wire format.

`parse_ask` reads `NAME[;variant]` (the request header, the control API) and `parse_server`
reads `NAME[;variant]:RATE` (`--misbehave`), refusing unknown names and variants.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FaultKind:
    """One fault of the catalogue."""

    name: str
    variants: tuple[str, ...]
    """The ways it can be wrong; a draw picks one when none is asked for (empty: no variants)."""
    tool: bool
    """Whether it alters a tool call (one is made to the first offered tool if the reply has none)."""
    wrong: str
    """What is wrong, in one line (the catalogue endpoint and the docs show it)."""


CATALOGUE: dict[str, FaultKind] = {
    kind.name: kind
    for kind in (
        FaultKind(
            "tool-args-invalid-json",
            ("truncated", "trailing-comma", "single-quotes"),
            True,
            "a tool call's arguments are not JSON",
        ),
        FaultKind(
            "tool-args-schema-violation",
            ("missing-required", "wrong-type", "extra-property", "enum-mismatch", "not-object"),
            True,
            "a tool call's arguments are JSON that the request's own tool schema rejects",
        ),
        FaultKind("tool-unknown-name", (), True, "a tool call names a tool the request did not offer"),
        FaultKind("tool-call-id-duplicate", (), True, "two parallel tool calls share one id"),
        FaultKind(
            "stop-length-mid-tool",
            (),
            True,
            "the reply stops for length after a proper prefix of a tool call's arguments",
        ),
        FaultKind("empty-response", (), False, "the reply has no text, no tool call and no reasoning"),
        FaultKind("refusal", (), False, "the model refuses instead of answering"),
        FaultKind("content-filter", (), False, "the content filter stops the reply before any output"),
        FaultKind("reasoning-only", (), False, "the reply reasons and stops for length before any answer"),
    )
}

HEADER = "X-Emulator-Misbehave"
"""The request header that asks for a fault: `NAME[;variant]`."""
APPLIED_HEADER = "X-Emulator-Misbehaved"
"""The response header naming the fault applied: `NAME;variant` (`NAME` when it has none)."""


@dataclass(frozen=True, slots=True)
class Ask:
    """A fault asked for: its name, a variant (None: drawn), the share of requests it strikes
    (`rate`) and how many times at most (`times`, None: no cap)."""

    fault: str
    variant: str | None = None
    rate: float = 1.0
    times: int | None = None

    def label(self) -> str:
        return self.fault if self.variant is None else f"{self.fault};{self.variant}"


@dataclass(frozen=True, slots=True)
class Applied:
    """The fault a reply carries: its name, the variant drawn ('' when it has none), and what asked
    for it (`header`, `session`, `rule` or `server`)."""

    fault: str
    variant: str
    source: str

    def label(self) -> str:
        return f"{self.fault};{self.variant}" if self.variant else self.fault

    def as_dict(self) -> dict[str, str]:
        return {"fault": self.fault, "variant": self.variant, "source": self.source}


def check(fault: str, variant: str | None) -> None:
    """Refuse a fault or variant the catalogue does not have (ValueError naming the known ones)."""
    kind = CATALOGUE.get(fault)
    if kind is None:
        raise ValueError(f"unknown fault {fault!r}; known: {', '.join(CATALOGUE)}")
    if variant is not None and variant not in kind.variants:
        known = ", ".join(kind.variants) if kind.variants else "none"
        raise ValueError(f"fault {fault!r} has no variant {variant!r}; its variants: {known}")


def parse_ask(text: str) -> Ask:
    """`NAME[;variant]` as an ask that always strikes; ValueError when it is not one."""
    fault, _, variant = text.strip().partition(";")
    fault, variant = fault.strip(), variant.strip()
    check(fault, variant or None)
    return Ask(fault, variant or None)


def parse_server(text: str) -> Ask:
    """`NAME[;variant]:RATE` (`--misbehave`; RATE defaults to 1) as an ask; ValueError otherwise."""
    named, sep, rate_text = text.strip().rpartition(":")
    if not sep:
        named, rate_text = rate_text, "1"
    try:
        rate = float(rate_text)
    except ValueError:
        raise ValueError(f"{text!r}: the rate after ':' must be a number between 0 and 1") from None
    if not 0 <= rate <= 1:
        raise ValueError(f"{text!r}: the rate {rate} is not between 0 and 1")
    ask = parse_ask(named)
    return Ask(ask.fault, ask.variant, rate)


def catalogue_json() -> list[dict[str, object]]:
    """The catalogue as `GET /_emulator/misbehave` lists it."""
    return [
        {"fault": kind.name, "variants": list(kind.variants), "tool_call": kind.tool, "wrong": kind.wrong}
        for kind in CATALOGUE.values()
    ]
