"""The transcription models ZenMux's docs and its users name
(docs_source/en/api/openai/create-audio-transcriptions.md): audio in priced per second, text out
per million tokens."""

from __future__ import annotations

from zenmux_emulator.faces.media.models import audio_model
from zenmux_emulator.scenario.schema import ModelSpec

CATALOGUE: dict[str, ModelSpec] = {
    "qwen/qwen3-asr-flash": audio_model("Qwen: Qwen3 ASR Flash", "qwen", 0.0, 0.000032, "in"),
    "openai/whisper-1": audio_model("OpenAI: Whisper", "openai", 0.0, 0.0001, "in"),
    "openai/gpt-4o-transcribe": audio_model("OpenAI: GPT-4o Transcribe", "openai", 10.0, 0.0001, "in"),
    "openai/gpt-4o-mini-transcribe": audio_model("OpenAI: GPT-4o mini Transcribe", "openai", 5.0, 0.00005, "in"),
}
"""Audio in per second (OpenAI's $0.006 a minute for Whisper and GPT-4o Transcribe, half that for
mini), text out per million tokens: ZenMux's listing shows no priced transcription model."""
