"""The image models ZenMux documents (docs_source/en/api/openai/generate-an-image.md): the prompt's
text priced per million tokens, each image made priced per count (`pricings.image`, `perCount`) by
quality and size. ZenMux's listing shows no priced image model, so the prices are OpenAI's for GPT
image (USD an image: low, medium, high at 1024x1024, and at 1536x1024 or 1024x1536); a size of
gpt-image-2's own pays its quality's square price."""

from __future__ import annotations

from zenmux_emulator.scenario.schema import ModelSpec, Pricing, UnitPrice

PER_IMAGE = {"low": (0.011, 0.016), "medium": (0.042, 0.063), "high": (0.167, 0.25)}
"""USD an image by quality: square (1024x1024), then oblong (1536x1024 or 1024x1536)."""


def image_prices() -> list[UnitPrice]:
    """Each quality's price, and its price at each preset size."""
    prices = []
    for quality, (square, oblong) in PER_IMAGE.items():
        prices.append(UnitPrice(value=square, unit="perCount", when={"quality": quality}))
        for size, value in (("1024x1024", square), ("1536x1024", oblong), ("1024x1536", oblong)):
            prices.append(UnitPrice(value=value, unit="perCount", when={"quality": quality, "size": size}))
    return prices


def _image_model(name: str, prompt: float) -> ModelSpec:
    return ModelSpec(
        display_name=name,
        context_length=32_000,
        pricing=Pricing(prompt=prompt, completion=0.0, units={"image": image_prices()}),
        owned_by="openai",
        tool_call=False,
        temperature=False,
        input_modalities=["text", "image"],
        output_modalities=["image"],
    )


CATALOGUE: dict[str, ModelSpec] = {
    "openai/gpt-image-2": _image_model("OpenAI: GPT Image 2", 5.0),
    "openai/gpt-image-1.5": _image_model("OpenAI: GPT Image 1.5", 5.0),
    "openai/gpt-image-1": _image_model("OpenAI: GPT Image 1", 5.0),
}
DEFAULT_MODEL = "openai/gpt-image-2"
"""The model of a request that names none (`model` is optional in ZenMux's docs)."""
