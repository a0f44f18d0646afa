"""The images face's registration: generations, edits, and the images its URLs link to."""

from __future__ import annotations

from aiohttp import web

from zenmux_emulator.core.endpoint import Core
from zenmux_emulator.faces.images.face import ImagesFace
from zenmux_emulator.faces.images.spec import CONTENT, EDITS, GENERATIONS
from zenmux_emulator.faces.images.store import ImageStore
from zenmux_emulator.faces.media.endpoint import MediaEndpoint
from zenmux_emulator.foundation.envelope import error_body


def routes(core: Core) -> list[web.RouteDef]:
    store = ImageStore(core.clock)

    async def content(request: web.Request) -> web.Response:
        kept = store.get(request.match_info["name"])
        if kept is None:
            message = "Image not found: its URL is unknown or has expired (URLs are valid for 60 minutes)"
            return web.Response(status=404, body=error_body(404, "not_found", message), content_type="application/json")
        return web.Response(body=kept.data, headers={"Content-Type": kept.content_type})

    return [
        web.post(GENERATIONS, MediaEndpoint(ImagesFace(store, edit=False), core).handle),
        web.post(EDITS, MediaEndpoint(ImagesFace(store, edit=True), core).handle),
        web.get(CONTENT + "/{name}", content),
    ]
