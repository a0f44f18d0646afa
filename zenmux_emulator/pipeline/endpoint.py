"""The request path every face shares, read top to bottom as the steps a request takes:

    face.parse → authenticate → gateway (limits, balance, control-header failures, catalogue,
    routing, passed-back reasoning) → match → outcome (chaos, scripted fault, error, raw body or
    completion) → draft → face.render → write

Each step returns a value the next one takes. The session's sequence position is committed in
one place (the `finally` of `Endpoint.answer`), and only this module and the middlewares write
the journal entry.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Generic

import orjson
from aiohttp import web

from zenmux_emulator.draft.draft import Draft, Kit, draft_reply
from zenmux_emulator.draft.misbehave import NotApplicable, misbehave
from zenmux_emulator.draft.passback import check_reasoning
from zenmux_emulator.draft.reasoning import shape_of
from zenmux_emulator.foundation.clock import Clock
from zenmux_emulator.foundation.envelope import failure_error
from zenmux_emulator.foundation.errors import (
    ConnectionDropped,
    RequestRejected,
    invalid_params,
    no_match,
)
from zenmux_emulator.foundation.failures import (
    ErrorFailure,
    Failure,
    FaultFailure,
    parse_failure,
)
from zenmux_emulator.foundation.ids import completion_id
from zenmux_emulator.foundation.misbehaviours import APPLIED_HEADER, parse_server
from zenmux_emulator.foundation.signatures import Signer
from zenmux_emulator.foundation.waits import Waits
from zenmux_emulator.gateway.admission import admit_key
from zenmux_emulator.gateway.auth import authenticate
from zenmux_emulator.gateway.catalogue import admit, admit_candidates
from zenmux_emulator.gateway.chaos import of_rule, strikes
from zenmux_emulator.gateway.control_headers import (
    NO_CONTROL,
    RULE_HEADER,
    read_control,
)
from zenmux_emulator.gateway.limits import charge, recharge
from zenmux_emulator.gateway.misbehave import Chosen, choose, header_ask
from zenmux_emulator.gateway.routing import AUTO, ROUTING_HEADER, route, summary
from zenmux_emulator.journal.entry import JournalEntry
from zenmux_emulator.journal.generations import Generations
from zenmux_emulator.journal.ledger import Ledger
from zenmux_emulator.journal.summary import body_summary
from zenmux_emulator.match.expect import unmet_expectations
from zenmux_emulator.match.near_miss import near_misses, no_match_message
from zenmux_emulator.match.outcome import outcome_of
from zenmux_emulator.match.select import Selection, forced, select
from zenmux_emulator.neutral.request import NeutralRequest
from zenmux_emulator.pipeline.body import NotYet, arrived_body, decode, read_body
from zenmux_emulator.pipeline.face import Face, FaceContext, R
from zenmux_emulator.pipeline.generation_record import served_generation
from zenmux_emulator.pipeline.headers import ascii_header, reply_headers, unmatched_headers
from zenmux_emulator.pipeline.keys import ENTRY
from zenmux_emulator.pipeline.shared import claimed, open_shared
from zenmux_emulator.rules.compiled import ScenarioSet
from zenmux_emulator.rules.registry import ScenarioRegistry
from zenmux_emulator.settings import Settings
from zenmux_emulator.state.misbehaving import Misbehaving
from zenmux_emulator.state.sessions import Session, SessionStore, session_name
from zenmux_emulator.state.shared import SharedStore
from zenmux_emulator.write.faults import before_response
from zenmux_emulator.write.json import error_response, json_response
from zenmux_emulator.write.plan import raw_plan
from zenmux_emulator.write.sse import StreamOutcome, write_sse

Forward = Callable[[web.Request, JournalEntry, Face[Any], NeutralRequest | None], Awaitable[web.StreamResponse]]
"""What answers a request no rule matched, instead of the default reply (`--record-missing`); also
one this emulator cannot read (None), which the upstream answers and nothing records."""


@dataclass(slots=True)
class Core:
    """The holders the request path reads, made once by `create_app`."""

    settings: Settings
    registry: ScenarioRegistry
    sessions: SessionStore
    clock: Clock
    kit: Kit
    waits: Waits
    generations: Generations = field(default_factory=Generations)
    """What each completion served, for the generation lookup."""
    ledger: Ledger = field(default_factory=Ledger)
    """The account's spend and usage by minute, model and key, for the Platform API."""
    shared: SharedStore | None = None
    """The state workers and instances share (`--state`); None keeps it in this process."""
    forward: Forward | None = None
    """Set under `--record-missing`: unmatched requests go to the upstream and are recorded."""
    misbehaving: Misbehaving = field(default_factory=Misbehaving)
    """The faults sessions asked for through the control API."""
    unfaulted: frozenset[str] = frozenset()
    """The faces whose render the misbehaviour catalogue does not reach (`FaceSpec.misbehaves`)."""
    api_names: dict[str, str] = field(default_factory=dict)
    """The `api` each registered face's generation records report, by face name (`FaceSpec.api_name`)."""
    model_faces: dict[str, str] = field(default_factory=dict)
    """The face that alone serves each of the faces' own models (`FaceSpec.models`: embedding, rerank)."""
    _accepting: tuple[object, Signer] | None = None

    def signer_for(self, scenarios: ScenarioSet) -> Signer:
        """The signer that checks passed-back reasoning: the server's, also accepting the upstream
        signatures the scenarios recorded (made once per scenario set)."""
        if not scenarios.recorded:
            return self.kit.signer
        made = self._accepting
        if made is None or made[0] is not scenarios.recorded:
            made = self._accepting = (scenarios.recorded, self.kit.signer.accepting(scenarios.recorded))
        return made[1]

    def accepted_keys(self) -> frozenset[str]:
        """Keys from --api-key and from the scenario files; empty means any key is accepted."""
        from_files = self.registry.current.scenarios.api_keys
        if not self.settings.api_keys:
            return from_files
        return from_files.union(self.settings.api_keys)


