"""A Responses request as the core reads it: `ResponsesRequest`, over the conversation its items
(and the stored response it continues) make."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from zenmux_emulator.core.draft.passback import reasoning_findings
from zenmux_emulator.core.neutral.request import (
    JSON_OBJECT_SCHEMA,
    NeutralRequest,
    ReasoningAsk,
    ToolOptions,
    ToolResult,
    cached,
)
from zenmux_emulator.faces.responses.conversation import as_items, to_messages
from zenmux_emulator.faces.responses.validate import (
    AllowedToolsChoice,
    CustomTool,
    FormatJsonObject,
    FormatJsonSchema,
    FunctionTool,
    NamedChoice,
    NamespaceTool,
    ReasoningParam,
    ResponsesBody,
)
from zenmux_emulator.foundation import tokens
from zenmux_emulator.foundation.signatures import Signer

ENCRYPTED_REASONING = "reasoning.encrypted_content"
_CHAT_PATH = re.compile(r"^messages\.\d+\.content(\.\d+)?(\.[\w.]+)?: ")
_ITEM = re.compile(r"for item (\S*) could not")


def reasoning_ask(reasoning: ReasoningParam | None) -> ReasoningAsk:
    """`reasoning.effort` or `reasoning.summary` turn reasoning on; effort `none` turns it off."""
    if reasoning is None:
        return ReasoningAsk(None)
    if reasoning.effort == "none":
        return ReasoningAsk(False, "none")
    asked = reasoning.effort is not None or (reasoning.summary or reasoning.generate_summary) is not None
    return ReasoningAsk(True if asked else None, reasoning.effort or "medium")


def _offered(tool: FunctionTool | CustomTool, namespace: str | None = None) -> dict[str, Any]:
    entry = tool.model_dump(exclude_none=True, by_alias=True)
    return {**entry, "namespace": namespace} if namespace else entry


class ResponsesRequest(NeutralRequest):
    """`POST /api/v1/responses`: the validated body for the options, the items for the facts.

    `earlier` are the items of the stored response this one continues (`previous_response_id`):
    its input and its output, so the conversation has every turn before this request's input."""

    face = "responses"

    def __init__(
        self,
        body: Mapping[str, Any],
        headers: Mapping[str, str],
        parsed: ResponsesBody,
        warnings: tuple[str, ...],
        earlier: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        super().__init__(
            body,
            headers,
            parsed.model,
            stream=parsed.stream is True,
            max_tokens=parsed.max_output_tokens,
            reasoning=reasoning_ask(parsed.reasoning),
            warnings=warnings,
            provider=body.get("provider"),
            model_routing=body.get("model_routing_config"),
        )
        self.parsed = parsed
        self.input_items = as_items(body.get("input"))
        """This request's own input, as items."""
        self.items = [*earlier, *self.input_items]
        """The whole conversation after the instructions: earlier turns, then this input."""

    @property
    def store(self) -> bool:
        return self.parsed.store is not False

    @property
    def include_encrypted(self) -> bool:
        """Whether reasoning items carry `encrypted_content` (`include: ["reasoning.encrypted_content"]`)."""
        return ENCRYPTED_REASONING in (self.parsed.include or ())

    @property
    def wants_summary(self) -> bool:
        """Whether reasoning items carry their summary (`reasoning.summary` set)."""
        reasoning = self.parsed.reasoning
        return reasoning is not None and (reasoning.summary or reasoning.generate_summary) is not None

    @cached
    def messages(self) -> list[dict[str, Any]]:
        """The conversation as chat-shaped messages, `instructions` first as a developer message."""
        head = [{"role": "developer", "content": self.parsed.instructions}] if self.parsed.instructions else []
        return head + to_messages(self.items)

    @cached
    def last_user(self) -> str:
        for message in reversed(self.messages):
            if message["role"] == "user":
                return str(message["content"])
        return ""

    @cached
    def system(self) -> str:
        return "\n".join(str(m["content"]) for m in self.messages if m["role"] in ("system", "developer"))

    @cached
    def texts(self) -> tuple[str, ...]:
        return tuple(str(m["content"]) for m in self.messages)

    @cached
    def roles(self) -> tuple[str, ...]:
        return tuple(m["role"] for m in self.messages)

    @cached
    def tool_options(self) -> ToolOptions:
        offered: dict[str, Mapping[str, Any]] = {}
        for tool in self.parsed.tools or ():
            if isinstance(tool, FunctionTool | CustomTool):
                offered[tool.name] = _offered(tool)
            elif isinstance(tool, NamespaceTool):
                for inner in tool.tools:
                    offered[inner.name] = _offered(inner, tool.name)
        return ToolOptions(offered, self.stated_tool_choice or "auto", self.parsed.parallel_tool_calls is not False)

    @cached
    def stated_tool_choice(self) -> str | None:
        choice = self.parsed.tool_choice
        if choice is None or isinstance(choice, str):
            return choice
        if isinstance(choice, NamedChoice):
            return choice.name
        if isinstance(choice, AllowedToolsChoice):
            return choice.mode
        return "auto"

    @cached
    def last_tool_result(self) -> ToolResult | None:
        if not self.messages or self.messages[-1]["role"] != "tool":
            return None
        last = self.messages[-1]
        for message in reversed(self.messages):
            for call in message.get("tool_calls") or ():
                if call["id"] == last["tool_call_id"]:
                    return call[call["type"]]["name"], str(last["content"])
        return "", str(last["content"])

    @cached
    def metadata(self) -> Mapping[str, str]:
        """Always empty: ZenMux does not support `metadata` on this API (it is ignored, with a warning)."""
        return {}

    @cached
    def prompt_tokens(self) -> int:
        """Per message 3 + role + text (+85 per non-text part), its calls' JSON, 3 to prime the
        reply, and the tools' JSON."""
        limit, total = self.token_limit, tokens.TOKENS_PER_REPLY_PRIMING
        for message in self.messages:
            total += tokens.TOKENS_PER_MESSAGE + 1 + tokens.TOKENS_PER_NON_TEXT_PART * message.get("parts", 0)
            total += tokens.count(str(message["content"]), None if limit is None else limit - total)
            for call in message.get("tool_calls") or ():
                total += tokens.count(orjson.dumps(call).decode(), None if limit is None else limit - total)
        tools = self.body.get("tools")
        if tools:
            total += tokens.count(orjson.dumps(tools).decode(), None if limit is None else limit - total)
        return total

    @cached
    def seed_material(self) -> bytes:
        return orjson.dumps(
            {"model": self.model, "instructions": self.parsed.instructions, "items": self.items},
            option=orjson.OPT_SORT_KEYS,
        )

    @cached
    def web_search(self) -> bool:
        """A `web_search` (or `web_search_preview`) tool is offered."""
        return any(
            str(tool.get("type", "")).startswith("web_search")
            for tool in self.body.get("tools") or ()
            if isinstance(tool, dict)
        )

    @cached
    def output_schema(self) -> Mapping[str, Any] | None:
        text = self.parsed.text
        form = text.format if text is not None else None
        if isinstance(form, FormatJsonSchema):
            return form.schema_
        if isinstance(form, FormatJsonObject):
            return JSON_OBJECT_SCHEMA
        return None

    def passback_findings(self, shape: str, signer: Signer, *, require_all: bool = False) -> list[str]:
        """Every `encrypted_content` passed back must be one the emulator minted for that item id,
        whatever the family: on this API reasoning always travels as encrypted content. The finding
        is OpenAI's message under the path of the item in this request's `input`
        (`input.1.encrypted_content: The encrypted content for item rs_… could not be verified.`)."""
        findings = reasoning_findings(self.messages, "openai", signer, require_all=require_all)
        return [self._item_path(_CHAT_PATH.sub("", finding)) for finding in findings]

    def _item_path(self, finding: str) -> str:
        """The finding under the path of the input item it is about (the first reasoning item with
        that id whose content does not verify; the stored items a response continues always do)."""
        named = _ITEM.search(finding)
        for n, item in enumerate(self.input_items):
            if named is not None and item.get("type") == "reasoning" and (item.get("id") or "") == named.group(1):
                return f"input.{n}.encrypted_content: {finding}"
        return finding
