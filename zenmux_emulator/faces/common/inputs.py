"""The neutral request of a face whose body is inputs, not a conversation (embeddings, rerank, and
the one prompt of images, Imagen and videos):
no system prompt, tools or metadata; every input reads as a user message."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

import orjson

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.core.neutral.request import NeutralRequest, ToolOptions, ToolResult, cached
from zenmux_emulator.foundation.errors import invalid_params
from zenmux_emulator.write.plan import ReplyPlan

T = TypeVar("T")


def model_and_input(body: object, models: Mapping[str, T], kind: str) -> tuple[dict[str, Any], T]:
    """The body as an object with `model` and `input`, and what `models` says of its model (a
    `:provider` suffix aside); 400 `invalid_params` naming the field otherwise."""
    if not isinstance(body, dict):
        raise invalid_params("Request body is not valid: expected a JSON object")
    for field in ("model", "input"):
        if field not in body:
            raise invalid_params(f"Parameter {field} is required")
    model = body["model"]
    if not isinstance(model, str) or not model:
        raise invalid_params("Parameter model is not valid: expected a string")
    found = models.get(model.partition(":")[0])
    if found is None:
        raise invalid_params(f"Model {model} is not valid: not {kind} model ({', '.join(models)})")
    return body, found


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


class PromptRequest(InputsRequest):
    """A request of one prompt (an image or a video to make): its one text, and what rules match as
    the last user message. The subclass sets `prompt`."""

    prompt: str

    @cached
    def last_user(self) -> str:
        return self.prompt

    @cached
    def texts(self) -> tuple[str, ...]:
        return (self.prompt,)


def inputs_plan(draft: Draft, headers: dict[str, str], body: dict[str, Any], tokens: int) -> ReplyPlan:
    """The JSON answer of a face of inputs, billed (balance, generation record) as `tokens` prompt
    tokens and no completion: the draft's text is never sent."""
    plan = ReplyPlan({**draft.headers, **headers}, orjson.dumps(body))
    plan.usage = {"prompt_tokens": tokens, "completion_tokens": 0, "total_tokens": tokens}
    return plan
