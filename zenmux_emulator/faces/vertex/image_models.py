"""The Gemini models that answer with images, which the packaged catalogue (chat models) lacks."""

from __future__ import annotations

from zenmux_emulator.scenario.schema import ModelSpec, Pricing


def _image_model(name: str, context: int, prompt: float, completion: float) -> ModelSpec:
    return ModelSpec(
        display_name=name,
        context_length=context,
        max_output_tokens=32_768,
        pricing=Pricing(prompt=prompt, completion=completion),
        owned_by="google",
        tool_call=False,
        input_modalities=["text", "image"],
        output_modalities=["text", "image"],
    )


MODELS: dict[str, ModelSpec] = {
    "google/gemini-2.5-flash-image": _image_model("Google: Gemini 2.5 Flash Image", 32_768, 0.3, 30.0),
    "google/gemini-2.5-flash-image-free": _image_model("Google: Gemini 2.5 Flash Image (free)", 32_768, 0, 0),
    "google/gemini-3-pro-image-preview": _image_model("Google: Gemini 3 Pro Image Preview", 65_536, 2.0, 120.0),
    "google/gemini-3-pro-image-preview-free": _image_model("Google: Gemini 3 Pro Image Preview (free)", 65_536, 0, 0),
}
"""The image models ZenMux's image generation guide lists, priced per million tokens as Google
prices their image output (text out costs the same here)."""
