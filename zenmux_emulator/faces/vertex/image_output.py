"""Gemini's image output: a request whose `generationConfig.responseModalities` includes `IMAGE`
is answered with an `inlineData` part (a PNG, base64) beside the text (the text only when `TEXT` is
asked too), as ZenMux's image generation guide shows for `google/gemini-2.5-flash-image` and
`google/gemini-3-pro-image-preview`. The picture is drawn from the request's digest and the seed at
`imageConfig`'s aspect ratio and size, in a thread before the reply is rendered; a model the
catalogue lists without image output is refused with Google's own words. A request without `IMAGE`
is answered as before, byte for byte."""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.faces.media.draw import Canvas, digest, draw
from zenmux_emulator.faces.media.made import Made
from zenmux_emulator.faces.vertex.request import GeminiRequest
from zenmux_emulator.foundation.errors import invalid_params
from zenmux_emulator.scenario.schema import ModelSpec

ASPECTS: dict[str, tuple[int, int]] = {
    "1:1": (1024, 1024),
    "2:3": (832, 1248),
    "3:2": (1248, 832),
    "3:4": (864, 1184),
    "4:3": (1184, 864),
    "4:5": (896, 1152),
    "5:4": (1152, 896),
    "9:16": (768, 1344),
    "16:9": (1344, 768),
    "21:9": (1536, 672),
}
"""Gemini's image sizes at the 1K size, by aspect ratio (Google's image generation guide)."""
SIZES = {"1K": 1, "2K": 2, "4K": 4}
"""`imageConfig.imageSize`: the 1K size's sides times this."""
IMAGE_TOKENS = 1290
"""The output tokens Google counts for one generated image (Gemini 2.5 Flash Image)."""
MIME = "image/png"
PICTURES: Made[bytes] = Made(len)
"""The pictures `prepare` drew in a thread, by canvas and digest."""


@dataclass(frozen=True, slots=True)
class Picture:
    """The image a request asks for, and whether it asks for text too."""

    size: tuple[int, int]
    text: bool


def _config_value(config: Mapping[str, Any], name: str, snake: str, default: str) -> object:
    return config.get(name, config.get(snake, default))


def picture_of(request: GeminiRequest) -> Picture | None:
    """The image `responseModalities` asks for (None: no `IMAGE`); 400 naming the field for an
    aspect ratio or size Gemini does not offer."""
    config = request.request.generation_config
    if config is None or not config.response_modalities:
        return None
    asked = {modality.upper() for modality in config.response_modalities}
    if "IMAGE" not in asked:
        return None
    image_config = config.image_config or {}
    aspect = _config_value(image_config, "aspectRatio", "aspect_ratio", "1:1")
    if not isinstance(aspect, str) or aspect not in ASPECTS:
        raise invalid_params(
            f"generationConfig.imageConfig.aspectRatio: {aspect!r} is not an aspect ratio Gemini offers "
            f"({', '.join(ASPECTS)})"
        )
    size = _config_value(image_config, "imageSize", "image_size", "1K")
    if not isinstance(size, str) or size.upper() not in SIZES:
        raise invalid_params(
            f"generationConfig.imageConfig.imageSize: {size!r} is not an image size Gemini offers ({', '.join(SIZES)})"
        )
    width, height = ASPECTS[aspect]
    times = SIZES[size.upper()]
    return Picture((width * times, height * times), "TEXT" in asked)


def check_model(request: GeminiRequest, listed: ModelSpec | None) -> None:
    """Google's 400 when the catalogue lists the model served without image output."""
    if listed is not None and "image" not in listed.output_modalities and picture_of(request) is not None:
        raise invalid_params("Model does not support the requested response modalities: image")


def _canvas(picture: Picture) -> Canvas:
    return Canvas(picture.size, "png", 100, transparent=False)


def _drawn(picture: Picture, request: GeminiRequest, seed: int) -> bytes:
    canvas, bits = _canvas(picture), digest(seed, request.seed_material, 0)
    return PICTURES.get((canvas, bits), partial(draw, canvas, bits))


def prepare(draft: Draft, request: GeminiRequest, seed: int) -> Callable[[], object] | None:
    """The picture `render` will send, to draw in a thread (None: no image asked, or a refusal)."""
    picture = picture_of(request)
    if picture is None or draft.refusal:
        return None
    return partial(_drawn, picture, request, seed)


@dataclass(frozen=True, slots=True)
class ImageOutput:
    """What the reply's render adds for an image: the part, and whether the text is sent."""

    part: dict[str, Any]
    text: bool


def image_output(draft: Draft, request: GeminiRequest, seed: int) -> ImageOutput | None:
    """The reply's `inlineData` part (None: no image asked, or a refusal, which has no parts)."""
    picture = picture_of(request)
    if picture is None or draft.refusal:
        return None
    data = base64.b64encode(_drawn(picture, request, seed)).decode()
    return ImageOutput({"inlineData": {"mimeType": MIME, "data": data}}, picture.text)


def with_image_tokens(metadata: dict[str, Any], text: bool) -> dict[str, Any]:
    """The final `usageMetadata` with the image's tokens among the candidates' (and no text's, when
    the text is not sent)."""
    unsent = 0 if text else metadata["candidatesTokenCount"]
    metadata["candidatesTokenCount"] += IMAGE_TOKENS - unsent
    metadata["totalTokenCount"] += IMAGE_TOKENS - unsent
    details = metadata["candidatesTokensDetails"] if text else []
    metadata["candidatesTokensDetails"] = [*details, {"modality": "IMAGE", "tokenCount": IMAGE_TOKENS}]
    return metadata


def billed(metadata: Mapping[str, Any]) -> dict[str, int]:
    """The bill of a reply with an image, from its final `usageMetadata`: the candidates' and the
    thoughts' tokens are the completion's."""
    prompt = int(metadata["promptTokenCount"])
    total = int(metadata["totalTokenCount"])
    return {"prompt_tokens": prompt, "completion_tokens": total - prompt, "total_tokens": total}
