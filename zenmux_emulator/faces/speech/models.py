"""The speech models ZenMux's docs and its users name (docs_source/en/api/openai/create-audio-speech.md),
priced per million tokens (text in, audio out), and the voices the emulator knows."""

from __future__ import annotations

from zenmux_emulator.scenario.schema import ModelSpec, Pricing


def _speech_model(name: str, owner: str, prompt: float, completion: float) -> ModelSpec:
    return ModelSpec(
        display_name=name,
        context_length=32_000,
        pricing=Pricing(prompt=prompt, completion=completion),
        owned_by=owner,
        tool_call=False,
        temperature=False,
        output_modalities=["audio"],
    )


CATALOGUE: dict[str, ModelSpec] = {
    "google/gemini-3.1-flash-tts-preview": _speech_model("Google: Gemini 3.1 Flash TTS", "google", 0.5, 10.0),
    "openai/gpt-4o-mini-tts": _speech_model("OpenAI: GPT-4o mini TTS", "openai", 0.6, 12.0),
    "openai/tts-1": _speech_model("OpenAI: TTS 1", "openai", 15.0, 0.0),
    "openai/tts-1-hd": _speech_model("OpenAI: TTS 1 HD", "openai", 30.0, 0.0),
}

OPENAI_VOICES = (
    "alloy",
    "ash",
    "ballad",
    "coral",
    "echo",
    "fable",
    "onyx",
    "nova",
    "sage",
    "shimmer",
    "verse",
    "marin",
    "cedar",
)
GEMINI_VOICES = (
    "Zephyr", "Puck", "Charon", "Kore", "Fenrir", "Leda", "Orus", "Aoede", "Callirrhoe", "Autonoe",
    "Enceladus", "Iapetus", "Umbriel", "Algieba", "Despina", "Erinome", "Algenib", "Rasalgethi",
    "Laomedeia", "Achernar", "Alnilam", "Schedar", "Gacrux", "Pulcherrima", "Achird", "Zubenelgenubi",
    "Vindemiatrix", "Sadachbia", "Sadaltager", "Sulafat",
)  # fmt: skip
VOICES = {voice.lower(): voice for voice in (*OPENAI_VOICES, *GEMINI_VOICES)}
"""Every voice, by its lower-cased name: OpenAI's and Gemini's prebuilt voices."""
