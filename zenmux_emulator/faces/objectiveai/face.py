"""The ObjectiveAI Query Completions face: `POST /objectiveai/query/completions` (seed 004).

`parse` validates the body (§4.9) into a `QueryAsk`, resolving a named Query Model in this app's
registry; `render` computes the whole response (§4.3–4.7) from the matched reply's `query` script
and frames it as JSON or SSE; `error_body` is the face's `{"kind": "query", "error": …}` (§4.8).
One face object is made per app: it holds the app's Query Model registry and its stored
completions, both in the app's state (so every worker and instance finds them under `--state`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from zenmux_emulator.core.draft.draft import Draft, request_seed
from zenmux_emulator.core.draft.text import SeededFake, TemplateProblem, compile_template, is_template
from zenmux_emulator.core.draft.text import render as render_template
from zenmux_emulator.core.exchange import Exchange
from zenmux_emulator.core.face import FaceContext
from zenmux_emulator.core.headers import WARNINGS_HEADER, list_header
from zenmux_emulator.core.journal.summary import body_summary
from zenmux_emulator.core.state import Shelf, ShelfBounds
from zenmux_emulator.faces.common.large import prepared, warmed
from zenmux_emulator.foundation.errors import RequestRejected
from zenmux_emulator.foundation.ids import seed_int
from zenmux_emulator.foundation.offload import large
from zenmux_emulator.scenario.query import LlmMatch, LlmScript, OutputScript, QueryScript
from zenmux_emulator.scenario.schema import StreamFault
from zenmux_emulator.write.pacing import schedule
from zenmux_emulator.write.plan import Events, ReplyPlan, sse_plan

from .compute import Context, Outcome, compute
from .errors import QueryRejected, error_body
from .registry import REMEMBERED_BYTES, KeptModel, QueryModelRegistry
from .render import iter_events, unary, unary_json
from .reply import QueryReply
from .request import QueryAsk
from .wire import model_name, parse

if TYPE_CHECKING:
    from zenmux_emulator.core.endpoint import Core

MALFORMED_EVENT = b'data: {"id": "malformed", "choices": [{"delta": {"content": "unterminated\n\n'
STORED_COMPLETIONS = 1024
"""How many completions `GET /objectiveai/query/completions` remembers (oldest out first)."""
STORED_BYTES = 32 * 1024 * 1024
"""The JSON bytes those completions may hold in all (their requests and responses), oldest out first."""
STORED_REQUEST_BYTES = 256 * 1024
"""A stored completion's request past this is kept as its size and hash, as the journal keeps a body."""
COMPLETIONS = ShelfBounds(STORED_COMPLETIONS, STORED_BYTES)
QUERY_MODELS = ShelfBounds(1024, REMEMBERED_BYTES)
"""The core's error types under this face's names."""


@dataclass(frozen=True, slots=True)
class StoredCompletion:
    """A completion's request and unary response, as JSON, kept for `GET /query/completions/{id}`."""

    asked: bytes
    answered: bytes

    def encode(self) -> bytes:
        return b"%d:" % len(self.asked) + self.asked + self.answered

    @classmethod
    def decode(cls, blob: bytes) -> StoredCompletion:
        size, _, rest = blob.partition(b":")
        return cls(rest[: int(size)], rest[int(size) :])


def rejection(exc: QueryRejected) -> RequestRejected:
    """A `QueryRejected` as the core's `RequestRejected`: the kind becomes the type, the text the message."""
    error = exc.body["error"]
    return RequestRejected(exc.status, str(error["kind"]), str(error["error"]))


def fault_item(fault: StreamFault) -> bytes:
    """An `error` stream fault as this API fails mid-stream: a bare `{code, message}` item (never a
    chunk with a top-level `error`, on which both OpenAI SDKs throw)."""
    code = int(fault.code) if fault.code.isdigit() else 500
    return b"data: " + orjson.dumps({"code": code, "message": fault.message}) + b"\n\n"


def script_of(draft: Draft) -> QueryScript | None:
    """The reply's `query`; a Query rule that scripts chat's `content` or `reasoning` instead
    lends that text to every generate LLM (rules without `api: objectiveai` never get here, §5)."""
    spec = draft.spec
    if spec is None:
        return None
    if isinstance(spec, QueryReply) and spec.query is not None:
        return spec.query
    if spec.content is None and spec.reasoning is None:
        return None
    output = OutputScript(content=draft.content, reasoning=draft.reasoning)
    return QueryScript(llms=[LlmScript(match=LlmMatch(mode="generate"), output=output)])


