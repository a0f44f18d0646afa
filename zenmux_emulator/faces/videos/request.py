"""A video job's request, whichever API sent it: ZenMux's native `content` array
(generate-videos-native.md) or Veo's `instances` and `parameters` (`veo.py`), read into one
`VideoRequest`. Rules match its prompt (`last_user`); its reference media's digests join the seed."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from zenmux_emulator.core.neutral.request import cached
from zenmux_emulator.faces.common.inputs import PromptRequest
from zenmux_emulator.faces.media import fields
from zenmux_emulator.faces.videos.film import RATIOS, Shape
from zenmux_emulator.faces.videos.models import OFFERS, Offer
from zenmux_emulator.foundation import tokens
from zenmux_emulator.foundation.errors import invalid_params

MAX_PROMPT = 8_000
MAX_ITEMS = 16
TYPES = ("text", "image_url", "video_url", "audio_url")
ROLES: dict[str, tuple[str, ...]] = {
    "image_url": ("first_frame", "last_frame", "reference_image"),
    "video_url": ("reference_video",),
    "audio_url": ("reference_audio",),
}
FIELDS = frozenset(
    {
        "model", "content", "resolution", "ratio", "duration", "seed", "generate_audio", "callback_url",
        "return_last_frame", "tools", "frames", "watermark",
    }
)  # fmt: skip


class VideoRequest(PromptRequest):
    face = "videos"

    def __init__(self, body: Mapping[str, Any], headers: Mapping[str, str], model: str, **options: Any) -> None:
        super().__init__(body, headers, model=model, stream=False, warnings=options["warnings"])
        self.sent_model: str = options["sent"]
        self.prompt: str = options["prompt"]
        self.shape: Shape = options["shape"]
        self.count: int = options.get("count", 1)
        self.seed: int | None = options["seed"]
        self.inputs_digest: bytes = options["inputs_digest"]
        self.openai: bool = options.get("openai", False)
        """Sent as the openai SDK's `videos.create` sends it (`prompt`, `seconds`, `size`): answered in
        OpenAI's `Video` shape rather than ZenMux's."""

    @cached
    def prompt_tokens(self) -> int:
        return tokens.count(self.prompt, MAX_PROMPT)

    @cached
    def seed_material(self) -> bytes:
        """What decides the video besides the server's seed: the model, the prompt, the media given,
        the request's own `seed` and the shape."""
        shape = f"{self.shape.width}x{self.shape.height}x{self.shape.seconds}:{self.seed}"
        return b"\x00".join((self.requested_model.encode(), self.prompt.encode(), self.inputs_digest, shape.encode()))


def offer_of(model: str) -> Offer:
    return OFFERS[model.partition(":")[0]]


def shape_of(body: Mapping[str, Any], offer: Offer, names: tuple[str, str, str]) -> Shape:
    """The video's shape from the fields `names` (resolution, ratio, duration) as the model offers it."""
    resolution, ratio, duration = names
    return Shape.of(
        fields.choice(body, resolution, offer.resolutions, offer.default_resolution),
        fields.choice(body, ratio, tuple(RATIOS), "16:9"),
        fields.integer(body, duration, 1, offer.max_seconds, offer.default_seconds),
    )


def request_seed(body: Mapping[str, Any], field: str) -> int | None:
    """The request's `seed`; -1 (ZenMux's "random") and none are the same: the server's seed alone."""
    seed = fields.integer(body, field, -1, 2**32 - 1, -1)
    return None if seed == -1 else seed


def media_bytes(url: object, where: str) -> bytes:
    """A reference medium as the bytes that name it: a data URI's content, or an http(s) URL's text
    (not fetched)."""
    if not isinstance(url, str) or not url:
        raise invalid_params(f"Parameter {where} is not valid: expected a URL or a data URI")
    if url.startswith(("http://", "https://")):
        return url.encode()
    decoded = fields.data_uri(url, where)
    if decoded is None:
        raise invalid_params(f"Parameter {where} is not valid: expected an http(s) URL or a data:<mime>;base64 URI")
    return decoded


def _item(item: object, index: int) -> tuple[str, bytes]:
    """One `content[]` item: its text, or its medium's bytes."""
    where = f"content[{index}]"
    if not isinstance(item, dict):
        raise invalid_params(f"Parameter {where} is not valid: expected an object")
    kind = item.get("type")
    if kind not in TYPES:
        raise invalid_params(f"Parameter {where}.type is not valid: expected one of {', '.join(TYPES)}")
    if kind == "text":
        text = item.get("text")
        if not isinstance(text, str) or not text:
            raise invalid_params(f"Parameter {where}.text is required: a non-empty string")
        return text, b""
    assert isinstance(kind, str)
    role = item.get("role", ROLES[kind][0])
    if role not in ROLES[kind]:
        raise invalid_params(f"Parameter {where}.role is not valid: expected one of {', '.join(ROLES[kind])}")
    medium = item.get(kind)
    if not isinstance(medium, dict):
        raise invalid_params(f"Parameter {where}.{kind} is required: an object with url")
    return "", f"{kind}:{role}:".encode() + media_bytes(medium.get("url"), f"{where}.{kind}.url")


def _content(body: Mapping[str, Any]) -> tuple[str, bytes]:
    """The prompt (the text items joined in order) and the digest of the media items."""
    content = body.get("content")
    if not isinstance(content, list) or not content:
        raise invalid_params("Parameter content is required: a non-empty array of items")
    if len(content) > MAX_ITEMS:
        raise invalid_params(f"Parameter content is not valid: at most {MAX_ITEMS} items")
    texts: list[str] = []
    media = hashlib.sha256()
    for index, item in enumerate(content):
        text, medium = _item(item, index)
        if text:
            texts.append(text)
        if medium:
            media.update(hashlib.sha256(medium).digest())
    prompt = " ".join(texts)
    if len(prompt) > MAX_PROMPT:
        raise invalid_params(f"Parameter content is not valid: the text is over {MAX_PROMPT} characters")
    return prompt, media.digest() if len(texts) < len(content) else b""


def parse_native(body: object, headers: Mapping[str, str]) -> VideoRequest:
    """ZenMux's `POST /api/v1/videos` body, checked (400 `invalid_params` naming the field)."""
    body = fields.body_object(body)
    sent, model = fields.model(body, OFFERS, None, "a video")
    prompt, inputs = _content(body)
    for flagged in ("generate_audio", "return_last_frame", "watermark"):
        fields.flag(body, flagged)
    fields.text(body, "callback_url")
    return VideoRequest(
        body,
        headers,
        model,
        sent=sent,
        prompt=prompt,
        shape=shape_of(body, offer_of(model), ("resolution", "ratio", "duration")),
        seed=request_seed(body, "seed"),
        inputs_digest=inputs,
        warnings=fields.ignored(body, FIELDS, "a video")
        + (("generate_audio: the emulator's videos have no sound",) if body.get("generate_audio") is True else ()),
    )
