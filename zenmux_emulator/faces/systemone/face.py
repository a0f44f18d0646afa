"""The System One face: `POST /api/v1/systemone` (ZenMux's docs_source/en/api/zenmux/systemone.md).
Each question's answer is computed from the seed, the model, the state and the question
(`answers.py`), unless the rule scripts it (`reply: {answers: …}`)."""

from __future__ import annotations

from typing import Any

import orjson

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.core.exchange import Exchange
from zenmux_emulator.core.face import FaceContext
from zenmux_emulator.faces.systemone.answers import computed, rendered, scripted
from zenmux_emulator.faces.systemone.models import OUTPUT_TOKENS_PER_ANSWER
from zenmux_emulator.faces.systemone.reply import AnswersReply, Scripted
from zenmux_emulator.faces.systemone.request import Question, SystemOneRequest, parse_request
from zenmux_emulator.foundation.envelope import error_body
from zenmux_emulator.write.plan import ReplyPlan


def answer(request: SystemOneRequest, question: Question, given: Scripted | None, seed: int) -> dict[str, Any] | None:
    """The question's answer object; None when the scripted answer does not fit the question."""
    base = computed(seed, request.model, request.state, question)
    if given is None:
        return rendered(question, base)
    units = scripted(question, given, base)
    if units is None:
        return None
    return rendered(question, units, given if isinstance(given, str) else None)


class SystemOneFace:
    """Parse, render and error envelope of the Structured Evaluation API."""

    name = "systemone"

    def parse(self, body: object, ctx: FaceContext) -> SystemOneRequest:
        return parse_request(body, ctx.headers)

    def render(self, draft: Draft, exchange: Exchange[SystemOneRequest]) -> ReplyPlan:
        request, spec = exchange.ask, draft.spec
        script: dict[str, Scripted] = (
            spec.answers if isinstance(spec, AnswersReply) and spec.answers is not None else {}
        )
        answers: dict[str, Any] = {}
        for question in request.questions:
            given = script.get(question.key)
            made = answer(request, question, given, exchange.seed)
            if made is None:
                exchange.ctx.warnings.append(
                    f"answers.{question.key}: the scripted answer does not fit this {question.type} question; computed"
                )
                made = answer(request, question, None, exchange.seed)
            answers[question.key] = made
        tokens_in, tokens_out = request.prompt_tokens, OUTPUT_TOKENS_PER_ANSWER * len(answers)
        body = {
            "model": request.requested_model,
            "answers": answers,
            "usage": {"input_tokens": tokens_in, "output_tokens": tokens_out},
        }
        plan = ReplyPlan({**draft.headers, **exchange.headers}, orjson.dumps(body))
        plan.usage = {
            "prompt_tokens": tokens_in,
            "completion_tokens": tokens_out,
            "total_tokens": tokens_in + tokens_out,
        }
        return plan

    def error_body(self, status: int, type: str, message: str) -> bytes:
        return error_body(status, type, message)
