"""The Imagen models `:predict` serves, and what each offers: Google's Imagen 4 family, whose sizes
come from an aspect ratio and a resolution tier (Vertex AI's Imagen reference), at most four images
a request. Each is priced per image made (`pricings.image`, `perCount`), at Google's published
Imagen 4 prices (the Gemini Developer API's and Vertex AI's pricing pages: Fast $0.02, Imagen 4
$0.04, Ultra $0.06 an image, the same at 1K and 2K); the prompt is not billed by tokens."""

from __future__ import annotations

from dataclasses import dataclass

from zenmux_emulator.scenario.schema import ModelSpec, Pricing, UnitPrice

ASPECTS: dict[str, tuple[int, int]] = {
    "1:1": (1024, 1024),
    "3:4": (896, 1280),
    "4:3": (1280, 896),
    "9:16": (768, 1408),
    "16:9": (1408, 768),
}
"""Each aspect ratio's size at the 1K tier; 2K doubles both sides."""
TIERS = {"1K": 1, "2K": 2}


@dataclass(frozen=True, slots=True)
class Offers:
    """What one model takes: its resolution tiers and its most images a request."""

    tiers: tuple[str, ...]
    max_images: int = 4


def _imagen(name: str, per_image: float) -> ModelSpec:
    return ModelSpec(
        display_name=name,
        context_length=480,
        pricing=Pricing(units={"image": [UnitPrice(value=per_image, unit="perCount")]}),
        owned_by="google",
        tool_call=False,
        temperature=False,
        input_modalities=["text"],
        output_modalities=["image"],
    )


CATALOGUE: dict[str, ModelSpec] = {
    "google/imagen-4.0-generate-001": _imagen("Google: Imagen 4", 0.04),
    "google/imagen-4.0-ultra-generate-001": _imagen("Google: Imagen 4 Ultra", 0.06),
    "google/imagen-4.0-fast-generate-001": _imagen("Google: Imagen 4 Fast", 0.02),
}
OFFERS: dict[str, Offers] = {
    "google/imagen-4.0-generate-001": Offers(("1K", "2K")),
    "google/imagen-4.0-ultra-generate-001": Offers(("1K", "2K")),
    "google/imagen-4.0-fast-generate-001": Offers(("1K",)),
}
DEFAULT_OFFERS = Offers(("1K", "2K"))
"""What a model of the scenario files' `models:` that makes images offers."""
GPT_IMAGE = "openai/"
"""The provider whose models (the images face's GPT image models) `:predict` sizes by `imageSize`
and `quality`, ZenMux's passthroughs to OpenAI's API, up to ten images a request."""
GPT_IMAGE_OFFERS = Offers((), max_images=10)
GPT_ASPECTS: dict[str, str] = {
    "1:1": "1024x1024",
    "3:2": "1536x1024",
    "4:3": "1536x1024",
    "16:9": "1536x1024",
    "21:9": "1536x1024",
    "2:3": "1024x1536",
    "3:4": "1024x1536",
    "9:16": "1024x1536",
}
"""A GPT image model's preset for an `aspectRatio` given without `imageSize`: the square, or the
oblong preset the ratio leans to (OpenAI's API takes sizes, not ratios)."""
