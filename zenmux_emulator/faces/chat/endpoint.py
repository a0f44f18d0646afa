"""`POST /api/v1/chat/completions`, read top to bottom as the steps a request takes:
authenticate → parse → validate → gateway (limits, balance, chaos, admission, routing) → match →
render → write."""

from __future__ import annotations

import asyncio

from aiohttp import web

from zenmux_emulator.foundation.errors import RequestRejected
from zenmux_emulator.gateway.auth import authenticate
from zenmux_emulator.gateway.catalogue import admit
from zenmux_emulator.gateway.admission import before_matching
from zenmux_emulator.gateway.routing import ROUTING_HEADER, route, summary
from zenmux_emulator.pipeline.keys import ENTRY, STATE
from zenmux_emulator.match.expect import unmet_expectations
from zenmux_emulator.neutral.facts import RequestFacts
from zenmux_emulator.match.near_miss import near_misses, no_match_message
from zenmux_emulator.match.select import select
from zenmux_emulator.pipeline.body import read_json
from zenmux_emulator.draft.draft import DraftRequest, draft_reply
from zenmux_emulator.pipeline.headers import reply_headers
from zenmux_emulator.foundation.ids import completion_id
from zenmux_emulator.draft.reasoning import ask_of, shape_of
from zenmux_emulator.faces.chat.reply import plan_reply
from zenmux_emulator.draft.tool_calls import ToolOptions
from zenmux_emulator.draft.usage import prompt_tokens
from zenmux_emulator.state.sessions import session_name
from zenmux_emulator.faces.chat.validate import validate_request
from zenmux_emulator.draft.passback import check_reasoning
from zenmux_emulator.pipeline.failures import scripted_failure
from zenmux_emulator.write.json import json_response
from zenmux_emulator.write.sse import StreamOutcome, write_sse

async def chat_completions(request: web.Request) -> web.StreamResponse:
    state = request.app[STATE]
    entry = request[ENTRY]
    settings = state.settings

    key = authenticate(request.headers, state.accepted_keys())
    session = state.sessions.get(session_name(request.headers, key))
    entry.session = session.name

    body = await read_json(request, settings.max_body_bytes)
    entry.body = body
    validated = validate_request(body)
    entry.warnings.extend(validated.warnings)
    chat = validated.request
    assert isinstance(body, dict)
    entry.stream = chat.stream is True

    loaded = state.registry.current
    prompt = prompt_tokens(body)
    gate = await before_matching(request, state, entry, loaded.scenarios, key, session, prompt)
    if gate.gone:
        return web.Response()  # never sent: an injected fault took the connection
    admit(chat.model, loaded.scenarios, prompt)
    facts = RequestFacts(body, request.headers)
    routed = route(facts.model, facts.pinned_provider, body, loaded.scenarios.catalogue, session)
    entry.routing = routed.journal()
    if routed.failure is not None:
        raise routed.failure
    served = routed.model
    if routed.delay_s > 0:
        with state.interruptible():
            await asyncio.sleep(routed.delay_s)
    thinking = ask_of(chat.reasoning, chat.reasoning_effort, chat.include_reasoning)
    if thinking.enabled:
        entry.warnings.extend(check_reasoning(facts.messages, shape_of(served), state.kit.signer,
                                              settings.reasoning_check))

    selection = select(loaded.index, facts, session)
    selection = gate.select(selection)
    if selection is None:
        misses = near_misses(loaded.scenarios.rules, facts)
        entry.near_misses = [m.as_dict() for m in misses]
        if settings.strict:
            raise RequestRejected(404, "emulator_no_match", no_match_message(loaded.index, facts, misses))
    else:
        entry.rule, entry.reply_index = selection.rule.name, selection.hit
        entry.unmet_expectations = unmet_expectations(selection.rule, facts, shape_of(served), state.kit.signer)
        if selection.reply is None:
            selection.commit(session)
            raise RequestRejected(400, "emulator_sequence_exhausted",
                                  f"Rule {selection.rule.name!r} has served all {len(selection.rule.replies)} of its replies")

    if await gate.after_matching(request, selection):
        return web.Response()  # never sent: a chaos fault took the connection

    failed = await scripted_failure(request, state, entry, selection, session)
    if failed is not None:
        return failed

    ask = DraftRequest(facts, served, prompt, chat.max_completion_tokens, chat.stop_sequences, thinking,
                       ToolOptions.of(body, facts.stated_tool_choice))
    draft = draft_reply(selection.reply if selection else None, selection.rule.name if selection else None,
                        ask, state.kit)
    entry.warnings.extend(draft.warnings)
    gate.charge(draft.usage, loaded.scenarios.catalogue.get(served))
    if selection is not None:
        selection.commit(session)
    session.requests += 1
    generation = completion_id(settings.seed, session.name, session.requests)
    plan = plan_reply(
        draft, generation, int(state.clock.now()),
        stream=facts.stream,
        include_usage=chat.wants_usage_in_stream,
        top_logprobs=(chat.top_logprobs or 0) if chat.logprobs else None,
        headers=reply_headers(generation, selection.rule.name if selection else None, tuple(entry.warnings),
                              tuple(entry.unmet_expectations)),
        seed=settings.seed,
    )
    plan.headers.update(gate.headers)
    plan.headers[ROUTING_HEADER] = summary(routed)

    if plan.events is None:
        entry.response = plan.body
        return json_response(plan)
    entry.response = plan.events
    outcome = StreamOutcome()
    try:
        return await write_sse(request, plan, settings.keepalive_ms / 1000, outcome)
    finally:
        entry.events_sent, entry.client_gone = outcome.events_sent, outcome.client_gone
        entry.fault = outcome.fault or entry.fault
