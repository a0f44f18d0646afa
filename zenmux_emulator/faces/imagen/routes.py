"""The Imagen face's route: `:predict` on every form of a Vertex AI model's URL (ZenMux
documents `v1/publishers/{provider}/models/{model}:predict`; google-genai with a project adds
`projects/…/locations/…`), and the Gemini API's `v1beta/models/{model}:predict`."""

from __future__ import annotations

from aiohttp import web

from zenmux_emulator.core.endpoint import Core
from zenmux_emulator.faces.imagen.face import ImagenFace
from zenmux_emulator.faces.imagen.spec import PATHS
from zenmux_emulator.faces.media.endpoint import PreparingEndpoint


def routes(core: Core) -> list[web.RouteDef]:
    predict = PreparingEndpoint(ImagenFace(), core).handle
    return [web.post(f"{path}:predict", predict) for path in PATHS]
