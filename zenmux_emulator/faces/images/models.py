"""The image models ZenMux documents (docs_source/en/api/openai/generate-an-image.md), priced per
million tokens as OpenAI lists GPT image (text in, image out)."""

from __future__ import annotations

from zenmux_emulator.scenario.schema import ModelSpec, Pricing


def _image_model(name: str, prompt: float, completion: float) -> ModelSpec:
    return ModelSpec(
        display_name=name,
        context_length=32_000,
        pricing=Pricing(prompt=prompt, completion=completion),
        owned_by="openai",
        tool_call=False,
        temperature=False,
        input_modalities=["text", "image"],
        output_modalities=["image"],
    )


CATALOGUE: dict[str, ModelSpec] = {
    "openai/gpt-image-2": _image_model("OpenAI: GPT Image 2", 5.0, 40.0),
    "openai/gpt-image-1.5": _image_model("OpenAI: GPT Image 1.5", 5.0, 40.0),
    "openai/gpt-image-1": _image_model("OpenAI: GPT Image 1", 5.0, 40.0),
}
DEFAULT_MODEL = "openai/gpt-image-2"
"""The model of a request that names none (`model` is optional in ZenMux's docs)."""
FREE_SIZES = frozenset({"openai/gpt-image-2"})
"""The models that take any `WxH` within the guide's bounds, not only the presets."""
