"""The fixed probe set: a few small requests per face, the same bytes to both sides.

Each probe asks little (a handful of output tokens) and names what it costs at most, from the
catalogue's prices, so `--budget` can stop before a probe that would pass it. Refusals (an unknown
model, a bad parameter) cost nothing."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from zenmux_emulator.scenario.schema import ModelSpec

FACES = ("chat", "anthropic", "responses", "embeddings")
DEFAULT_MODELS: Mapping[str, str] = {
    "chat": "openai/gpt-5.4-nano",
    "anthropic": "anthropic/claude-haiku-4.5",
    "responses": "openai/gpt-5.4-nano",
    "embeddings": "openai/text-embedding-3-small",
}
REASONING_MODEL = "deepseek/deepseek-v3.2"
"""The reasoning probe's model when the probed one does not reason (cheap, and it reasons)."""
UNKNOWN_MODEL = "zenmux-drift/no-such-model"
OUTPUT_TOKENS = 16
REASONING_TOKENS = 512
PATHS: Mapping[str, str] = {
    "chat": "/api/v1/chat/completions",
    "anthropic": "/api/anthropic/v1/messages",
    "responses": "/api/v1/responses",
    "embeddings": "/api/v1/embeddings",
}
QUESTION = "Say hello in three words."
WEATHER = "What is the weather in Paris and in Rome? Call get_weather once for each city, in parallel."
CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
ANSWER_SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class Probe:
    """One request of the set: sent as JSON to `path` on both sides."""

    face: str
    name: str
    path: str
    body: Mapping[str, Any]
    model: str = ""
    output_tokens: int = 0
    headers: Mapping[str, str] = field(default_factory=dict)

    @property
    def stream(self) -> bool:
        return bool(self.body.get("stream"))

    def cost(self, catalogue: Mapping[str, ModelSpec]) -> float:
        """The most it can cost in USD: its prompt (about four characters a token) and its output
        cap at the model's catalogue prices; nothing for a model the catalogue has no price for."""
        spec = catalogue.get(self.model)
        if spec is None or not self.output_tokens:
            return 0.0
        prompt_tokens = len(str(self.body)) / 4
        return (prompt_tokens * spec.pricing.prompt + self.output_tokens * spec.pricing.completion) / 1_000_000


def _chat(model: str, reasons: bool) -> list[Probe]:
    path = PATHS["chat"]
    base = {"model": model, "max_tokens": OUTPUT_TOKENS, "messages": [{"role": "user", "content": QUESTION}]}
    weather = {"role": "user", "content": WEATHER}
    tool = {"type": "function", "function": {"name": "get_weather", "parameters": CITY}}
    schema = {"type": "json_schema", "json_schema": {"name": "answer", "strict": True, "schema": ANSWER_SCHEMA}}
    probes = [
        Probe("chat", "plain", path, base, model, OUTPUT_TOKENS),
        Probe(
            "chat",
            "stream",
            path,
            {**base, "stream": True, "stream_options": {"include_usage": True}},
            model,
            OUTPUT_TOKENS,
        ),
        Probe("chat", "tool-call", path, {**base, "max_tokens": 64, "messages": [weather], "tools": [tool]}, model, 64),
        Probe("chat", "structured", path, {**base, "max_tokens": 32, "response_format": schema}, model, 32),
    ]
    thinker = model if reasons else REASONING_MODEL
    reasoning = {**base, "model": thinker, "max_tokens": REASONING_TOKENS, "reasoning": {"effort": "low"}}
    probes.append(Probe("chat", "reasoning", path, reasoning, thinker, REASONING_TOKENS))
    return probes


