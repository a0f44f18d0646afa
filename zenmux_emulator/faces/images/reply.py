"""The reply keys a rule for image requests may use beyond every face's (`SPEC.reply`): `image`, the
picture to answer with (a file), a refusal, and how many partial images a stream sends."""

from __future__ import annotations

import importlib
import io
from typing import Annotated, Any, Self

from pydantic import BaseModel, Field, model_validator

from zenmux_emulator.scenario.attached import Attached, FileOf
from zenmux_emulator.scenario.schema import LANGUAGE, ReplyKeys

MAX_FILE_PIXELS = 3840 * 3840
"""The most pixels an image file given by a rule may have (a picture decoded for each answer)."""
FILE_FORMATS = {"PNG": "png", "JPEG": "jpeg", "WEBP": "webp"}
"""The formats an image file may be in, as Pillow names them, and as the request's `output_format`."""


def _check_image(data: bytes) -> str | None:
    try:  # by name: Pillow is the media extra's, which the type check's install does not have
        image: Any = importlib.import_module("PIL.Image")
    except ImportError:
        return "reading it needs Pillow: pip install 'zenmux-emulator[media]'"
    try:
        with image.open(io.BytesIO(data), formats=tuple(FILE_FORMATS)) as opened:
            width, height = opened.size
            if width * height > MAX_FILE_PIXELS:
                return f"{width}x{height} is more than {MAX_FILE_PIXELS:,} pixels"
            opened.load()
    except (OSError, ValueError, image.DecompressionBombError) as exc:
        return f"Pillow cannot open it as PNG, JPEG or WebP ({exc})"
    return None


ImageFile = Annotated[Attached, FileOf(_check_image, "an image")]


class Picture(BaseModel):
    """What an image answer is: the picture a file gives, a refusal, the partial images a stream sends."""

    model_config = LANGUAGE

    file: ImageFile | None = Field(
        None,
        description=(
            "a PNG, JPEG or WebP file (path relative to the scenario file, read at load) that every image answers "
            "with, fitted to the size and encoded in the format asked (as it is when it already is both)"
        ),
    )
    refusal: str | None = Field(
        None,
        min_length=1,
        description="the request is refused with this reason (a 400 moderation_blocked in ZenMux's envelope)",
    )
    partial_images: int | None = Field(
        None, ge=0, le=3, description="how many partial images a stream sends for each image (else the request's)"
    )

    @model_validator(mode="after")
    def _refusal_alone(self) -> Self:
        if self.refusal is not None and (self.file is not None or self.partial_images is not None):
            raise ValueError("a refusal answers no image: give it without file or partial_images")
        return self


class ImageReply(ReplyKeys):
    """`image`: the picture, refusal or partial images of an image answer."""

    image: Picture | None = Field(
        None, description="the file every image answers with, a refusal, or a stream's partial-image count"
    )