Preload = Callable[[Any, FaceContext], Awaitable[None]]
"""What a face fetches from the shared store before its (synchronous) `parse` reads it."""
Authenticate = Callable[[Mapping[str, str], frozenset[str]], str]
"""How a face checks the caller's key (the headers, the accepted keys; empty: any): the key, or
the face's own `RequestRejected` (ZenMux's 403 by default)."""


class Endpoint(Generic[R]):
    """The POST route of one face: the face's parse and render around the shared core."""

    __slots__ = ("authenticate", "core", "face", "preload", "server_asks")

    def __init__(
        self, face: Face[R], core: Core, preload: Preload | None = None, authenticate: Authenticate = authenticate
    ) -> None:
        self.face = face
        self.core = core
        self.preload = preload if core.shared is not None else None
        self.authenticate = authenticate
        self.server_asks = tuple(parse_server(item) for item in core.settings.misbehave)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        """The aiohttp handler: the answer, or the face's error envelope."""
        entry = request[ENTRY]
        entry.api = self.face.name
        try:
            return await self.answer(request, entry)
        except RequestRejected as exc:
            entry.error_type = exc.type
            return error_response(exc.status, self.face.error_body(exc.status, exc.type, exc.message), exc.headers)

    async def answer(self, request: web.Request, entry: JournalEntry) -> web.StreamResponse:
        core, settings, headers = self.core, self.core.settings, request.headers
        key = self.authenticate(headers, core.accepted_keys())
        name = entry.session = session_name(headers, key)
        ctx = FaceContext(name, headers, request.match_info, request.query)
        shared = core.shared
        if shared is None:
            session = core.sessions.get(name)

        raw = arrived_body(request, settings.max_body_bytes)
        if isinstance(raw, NotYet):
            raw = await read_body(request, settings.max_body_bytes)
        body = decode(raw)
        if len(raw) <= settings.journal_body_bytes:
            entry.raw_body, entry.body_bytes = raw, len(raw)  # decoded again only if the journal is read
        else:  # kept as its size and hash: a large body must not stay in memory with the journal
            entry.body = body_summary(raw, settings.journal_body_bytes)
            entry.body_bytes = len(orjson.dumps(entry.body))
        if self.preload is not None:
            await self.preload(body, ctx)
        try:
            ask = self.face.parse(body, ctx)
        except RequestRejected:
            if core.forward is None:
                raise
            return await core.forward(request, entry, self.face, None)  # the upstream may read it: not recorded
        if ask.warnings:
            entry.warn(ask.warnings)
        entry.stream = ask.stream

        scenarios = core.registry.current.scenarios
        window = scenarios.catalogue.get(ask.model)
        if window is not None:
            ask.token_limit = window.context_length  # counting a huge prompt stops once past it
        control = read_control(headers) if settings.control_headers else NO_CONTROL
        asked = header_ask(headers) if settings.control_headers else None
        if shared is not None:  # the store admits the request (and may bring newer scenarios)
            session, gate = await open_shared(
                shared, core.registry, core.clock, settings.seed, request, entry, key, ask.prompt_tokens
            )
            scenarios = core.registry.current.scenarios
            metered = scenarios.gateway.active
        else:
            metered = scenarios.gateway.active
            if metered:
                gate = admit_key(scenarios.gateway, session.gateway, key, ask.prompt_tokens, core.clock.now())
            else:
                gate = {}
                session.gateway.arrivals += 1
        number = session.gateway.arrivals
        if control is not NO_CONTROL:  # the request's own fault or chaos (X-Emulator-Fault, X-Emulator-Chaos)
            if control.fault is not None:
                await self.fail(request, entry, control.fault, gate)
            if control.chaos_rate is not None and strikes(control.chaos_rate, settings.seed, session.name, number):
                await self.fail(request, entry, control.chaos_failure or parse_failure(settings.chaos_failure), gate)
        owner = core.model_faces.get(ask.model)
        if owner is not None and owner != self.face.name:  # an embedding model asked to chat, say
            raise invalid_params(f"Model {ask.requested_model} is not valid: it is a model of the {owner} API")
        admit(ask.requested_model, ask.model, scenarios.catalogue, scenarios.catalogue_closed, ask.prompt_tokens)
        if ask.model == AUTO:
            admit_candidates(ask.model_routing, scenarios.catalogue, scenarios.catalogue_closed)
        routed = route(ask.model, ask.pinned_provider, ask.provider, ask.model_routing, scenarios.catalogue, session)
        entry.routing = routed.attempts
        if routed.failure is not None:
            raise routed.failure
        served = routed.model
        if routed.delay_s > 0:
            with core.waits.interruptible():
                await asyncio.sleep(routed.delay_s)
        if ask.reasoning.enabled or ask.carries_signatures:
            entry.warn(check_reasoning(ask, shape_of(served), core.signer_for(scenarios), settings.reasoning_check))

        selection = self.match(ask, entry, scenarios, session, control.rule, served)
        if shared is not None:  # the position is taken in the store: requests in flight never share one
            selection = await claimed(
                shared, session, selection, partial(self.match, ask, entry, scenarios, session, control.rule, served)
            )
        if selection is None and core.forward is not None:
            return await core.forward(request, entry, self.face, ask)
        used: Selection | None = None
        """The selection whose reply was used up: committed once, whatever happens after."""
        try:
            if selection is not None and selection.reply is None:
                used = selection
            outcome = outcome_of(selection)
            if used is None and control.chaos_rate is None and (settings.chaos_rate or scenarios.chaotic):
                struck = self.chaos(selection, session.name, number)
                if struck is not None:
                    await self.fail(request, entry, struck, gate)
            used = selection
            if outcome.fault is not None:
                await self.fault(request, entry, outcome.fault)
            if outcome.error is not None:
                raise outcome.error
            if outcome.raw is not None:
                plan = raw_plan(outcome.raw)
                entry.response = plan.body
                return json_response(plan)
            rule = selection.rule.name if selection is not None else None
            listed = window if served == ask.model else scenarios.catalogue.get(served)
            """The catalogue's entry of the model that serves (routing may have fallen back)."""
            try:
                draft = draft_reply(
                    outcome.reply, rule, ask, served, core.kit, listed.reasoning if listed is not None else None
                )
            except BaseException:
                used = None  # a reply that failed to draft is not used up
                raise
        finally:
            if used is not None:
                used.commit(session)

        if draft.warnings:
            entry.warn(draft.warnings)
        chosen = choose(
            header=asked,
            standing=core.misbehaving.get(session.name),
            rule_ask=selection.rule.rule.misbehave.ask() if selection and selection.rule.rule.misbehave else None,
            rule=rule,
            hit=selection.hit if selection is not None else 0,
            server=self.server_asks,
            seed=settings.seed,
            session=session.name,
            ordinal=number,
        )
        if chosen is not None:
            self.misbehave(draft, ask, entry, chosen)
        if metered:
            gate.update(charge(scenarios.gateway, session.gateway, key, draft.usage, listed))
        session.requests += 1
        generation = completion_id(settings.seed, session.name, session.requests)
        sent = reply_headers(generation, rule, entry.warnings, entry.unmet_expectations)
        if rule is None:  # a placeholder answer: say so, and where to read why
            sent.update(unmatched_headers(entry.near_misses, f"{request.scheme}://{request.host}", entry.seq))
        if gate:
            sent.update(gate)
        if draft.misbehaved is not None:
            sent[APPLIED_HEADER] = draft.misbehaved.label()
        sent[ROUTING_HEADER] = ascii_header(summary(routed))
        ctx.rule = rule
        plan = self.face.render(draft, ask, generation, int(core.clock.now()), sent, settings.seed, ctx)
        if ctx.warnings:
            entry.warn(ctx.warnings)
        if metered and plan.usage is not None:  # the face's own usage replaces the draft's on the bill
            plan.headers.update(recharge(scenarios.gateway, session.gateway, key, draft.usage, listed, plan.usage))
        streamed = StreamOutcome() if plan.events is not None else None
        record = None
        if plan.status == 200:
            record = served_generation(
                core.api_names.get(self.face.name, self.face.name),
                generation,
                draft,
                plan,
                listed,
                streamed,
                entry.time,
                routed.delay_s,
                len(routed.attempts) - 1,
            )
            core.generations.add(record)
            core.ledger.add(record, key)
            if shared is not None:
                shared.keep_generation(record.ids, record.blob())
        if streamed is None:
            entry.response = plan.body
            return json_response(plan)
        entry.response = plan.events
        if shared is not None:
            await shared.save(session)  # before the first byte: the next request may come before the last
        del ask, draft  # the parsed request and the draft live on only in the events' generator, if it needs them
        try:
            return await write_sse(request, plan, settings.keepalive_ms / 1000, streamed, core.waits)
        finally:
            entry.events_sent, entry.client_gone = streamed.events_sent, streamed.client_gone
            entry.sent_at = streamed.sent_at
            entry.fault = streamed.fault or entry.fault
            if shared is not None and record is not None:  # its generation time, with the journal entry
                shared.keep_generation(record.ids, record.blob())

    def match(
        self,
        ask: NeutralRequest,
        entry: JournalEntry,
        scenarios: ScenarioSet,
        session: Session,
        forced_rule: str | None,
        served: str,
    ) -> Selection | None:
        """The rule that answers (or the one `X-Emulator-Rule` names); near misses, or the 404 of
        `--strict`, when none does."""
        core = self.core
        loaded = core.registry.current
        if forced_rule is not None:
            rule = scenarios.rule(forced_rule)
            if rule is None:
                raise no_match(f"No rule is named {forced_rule!r} ({RULE_HEADER})")
            selection: Selection | None = forced(rule, session)
        else:
            selection = select(loaded.index, ask, session)
        if selection is None:
            misses = near_misses(scenarios.rules, ask)
            entry.near_misses = [m.as_dict() for m in misses]
            if core.settings.strict and core.forward is None:
                raise no_match(no_match_message(loaded.index, ask, misses))
            return None
        entry.rule, entry.reply_index = selection.rule.name, selection.hit
        if selection.rule.rule.expect is not None:
            entry.unmet_expectations = unmet_expectations(
                selection.rule, ask, shape_of(served), core.signer_for(scenarios)
            )
        return selection

    def misbehave(self, draft: Draft, ask: NeutralRequest, entry: JournalEntry, chosen: Chosen) -> None:
        """Make the draft wrong as the chosen fault says; the journal entry names the fault applied
        (or, when the request gives it no handle, warns why the reply went out as drafted)."""
        if self.face.name in self.core.unfaulted:
            entry.warn(
                [
                    f"fault {chosen.ask.fault} ({chosen.source} asked for it) is not shown on the "
                    f"{self.face.name} face: the reply was sent as drafted"
                ]
            )
            return
        try:
            draft.misbehaved = misbehave(draft, chosen.ask, chosen.source, ask, self.core.kit, chosen.rng)
        except NotApplicable as exc:
            entry.warn([f"{exc} ({chosen.source} asked for it): the reply was sent as drafted"])
        else:
            entry.misbehaved = draft.misbehaved

    def chaos(self, selection: Selection | None, session: str, number: int) -> Failure | None:
        """The failure chaos strikes this request with (the rule's chaos, else the server's), or None.
        Called only when some chaos is configured (the caller checks, saving the call otherwise)."""
        settings = self.core.settings
        rules_chaos = selection.rule.rule.chaos if selection is not None else None
        rate = rules_chaos.rate if rules_chaos is not None else settings.chaos_rate
        if not strikes(rate, settings.seed, session, number):
            return None
        return of_rule(rules_chaos) if rules_chaos is not None else parse_failure(settings.chaos_failure)

    async def fail(self, request: web.Request, entry: JournalEntry, failure: Failure, gate: dict[str, str]) -> None:
        """An injected failure: raise its error (with the gate's headers), or carry its fault out."""
        if isinstance(failure, ErrorFailure):
            raise failure_error(failure).with_headers(gate)
        await self.fault(request, entry, failure)

    async def fault(self, request: web.Request, entry: JournalEntry, fault: FaultFailure) -> None:
        """A transport fault before any response: returns after a delay, raises ConnectionDropped otherwise."""
        entry.fault = fault.kind
        with self.core.waits.interruptible():
            gone = await before_response(request, fault)
        if gone:
            raise ConnectionDropped(fault.kind)
