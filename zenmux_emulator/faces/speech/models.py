"""The speech models ZenMux's docs and its users name (docs_source/en/api/openai/create-audio-speech.md),
its text in priced per million tokens and its audio out per second, and the voices the emulator knows."""

from __future__ import annotations

from zenmux_emulator.faces.media.models import audio_model
from zenmux_emulator.scenario.schema import ModelSpec

CATALOGUE: dict[str, ModelSpec] = {
    "google/gemini-3.1-flash-tts-preview": audio_model("Google: Gemini 3.1 Flash TTS", "google", 0.5, 0.00025, "out"),
    "openai/gpt-4o-mini-tts": audio_model("OpenAI: GPT-4o mini TTS", "openai", 0.6, 0.00025, "out"),
    "openai/tts-1": audio_model("OpenAI: TTS 1", "openai", 0.0, 0.00025, "out"),
    "openai/tts-1-hd": audio_model("OpenAI: TTS 1 HD", "openai", 0.0, 0.0005, "out"),
}
"""Text in per million tokens; audio out per second (about $0.015 a minute, as OpenAI estimates
gpt-4o-mini-tts; tts-1-hd twice that): ZenMux's listing shows no priced speech model."""

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
