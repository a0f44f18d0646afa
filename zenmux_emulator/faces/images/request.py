"""An image request (generation or edit), checked as ZenMux documents it. Rules match its prompt
(`last_user`); its inputs' digests join the seed, so another image to edit draws another picture."""

from __future__ import annotations

import hashlib
import io
from collections.abc import Mapping
from typing import Any

from zenmux_emulator.core.neutral.request import cached
from zenmux_emulator.faces.common.inputs import PromptRequest
from zenmux_emulator.faces.images.models import CATALOGUE, DEFAULT_MODEL
from zenmux_emulator.faces.media import fields
from zenmux_emulator.faces.media.form import Upload
from zenmux_emulator.faces.media.gpt_image import PRESETS, QUALITIES, size_of
from zenmux_emulator.foundation import tokens
from zenmux_emulator.foundation.errors import invalid_params

FORMATS = ("png", "jpeg", "webp")
BACKGROUNDS = ("transparent", "opaque", "auto")
MAX_PROMPT = 32_000
MAX_IMAGES = 16
FIELDS = frozenset(
    {
        "model", "prompt", "n", "size", "quality", "background", "output_format", "output_compression",
        "response_format", "partial_images", "stream", "user", "moderation", "style", "input_fidelity",
        "image", "image[]", "images", "mask",
    }
)  # fmt: skip


class ImageRequest(PromptRequest):
    face = "images"

    def __init__(self, body: Mapping[str, Any], headers: Mapping[str, str], model: str, **options: Any) -> None:
        super().__init__(body, headers, model=model, stream=options["stream"], warnings=options["warnings"])
        self.sent_model: str = options["sent"]
        """The model as the request named it (a bare `gpt-image-2`, say)."""
        self.edit: bool = options["edit"]
        self.prompt: str = options["prompt"]
        self.n: int = options["n"]
        self.size: tuple[int, int] = options["size"]
        self.quality: str = options["quality"]
        self.background: str = options["background"]
        self.output_format: str = options["output_format"]
        self.compression: int = options["compression"]
        self.response_format: str = options["response_format"]
        self.partial_images: int = options["partial_images"]
        self.inputs_digest: bytes = options["inputs_digest"]
        self.input_images: int = options["input_images"]

    @cached
    def prompt_tokens(self) -> int:
        return tokens.count(self.prompt, MAX_PROMPT) + 65 * self.input_images

    @cached
    def seed_material(self) -> bytes:
        return b"\x00".join((self.requested_model.encode(), self.prompt.encode(), self.inputs_digest))

    @property
    def size_text(self) -> str:
        return f"{self.size[0]}x{self.size[1]}"


def _data_url(value: object, where: str) -> bytes:
    """An image given by JSON (`images[].image_url`): a base64 data URL (a remote URL is not fetched)."""
    url = value.get("image_url") if isinstance(value, dict) else None
    decoded = fields.data_uri(url, f"{where}.image_url") if isinstance(url, str) else None
    if decoded is None:
        raise invalid_params(f"Parameter {where}.image_url is not valid: expected a base64 data URL")
    return decoded


def _edit_inputs(body: Mapping[str, Any]) -> list[bytes]:
    """The images (and mask) to edit, as bytes: form files (`image`, `image[]`, `mask`) or JSON data URLs."""
    given: list[bytes] = []
    files = body.get("image[]", body.get("image"))
    if files is not None:
        for item in files if isinstance(files, list) else [files]:
            if not isinstance(item, Upload):
                raise invalid_params("Parameter image is not valid: expected an image file")
            given.append(item.data)
    elif isinstance(body.get("images"), list) and body["images"]:
        given.extend(_data_url(item, f"images[{i}]") for i, item in enumerate(body["images"]))
    else:
        raise invalid_params("Parameter image is required")
    if len(given) > MAX_IMAGES:
        raise invalid_params(f"Parameter image is not valid: at most {MAX_IMAGES} images")
    mask = body.get("mask")
    if isinstance(mask, Upload):
        given.append(mask.data)
    elif isinstance(mask, dict):
        given.append(_data_url(mask, "mask"))
    return given


def _checked_images(images: list[bytes]) -> None:
    """Each upload must be an image Pillow opens."""
    pil = fields.encoder("PIL.Image", "images")
    for index, data in enumerate(images):
        try:
            with pil.open(io.BytesIO(data)) as opened:
                opened.verify()
        except (OSError, ValueError, SyntaxError, EOFError, pil.DecompressionBombError):  # not an image
            raise invalid_params(
                f"Parameter image is not valid: file {index} is not a PNG, JPEG or WebP image"
            ) from None


def parse_request(body: object, headers: Mapping[str, str], edit: bool) -> ImageRequest:
    """Validate a generation's JSON or an edit's form (400 `invalid_params` naming the field)."""
    body = fields.body_object(body)
    sent, model = fields.model(body, CATALOGUE, DEFAULT_MODEL, "an image")
    prompt = fields.text(body, "prompt", required=True)
    assert prompt is not None
    if len(prompt) > MAX_PROMPT:
        raise invalid_params(f"Parameter prompt is not valid: at most {MAX_PROMPT} characters")
    output_format = fields.choice(body, "output_format", FORMATS, "png")
    background = fields.choice(body, "background", BACKGROUNDS, "auto")
    if background == "transparent" and output_format == "jpeg":
        raise invalid_params("Parameter background is not valid: transparent needs output_format png or webp")
    inputs = _edit_inputs(body) if edit else []
    if inputs:
        _checked_images(inputs)
    digest = hashlib.sha256(b"".join(hashlib.sha256(data).digest() for data in inputs)).digest() if inputs else b""
    asked = fields.choice(body, "size", (*PRESETS, "auto"), "auto") if edit else fields.text(body, "size", "auto")
    size = size_of(asked or "auto", model.partition(":")[0])
    return ImageRequest(
        body,
        headers,
        model,
        sent=sent,
        edit=edit,
        prompt=prompt,
        n=fields.integer(body, "n", 1, 10, 1),
        size=size,
        quality=fields.choice(body, "quality", QUALITIES, "auto"),
        background=background,
        output_format=output_format,
        compression=fields.integer(body, "output_compression", 0, 100, 100),
        response_format=fields.choice(body, "response_format", ("b64_json", "url"), "b64_json"),
        partial_images=fields.integer(body, "partial_images", 0, 3, 0),
        stream=fields.flag(body, "stream"),
        inputs_digest=digest,
        input_images=len(inputs),
        warnings=fields.ignored(body, FIELDS, "an images"),
    )
