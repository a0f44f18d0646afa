"""The catalogue entry of an audio model (speech's and transcription's): its text priced per million
tokens, its audio per second (`pricings.audio`, `perSecond`: speech's output, transcription's
input), no tools, no temperature, audio on the side it takes or makes."""

from __future__ import annotations

from typing import Literal

from zenmux_emulator.scenario.schema import ModelSpec, Pricing, UnitPrice


def audio_model(name: str, owner: str, text: float, per_second: float, audio: Literal["in", "out"]) -> ModelSpec:
    """A model that reads audio (`in`, transcription: `text` prices its output) or speaks it
    (`out`, speech: `text` prices its input), its audio at `per_second` USD."""
    return ModelSpec(
        display_name=name,
        context_length=32_000,
        pricing=Pricing(
            prompt=text if audio == "out" else 0.0,
            completion=text if audio == "in" else 0.0,
            units={"audio": [UnitPrice(value=per_second, unit="perSecond")]},
        ),
        owned_by=owner,
        tool_call=False,
        temperature=False,
        input_modalities=["audio"] if audio == "in" else ["text"],
        output_modalities=["audio"] if audio == "out" else ["text"],
    )
