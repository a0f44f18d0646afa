"""ObjectiveAI Query Completions (seed 004): the pure core of the face, independent of aiohttp.

Per request: `parse(body, registry)` → `QueryRequest` (or `QueryRejected`), then
`compute(request, script, Context(...))` → `Outcome`, then `render.unary(outcome)` or
`render.stream_events(outcome)`.
"""

from zenmux_emulator.scenario.query import QueryScript

from .compute import Context, Outcome, compute
from .errors import QueryRejected, error_message
from .ids import response_id
from .registry import QueryModelRegistry, normalised
from .render import error_body, rejected_body, stream_events, unary, unary_json
from .wire import QueryRequest, parse

__all__ = [
    "Context",
    "Outcome",
    "QueryModelRegistry",
    "QueryRejected",
    "QueryRequest",
    "QueryScript",
    "compute",
    "error_body",
    "error_message",
    "normalised",
    "parse",
    "rejected_body",
    "response_id",
    "stream_events",
    "unary",
    "unary_json",
]
