"""A generateContent request as the core reads it: `GeminiRequest`, built once from the validated
body and the URL (the model and the action are in the path, not the body).

The conversation is read in chat's terms, so match keys mean the same on every face:
`systemInstruction` is the system prompt, `model` contents are assistant messages, a user content
of function responses is a tool result (not user text), and `turn` counts model contents.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import orjson

from zenmux_emulator.core.draft.reasoning import EFFORT_TOKENS
from zenmux_emulator.core.neutral.request import (
    JSON_OBJECT_SCHEMA,
    NeutralRequest,
    ReasoningAsk,
    ToolOptions,
    ToolResult,
    cached,
)
from zenmux_emulator.faces.vertex import thought_signatures
from zenmux_emulator.faces.vertex.schema import json_schema
from zenmux_emulator.faces.vertex.validate import GenerateContentRequest, ThinkingConfig
from zenmux_emulator.foundation import tokens
from zenmux_emulator.foundation.signatures import Signer

LEVELS = {"minimal": "minimal", "low": "low", "medium": "medium", "high": "high"}
CHOICES = {"ANY": "required", "NONE": "none"}
ENUM_TEXT = "text/x.enum"
STRUCTURED = ("application/json", ENUM_TEXT)
"""The MIME types whose reply is made from the schema: JSON, or one of an enum's values as bare text."""


def parts_of(content: object) -> list[dict[str, Any]]:
    parts = content.get("parts") if isinstance(content, dict) else None
    return parts if isinstance(parts, list) else []


def text_of(content: object, thoughts: bool = False) -> str:
    """The text parts of a content joined by newlines (thought summaries left out unless asked)."""
    return "\n".join(
        p["text"] for p in parts_of(content) if isinstance(p.get("text"), str) and (thoughts or not p.get("thought"))
    )


def only_responses(content: Mapping[str, Any]) -> bool:
    parts = parts_of(content)
    return bool(parts) and all("functionResponse" in p or "function_response" in p for p in parts)


def _budget_effort(budget: int) -> str:
    for effort, size in EFFORT_TOKENS.items():
        if budget <= size:
            return effort
    return "xhigh"


def reasoning_ask(config: ThinkingConfig | None) -> ReasoningAsk:
    """`thinkingConfig` as the draft reads it: a budget of 0 turns thinking off, -1 is dynamic
    (the default effort), a level names the effort; silent, the catalogue's model decides."""
    if config is None or (config.thinking_budget is None and config.thinking_level is None):
        return ReasoningAsk(None)
    if config.thinking_budget == 0:
        return ReasoningAsk(False, "none")
    if config.thinking_level is not None and config.thinking_level.lower() in LEVELS:
        return ReasoningAsk(True, LEVELS[config.thinking_level.lower()])
    budget = config.thinking_budget
    if budget is None or budget < 0:
        return ReasoningAsk(True, "medium")
    return ReasoningAsk(True, _budget_effort(budget), budget)


MARKS = frozenset({"thought", "thoughtSignature"})
"""A part's flags that hold no data: a part of them alone (an empty thought passed back) counts nothing."""
MODALITIES = {"image": "IMAGE", "audio": "AUDIO", "video": "VIDEO", "application/pdf": "DOCUMENT"}
"""Google's media modality by the start of a MIME type; any other is TEXT."""


def modality(part: Mapping[str, Any]) -> str | None:
    """The modality a media part (`inlineData`, `fileData`) is counted under, None for other parts."""
    media = part.get("inlineData") or part.get("fileData")
    if not isinstance(media, dict):
        return None
    mime = str(media.get("mimeType", ""))
    return next((name for start, name in MODALITIES.items() if mime.startswith(start)), "TEXT")


