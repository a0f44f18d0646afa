"""A `:predict` request, checked as Vertex AI's Imagen reference and ZenMux's
`api/vertexai/generate-images.md` describe it: one instance with its `prompt`, and `parameters`
(`sampleCount`, `aspectRatio`, `sampleImageSize`, `outputOptions`, `seed`, `enhancePrompt`,
`includeRaiReason`, `includeSafetyAttributes`, …). A failure is ZenMux's 400 `invalid_params` naming the field by its path, as
`parameters.sampleCount`. Rules match the prompt (`last_user`) and the negative prompt (`system`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zenmux_emulator.core.neutral.request import cached
from zenmux_emulator.faces.common.inputs import PromptRequest
from zenmux_emulator.faces.imagen.models import (
    ASPECTS,
    DEFAULT_OFFERS,
    GPT_ASPECTS,
    GPT_IMAGE,
    GPT_IMAGE_OFFERS,
    OFFERS,
    TIERS,
    Offers,
)
from zenmux_emulator.faces.media.gpt_image import QUALITIES, size_of
from zenmux_emulator.foundation import tokens
from zenmux_emulator.foundation.errors import invalid_params

MIME_TYPES = {"image/png": "png", "image/jpeg": "jpeg"}
DEFAULT_QUALITY = 75
"""Imagen's JPEG quality when `outputOptions.compressionQuality` is not given."""
MAX_PROMPT = 10_000
PARAMETERS = frozenset(
    {
        "sampleCount", "aspectRatio", "sampleImageSize", "outputOptions", "seed", "enhancePrompt",
        "negativePrompt", "includeRaiReason", "includeSafetyAttributes", "personGeneration", "safetySetting",
        "addWatermark", "language", "storageUri", "guidanceScale", "imageSize", "quality",
    }
)  # fmt: skip
"""The parameters read or accepted (the rest are warned of)."""


class ImagenRequest(PromptRequest):
    face = "imagen"

    def __init__(self, body: Mapping[str, Any], headers: Mapping[str, str], model: str, **options: Any) -> None:
        super().__init__(body, headers, model=model, warnings=options["warnings"])
        self.prompt: str = options["prompt"]
        self.negative: str = options["negative"]
        self.count: int = options["count"]
        self.size: tuple[int, int] = options["size"]
        self.output_format: str = options["output_format"]
        self.quality: int = options["quality"]
        self.seed: int | None = options["seed"]
        self.enhance: bool = options["enhance"]
        self.rai_reason: bool = options["rai_reason"]
        self.safety: bool = options["safety"]
        self.image_quality: str | None = options.get("image_quality")
        """A GPT image model's `quality` (`auto` read as `medium`, as OpenAI bills it); None: Imagen's."""

    @cached
    def system(self) -> str:
        return self.negative

    @cached
    def prompt_tokens(self) -> int:
        return tokens.count(self.prompt, MAX_PROMPT) + tokens.count(self.negative, MAX_PROMPT)

    @cached
    def seed_material(self) -> bytes:
        seed = b"" if self.seed is None else str(self.seed).encode()
        return b"\x00".join((self.model.encode(), self.prompt.encode(), self.negative.encode(), seed))


