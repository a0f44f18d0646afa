"""The ObjectiveAI Query face's registration under `/objectiveai` (§4.1): completions, and the Query
Model registry, credits and stored completions beside them (`routes.py`)."""

from __future__ import annotations

from zenmux_emulator.core.deferred import DeferredRoutes
from zenmux_emulator.core.spec import FaceSpec, Signpost
from zenmux_emulator.faces.common.clients import openai_client
from zenmux_emulator.scenario.faces import FaceTraits

from .errors import error_body
from .reply import QueryReply

PREFIX = "/objectiveai"
ROUTES = (
    ("POST", f"{PREFIX}/query/completions"),
    ("POST", f"{PREFIX}/chat/completions"),
    ("GET", f"{PREFIX}/query/completions"),
    ("GET", f"{PREFIX}/query/completions/{{id}}"),
    ("POST", f"{PREFIX}/query/completions/{{id}}/publish"),
    ("POST", f"{PREFIX}/query/completions/{{id}}/training_table"),
    ("DELETE", f"{PREFIX}/query/completions/{{id}}/training_table"),
    ("POST", f"{PREFIX}/query_models"),
    ("GET", f"{PREFIX}/query_models"),
    ("GET", f"{PREFIX}/query_models/count"),
    ("GET", f"{PREFIX}/query_models/{{name}}"),
    ("POST", f"{PREFIX}/query_llms"),
    ("GET", f"{PREFIX}/auth/credits"),
)
"""Every route, as `routes.py` makes them."""

SPEC = FaceSpec(
    name="objectiveai",
    api_name="query.completions",
    base_path=PREFIX,
    routes=DeferredRoutes(f"{__package__}.routes", ROUTES),
    client=openai_client,
    traits=FaceTraits(zenmux=False, unnamed_rules=False),
    misbehaves=False,
    error_body=error_body,  # a path or method no route serves: kind `not_found`, `method_not_allowed`
    signpost=Signpost("ObjectiveAI Query Completions"),
    reply=QueryReply,
)
"""The ObjectiveAI Query Completions face, as the app registers it (its `api` is this emulator's name)."""