def media_tokens(system: object, contents: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """The tokens of the prompt's media parts by modality (`prompt_tokens` counts each as one non-text part)."""
    counted: dict[str, int] = {}
    for content in ([system] if system else []) + list(contents):
        for part in parts_of(content):
            kind = modality(part)
            if kind is not None and kind != "TEXT":
                counted[kind] = counted.get(kind, 0) + tokens.TOKENS_PER_NON_TEXT_PART
    return counted


def by_modality(total: int, media: Mapping[str, int]) -> list[dict[str, Any]]:
    """`…TokensDetails`: the media's tokens under their modalities, the rest as TEXT."""
    text = max(total - sum(media.values()), 0)
    return [{"modality": "TEXT", "tokenCount": text}] + [
        {"modality": name, "tokenCount": count} for name, count in sorted(media.items())
    ]


def prompt_tokens(
    system: object, contents: Sequence[Mapping[str, Any]], tools: object, limit: int | None = None
) -> int:
    """The chat face's scheme: per content 3 + role + its text, calls and responses as JSON, 85 per
    other part (images, files), the tools as JSON, 3 to prime the reply; stops past `limit`."""
    total = tokens.TOKENS_PER_REPLY_PRIMING

    def room() -> int | None:
        return None if limit is None else limit - total

    for content in ([system] if system else []) + list(contents):
        total += tokens.TOKENS_PER_MESSAGE + 1
        for part in parts_of(content):
            if isinstance(part.get("text"), str):
                total += tokens.count(part["text"], room())
            elif "functionCall" in part or "functionResponse" in part:
                total += tokens.count(
                    orjson.dumps(part.get("functionCall") or part.get("functionResponse")).decode(), room()
                )
            elif not part.keys() <= MARKS:
                total += tokens.TOKENS_PER_NON_TEXT_PART
    if tools:
        total += tokens.count(orjson.dumps(tools).decode(), room())
    return total


class GeminiRequest(NeutralRequest):
    """`…:generateContent` / `…:streamGenerateContent`: the validated model for the options, the
    body for the facts, the URL for the model, the stream and the path form."""

    face = "vertex"
    carries_signatures: ClassVar[bool] = True

    def __init__(
        self,
        body: Mapping[str, Any],
        headers: Mapping[str, str],
        request: GenerateContentRequest,
        model: str,
        *,
        stream: bool,
        sse: bool,
        gemini_api: bool,
        warnings: tuple[str, ...] = (),
    ) -> None:
        config = request.generation_config
        thinking = config.thinking_config if config is not None else None
        super().__init__(
            body,
            headers,
            model,
            stream=stream and sse,
            max_tokens=config.max_output_tokens if config is not None else None,
            stop=tuple(config.stop_sequences or ()) if config is not None else (),
            reasoning=reasoning_ask(thinking),
            warnings=warnings,
        )
        self.request = request
        self.streamed = stream
        """`streamGenerateContent`: SSE with `alt=sse`, else one JSON array of responses."""
        self.gemini_api = gemini_api
        """Whether the path is the Gemini API's (`v1beta/models/…`) rather than Vertex AI's."""
        self.include_thoughts = bool(thinking is not None and thinking.include_thoughts)
        self.normal: dict[str, Any] = request.model_dump(by_alias=True, exclude_none=True)
        """The body in camelCase whichever spelling it came in (Google's parser takes both)."""
        self.contents: list[dict[str, Any]] = self.normal["contents"]

    @cached
    def _conversation(self) -> tuple[tuple[str, str], ...]:
        out: list[tuple[str, str]] = []
        system = self.normal.get("systemInstruction")
        if system:
            out.append(("system", text_of(system)))
        for content in self.contents:
            role = "assistant" if content.get("role") == "model" else "user"
            responses = [p["functionResponse"] for p in parts_of(content) if "functionResponse" in p]
            out.extend(("tool", orjson.dumps(r.get("response")).decode()) for r in responses)
            if not responses or any(isinstance(p.get("text"), str) for p in parts_of(content)):
                out.append((role, text_of(content)))
        return tuple(out)

    @cached
    def last_user(self) -> str:
        for content in reversed(self.contents):
            if content.get("role", "user") == "user" and not only_responses(content):
                return text_of(content)
        return ""

    @cached
    def system(self) -> str:
        return text_of(self.normal.get("systemInstruction"))

    @cached
    def texts(self) -> tuple[str, ...]:
        return tuple(text for _, text in self._conversation)

    @cached
    def roles(self) -> tuple[str, ...]:
        return tuple(role for role, _ in self._conversation)

    @cached
    def turn(self) -> int:
        return sum(1 for c in self.contents if c.get("role") == "model")

    @cached
    def tool_options(self) -> ToolOptions:
        offered: dict[str, Mapping[str, Any]] = {}
        for tool in self.request.tools or ():
            for declared in tool.function_declarations or ():
                given = (
                    declared.parameters_json_schema
                    if declared.parameters_json_schema is not None
                    else declared.parameters
                )
                schema = json_schema(given) if given is not None else None
                offered[declared.name] = {
                    "type": "function",
                    "name": declared.name,
                    "description": declared.description or "",
                    "parameters": schema,
                }
        return ToolOptions(offered, self.stated_tool_choice or "auto", True)

    @cached
    def stated_tool_choice(self) -> str | None:
        config = self.request.tool_config
        calling = config.function_calling_config if config is not None else None
        if calling is None or calling.mode is None:
            return None
        if calling.mode == "ANY" and calling.allowed_function_names and len(calling.allowed_function_names) == 1:
            return calling.allowed_function_names[0]
        return CHOICES.get(calling.mode, "auto")

    @cached
    def last_tool_result(self) -> ToolResult | None:
        if not self.contents or not only_responses(self.contents[-1]):
            return None
        last = parts_of(self.contents[-1])[-1]["functionResponse"]
        return str(last.get("name", "")), orjson.dumps(last.get("response")).decode()

    @cached
    def metadata(self) -> Mapping[str, str]:
        return dict(self.request.labels or {})

    @cached
    def web_search(self) -> bool:
        return any(
            t.google_search is not None or t.google_search_retrieval is not None for t in self.request.tools or ()
        )

    @cached
    def output_schema(self) -> Mapping[str, Any] | None:
        config = self.request.generation_config
        if config is None or config.response_mime_type not in STRUCTURED:
            return None
        given = config.response_json_schema if config.response_json_schema is not None else config.response_schema
        if given is not None:
            converted: Mapping[str, Any] = json_schema(given)
            return converted
        return JSON_OBJECT_SCHEMA

    @cached
    def enum_text(self) -> bool:
        """`text/x.enum`: the reply is one of the schema's values, bare (not a JSON string)."""
        config = self.request.generation_config
        return config is not None and config.response_mime_type == ENUM_TEXT

    @cached
    def uses_call_ids(self) -> bool:
        """Whether the conversation's function calls and responses carry ids: replies' calls then do too."""
        return any(
            isinstance((p.get("functionCall") or p.get("functionResponse") or {}).get("id"), str)
            for c in self.contents
            for p in parts_of(c)
        )

    @cached
    def prompt_tokens(self) -> int:
        return prompt_tokens(
            self.normal.get("systemInstruction"), self.contents, self.normal.get("tools"), self.token_limit
        )

    @cached
    def media_tokens(self) -> Mapping[str, int]:
        """The prompt's image, audio, video and document tokens, by modality (the rest is TEXT)."""
        return media_tokens(self.normal.get("systemInstruction"), self.contents)

    @cached
    def seed_material(self) -> bytes:
        return orjson.dumps(
            {"model": self.model, "system": self.normal.get("systemInstruction"), "contents": self.contents},
            option=orjson.OPT_SORT_KEYS,
        )

    def passback_findings(self, shape: str, signer: Signer, *, require_all: bool = False) -> list[str]:
        gemini_3 = self.model.split("/")[-1].startswith("gemini-3")
        return thought_signatures.findings(
            self.contents, signer, gemini_3=gemini_3, gemini_api=self.gemini_api, require_all=require_all
        )