def _object(value: object, where: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise invalid_params(f"{where}: expected an object")
    return value


def _text(value: object, where: str, required: bool = False) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise invalid_params(f"{where}: {'a non-empty string is required' if required else 'expected a string'}")
    if len(value) > MAX_PROMPT:
        raise invalid_params(f"{where}: at most {MAX_PROMPT} characters")
    return value


def _integer(value: object, where: str, low: int, high: int, default: int | None) -> int | None:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or not float(value).is_integer():
        raise invalid_params(f"{where}: expected an integer between {low} and {high}, got {value!r}")
    if not low <= value <= high:
        raise invalid_params(f"{where}: expected an integer between {low} and {high}, got {int(value)}")
    return int(value)


def _flag(value: object, where: str) -> bool:
    if value is None:
        return False
    if not isinstance(value, bool):
        raise invalid_params(f"{where}: expected a boolean")
    return value


def _prompt(body: Mapping[str, Any]) -> tuple[str, Mapping[str, Any]]:
    instances = body.get("instances")
    if not isinstance(instances, list) or not instances:
        raise invalid_params("instances: one instance with a prompt is required")
    if len(instances) > 1:
        raise invalid_params(f"instances: Imagen takes one instance a request, got {len(instances)}")
    instance = _object(instances[0], "instances[0]")
    return _text(instance.get("prompt"), "instances[0].prompt", required=True), instance


def _passthrough(body: Mapping[str, Any], parameters: Mapping[str, Any], name: str) -> tuple[object, str]:
    """A passthrough's value and where it was: in `parameters` (ZenMux's curl), else at the top of
    the body (where google-genai's `extra_body` puts it)."""
    if name in parameters:
        return parameters[name], f"parameters.{name}"
    return body.get(name), name


def _size(body: Mapping[str, Any], parameters: Mapping[str, Any], model: str, offers: Offers) -> tuple[int, int]:
    aspect = parameters.get("aspectRatio", "1:1")
    if not isinstance(aspect, str) or aspect not in ASPECTS:
        raise invalid_params(
            f"parameters.aspectRatio: {aspect!r} is not an aspect ratio {model} offers ({', '.join(ASPECTS)})"
        )
    tier, where = _passthrough(body, parameters, "sampleImageSize")
    tier = "1K" if tier is None else tier
    if not isinstance(tier, str) or tier not in offers.tiers:
        raise invalid_params(f"{where}: {tier!r} is not a size {model} offers ({', '.join(offers.tiers)})")
    width, height = ASPECTS[aspect]
    return width * TIERS[tier], height * TIERS[tier]


GPT_ONLY = ("imageSize", "quality")
IMAGEN_ONLY = ("sampleImageSize",)


def _unread(parameters: Mapping[str, Any], names: tuple[str, ...], model: str) -> tuple[str, ...]:
    """Warnings for the parameters `model` does not read (another provider's passthroughs)."""
    return tuple(f"parameters.{name}: not read for {model}; ignored" for name in names if name in parameters)


def _gpt_size(body: Mapping[str, Any], parameters: Mapping[str, Any], model: str) -> tuple[int, int]:
    """A GPT image model's size: `imageSize` (a preset, `auto`, or gpt-image-2's own `WxH`), else
    the preset `aspectRatio` leans to, else 1024x1024."""
    value, where = _passthrough(body, parameters, "imageSize")
    if value is None:
        aspect = parameters.get("aspectRatio", "1:1")
        if not isinstance(aspect, str) or aspect not in GPT_ASPECTS:
            raise invalid_params(
                f"parameters.aspectRatio: {aspect!r} is not an aspect ratio {model} offers ({', '.join(GPT_ASPECTS)})"
            )
        value = GPT_ASPECTS[aspect]
    if not isinstance(value, str):
        raise invalid_params(f"{where}: expected a string such as 1024x1024, got {value!r}")
    return size_of(value, model, where)


def _gpt_quality(body: Mapping[str, Any], parameters: Mapping[str, Any]) -> str:
    value, where = _passthrough(body, parameters, "quality")
    if value is None:
        return "medium"
    if not isinstance(value, str) or value not in QUALITIES:
        raise invalid_params(f"{where}: expected one of {', '.join(QUALITIES)}, got {value!r}")
    return "medium" if value == "auto" else value


def _output(parameters: Mapping[str, Any]) -> tuple[str, int]:
    options = _object(parameters.get("outputOptions"), "parameters.outputOptions")
    mime = options.get("mimeType", "image/png")
    if not isinstance(mime, str) or mime not in MIME_TYPES:
        raise invalid_params(
            f"parameters.outputOptions.mimeType: expected one of {', '.join(MIME_TYPES)}, got {mime!r}"
        )
    where = "parameters.outputOptions.compressionQuality"
    quality = _integer(options.get("compressionQuality"), where, 0, 100, DEFAULT_QUALITY)
    assert quality is not None
    return MIME_TYPES[mime], quality


def parse_request(body: object, headers: Mapping[str, str], model: str) -> ImagenRequest:
    """Validate a `:predict` body for the model of its URL (400 `invalid_params` naming the field)."""
    if not isinstance(body, dict):
        raise invalid_params("Request body must be a JSON object")
    gpt = model.startswith(GPT_IMAGE)
    offers = GPT_IMAGE_OFFERS if gpt else OFFERS.get(model, DEFAULT_OFFERS)
    prompt, instance = _prompt(body)
    parameters = _object(body.get("parameters"), "parameters")
    output_format, quality = _output(parameters)
    warnings = tuple(
        f"parameters.{name}: not an Imagen parameter; ignored" for name in sorted(set(parameters) - PARAMETERS)
    )
    warnings += tuple(
        f"instances[0].{name}: not read by the emulator; ignored" for name in sorted(set(instance) - {"prompt"})
    )
    warnings += _unread(parameters, GPT_ONLY if not gpt else IMAGEN_ONLY, model)
    count = _integer(parameters.get("sampleCount"), "parameters.sampleCount", 1, offers.max_images, 1)
    assert count is not None
    return ImagenRequest(
        body,
        headers,
        model,
        prompt=prompt,
        negative=_text(parameters.get("negativePrompt"), "parameters.negativePrompt"),
        count=count,
        size=_gpt_size(body, parameters, model) if gpt else _size(body, parameters, model, offers),
        image_quality=_gpt_quality(body, parameters) if gpt else None,
        output_format=output_format,
        quality=quality,
        seed=_integer(parameters.get("seed"), "parameters.seed", 0, 2**32 - 1, None),
        enhance=_flag(parameters.get("enhancePrompt"), "parameters.enhancePrompt"),
        rai_reason=_flag(parameters.get("includeRaiReason"), "parameters.includeRaiReason"),
        safety=_flag(parameters.get("includeSafetyAttributes"), "parameters.includeSafetyAttributes"),
        warnings=warnings,
    )
