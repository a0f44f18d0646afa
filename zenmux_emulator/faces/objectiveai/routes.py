"""The Query face's routes under `/objectiveai` (§4.1): completions through the shared path, and
the Query Model registry, credits and stored completions beside it."""

from __future__ import annotations

import datetime
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson
from aiohttp import web

from zenmux_emulator.core.body import read_json
from zenmux_emulator.core.endpoint import Core, Endpoint
from zenmux_emulator.core.gateway.auth import api_key
from zenmux_emulator.core.side import GuardedRoute, Refusal
from zenmux_emulator.foundation.errors import RequestRejected
from zenmux_emulator.state.sessions import session_name

from . import ids
from .errors import UNAUTHORIZED, QueryRejected
from .face import QueryFace, rejection
from .registry import normalised
from .spec import PREFIX
from .wire import model_ids, validate_llm, validate_model

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def unauthorized() -> RequestRejected:
    error = UNAUTHORIZED["error"]
    return RequestRejected(401, error["kind"], error["error"])


def check_key(headers: Mapping[str, str], accepted: frozenset[str]) -> str:
    """The caller's key; 401 `unauthorized` (§4.1) when it is missing or not accepted."""
    key = api_key(headers)
    if key is None or (accepted and key not in accepted):
        raise unauthorized()
    return key


def refusal(face: QueryFace) -> Callable[[Exception], Refusal | None]:
    """A side route's refusal as this face answers it: the Query API's own body, or its envelope."""

    def refused(exc: Exception) -> Refusal | None:
        if isinstance(exc, QueryRejected):
            return Refusal(exc.status, rejection(exc).type, orjson.dumps(exc.body))
        if isinstance(exc, RequestRejected):
            return Refusal(exc.status, exc.type, face.error_body(exc.status, exc.type, exc.message), exc.headers)
        return None

    return refused


def guarded(face: QueryFace, core: Core, handler: Callable[[web.Request, str], Awaitable[Any]]) -> Handler:
    """A side route: the key checked (this API's 401), the answer as JSON, errors in the face's envelope."""
    return GuardedRoute(face.name, core, handler, check_key, refusal(face)).handle


@dataclass(frozen=True)
class SideRoutes:
    """The handlers beside the completions: the Query Model registry, credits and stored completions."""

    face: QueryFace
    core: Core

    async def validate_query_model(self, request: web.Request, key: str) -> Any:
        model, _ = validate_model(await read_json(request, self.core.settings.max_body_bytes), "")
        name = model_ids(model)[0]
        self.face.stored().remember(name, model)
        return normalised(model)

    async def validate_query_llm(self, request: web.Request, key: str) -> Any:
        llm = validate_llm(await read_json(request, self.core.settings.max_body_bytes))
        return {
            **llm.model_dump(exclude_unset=True, by_alias=True),
            "name": ids.llm_id(llm.model_dump(exclude_none=True)),
        }

    async def list_query_models(self, request: web.Request, key: str) -> Any:
        return {"data": await self.face.stored().all_names()}

    async def count_query_models(self, request: web.Request, key: str) -> Any:
        return {"count": len(await self.face.stored().all_names())}

    async def get_query_model(self, request: web.Request, key: str) -> Any:
        name = request.match_info["name"]
        model = await self.face.stored().fetch(name)
        if model is None:
            raise RequestRejected(404, "model_not_found", f"no Query Model named {name}")
        return normalised(model)

    async def credits(self, request: web.Request, key: str) -> Any:
        scenarios = self.core.registry.current.scenarios
        name = session_name(request.headers, key)
        purchased = float(scenarios.gateway.balances.get(key, 0.0))
        used = await self.core.state.spent(name, key)
        return {"credits": purchased - used, "total_credits_purchased": purchased, "total_credits_used": used}

    async def list_completions(self, request: web.Request, key: str) -> Any:
        try:
            count = int(request.query.get("count", "100"))
            offset = int(request.query.get("offset", "0"))
        except ValueError:
            raise RequestRejected(400, "invalid_request", "count and offset must be integers") from None
        newest = await self.face.completions.newest(offset, count)
        # a completion's id ends with its `created` (`qrycpl-<hex>-<created>`): nothing stored is decoded
        return {"data": [{"id": name, "created": _rfc3339(int(name.rsplit("-", 1)[1]))} for name in newest]}

    async def stored_completion(self, request: web.Request) -> tuple[str, tuple[Any, dict[str, Any]]]:
        name = request.match_info["id"]
        found = await self.face.completion(name)
        if found is None:
            raise RequestRejected(404, "completion_not_found", f"no completion {name}")
        return name, found

    async def get_completion(self, request: web.Request, key: str) -> Any:
        name, (asked, answered) = await self.stored_completion(request)
        mark = await self.face.completions.marked(name)
        return {"request": asked, "response": answered, **({"correct_confidence_id": mark} if mark else {})}

    async def publish(self, request: web.Request, key: str) -> Any:
        await self.stored_completion(request)
        return web.Response(status=204)

    async def mark(self, request: web.Request, key: str) -> Any:
        name, _ = await self.stored_completion(request)
        body = await read_json(request, self.core.settings.max_body_bytes)
        correct = body.get("correct_confidence_id") if isinstance(body, dict) else None
        if not isinstance(correct, str):
            raise RequestRejected(400, "invalid_request", "correct_confidence_id: expected a string")
        await self.face.completions.mark(name, correct)
        return web.Response(status=204)

    async def unmark(self, request: web.Request, key: str) -> Any:
        name, _ = await self.stored_completion(request)
        await self.face.completions.mark(name, None)
        return web.Response(status=204)


def routes(core: Core) -> list[web.RouteDef]:
    face = QueryFace(core)
    side = SideRoutes(face=face, core=core)
    completions = Endpoint(face, core, face.preload, authenticate=check_key)  # this API's 401 for a bad key
    served = [
        web.post(f"{PREFIX}/query/completions", completions.handle),
        web.post(f"{PREFIX}/chat/completions", completions.handle),  # the SDK's path before 2025-10-06
        web.get(f"{PREFIX}/query/completions", guarded(face, core, side.list_completions)),
        web.get(f"{PREFIX}/query/completions/{{id}}", guarded(face, core, side.get_completion)),
        web.post(f"{PREFIX}/query/completions/{{id}}/publish", guarded(face, core, side.publish)),
        web.post(f"{PREFIX}/query/completions/{{id}}/training_table", guarded(face, core, side.mark)),
        web.delete(f"{PREFIX}/query/completions/{{id}}/training_table", guarded(face, core, side.unmark)),
        web.post(f"{PREFIX}/query_models", guarded(face, core, side.validate_query_model)),
        web.get(f"{PREFIX}/query_models", guarded(face, core, side.list_query_models)),
        web.get(f"{PREFIX}/query_models/count", guarded(face, core, side.count_query_models)),
        web.get(f"{PREFIX}/query_models/{{name}}", guarded(face, core, side.get_query_model)),
        web.post(f"{PREFIX}/query_llms", guarded(face, core, side.validate_query_llm)),
        web.get(f"{PREFIX}/auth/credits", guarded(face, core, side.credits)),
    ]
    return served


def _rfc3339(created: int) -> str:
    return datetime.datetime.fromtimestamp(created, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
