"""The request path every face shares, read top to bottom as the steps `Endpoint.answer` takes:

    authenticate → read → face.parse → admit (the state: limits, balance; control-header
    failures) → route (catalogue, providers, passed-back reasoning) → match (the reply position
    claimed in the state) → outcome (chaos, scripted fault, error, raw body) → draft → dress
    (misbehaviour, bill, headers) → face.render → record (generation) → write

The request is one value, its `Exchange` (`core/exchange.py`): made when the caller is known, each
step takes it (or the parts of it it reads, at most four parameters) and sets the part it makes:
the parsed request, the `Terms` it was admitted on, its `Routing`, the selection, the draft, the
reply's id and headers. The session's sequence position is committed in one place (`settle`), the
state (`core/state.py`) is asked the same way wherever it lives, and only this module and the
middleware write the journal entry (the state numbers it; a forward's facts come back as `Forwarded`).
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
from zenmux_emulator.core.exchange import Exchange, FaceContext, Forwarded, R, Routing, Terms
from zenmux_emulator.core.face import Face
from zenmux_emulator.core.gateway.auth import AcceptedKeys, authenticate
from zenmux_emulator.core.gateway.catalogue import admit_candidates, admit_model
from zenmux_emulator.core.gateway.chaos import of_rule, strikes
from zenmux_emulator.core.gateway.control_headers import (
    NO_CONTROL,
    RULE_HEADER,
    read_control,
)
from zenmux_emulator.core.gateway.limits import charge, recharge
from zenmux_emulator.core.gateway.misbehave import Chosen, choose, header_ask
from zenmux_emulator.core.gateway.routing import AUTO, ROUTING_HEADER, route, summary
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
from zenmux_emulator.foundation.misbehaviours import APPLIED_HEADER, parse_server
from zenmux_emulator.foundation.offload import Deferred, attempt, settle
from zenmux_emulator.foundation.signatures import Signer
from zenmux_emulator.foundation.waits import Waits
from zenmux_emulator.scenario.schema import ModelSpec
from zenmux_emulator.settings import Settings
from zenmux_emulator.state.scenario_states import SERVER_WIDE, START, STARTED, Standing
from zenmux_emulator.state.sessions import session_name
from zenmux_emulator.write.faults import before_response
from zenmux_emulator.write.json import error_response, json_response
from zenmux_emulator.write.plan import ReplyPlan, raw_plan
from zenmux_emulator.write.sse import Pace, StreamOutcome, write_sse

MOVE_TRIES = 64
"""Scenario moves other requests may make first before a request gives up (each one answered another request)."""

Forward = Callable[[Exchange[Any], str, NeutralRequest | None], Awaitable[Forwarded]]
"""What answers a request no rule matched, instead of the default reply (`--record-missing`): the
request's exchange, its face's name and the parsed request (None: one this emulator cannot read,
which the upstream answers and nothing records), to the answer and what the journal entry says of it."""


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
    model_faces: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """The faces that alone answer each of the faces' own models (`FaceSpec.models`: embedding,
    rerank), its own face first (`core.spec.model_faces`)."""
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
        """The steps of the module's docstring, each taking the request's `Exchange` (or the parts
        of it it reads) and returning the part it makes. A step is awaited only where the request
        may wait: the rest of its body, the state (in Redis), a face's stored objects, the
        provider's latency, a sequence's position, a stream."""
        ex = self.authenticate_caller(request, entry)
        raw = arrived_body(request, self.core.settings.max_body_bytes)
        if isinstance(raw, NotYet):  # the body is still arriving
            raw = await read_body(request, self.core.settings.max_body_bytes)
        body = self.read(raw, ex)
        if self.preload is not None:
            await self.preload(body, ex.ctx)
        ask = self.parse_body(body, ex)
        if isinstance(ask, Deferred):  # a costly part of the parse, done in a thread first
            ask = await self.parse_body_later(ask, body, ex)
        if ask is None:  # the face refused it, and the upstream may read it: not recorded
            return await self.forward(ex, None)
        ex.ask = ask
        window = self.context_window(ask)
        admitted = await self.core.state.admit_session(request, entry, ex.key, ask.prompt_tokens)
        terms = ex.terms = self.terms_of(request, admitted, window)
        for failure in terms.failures:  # the request's own fault, then its chaos
            await self.fail(ex, failure)
        routing = ex.routing = self.route_model(ex)
        if routing.routed.delay_s > 0:
            await self.provider_latency(entry, routing.routed.delay_s, terms.scale)
        if terms.scenarios.scenario_names:  # the rules move scenarios: matched at their states, moved in the state
            selection = await self.choose(ex)
        else:  # a plain step, awaited only where a position is claimed
            selection = self.match(ex)
            if selection is not None and selection.rule.positional:  # the position is claimed in the state
                selection = await self.core.state.claim(terms.session, selection, partial(self.match, ex))
        if selection is None and self.core.forward is not None:
            return await self.forward(ex, ask)
        ex.selection = selection
        drafted = await self.settle(ex)
        if isinstance(drafted, web.StreamResponse):  # a raw body: the reply as the rule wrote it
            return drafted
        ex.draft = drafted
        self.dress(ex, drafted)
        plan = self.render_reply(ex, drafted)
        record = self.record(ex, plan, drafted)
        # a held stream keeps the body's bytes (the journal's) and the draft (its events'), not the request decoded
        del raw, body, ask, drafted, ex.ask, ex.draft
        if record.streamed is None:
            return self.write(entry, plan)
        return await self.stream(ex, plan, record)

    async def choose(self, ex: Exchange[R]) -> Selection | None:
        """match, in the state: the rule that answers at the scenario states the request reads, its
        reply position claimed and its scenario's move made there (matched again when another
        request in flight moved the scenario first: exactly one request makes a move). Only for rules
        that name scenarios: the others are matched and claimed as a plain step in `answer`."""
        terms = ex.terms
        terms.states = await self.read_states(terms)
        for _ in range(MOVE_TRIES):
            selection = self.match(ex)
            if selection is not None and selection.rule.positional:  # the position is claimed in the state
                selection = await self.core.state.claim(terms.session, selection, partial(self.match, ex))
            if selection is None or selection.rule.scenario is None or await self.move(ex, selection):
                return selection
        raise RequestRejected(
            503,
            "emulator_state_busy",
            f"{MOVE_TRIES} scenario moves were made by other requests while this one was matched",
        )

    async def read_states(self, terms: Terms) -> dict[str, str]:
        """Where each scenario the rules name stands for this request, its timed move resolved now."""
        return await states_of(self.core, terms.scenarios, terms.session.name)

    async def move(self, ex: Exchange[R], selection: Selection) -> bool:
        """The answering rule's `set_state`, made in the state from the state it matched in; False
        when another request moved the scenario first (`terms.states` then holds where it stands). A
        request chaos strikes moves nothing, nor does one refused before the match."""
        entry, terms = ex.entry, ex.terms
        rule = selection.rule
        scenario = rule.scenario or ""
        seen = terms.states.get(scenario, STARTED)
        entry.scenario, entry.state_before, entry.state_after = scenario, seen, seen
        target = rule.rule.moves_to
        if target is None or (selection.reply is not None and self.struck(terms, selection) is not None):
            return True
        now = self.core.clock.now()
        to = Standing(target.to, target.next, None if target.after_s is None else now + target.after_s)
        owner = terms.scenarios.owner(scenario, terms.session.name)
        current = await self.core.state.move_state(owner, scenario, seen, to, now)
        if current is not None:
            terms.states = {**terms.states, scenario: current}
            return False
        entry.state_after = to.state
        return True

    def authenticate_caller(self, request: web.Request, entry: JournalEntry) -> Exchange[R]:
        """authenticate: the caller's key (the face's own 401/403 otherwise) and session, in the
        request's exchange."""
        headers = request.headers
        key = self.authenticate(headers, self.core.accepted_keys())
        name = entry.session = session_name(headers, key)
        self.core.state.visit(name)
        ctx = FaceContext(name, headers, request.match_info, request.rel_url)
        return Exchange(request, entry, key, ctx, self.core.settings.seed)

    def read(self, raw: bytes, ex: Exchange[R]) -> Any:
        """The JSON body (its bytes bounded when they arrived); the journal keeps its bytes (or,
        past the limit, its size and hash), the face's context its size."""
        settings, entry = self.core.settings, ex.entry
        body = decode(raw)
        ex.ctx.body_bytes = len(raw)
        if len(raw) <= settings.journal_body_bytes:
            entry.raw_body, entry.body_bytes = raw, len(raw)  # decoded again only if the journal is read
        else:  # kept as its size and hash: a large body must not stay in memory with the journal
            entry.body = body_summary(raw, settings.journal_body_bytes)
            entry.body_bytes = len(orjson.dumps(entry.body))
        return body

    def parse_body(self, body: Any, ex: Exchange[R]) -> R | Deferred | None:
        """face.parse (after its `preload`): the neutral request (None: refused, and
        `--record-missing` forwards it), or the costly part it deferred (a large JSON Schema's
        check), which `parse_body_later` does in a thread, not on the loop (`foundation.offload`)."""
        try:
            outcome = attempt(partial(self.face.parse, body, ex.ctx))
        except RequestRejected:
            if self.core.forward is None:
                raise
            return None
        return outcome if isinstance(outcome, Deferred) else self.parsed(outcome, ex.entry)

    async def parse_body_later(self, deferred: Deferred, body: Any, ex: Exchange[R]) -> R | None:
        """`parse_body` once what it deferred has run in a thread."""
        try:
            ask = await settle(deferred, partial(self.face.parse, body, ex.ctx))
        except RequestRejected:
            if self.core.forward is None:
                raise
            return None
        return self.parsed(ask, ex.entry)

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

    def terms_of(self, request: web.Request, admitted: Admitted, window: ModelSpec | None) -> Terms:
        """admit: the terms the state admitted the request on (its session, through the limits and
        balance), with the request's control headers and the failures its own fault and chaos
        (X-Emulator-Fault, X-Emulator-Chaos) strike it with, which `answer` carries out in that order."""
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
        return Terms(
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

    def route_model(self, ex: Exchange[R]) -> Routing:
        """route: the catalogue admits the model (`ex.ask`'s, on `ex.terms`), a provider serves it
        (`provider_latency` waits the latency its attempts took)."""
        ask, terms, entry = ex.ask, ex.terms, ex.entry
        catalogue, closed = terms.scenarios.catalogue, terms.scenarios.catalogue_closed
        faces = self.core.model_faces.get(ask.model)
        if faces is not None and self.face.name not in faces:  # an embedding model asked to chat, say
            raise invalid_params(f"Model {ask.requested_model} is not valid: it is a model of the {faces[0]} API")
        admit_model(ask.requested_model, ask.model, catalogue, closed, ask.prompt_tokens)
        if ask.model == AUTO:
            admit_candidates(ask.model_routing, catalogue, closed)
        routed = route(ask.model, ask.pinned_provider, ask.provider, ask.model_routing, catalogue, terms.session)
        entry.routing = routed.attempts
        if routed.failure is not None:
            raise routed.failure
        served = routed.model
        if ask.reasoning.enabled or ask.carries_signatures:
            signer = self.core.signer_for(terms.scenarios)
            entry.warn(check_reasoning(ask, shape_of(served), signer, self.core.settings.reasoning_check))
        listed = terms.window if served == ask.model else catalogue.get(served)
        return Routing(routed, served, listed)

    async def provider_latency(self, entry: JournalEntry, seconds: float, scale: float) -> None:
        """The time the route's attempts took, as the provider that served would (times the time scale)."""
        entry.skipped += seconds * (1 - scale)
        if scale:
            with self.core.waits.interruptible():
                await asyncio.sleep(seconds * scale)

    async def settle(self, ex: Exchange[R]) -> Draft | web.StreamResponse:
        """outcome → draft (of `ex.selection`): chaos, a scripted fault or error, a raw body, or the
        drafted reply. The selection's reply is used up (committed once, whatever happens after)
        unless drafting fails."""
        selection, terms = ex.selection, ex.terms
        used = selection if selection is not None and selection.reply is None else None
        try:
            outcome = outcome_of(selection)
            struck = self.struck(terms, selection) if used is None else None
            if struck is not None:
                await self.fail(ex, struck)
            used = selection
            if outcome.fault is not None:
                await self.fault(ex, outcome.fault)
            raw = self.carry_out(ex.entry, outcome)
            if raw is not None:
                return raw
            try:
                return self.draft(ex, outcome.reply)
            except BaseException:
                used = None  # a reply that failed to draft is not used up
                raise
        finally:
            if used is not None:
                used.commit(terms.session)

    def struck(self, terms: Terms, selection: Selection | None) -> Failure | None:
        """The failure the configured chaos (the rule's, else the server's) strikes with, unless
        the request asked for its own; None: no chaos, or it missed."""
        settings = self.core.settings
        if terms.control.chaos_rate is None and (settings.chaos_rate or terms.scenarios.chaotic):
            return self.chaos(selection, terms.session.name, terms.number)
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

    def draft(self, ex: Exchange[R], reply: Any) -> Draft:
        """draft: the reply for `ex.ask`, from the selected rule's `reply` (None: the default reply),
        by the model `ex.routing` names."""
        selection, routing = ex.selection, ex.routing
        rule = selection.rule.name if selection is not None else None
        reasoning = routing.listed.reasoning if routing.listed is not None else None
        return draft_reply(reply, rule, ex.ask, routing.model, self.core.kit, reasoning)

    def dress(self, ex: Exchange[R], draft: Draft) -> None:
        """The draft made wrong as asked, the bill, and the reply's generation id and headers (on
        the exchange), with the rule that answers in the face's context."""
        entry, terms, selection = ex.entry, ex.terms, ex.selection
        session = terms.session
        rule = ex.ctx.rule = selection.rule.name if selection is not None else None
        if draft.warnings:
            entry.warn(draft.warnings)
        self.apply_misbehaviour(ex, rule, draft)
        if terms.scenarios.gateway.active:
            terms.gate.update(charge(terms.scenarios.gateway, session.gateway, ex.key, draft.usage, ex.routing.listed))
        generation = ex.generation = completion_id(ex.seed, session.name, terms.number)
        sent = ex.headers = reply_headers(generation, rule, entry.warnings, entry.unmet_expectations)
        if rule is None and not entry.unscripted:  # a placeholder answer: say so, and where to read why
            request = ex.request
            sent.update(unmatched_headers(entry.near_misses, f"{request.scheme}://{request.host}", entry.seq))
        if terms.gate:
            sent.update(terms.gate)
        if draft.misbehaved is not None:
            sent[APPLIED_HEADER] = draft.misbehaved.label()
        sent[ROUTING_HEADER] = ascii_header(summary(ex.routing.routed))

    def apply_misbehaviour(self, ex: Exchange[R], rule: str | None, draft: Draft) -> None:
        """The fault of the misbehaviour catalogue this reply gets, if the request, its session, its
        rule or the server asked for one."""
        terms, selection = ex.terms, ex.selection
        standing = terms.standing
        misbehaves = selection.rule.rule.misbehave if selection is not None else None
        if terms.asked is None and standing is None and misbehaves is None and not self.server_asks:
            return  # nothing asked for a fault: nothing to draw
        chosen = choose(
            header=terms.asked,
            standing=standing,
            rule_ask=misbehaves.ask() if misbehaves else None,
            rule=rule,
            hit=selection.hit if selection is not None else 0,
            server=self.server_asks,
            seed=ex.seed,
            session=terms.session.name,
            ordinal=terms.number,
        )
        if chosen is not None:
            self.misbehave(ex, draft, chosen)

    def render_reply(self, ex: Exchange[R], draft: Draft) -> ReplyPlan:
        """face.render: the reply as the face sends it; the face's own usage replaces the draft's on the bill."""
        ex.created = int(self.core.clock.now())
        plan = self.face.render(draft, ex)
        ctx = ex.ctx
        if ctx.warnings:
            ex.entry.warn(ctx.warnings)
        terms = ex.terms
        if terms.scenarios.gateway.active and plan.usage is not None:
            gateway = terms.scenarios.gateway
            plan.headers.update(
                recharge(gateway, terms.session.gateway, ex.key, draft.usage, ex.routing.listed, plan.usage)
            )
        return plan

    def record(self, ex: Exchange[R], plan: ReplyPlan, draft: Draft) -> Recorded:
        """What a completion served, for the generation lookup and the Platform API's ledger."""
        streamed = StreamOutcome() if plan.events is not None else None
        if plan.status != 200:
            return Recorded(None, streamed)
        core, routing = self.core, ex.routing
        record = served_generation(
            core.api_names.get(self.face.name, self.face.name),
            ex.generation,
            draft,
            plan,
            routing.listed,
            streamed,
            ex.entry.time,
            routing.routed.delay_s,
            len(routing.routed.attempts) - 1,
        )
        core.generations.add(record)
        core.state.count(spend_of(record, ex.key))
        core.state.keep_generation(record)
        return Recorded(record, streamed)

    def write(self, entry: JournalEntry, plan: ReplyPlan) -> web.Response:
        """write: the JSON body."""
        entry.response = plan.body
        return json_response(plan)

    async def stream(self, ex: Exchange[R], plan: ReplyPlan, recorded: Recorded) -> web.StreamResponse:
        """write: the stream (the session's changes saved before its first byte), its waits times the
        time scale, its timeline the scripted one."""
        streamed = recorded.streamed
        assert streamed is not None
        entry, terms = ex.entry, ex.terms
        entry.response = plan.events
        state: RequestState = self.core.state
        await state.save(terms.session)  # the next request may come before the last byte
        pace = Pace(self.core.settings.keepalive_ms / 1000, terms.scale, entry.skipped)
        try:
            return await write_sse(ex.request, plan, pace, streamed, self.core.waits)
        finally:
            entry.events_sent, entry.client_gone = streamed.events_sent, streamed.client_gone
            entry.sent_at = streamed.timeline()
            entry.fault = streamed.fault or entry.fault
            if recorded.record is not None:  # its generation time, with the journal entry
                state.keep_generation(recorded.record)

    async def forward(self, ex: Exchange[R], ask: R | None) -> web.StreamResponse:
        """The upstream's answer to a request no rule matched (`--record-missing`), or one the face
        refused (`ask` None, forwarded and not recorded); the journal entry says what the recorder found."""
        assert self.core.forward is not None
        entry = ex.entry
        try:
            forwarded = await self.core.forward(ex, self.face.name, ask)
        finally:
            entry.sent_body = None  # a form's bytes, sent upstream: the journal keeps its fields
        if forwarded.sent is not None:
            entry.response = forwarded.sent
        if forwarded.events_sent is not None:
            entry.events_sent = forwarded.events_sent
        if forwarded.warnings:
            entry.warn(forwarded.warnings)
        if forwarded.rule is not None:
            entry.recorded, entry.rule = True, forwarded.rule
        entry.client_gone = entry.client_gone or forwarded.client_gone
        entry.fault = forwarded.fault or entry.fault
        if forwarded.failure is not None:
            raise forwarded.failure
        assert forwarded.response is not None
        return forwarded.response

    def answers_alone(self, ask: NeutralRequest, rules: Sequence[CompiledRule]) -> bool:
        """Whether the face answers without rules (embeddings) and, outside strict mode, none could answer it."""
        traits = self.core.registry.faces.traits.get(ask.face)
        if traits is None or not traits.answers_unscripted or self.core.settings.strict:
            return False
        return not any(all(p.test(ask) for p in rule.predicates if p.key == "api") for rule in rules)

    def match(self, ex: Exchange[R]) -> Selection | None:
        """match: the rule that answers `ex.ask` (or the one `X-Emulator-Rule` names) at the
        session's reply position (of a sequence: claimed in the state after); near misses, or the
        404 of `--strict`, when none does."""
        core, entry, ask, terms = self.core, ex.entry, ex.ask, ex.terms
        scenarios, session, forced_rule = terms.scenarios, terms.session, terms.control.rule
        loaded = core.registry.current
        if forced_rule is not None:
            rule = scenarios.rule(forced_rule)
            if rule is None:
                raise no_match(f"No rule is named {forced_rule!r} ({RULE_HEADER})")
            selection: Selection | None = forced(rule, session)
        else:
            selection = select(loaded.index, ask, session, terms.states)
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
                selection.rule, ask, shape_of(ex.routing.model), core.signer_for(scenarios)
            )
        return selection

    def misbehave(self, ex: Exchange[R], draft: Draft, chosen: Chosen) -> None:
        """Make the draft wrong as the chosen fault says; the journal entry names the fault applied
        (or, when the request gives it no handle, warns why the reply went out as drafted)."""
        entry = ex.entry
        if self.face.name in self.core.unfaulted:
            entry.warn(
                [
                    f"fault {chosen.ask.fault} ({chosen.source} asked for it) is not shown on the "
                    f"{self.face.name} face: the reply was sent as drafted"
                ]
            )
            return
        try:
            draft.misbehaved = misbehave(draft, chosen.ask, chosen.source, ex.ask, self.core.kit, chosen.rng)
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

    async def fail(self, ex: Exchange[R], failure: Failure) -> None:
        """An injected failure: raise its error (with the gate's headers), or carry its fault out."""
        if isinstance(failure, ErrorFailure):
            raise failure_error(failure).with_headers(ex.terms.gate)
        await self.fault(ex, failure)

    async def fault(self, ex: Exchange[R], fault: FaultFailure) -> None:
        """A transport fault before any response: returns after a delay (times the request's time
        scale), raises ConnectionDropped otherwise."""
        entry, scale = ex.entry, ex.terms.scale
        entry.fault = fault.kind
        if fault.kind == "delay":
            entry.skipped += fault.delay_ms / 1000 * (1 - scale)
        with self.core.waits.interruptible():
            gone = await before_response(ex.request, fault, scale)
        if gone:
            raise ConnectionDropped(fault.kind)
