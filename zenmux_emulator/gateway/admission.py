"""Admission around matching: rate limits (429), balance (402), failures injected by control
headers, and chaos (header, rule or server), in that order; the charge after the reply is drafted."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from zenmux_emulator.foundation.errors import RequestRejected
from zenmux_emulator.gateway.chaos import inject, of_rule, parse_failure, strikes
from zenmux_emulator.gateway.control_headers import NO_CONTROL, RULE_HEADER, ControlHeaders, read_control
from zenmux_emulator.gateway.limits import charge, check_balance, check_limits
from zenmux_emulator.journal.entry import JournalEntry
from zenmux_emulator.match.select import Selection, reply_at
from zenmux_emulator.rules.compiled import ScenarioSet
from zenmux_emulator.scenario.schema import ModelSpec
from zenmux_emulator.state.sessions import Session
from zenmux_emulator.pipeline.state import EmulatorState

@dataclass(slots=True)
class Gate:
    """A request admitted past limits and balance: its number for chaos, and the headers every
    answer to it carries (`x-ratelimit-*`, `X-Emulator-Balance`)."""

    state: EmulatorState
    entry: JournalEntry
    scenarios: ScenarioSet
    key: str
    session: Session
    control: ControlHeaders
    number: int
    headers: dict[str, str] = field(default_factory=dict)
    gone: bool = False
    """A fault closed the connection: the endpoint sends nothing."""
    chaos_decided: bool = False

    def select(self, selection: Selection | None) -> Selection | None:
        """`X-Emulator-Rule` forces its rule (at its place in the session's sequence); 404 if unknown."""
        name = self.control.rule
        if name is None:
            return selection
        rule = self.scenarios.rule(name)
        if rule is None:
            raise RequestRejected(404, "emulator_no_match", f"No rule is named {name!r} ({RULE_HEADER})")
        hit = self.session.hits.get(rule.name, 0)
        answers, reply = reply_at(rule, hit)
        return Selection(rule, reply if answers else None, hit)

    async def after_matching(self, request: web.Request, selection: Selection | None) -> bool:
        """The rule's chaos, else the server's, unless the header decided; True when the connection is gone."""
        if self.chaos_decided:
            return False
        settings = self.state.settings
        chaos = selection.rule.rule.chaos if selection is not None else None
        rate = chaos.rate if chaos is not None else settings.chaos_rate
        if not strikes(rate, settings.seed, self.session.name, self.number):
            return False
        failure = of_rule(chaos) if chaos is not None else parse_failure(settings.chaos_failure)
        self.gone = await inject(request, self.state, self.entry, failure, self.headers)
        return self.gone

    def charge(self, usage: Mapping[str, Any], model: ModelSpec | None) -> None:
        """Deduct the reply's cost from the key's balance."""
        self.headers.update(charge(self.scenarios.gateway, self.session.gateway, self.key, usage, model))


async def before_matching(request: web.Request, state: EmulatorState, entry: JournalEntry, scenarios: ScenarioSet,
                          key: str, session: Session, prompt: int) -> Gate:
    """Rate limits (429), balance (402), then `X-Emulator-Fault` and `X-Emulator-Chaos`."""
    control = read_control(request.headers) if state.settings.control_headers else NO_CONTROL
    config, counters = scenarios.gateway, session.gateway
    headers = check_limits(config, counters, key, prompt, state.clock.now())
    try:
        check_balance(config, counters, key)
    except RequestRejected as exc:
        exc.headers = {**headers, **exc.headers}
        raise
    counters.arrivals += 1
    gate = Gate(state, entry, scenarios, key, session, control, counters.arrivals, headers)
    if control.fault is not None:
        if await inject(request, state, entry, control.fault, headers):
            gate.gone = True
            return gate
    if control.chaos_rate is not None:
        gate.chaos_decided = True
        if strikes(control.chaos_rate, state.settings.seed, session.name, gate.number):
            failure = control.chaos_failure or parse_failure(state.settings.chaos_failure)
            gate.gone = await inject(request, state, entry, failure, headers)
    return gate
