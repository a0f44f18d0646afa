"""The neutral request of a face whose body is inputs, not a conversation (embeddings, rerank):
no system prompt, tools or metadata; every input reads as a user message."""

from __future__ import annotations

from collections.abc import Mapping

from zenmux_emulator.neutral.request import NeutralRequest, ToolOptions, ToolResult, cached


class InputsRequest(NeutralRequest):
    """Subclasses give `texts` (every input, in order) and `last_user` (what rules match first)."""

    @cached
    def system(self) -> str:
        return ""

    @cached
    def roles(self) -> tuple[str, ...]:
        return ("user",) * len(self.texts)

    @cached
    def tool_options(self) -> ToolOptions:
        return ToolOptions()

    @cached
    def stated_tool_choice(self) -> str | None:
        return None

    @cached
    def last_tool_result(self) -> ToolResult | None:
        return None

    @cached
    def metadata(self) -> Mapping[str, str]:
        return {}

    @cached
    def seed_material(self) -> bytes:
        return "\x00".join(self.texts).encode()
