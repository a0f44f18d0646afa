"""The request path every face shares, read top to bottom as the steps `Endpoint.answer` takes:

    authenticate → read → face.parse → admit (the state: limits, balance; control-header
    failures) → route (catalogue, providers, passed-back reasoning) → match (the reply position
    claimed in the state) → outcome (chaos, scripted fault, error, raw body) → draft → dress
    (misbehaviour, bill, headers) → face.render → record (generation) → write

Each step is a short method taking and returning a small value (`Caller`, `Let`, `Served`,
`Dressed`, `Recorded`). The session's sequence position is committed in one place (`settle`), the
state (`core/state.py`) is asked the same way wherever it lives, and only this module and the
middleware write the journal entry (the state numbers it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Generic

import orjson
from aiohttp import web

from zenmux_emulator.core.body import NotYet, arrived_body, decode, read_body
from zenmux_emulator.core.draft.draft import Draft, Kit, draft_reply
from zenmux_emulator.core.draft.misbehave import NotApplicable, misbehave
from zenmux_emulator.core.draft.passback import check_reasoning
from zenmux_emulator.core.draft.reasoning import shape_of
from zenmux_emulator.core.face import Face, FaceContext, R
from zenmux_emulator.core.gateway.auth import AcceptedKeys, authenticate
from zenmux_emulator.core.gateway.catalogue import admit, admit_candidates
from zenmux_emulator.core.gateway.chaos import of_rule, strikes
from zenmux_emulator.core.gateway.control_headers import (
    NO_CONTROL,
    RULE_HEADER,
    ControlHeaders,
    read_control,
)
from zenmux_emulator.core.gateway.limits import charge, recharge
from zenmux_emulator.core.gateway.misbehave import Chosen, choose, header_ask
from zenmux_emulator.core.gateway.routing import AUTO, ROUTING_HEADER, Route, route, summary
from zenmux_emulator.core.generation_record import served_generation
from zenmux_emulator.core.headers import ascii_header, reply_headers, unmatched_headers
from zenmux_emulator.core.journal.entry import JournalEntry
from zenmux_emulator.core.journal.generations import Generation, Generations
from zenmux_emulator.core.journal.ledger import spend_of
from zenmux_emulator.core.journal.summary import body_summary
from zenmux_emulator.core.keys import ENTRY
from zenmux_emulator.core.match.expect import unmet_expectations
from zenmux_emulator.core.match.near_miss import near_misses, no_match_message
from zenmux_emulator.core.match.outcome import Outcome, outcome_of
from zenmux_emulator.core.match.rule import CompiledRule
from zenmux_emulator.core.match.select import NO_STATES, Selection, forced, select
from zenmux_emulator.core.neutral.request import NeutralRequest
from zenmux_emulator.core.rules.compiled import ScenarioSet
from zenmux_emulator.core.rules.registry import ScenarioRegistry
from zenmux_emulator.core.state import Admitted, RequestState, State
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
from zenmux_emulator.foundation.misbehaviours import APPLIED_HEADER, Ask, parse_server
from zenmux_emulator.foundation.offload import Deferred, attempt, settle
from zenmux_emulator.foundation.signatures import Signer
from zenmux_emulator.foundation.waits import Waits
from zenmux_emulator.scenario.schema import ModelSpec
from zenmux_emulator.settings import Settings
from zenmux_emulator.state.scenario_states import SERVER_WIDE, START, STARTED, Standing
from zenmux_emulator.state.sessions import Session, session_name
from zenmux_emulator.write.faults import before_response
from zenmux_emulator.write.json import error_response, json_response
from zenmux_emulator.write.plan import ReplyPlan, raw_plan
from zenmux_emulator.write.sse import Pace, StreamOutcome, write_sse

MOVE_TRIES = 64
"""Scenario moves other requests may make first before a request gives up (each one answered another request)."""

Forward = Callable[[web.Request, JournalEntry, Face[Any], NeutralRequest | None], Awaitable[web.StreamResponse]]
"""What answers a request no rule matched, instead of the default reply (`--record-missing`); also
one this emulator cannot read (None), which the upstream answers and nothing records."""


@dataclass(slots=True)
class Core:
    """The holders the request path reads, made once by `create_app`."""

    settings: Settings
    registry: ScenarioRegistry
    state: State
    """Sessions, journal, stored objects, clock and scenarios' version: in process or shared."""
    clock: Clock
    kit: Kit
    waits: Waits
    generations: Generations = field(default_factory=Generations)
    """What each completion served, for the generation lookup."""
    forward: Forward | None = None
    """Set under `--record-missing`: unmatched requests go to the upstream and are recorded."""
    unfaulted: frozenset[str] = frozenset()
    """The faces whose render the misbehaviour catalogue does not reach (`FaceSpec.misbehaves`)."""
    api_names: dict[str, str] = field(default_factory=dict)
    """The `api` each registered face's generation records report, by face name (`FaceSpec.api_name`)."""
    model_faces: dict[str, str] = field(default_factory=dict)
    """The face that alone serves each of the faces' own models (`FaceSpec.models`: embedding, rerank)."""
    _accepting: tuple[object, Signer] | None = None
    _keys: tuple[frozenset[str], AcceptedKeys] | None = None

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
        """Keys from --api-key and from the scenario files; empty means any key is accepted (made once
        per scenario set, knowing which list each key came from)."""
        from_files = self.registry.current.scenarios.api_keys
        made = self._keys
        if made is None or made[0] is not from_files:
            made = self._keys = (from_files, AcceptedKeys(self.settings.api_keys, from_files))
        return made[1]


