"""The transcription models ZenMux's docs and its users name
(docs_source/en/api/openai/create-audio-transcriptions.md), priced per million tokens."""

from __future__ import annotations

from zenmux_emulator.scenario.schema import ModelSpec, Pricing


def _asr_model(name: str, owner: str, prompt: float, completion: float) -> ModelSpec:
    return ModelSpec(
        display_name=name,
        context_length=32_000,
        pricing=Pricing(prompt=prompt, completion=completion),
        owned_by=owner,
        tool_call=False,
        temperature=False,
        input_modalities=["audio"],
    )


CATALOGUE: dict[str, ModelSpec] = {
    "qwen/qwen3-asr-flash": _asr_model("Qwen: Qwen3 ASR Flash", "qwen", 0.8, 0.0),
    "openai/whisper-1": _asr_model("OpenAI: Whisper", "openai", 6.0, 0.0),
    "openai/gpt-4o-transcribe": _asr_model("OpenAI: GPT-4o Transcribe", "openai", 6.0, 10.0),
    "openai/gpt-4o-mini-transcribe": _asr_model("OpenAI: GPT-4o mini Transcribe", "openai", 3.0, 5.0),
}
