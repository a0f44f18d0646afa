"""The catalogue entry of an audio model (speech's and transcription's): priced per million tokens,
no tools, no temperature, audio on the side it takes or makes."""

from __future__ import annotations

from typing import Literal

from zenmux_emulator.scenario.schema import ModelSpec, Pricing


def audio_model(name: str, owner: str, prompt: float, completion: float, audio: Literal["in", "out"]) -> ModelSpec:
    """A model that reads audio (`in`, transcription) or speaks it (`out`, speech)."""
    return ModelSpec(
        display_name=name,
        context_length=32_000,
        pricing=Pricing(prompt=prompt, completion=completion),
        owned_by=owner,
        tool_call=False,
        temperature=False,
        input_modalities=["audio"] if audio == "in" else ["text"],
        output_modalities=["audio"] if audio == "out" else ["text"],
    )