async def states_of(core: Core, scenarios: ScenarioSet, name: str) -> dict[str, str]:
    """Where each scenario the rules name stands for session `name`, a timed move resolved on the
    emulator's clock now (the server's state for a server-wide scenario)."""
    owners = (name, SERVER_WIDE) if scenarios.server_wide else (name,)
    stored = await core.state.standings(owners)
    now = core.clock.now()
    return {
        scenario: stored[scenarios.owner(scenario, name)].get(scenario, START).at(now).state
        for scenario in scenarios.scenario_names
    }


# The steps' values are slotted dataclasses, made once a request and never changed after (not frozen,
# not NamedTuples: docs/performance.md says what each shape costs).


@dataclass(slots=True)
class Caller:
    """Who asks: the key they authenticated with and the request as their face sees it."""

    key: str
    ctx: FaceContext


@dataclass(slots=True)
class Let:
    """A request the state let in: its session, rate headers, scenarios in force, control headers,
    its number in the session (which its ids and chaos draw are made from; the state takes it
    atomically on admission, so requests in flight never share one), the catalogue's entry of the
    model it asked for, and the failures its own fault and chaos strike it with (most requests: none)."""

    session: Session
    gate: dict[str, str]
    scenarios: ScenarioSet
    control: ControlHeaders
    asked: Ask | None
    number: int
    window: ModelSpec | None
    failures: tuple[Failure, ...]
    states: Mapping[str, str]
    """Where each scenario stands for this request (read only when the rules name scenarios)."""
    scale: float
    """What the request's waits are multiplied by: its header's time scale, the server's, the scenarios', else 1."""
    standing: Ask | None = None
    """The fault the session asked for through the control API (`POST /_emulator/misbehave`)."""


@dataclass(slots=True)
class Served:
    """The route: the attempts, the model that served and its catalogue entry."""

    routed: Route
    model: str
    listed: ModelSpec | None


@dataclass(slots=True)
class Dressed:
    """The reply's headers, its generation id and the rule that answers (None: the default reply)."""

    headers: dict[str, str]
    generation: str
    rule: str | None


@dataclass(slots=True)
class Recorded:
    """The generation record of a completion served (None: an error), and the stream's outcome."""

    record: Generation | None
    streamed: StreamOutcome | None