def _anthropic(model: str, reasons: bool) -> list[Probe]:
    path = PATHS["anthropic"]
    headers = {"anthropic-version": "2023-06-01"}
    base = {"model": model, "max_tokens": OUTPUT_TOKENS, "messages": [{"role": "user", "content": QUESTION}]}
    tool = {"name": "get_weather", "description": "The weather in a city.", "input_schema": CITY}
    tools = {**base, "max_tokens": 128, "messages": [{"role": "user", "content": WEATHER}], "tools": [tool]}
    probes = [
        Probe("anthropic", "plain", path, base, model, OUTPUT_TOKENS, headers),
        Probe("anthropic", "stream", path, {**base, "stream": True}, model, OUTPUT_TOKENS, headers),
        Probe("anthropic", "tool-call", path, tools, model, 128, headers),
        Probe(
            "anthropic",
            "count-tokens",
            f"{path}/count_tokens",
            {"model": model, "messages": base["messages"]},
            model,
            0,
            headers,
        ),
    ]
    if reasons:
        thinking = {**base, "max_tokens": 2048, "thinking": {"type": "enabled", "budget_tokens": 1024}}
        probes.append(Probe("anthropic", "reasoning", path, thinking, model, 2048, headers))
    return probes


def _responses(model: str, reasons: bool) -> list[Probe]:
    path = PATHS["responses"]
    base = {"model": model, "max_output_tokens": OUTPUT_TOKENS, "input": QUESTION}
    tool = {"type": "function", "name": "get_weather", "parameters": CITY}
    schema = {"format": {"type": "json_schema", "name": "answer", "strict": True, "schema": ANSWER_SCHEMA}}
    probes = [
        Probe("responses", "plain", path, base, model, OUTPUT_TOKENS),
        Probe("responses", "stream", path, {**base, "stream": True}, model, OUTPUT_TOKENS),
        Probe(
            "responses",
            "tool-call",
            path,
            {**base, "max_output_tokens": 64, "input": WEATHER, "tools": [tool]},
            model,
            64,
        ),
        Probe("responses", "structured", path, {**base, "max_output_tokens": 32, "text": schema}, model, 32),
    ]
    if reasons:
        reasoning = {**base, "max_output_tokens": REASONING_TOKENS, "reasoning": {"effort": "low"}}
        probes.append(Probe("responses", "reasoning", path, reasoning, model, REASONING_TOKENS))
    return probes


def _embeddings(model: str, reasons: bool) -> list[Probe]:
    body = {"model": model, "input": QUESTION}
    return [Probe("embeddings", "embedding", PATHS["embeddings"], body, model, 1)]


def _refusals(face: str) -> list[Probe]:
    """Two cheap refusals: an unknown model, and a parameter of the wrong type."""
    path = PATHS[face]
    headers = {"anthropic-version": "2023-06-01"} if face == "anthropic" else {}
    if face == "embeddings":
        body: dict[str, Any] = {"input": QUESTION}
    elif face == "responses":
        body = {"input": QUESTION, "max_output_tokens": OUTPUT_TOKENS}
    else:
        body = {"max_tokens": OUTPUT_TOKENS, "messages": [{"role": "user", "content": QUESTION}]}
    model = DEFAULT_MODELS[face]
    wrong = {"dimensions": "many"} if face == "embeddings" else {"temperature": "hot"}
    return [
        Probe(face, "unknown-model", path, {**body, "model": UNKNOWN_MODEL}, UNKNOWN_MODEL, 0, headers),
        Probe(face, "bad-parameter", path, {**body, "model": model, **wrong}, model, 0, headers),
    ]


BUILDERS = {"chat": _chat, "anthropic": _anthropic, "responses": _responses, "embeddings": _embeddings}


def probe_set(faces: Sequence[str], models: Sequence[str], catalogue: Mapping[str, ModelSpec]) -> list[Probe]:
    """The probes of these faces, for these models (default: each face's cheap one), refusals last
    in each face."""
    probes: list[Probe] = []
    for face in faces:
        chosen = [m for m in models if _fits(face, m, catalogue)] if models else [DEFAULT_MODELS[face]]
        for model in chosen:
            spec = catalogue.get(model)
            probes += BUILDERS[face](model, bool(spec and spec.reasoning))
        probes += _refusals(face)
    return probes


def _fits(face: str, model: str, catalogue: Mapping[str, ModelSpec]) -> bool:
    """Whether a model asked for with --models is probed on this face: embedding models on the
    embeddings face only, the others on the generating faces."""
    embeds = "embedding" in model
    return embeds == (face == "embeddings")
