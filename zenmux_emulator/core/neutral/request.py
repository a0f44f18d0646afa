"""The request as the core reads it, whatever face it came through.

A face validates its wire request and builds a `NeutralRequest` subclass from it: the options the
core needs are set at once (model, stream, limits, reasoning and tool asks, routing), and the
facts rules match on (the last user text, the turn, the tool result, …) are computed from the
face's own conversation the first time something reads them, and never again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, ClassVar, Generic, TypeVar

import orjson

from zenmux_emulator.foundation.signatures import Signer

T = TypeVar("T")


class cached(Generic[T]):
    """A fact worked out from the request the first time it is read, then kept on the instance:
    `functools.cached_property` without the lock Python 3.11 takes on every first read: a request
    reads about a dozen facts, once each, from one task, and needs no lock. Python 3.12 dropped that
    lock: there, this is `functools.cached_property`."""

    def __init__(self, func: Callable[[Any], T]) -> None:
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: object, owner: type | None = None) -> T:
        if instance is None:
            return self  # type: ignore[return-value]
        value = instance.__dict__[self.name] = self.func(instance)  # found there from now on
        return value


@lru_cache(maxsize=4096)
def split_model(model: str) -> tuple[str, str | None]:
    """`vendor/model:provider` → (`vendor/model`, `provider`); the suffix pins a provider."""
    base, sep, provider = model.partition(":")
    return (base, provider) if sep and provider else (model, None)


@dataclass(frozen=True, slots=True)
class ReasoningAsk:
    """What the request says about reasoning: on (True), explicitly off (False) or silent (None)."""

    enabled: bool | None
    effort: str = "medium"
    max_tokens: int | None = None
    exclude: bool = False


SILENT_REASONING = ReasoningAsk(enabled=None)

JSON_OBJECT_SCHEMA: Mapping[str, Any] = {"type": "object", "properties": {"answer": {"type": "string"}}}
"""The output schema of a JSON-mode request (`json_object`): any object fits it, and an unscripted
reply is one made from it (`{"answer": "…"}`)."""


@dataclass(slots=True)
class ToolOptions:
    """What the request says about tools: the offered ones by name (each `{"type", "name",
    "parameters", …}`), the choice, parallel calls."""

    offered: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    choice: str = "auto"
    """`none` only when the request says so: scripted calls still go out when no tools are offered."""
    parallel: bool = True


ToolResult = tuple[str, str]
"""(tool name, result text) of the tool result that ends the conversation."""


class NeutralRequest:
    """A validated request of any face, as authentication, the gateway, matching and drafting read it.

    Subclasses set `face` and fill in the facts marked "the face's" below from their conversation."""

    face: ClassVar[str] = ""
    carries_signatures: ClassVar[bool] = False
    """Whether the face's conversation carries signed parts whatever the reasoning ask (Gemini's
    thought signatures on function calls): the core then checks what is passed back on every
    request, not only on those that ask for reasoning."""

    def __init__(
        self,
        body: Mapping[str, Any],
        headers: Mapping[str, str],
        model: str,
        stream: bool = False,
        max_tokens: int | None = None,
        stop: tuple[str, ...] = (),
        reasoning: ReasoningAsk = SILENT_REASONING,
        warnings: tuple[str, ...] = (),
        provider: Mapping[str, Any] | None = None,
        model_routing: Mapping[str, Any] | None = None,
    ) -> None:
        self.body = body
        """The JSON body as received: the journal keeps it and `expect.body` reads it."""
        self.headers = headers
        self.requested_model = model
        self.model, self.pinned_provider = split_model(model)
        self.stream = stream
        self.max_tokens = max_tokens
        """The limit on generated tokens (reasoning included), None when unlimited."""
        self.stop = stop
        self.reasoning = reasoning
        self.warnings = warnings
        """Fields accepted but ignored, said back in `X-Emulator-Warnings`."""
        self.provider = provider or {}
        """ZenMux's `provider` routing options."""
        self.model_routing = model_routing or {}
        """ZenMux's `model_routing_config` (for `zenmux/auto`)."""
        self.token_limit: int | None = None
        """Where counting the prompt may stop: the model's context window, set before `prompt_tokens`
        is first read. Up to it the count is exact; past it, some number above it (the request is
        refused 413 whatever its size)."""

    # the face's facts ------------------------------------------------------------------------

    @cached
    def last_user(self) -> str:
        """The text of the last user message ('' when there is none)."""
        raise NotImplementedError

    @cached
    def system(self) -> str:
        """The system and developer prompts, joined by newlines."""
        raise NotImplementedError

    @cached
    def texts(self) -> tuple[str, ...]:
        """The text of every message, in order."""
        raise NotImplementedError

    @cached
    def roles(self) -> tuple[str, ...]:
        """The role of every message, in order (`system`, `developer`, `user`, `assistant`, `tool`)."""
        raise NotImplementedError

    @cached
    def turn(self) -> int:
        """How many assistant messages the conversation already has."""
        return self.roles.count("assistant")

    @cached
    def tool_options(self) -> ToolOptions:
        """The offered tools, the stated choice (`auto` when absent) and parallel calls."""
        raise NotImplementedError

    @cached
    def stated_tool_choice(self) -> str | None:
        """`none`, `auto`, `required` or the forced tool's name, as the request stated it; None when absent."""
        raise NotImplementedError

    @cached
    def last_tool_result(self) -> ToolResult | None:
        """(tool name, content) when the last message is a tool result; the name comes from the call."""
        raise NotImplementedError

    @cached
    def metadata(self) -> Mapping[str, str]:
        raise NotImplementedError

    @cached
    def prompt_tokens(self) -> int:
        """The prompt's size in tokens, counted the face's way, up to `token_limit`."""
        raise NotImplementedError

    @cached
    def seed_material(self) -> bytes:
        """The conversation as bytes: seeded values depend on it and on nothing else."""
        raise NotImplementedError

    @cached
    def seed_text(self) -> bytes:
        """`seed_material` as `ids.digest` hashes a part (its text, encoded), made once: each seeded
        value of the request hashes it (a 30 MB conversation's text took a third of a second each time)."""
        return str(self.seed_material).encode()

    @cached
    def output_schema(self) -> Mapping[str, Any] | None:
        """The JSON Schema the reply's text must satisfy (structured output), None for free text:
        an unscripted reply is then a JSON value made from it instead of prose."""
        return None

    @cached
    def web_search(self) -> bool:
        """Whether the request turns web search on (chat's `web_search_options`, a web search tool
        on the other faces): an unscripted reply then cites sources."""
        return False

    @cached
    def query_model(self) -> str:
        """ObjectiveAI: the 22-character id of the Query Model asked for ('' on other faces)."""
        return ""

    @cached
    def query_llms(self) -> tuple[str, ...]:
        """ObjectiveAI: the upstream ids of the Query Model's LLMs (none on other faces)."""
        return ()

    # facts the core derives ------------------------------------------------------------------

    @cached
    def tools(self) -> tuple[str, ...]:
        """Names of the offered tools, in request order."""
        return tuple(self.tool_options.offered)

    @cached
    def tool_choice(self) -> str:
        """`none`, `auto`, `required`, or the name of the one tool forced. Absent: `auto` when
        tools are offered, else `none` (OpenAI's documented defaults)."""
        stated = self.stated_tool_choice
        if stated is None:
            return "auto" if self.tool_options.offered else "none"
        return stated

    @cached
    def last_tool_json(self) -> Any:
        """The last tool result parsed as JSON (None when there is none or it is not JSON)."""
        result = self.last_tool_result
        if result is None:
            return None
        try:
            return orjson.loads(result[1])
        except orjson.JSONDecodeError:
            return None

    def passback_findings(self, shape: str, signer: Signer, *, require_all: bool = False) -> list[str]:
        """What is wrong with the signed reasoning passed back: blocks that do not verify, and
        missing blocks where the upstream needs them (the face's check; none by default)."""
        return []

    def template_context(self) -> dict[str, Any]:
        """The `request` a reply template sees."""
        result = self.last_tool_result
        return {
            "model": self.model,
            "last_user": self.last_user,
            "system": self.system,
            "turn": self.turn,
            "stream": self.stream,
            "tools": list(self.tools),
            "tool_choice": self.tool_choice,
            "metadata": dict(self.metadata),
            "messages": [{"role": r, "content": t} for r, t in zip(self.roles, self.texts, strict=True)],
            "tool_result": None
            if result is None
            else {"name": result[0], "content": result[1], "json": self.last_tool_json},
        }