class QueryFace:
    """Parse, render and error envelope of the Query Completions API, for one app."""

    name = "objectiveai"

    def __init__(self, core: Core) -> None:
        self.core = core
        self.registry = QueryModelRegistry()
        self.registry.shelf = core.state.shelf("query_models", QUERY_MODELS, KeptModel.decode)
        self._pinned_from: object = None
        self.completions: Shelf[StoredCompletion] = core.state.shelf(
            "query_completions", COMPLETIONS, StoredCompletion.decode
        )
        """Each completion's request and unary response, as JSON (`completion` reads one back), and
        its training-table mark (`correct_confidence_id`), in the app's state."""

    async def preload(self, body: Any, ctx: FaceContext) -> None:
        """A Query Model named by id that this process has not seen: fetched from the state (another
        worker or instance validated it), for the (synchronous) `parse`."""
        name = model_name(body.get("model")) if isinstance(body, dict) else None
        if name is not None:
            await self.stored().fetch(name)

    def stored(self) -> QueryModelRegistry:
        """The Query Model registry, its pinned models those of the scenario set in force (§4.10):
        a reload of the files brings theirs in the first time the registry is read after it."""
        scenarios = self.core.registry.current.scenarios
        if scenarios is not self._pinned_from:
            self.registry.pin(scenarios.query_models)
            self._pinned_from = scenarios
        return self.registry

    def parse(self, body: object, ctx: FaceContext) -> QueryAsk:
        if large(ctx.body_bytes):
            return prepared(ctx, lambda: warmed(self.read(body, ctx)))
        return self.read(body, ctx)

    def read(self, body: object, ctx: FaceContext) -> QueryAsk:
        try:
            query = parse(body, self.stored(), ctx.body_bytes)
        except QueryRejected as exc:
            raise rejection(exc) from None
        return QueryAsk(query, ctx.headers)

    def error_body(self, status: int, type: str, message: str) -> bytes:
        return error_body(status, type, message)

    def render(self, draft: Draft, exchange: Exchange[QueryAsk]) -> ReplyPlan:
        request, generation, created = exchange.ask, exchange.generation, exchange.created
        headers, seed, ctx = exchange.headers, exchange.seed, exchange.ctx
        timing = draft.timing
        rule = ctx.rule or ""
        computing = Context(
            response_id=f"qrycpl-{generation}-{created}",
            created=created,
            seed=seed,
            chunk_tokens=timing.chunk_tokens if timing else 1,
            text=self._templates(request, rule, seed),
            price=self._price,
        )
        outcome = compute(request.query, script_of(draft), computing)
        extra = outcome.warnings[len(request.query.warnings) :]
        ctx.warnings.extend(extra)  # the journal entry's, as X-Emulator-Warnings says
        if extra:
            shown = headers.get(WARNINGS_HEADER)
            headers[WARNINGS_HEADER] = f"{shown}; {list_header(tuple(extra))}" if shown else list_header(tuple(extra))
        all_headers = {**draft.headers, **headers}
        self._store(request, outcome)
        if not request.stream:
            status, body = unary(outcome)
            plan = ReplyPlan(all_headers, body)
            plan.status, plan.usage, plan.reply_id = status, outcome.charged, outcome.id
            return plan
        # made as written: a Query's chunks interleave its LLMs' outputs, which the outcome holds already
        events = Events.paced_but_last(
            lambda: iter_events(outcome), 3 if outcome.failed_code is not None else 2
        )  # the final chunk, [DONE] never wait
        return sse_plan(
            all_headers,
            events,
            schedule(timing, seed_int(seed, "pace", outcome.id)),
            timing.fault if timing else None,
            MALFORMED_EVENT,
            lambda fault, _: fault_item(fault),
            usage=outcome.charged,
            reply_id=outcome.id,
        )

    def _price(self, slug: str, prompt: int, completion: int) -> float | None:
        """The cost of an upstream LLM's tokens at its catalogue pricing (USD per million), None when unknown."""
        spec = self.core.registry.current.scenarios.catalogue.get(slug)
        if spec is None:
            return None
        return (prompt * spec.pricing.prompt + completion * spec.pricing.completion) / 1_000_000

    def _templates(self, request: QueryAsk, rule: str, seed: int) -> Any:
        """Scripted texts that are templates rendered over the request, as chat's are."""
        kit = self.core.kit

        def text(source: str) -> str:
            if not is_template(source):
                return source
            try:
                template = compile_template(source)
            except TemplateProblem as exc:
                raise RequestRejected(
                    500, "emulator_template_error", f"the template of rule {rule!r} failed: {exc.message}"
                ) from None
            kit.faker.seed_instance(request_seed(seed, request, f"rule:{rule}"))
            return render_template(
                template, rule, {"request": request.template_context(), "fake": SeededFake(kit.faker)}
            )

        return text

    def _store(self, request: QueryAsk, outcome: Outcome) -> None:
        """Keep the request and its unary form for `GET /query/completions[/{id}]`, bounded by
        count and bytes (a request past `STORED_REQUEST_BYTES` kept as its size and hash)."""
        if outcome.failed_code is not None:
            return
        asked = orjson.dumps(request.body)
        if len(asked) > STORED_REQUEST_BYTES:
            asked = orjson.dumps(body_summary(asked, STORED_REQUEST_BYTES))
        answered = orjson.dumps(unary_json(outcome))
        self.completions.keep(outcome.id, StoredCompletion(asked, answered))

    async def completion(self, name: str) -> tuple[Any, dict[str, Any]] | None:
        """A stored completion's request and response, decoded."""
        found = await self.completions.get(name)
        return (orjson.loads(found.asked), orjson.loads(found.answered)) if found is not None else None