Preload = Callable[[Any, FaceContext], Awaitable[None]]
"""What a face fetches from the state (its stored objects) before its (synchronous) `parse` reads it."""
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
        self.preload = preload
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
        """The steps of the module's docstring, each taking and returning a small value. A step is
        awaited only where the request may wait: the rest of its body, the state (in Redis), a
        face's stored objects, the provider's latency, a sequence's position, a stream."""
        caller = self.authenticate_caller(request, entry)
        raw = arrived_body(request, self.core.settings.max_body_bytes)
        if isinstance(raw, NotYet):  # the body is still arriving
            raw = await read_body(request, self.core.settings.max_body_bytes)
        body = self.read(raw, caller.ctx, entry)
        if self.preload is not None:
            await self.preload(body, caller.ctx)
        ask = self.parse_body(body, caller.ctx, entry)
        if isinstance(ask, Deferred):  # a costly part of the parse, done in a thread first
            ask = await self.parse_body_later(ask, body, caller.ctx, entry)
        if ask is None:  # the face refused it, and the upstream may read it: not recorded
            assert self.core.forward is not None
            return await self.core.forward(request, entry, self.face, None)
        window = self.context_window(ask)
        admitted = await self.core.state.admit(request, entry, caller.key, ask.prompt_tokens)
        let = self.let_in(request, admitted, window)
        for failure in let.failures:  # the request's own fault, then its chaos
            await self.fail(request, entry, failure, let)
        served = self.route_model(entry, ask, let)
        if served.routed.delay_s > 0:
            await self.provider_latency(entry, served.routed.delay_s, let.scale)
        if let.scenarios.scenario_names:  # the rules move scenarios: matched at their states, moved in the state
            selection = await self.choose(entry, ask, let, served)
        else:  # a plain step, awaited only where a position is claimed
            selection = self.match(entry, ask, let, served)
            if selection is not None and selection.rule.positional:  # the position is claimed in the state
                again = partial(self.match, entry, ask, let, served)
                selection = await self.core.state.claim(let.session, selection, again)
        if selection is None and self.core.forward is not None:
            return await self.core.forward(request, entry, self.face, ask)
        drafted = await self.settle(request, entry, ask, let, served, selection)
        if isinstance(drafted, web.StreamResponse):  # a raw body: the reply as the rule wrote it
            return drafted
        dressed = self.dress(request, entry, caller.key, ask, let, served, selection, drafted)
        plan = self.render_reply(entry, caller, ask, let, served, drafted, dressed)
        record = self.record(entry, caller.key, plan, drafted, served, dressed.generation)
        del ask, drafted  # the parsed request and the draft live on only in the events' generator, if it needs them
        if record.streamed is None:
            return self.write(entry, plan)
        return await self.stream(request, entry, let, plan, record)

    async def choose(self, entry: JournalEntry, ask: NeutralRequest, let: Let, served: Served) -> Selection | None:
        """match, in the state: the rule that answers at the scenario states the request reads, its
        reply position claimed and its scenario's move made there (matched again when another
        request in flight moved the scenario first: exactly one request makes a move). Only for rules
        that name scenarios: the others are matched and claimed as a plain step in `answer`."""
        let.states = await self.read_states(let)
        for _ in range(MOVE_TRIES):
            selection = self.match(entry, ask, let, served)
            if selection is not None and selection.rule.positional:  # the position is claimed in the state
                again = partial(self.match, entry, ask, let, served)
                selection = await self.core.state.claim(let.session, selection, again)
            if selection is None or selection.rule.scenario is None or await self.move(entry, let, selection):
                return selection
        raise RequestRejected(
            503,
            "emulator_state_busy",
            f"{MOVE_TRIES} scenario moves were made by other requests while this one was matched",
        )

    async def read_states(self, let: Let) -> dict[str, str]:
        """Where each scenario the rules name stands for this request, its timed move resolved now."""
        return await states_of(self.core, let.scenarios, let.session.name)

    async def move(self, entry: JournalEntry, let: Let, selection: Selection) -> bool:
        """The answering rule's `set_state`, made in the state from the state it matched in; False
        when another request moved the scenario first (`let.states` then holds where it stands). A
        request chaos strikes moves nothing, nor does one refused before the match."""
        rule = selection.rule
        scenario = rule.scenario or ""
        seen = let.states.get(scenario, STARTED)
        entry.scenario, entry.state_before, entry.state_after = scenario, seen, seen
        target = rule.rule.moves_to
        if target is None or (selection.reply is not None and self.struck(let, selection) is not None):
            return True
        now = self.core.clock.now()
        to = Standing(target.to, target.next, None if target.after_s is None else now + target.after_s)
        owner = let.scenarios.owner(scenario, let.session.name)
        current = await self.core.state.move_state(owner, scenario, seen, to, now)
        if current is not None:
            let.states = {**let.states, scenario: current}
            return False
        entry.state_after = to.state
        return True

    def authenticate_caller(self, request: web.Request, entry: JournalEntry) -> Caller:
        """authenticate: the caller's key (the face's own 401/403 otherwise) and session."""
        headers = request.headers
        key = self.authenticate(headers, self.core.accepted_keys())
        name = entry.session = session_name(headers, key)
        self.core.state.visit(name)
        return Caller(key, FaceContext(name, headers, request.match_info, request.rel_url))

    def read(self, raw: bytes, ctx: FaceContext, entry: JournalEntry) -> Any:
        """The JSON body (its bytes bounded when they arrived); the journal keeps its bytes (or,
        past the limit, its size and hash), the face's context its size."""
        settings = self.core.settings
        body = decode(raw)
        ctx.body_bytes = len(raw)
        if len(raw) <= settings.journal_body_bytes:
            entry.raw_body, entry.body_bytes = raw, len(raw)  # decoded again only if the journal is read
        else:  # kept as its size and hash: a large body must not stay in memory with the journal
            entry.body = body_summary(raw, settings.journal_body_bytes)
            entry.body_bytes = len(orjson.dumps(entry.body))
        return body

    def parse_body(self, body: Any, ctx: FaceContext, entry: JournalEntry) -> R | Deferred | None:
        """face.parse (after its `preload`): the neutral request (None: refused, and
        `--record-missing` forwards it), or the costly part it deferred (a large JSON Schema's
        check), which `parse_body_later` does in a thread, not on the loop (`foundation.offload`)."""
        try:
            outcome = attempt(partial(self.face.parse, body, ctx))
        except RequestRejected:
            if self.core.forward is None:
                raise
            return None
        return outcome if isinstance(outcome, Deferred) else self.parsed(outcome, entry)

    async def parse_body_later(self, deferred: Deferred, body: Any, ctx: FaceContext, entry: JournalEntry) -> R | None:
        """`parse_body` once what it deferred has run in a thread."""
        try:
            ask = await settle(deferred, partial(self.face.parse, body, ctx))
        except RequestRejected:
            if self.core.forward is None:
                raise
            return None
        return self.parsed(ask, entry)

    def parsed(self, ask: R, entry: JournalEntry) -> R:
        """The parsed request's warnings and streaming, noted in the journal entry."""
        if ask.warnings:
            entry.warn(ask.warnings)
        if self.core.registry.stale:  # a scenario file broken since the last good load
            entry.warn(self.core.registry.stale)
        entry.stream = ask.stream
        return ask

    def context_window(self, ask: NeutralRequest) -> ModelSpec | None:
        """The catalogue's entry of the model asked for: its prompt is counted only as far as its
        context window (a huge prompt's count stops once past it)."""
        window = self.core.registry.current.scenarios.catalogue.get(ask.model)
        if window is not None:
            ask.token_limit = window.context_length
        return window

    def let_in(self, request: web.Request, admitted: Admitted, window: ModelSpec | None) -> Let:
        """admit: what the state let in (the session, through the limits and balance), with the
        request's control headers and the failures its own fault and chaos (X-Emulator-Fault,
        X-Emulator-Chaos) strike it with, which `answer` carries out in that order."""
        settings, headers = self.core.settings, request.headers
        control = read_control(headers) if settings.control_headers else NO_CONTROL
        asked = header_ask(headers) if settings.control_headers else None
        session = admitted.session
        number = session.gateway.arrivals
        struck: tuple[Failure, ...] = () if control.fault is None else (control.fault,)
        if control.chaos_rate is not None and strikes(control.chaos_rate, settings.seed, session.name, number):
            struck += (control.chaos_failure or parse_failure(settings.chaos_failure),)
        scale = control.time_scale
        if scale is None:
            scale = settings.time_scale
        if scale is None:
            scale = admitted.scenarios.gateway.time_scale
        return Let(
            session,
            admitted.gate,
            admitted.scenarios,
            control,
            asked,
            number,
            window,
            struck,
            NO_STATES,
            1.0 if scale is None else scale,
            admitted.standing,
        )

    def route_model(self, entry: JournalEntry, ask: NeutralRequest, let: Let) -> Served:
        """route: the catalogue admits the model, a provider serves it (`provider_latency` waits
        the latency its attempts took)."""
        catalogue, closed = let.scenarios.catalogue, let.scenarios.catalogue_closed
        owner = self.core.model_faces.get(ask.model)
        if owner is not None and owner != self.face.name:  # an embedding model asked to chat, say
            raise invalid_params(f"Model {ask.requested_model} is not valid: it is a model of the {owner} API")
        admit(ask.requested_model, ask.model, catalogue, closed, ask.prompt_tokens)
        if ask.model == AUTO:
            admit_candidates(ask.model_routing, catalogue, closed)
        routed = route(ask.model, ask.pinned_provider, ask.provider, ask.model_routing, catalogue, let.session)
        entry.routing = routed.attempts
        if routed.failure is not None:
            raise routed.failure
        served = routed.model
        if ask.reasoning.enabled or ask.carries_signatures:
            signer = self.core.signer_for(let.scenarios)
            entry.warn(check_reasoning(ask, shape_of(served), signer, self.core.settings.reasoning_check))
        listed = let.window if served == ask.model else catalogue.get(served)
        return Served(routed, served, listed)

    async def provider_latency(self, entry: JournalEntry, seconds: float, scale: float) -> None:
        """The time the route's attempts took, as the provider that served would (times the time scale)."""
        entry.skipped += seconds * (1 - scale)
        if scale:
            with self.core.waits.interruptible():
                await asyncio.sleep(seconds * scale)

    async def settle(
        self,
        request: web.Request,
        entry: JournalEntry,
        ask: NeutralRequest,
        let: Let,
        served: Served,
        selection: Selection | None,
    ) -> Draft | web.StreamResponse:
        """outcome → draft: chaos, a scripted fault or error, a raw body, or the drafted reply. The
        selection's reply is used up (committed once, whatever happens after) unless drafting fails."""
        used = selection if selection is not None and selection.reply is None else None
        try:
            outcome = outcome_of(selection)
            struck = self.struck(let, selection) if used is None else None
            if struck is not None:
                await self.fail(request, entry, struck, let)
            used = selection
            if outcome.fault is not None:
                await self.fault(request, entry, outcome.fault, let.scale)
            raw = self.carry_out(entry, outcome)
            if raw is not None:
                return raw
            try:
                return self.draft(ask, served, selection, outcome.reply)
            except BaseException:
                used = None  # a reply that failed to draft is not used up
                raise
        finally:
            if used is not None:
                used.commit(let.session)

    def struck(self, let: Let, selection: Selection | None) -> Failure | None:
        """The failure the configured chaos (the rule's, else the server's) strikes with, unless
        the request asked for its own; None: no chaos, or it missed."""
        settings = self.core.settings
        if let.control.chaos_rate is None and (settings.chaos_rate or let.scenarios.chaotic):
            return self.chaos(selection, let.session.name, let.number)
        return None

    def carry_out(self, entry: JournalEntry, outcome: Outcome) -> web.Response | None:
        """The outcome's error or raw body, after its fault (None: a reply to draft)."""
        if outcome.error is not None:
            raise outcome.error
        if outcome.raw is None:
            return None
        plan = raw_plan(outcome.raw)
        entry.response = plan.body
        return json_response(plan)

    def draft(self, ask: NeutralRequest, served: Served, selection: Selection | None, reply: Any) -> Draft:
        rule = selection.rule.name if selection is not None else None
        reasoning = served.listed.reasoning if served.listed is not None else None
        return draft_reply(reply, rule, ask, served.model, self.core.kit, reasoning)

    def dress(
        self,
        request: web.Request,
        entry: JournalEntry,
        key: str,
        ask: NeutralRequest,
        let: Let,
        served: Served,
        selection: Selection | None,
        draft: Draft,
    ) -> Dressed:
        """The draft made wrong as asked, the bill, the generation's id and the headers the reply carries."""
        session = let.session
        rule = selection.rule.name if selection is not None else None
        if draft.warnings:
            entry.warn(draft.warnings)
        self.apply_misbehaviour(entry, ask, let, selection, rule, draft)
        if let.scenarios.gateway.active:
            let.gate.update(charge(let.scenarios.gateway, session.gateway, key, draft.usage, served.listed))
        generation = completion_id(self.core.settings.seed, session.name, let.number)
        sent = reply_headers(generation, rule, entry.warnings, entry.unmet_expectations)
        if rule is None and not entry.unscripted:  # a placeholder answer: say so, and where to read why
            sent.update(unmatched_headers(entry.near_misses, f"{request.scheme}://{request.host}", entry.seq))
        if let.gate:
            sent.update(let.gate)
        if draft.misbehaved is not None:
            sent[APPLIED_HEADER] = draft.misbehaved.label()
        sent[ROUTING_HEADER] = ascii_header(summary(served.routed))
        return Dressed(sent, generation, rule)

    def apply_misbehaviour(
        self,
        entry: JournalEntry,
        ask: NeutralRequest,
        let: Let,
        selection: Selection | None,
        rule: str | None,
        draft: Draft,
    ) -> None:
        """The fault of the misbehaviour catalogue this reply gets, if the request, its session, its
        rule or the server asked for one."""
        settings = self.core.settings
        standing = let.standing
        misbehaves = selection.rule.rule.misbehave if selection is not None else None
        if let.asked is None and standing is None and misbehaves is None and not self.server_asks:
            return  # nothing asked for a fault: nothing to draw
        chosen = choose(
            header=let.asked,
            standing=standing,
            rule_ask=misbehaves.ask() if misbehaves else None,
            rule=rule,
            hit=selection.hit if selection is not None else 0,
            server=self.server_asks,
            seed=settings.seed,
            session=let.session.name,
            ordinal=let.number,
        )
        if chosen is not None:
            self.misbehave(draft, ask, entry, chosen)

    def render_reply(
        self,
        entry: JournalEntry,
        caller: Caller,
        ask: R,
        let: Let,
        served: Served,
        draft: Draft,
        dressed: Dressed,
    ) -> ReplyPlan:
        """face.render: the reply as the face sends it; the face's own usage replaces the draft's on the bill."""
        core, ctx = self.core, caller.ctx
        ctx.rule = dressed.rule
        now = int(core.clock.now())
        plan = self.face.render(draft, ask, dressed.generation, now, dressed.headers, core.settings.seed, ctx)
        if ctx.warnings:
            entry.warn(ctx.warnings)
        if let.scenarios.gateway.active and plan.usage is not None:
            gateway = let.scenarios.gateway
            plan.headers.update(
                recharge(gateway, let.session.gateway, caller.key, draft.usage, served.listed, plan.usage)
            )
        return plan

    def record(
        self, entry: JournalEntry, key: str, plan: ReplyPlan, draft: Draft, served: Served, generation: str
    ) -> Recorded:
        """What a completion served, for the generation lookup and the Platform API's ledger."""
        streamed = StreamOutcome() if plan.events is not None else None
        if plan.status != 200:
            return Recorded(None, streamed)
        core = self.core
        record = served_generation(
            core.api_names.get(self.face.name, self.face.name),
            generation,
            draft,
            plan,
            served.listed,
            streamed,
            entry.time,
            served.routed.delay_s,
            len(served.routed.attempts) - 1,
        )
        core.generations.add(record)
        core.state.count(spend_of(record, key))
        core.state.keep_generation(record)
        return Recorded(record, streamed)

    def write(self, entry: JournalEntry, plan: ReplyPlan) -> web.Response:
        """write: the JSON body."""
        entry.response = plan.body
        return json_response(plan)

    async def stream(
        self, request: web.Request, entry: JournalEntry, let: Let, plan: ReplyPlan, recorded: Recorded
    ) -> web.StreamResponse:
        """write: the stream (the session's changes saved before its first byte), its waits times the
        time scale, its timeline the scripted one."""
        streamed = recorded.streamed
        assert streamed is not None
        entry.response = plan.events
        state: RequestState = self.core.state
        await state.save(let.session)  # the next request may come before the last byte
        pace = Pace(self.core.settings.keepalive_ms / 1000, let.scale, entry.skipped)
        try:
            return await write_sse(request, plan, pace, streamed, self.core.waits)
        finally:
            entry.events_sent, entry.client_gone = streamed.events_sent, streamed.client_gone
            entry.sent_at = streamed.sent_at
            entry.fault = streamed.fault or entry.fault
            if recorded.record is not None:  # its generation time, with the journal entry
                state.keep_generation(recorded.record)

    def answers_alone(self, ask: NeutralRequest, rules: Sequence[CompiledRule]) -> bool:
        """Whether the face answers without rules (embeddings) and, outside strict mode, none could answer it."""
        traits = self.core.registry.faces.traits.get(ask.face)
        if traits is None or not traits.answers_unscripted or self.core.settings.strict:
            return False
        return not any(all(p.test(ask) for p in rule.predicates if p.key == "api") for rule in rules)

    def match(self, entry: JournalEntry, ask: NeutralRequest, let: Let, served: Served) -> Selection | None:
        """match: the rule that answers (or the one `X-Emulator-Rule` names) at the session's reply
        position (of a sequence: claimed in the state after); near misses, or the 404 of
        `--strict`, when none does."""
        core, scenarios, session, forced_rule = self.core, let.scenarios, let.session, let.control.rule
        loaded = core.registry.current
        if forced_rule is not None:
            rule = scenarios.rule(forced_rule)
            if rule is None:
                raise no_match(f"No rule is named {forced_rule!r} ({RULE_HEADER})")
            selection: Selection | None = forced(rule, session)
        else:
            selection = select(loaded.index, ask, session, let.states)
        if selection is None:
            if self.answers_alone(ask, scenarios.rules):
                entry.unscripted = True  # the face's own answer, as when no rule is written for it: not a miss
                return None
            misses = near_misses(scenarios.rules, ask)
            entry.near_misses = [m.as_dict() for m in misses]
            if core.settings.strict and core.forward is None:
                raise no_match(no_match_message(loaded.index, ask, misses))
            return None
        entry.rule, entry.reply_index = selection.rule.name, selection.hit
        if selection.rule.rule.expect is not None:
            entry.unmet_expectations = unmet_expectations(
                selection.rule, ask, shape_of(served.model), core.signer_for(scenarios)
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
        Called only when some chaos is configured (the caller checks)."""
        settings = self.core.settings
        rules_chaos = selection.rule.rule.chaos if selection is not None else None
        rate = rules_chaos.rate if rules_chaos is not None else settings.chaos_rate
        if not strikes(rate, settings.seed, session, number):
            return None
        return of_rule(rules_chaos) if rules_chaos is not None else parse_failure(settings.chaos_failure)

    async def fail(self, request: web.Request, entry: JournalEntry, failure: Failure, let: Let) -> None:
        """An injected failure: raise its error (with the gate's headers), or carry its fault out."""
        if isinstance(failure, ErrorFailure):
            raise failure_error(failure).with_headers(let.gate)
        await self.fault(request, entry, failure, let.scale)

    async def fault(self, request: web.Request, entry: JournalEntry, fault: FaultFailure, scale: float) -> None:
        """A transport fault before any response: returns after a delay (times the time scale), raises
        ConnectionDropped otherwise."""
        entry.fault = fault.kind
        if fault.kind == "delay":
            entry.skipped += fault.delay_ms / 1000 * (1 - scale)
        with self.core.waits.interruptible():
            gone = await before_response(request, fault, scale)
        if gone:
            raise ConnectionDropped(fault.kind)
