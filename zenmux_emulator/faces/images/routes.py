"""The images face's registration: generations, edits, and the images its URLs link to."""

from __future__ import annotations

from aiohttp import web

from zenmux_emulator.core.endpoint import Core
from zenmux_emulator.core.spec import FaceSpec, Signpost
from zenmux_emulator.faces.common.clients import openai_client
from zenmux_emulator.faces.images.face import CONTENT, EDITS, GENERATIONS, ImagesFace
from zenmux_emulator.faces.images.models import CATALOGUE
from zenmux_emulator.faces.images.reply import ImageReply
from zenmux_emulator.faces.images.store import ImageStore
from zenmux_emulator.faces.media.endpoint import MediaEndpoint
from zenmux_emulator.foundation.envelope import error_body
from zenmux_emulator.scenario.faces import FaceTraits


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


SPEC = FaceSpec(
    name="images",
    api_name="images",
    base_path="/api/v1",
    routes=routes,
    client=openai_client,
    traits=FaceTraits(zenmux=False, unnamed_rules=False),
    models=CATALOGUE,
    signpost=Signpost("Images (OpenAI-compatible)", ("/api/v1/images",)),
    reply=ImageReply,
    misbehaves=False,  # no tool calls or prose to make wrong: a fault asked of it is warned of, not claimed
)
"""The images face: rules answer it when they name it (`api: images`); a rule's `content` is the
images' `revised_prompt`, its `image` the file the images are, a refusal or a stream's partial-image
count (`reply.py`), its `error:` the answer."""
