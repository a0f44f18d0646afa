"""The Responses face's routes: creation through the shared path, and the stored responses
(`GET`, `DELETE`, `GET …/input_items`), each app with its own store."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from typing import Any

import orjson
from aiohttp import web

from zenmux_emulator.core.endpoint import Core, Endpoint
from zenmux_emulator.core.side import note
from zenmux_emulator.faces.responses.conversation import listed
from zenmux_emulator.faces.responses.face import ResponsesFace
from zenmux_emulator.faces.responses.spec import ROUTE
from zenmux_emulator.faces.responses.store import StoredResponse
from zenmux_emulator.foundation.errors import RequestRejected

NOT_FOUND = "invalid_request_error"
"""OpenAI's type for an unknown response id (ZenMux's catalogue has no type of its own for it)."""
MAX_LIMIT = 100


def _json(body: Any) -> web.Response:
    return web.Response(body=orjson.dumps(body), content_type="application/json")


class StoredRoutes:
    """The handlers that read one face's store."""

    def __init__(self, face: ResponsesFace) -> None:
        self.face = face

    async def find(self, request: web.Request) -> tuple[str, str, StoredResponse]:
        """The session, the id and the stored response, or OpenAI's 404 (after the key check)."""
        session = self.face.session(request.headers)
        note(request, session=session)
        wanted = request.match_info["response_id"]
        stored = await self.face.store.get(session, wanted)
        if stored is None:
            raise RequestRejected(404, NOT_FOUND, f"Response with id '{wanted}' not found.")
        return session, wanted, stored

    async def get(self, request: web.Request) -> web.Response:
        return _json((await self.find(request))[2].body)

    async def delete(self, request: web.Request) -> web.Response:
        session, wanted, _ = await self.find(request)
        await self.face.store.delete(session, wanted)
        return _json({"id": wanted, "object": "response", "deleted": True})

    async def input_items(self, request: web.Request) -> web.Response:
        """The input items, newest first unless `order=asc`; `limit` (1–100, default 20) and `after`."""
        _, _, stored = await self.find(request)
        query = request.query
        order = query.get("order", "desc")
        if order not in ("asc", "desc"):
            raise RequestRejected(
                400, "invalid_params", f"Invalid value: '{order}'. Supported values are: 'asc' and 'desc'."
            )
        try:
            limit = int(query.get("limit", "20"))
        except ValueError:
            limit = 0
        if not 1 <= limit <= MAX_LIMIT:
            raise RequestRejected(
                400, "invalid_params", f"Invalid 'limit': expected an integer between 1 and {MAX_LIMIT}."
            )
        items: Iterator[dict[str, Any]] = listed(stored.inputs, stored.body["id"], ascending=order == "asc")
        after = query.get("after")
        if after is not None and not any(item["id"] == after for item in items):
            items = iter(())  # an id not listed: nothing after it
        page = list(islice(items, limit + 1))
        more, page = len(page) > limit, page[:limit]
        return _json(
            {
                "object": "list",
                "data": page,
                "first_id": page[0]["id"] if page else None,
                "last_id": page[-1]["id"] if page else None,
                "has_more": more,
            }
        )


def routes(core: Core) -> list[web.RouteDef]:
    face = ResponsesFace(core)
    stored = StoredRoutes(face)
    return [
        web.post(ROUTE, Endpoint(face, core, face.preload).handle),
        web.get(ROUTE + "/{response_id}", stored.get),
        web.delete(ROUTE + "/{response_id}", stored.delete),
        web.get(ROUTE + "/{response_id}/input_items", stored.input_items),
    ]
