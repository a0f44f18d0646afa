"""The transcription models ZenMux's docs and its users name
(docs_source/en/api/openai/create-audio-transcriptions.md), priced per million tokens."""

from __future__ import annotations

from zenmux_emulator.faces.media.models import audio_model
from zenmux_emulator.scenario.schema import ModelSpec

CATALOGUE: dict[str, ModelSpec] = {
    "qwen/qwen3-asr-flash": audio_model("Qwen: Qwen3 ASR Flash", "qwen", 0.8, 0.0, "in"),
    "openai/whisper-1": audio_model("OpenAI: Whisper", "openai", 6.0, 0.0, "in"),
    "openai/gpt-4o-transcribe": audio_model("OpenAI: GPT-4o Transcribe", "openai", 6.0, 10.0, "in"),
    "openai/gpt-4o-mini-transcribe": audio_model("OpenAI: GPT-4o mini Transcribe", "openai", 3.0, 5.0, "in"),
}
