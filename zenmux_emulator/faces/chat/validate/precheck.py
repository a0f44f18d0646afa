"""ZenMux's own 400 checks on the raw body, run before the models so their exact messages win."""

from typing import Any, TypeGuard

from zenmux_emulator.faces.common.counts import ConversationCaps, Overlong
from zenmux_emulator.faces.common.zenmux import check_provider_routing
from zenmux_emulator.foundation.errors import invalid_params

# Fields ZenMux lists as unsupported: accepted, ignored, reported as a warning (with a hint if any).
UNSUPPORTED: dict[str, str] = {
    "audio": "",
    "modalities": "",
    "functions": " (use tools)",
    "function_call": " (use tool_choice)",
    "prompt_cache_key": "",
    "prompt_cache_retention": "",
    "safety_identifier": "",
    "store": "",
    "service_tier": "",
    "prediction": "",
    "seed": "",
    "user": "",
    "max_tokens": " (use max_completion_tokens)",
}

_MAX_KEY_SHOWN = 64
CAPS = ConversationCaps("messages", ("content", "tool_calls"))
"""The messages a request may hold, and their content parts and tool calls in all (see `counts`)."""


def _is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _lacks_content(message: dict[str, Any]) -> bool:
    if message.get("content") is not None:
        return False
    if message.get("role") == "assistant":
        return not message.get("function_call") and not (
            isinstance(message.get("tool_calls"), list) and message["tool_calls"]
        )
    return True


def _check_messages(body: dict[str, Any], body_bytes: int | None) -> bool:
    """The checks on `messages`, in one pass that also tells whether any message carries tool
    calls or a tool result: only then can the tool flow fail (`check_tool_flow`)."""
    messages = body.get("messages")
    if messages is None:
        raise invalid_params("Parameter messages is required")
    if not isinstance(messages, list):
        raise invalid_params("Parameter messages is not valid: expected an array")
    if not messages:
        raise invalid_params("Parameter messages can not be empty")
    CAPS.refuse_overlong(body, overlong_message, body_bytes)
    lacking = tooled = False
    for message in messages:  # one pass: a null element is reported before one without content
        if message is None:
            raise invalid_params("Parameter messages can not contain null elements")
        if isinstance(message, dict):
            if not lacking and message.get("content") is None:
                lacking = _lacks_content(message)
            if not tooled:
                tooled = "tool_calls" in message or "tool_call_id" in message
    if lacking:
        raise invalid_params("Parameter messages can not contain elements without content")
    return tooled


def overlong_message(overlong: Overlong) -> str:
    """ZenMux's 400 for a conversation past the emulator's caps, naming the array."""
    if not overlong.parts:
        return f"Parameter messages is not valid: at most {overlong.limit} messages are allowed, got {overlong.count}"
    _, index, key = overlong.path
    return (
        f"Parameter messages[{index}].{key} is not valid: at most {overlong.limit} content parts and tool "
        f"calls are allowed in all messages together, and this one brings them to {overlong.count}"
    )


def _check_conflicts(body: dict[str, Any]) -> None:
    stream_options, usage, reasoning = body.get("stream_options"), body.get("usage"), body.get("reasoning")
    include_usage = stream_options.get("include_usage") if isinstance(stream_options, dict) else None
    usage_include = usage.get("include") if isinstance(usage, dict) else None
    if isinstance(include_usage, bool) and isinstance(usage_include, bool) and include_usage != usage_include:
        raise invalid_params("Parameter stream_options.include_usage conflict with usage.include")
    include_reasoning = body.get("include_reasoning")
    exclude = reasoning.get("exclude") if isinstance(reasoning, dict) else None
    if isinstance(include_reasoning, bool) and isinstance(exclude, bool) and include_reasoning == exclude:
        raise invalid_params("Parameter include_reasoning conflict with reasoning.exclude")


_OPTIONS_CHECKED = frozenset(
    {"stream_options", "n", "temperature", "usage", "reasoning", "include_reasoning", "provider"}
)
"""The fields `_check_options` reads: a body with none of them (most) skips it."""


def precheck(body: object, body_bytes: int | None = None) -> tuple[dict[str, Any], bool]:
    """Apply ZenMux's documented 400 checks in order; return the body known to be an object, and
    whether any message carries tool calls or a tool result (see `_check_messages`). `body_bytes`
    is the size of the JSON it came from (None: not known; see `ConversationCaps.overlong`)."""
    if not isinstance(body, dict):
        raise invalid_params("Request body must be a JSON object")
    model = body.get("model")
    if model is None or model == "":
        raise invalid_params("Parameter model is required")
    if not isinstance(model, str):
        raise invalid_params("Parameter model is not valid: expected a string")
    tooled = _check_messages(body, body_bytes)
    if not _OPTIONS_CHECKED.isdisjoint(body):
        _check_options(body)
    return body, tooled


def _check_options(body: dict[str, Any]) -> None:
    """The checks on options, in ZenMux's order."""
    if body.get("stream_options") is not None and body.get("stream") is not True:
        raise invalid_params("Parameter stream_options is not supported while stream is false")
    n = body.get("n")
    if _is_number(n) and n > 1:
        raise invalid_params("Parameter n grater than 1 is not supported")
    temperature = body.get("temperature")
    if _is_number(temperature) and temperature < 0:
        raise invalid_params("Parameter temperature is not valid")
    if "stream_options" in body or "usage" in body or "reasoning" in body or "include_reasoning" in body:
        _check_conflicts(body)
    if "provider" in body:
        check_provider_routing(body)


def _ascii(text: str) -> str:
    shown = text if len(text) <= _MAX_KEY_SHOWN else text[:_MAX_KEY_SHOWN] + "..."
    if shown.isascii() and shown.isprintable():
        return shown
    return shown.encode("unicode_escape").decode("ascii")


def ignored_field_warnings(body: dict[str, Any], known: frozenset[str]) -> tuple[str, ...]:
    """One ASCII warning per unsupported (non-null) or unknown top-level key, in body order."""
    if known.issuperset(body):  # the common case, in one call
        return ()
    warnings: list[str] = []
    for key, value in body.items():
        if key in known:
            continue
        hint = UNSUPPORTED.get(key)
        if hint is not None:
            if value is not None:
                warnings.append(f"{key} is not supported by ZenMux and was ignored{hint}")
        else:
            warnings.append(f"unknown parameter '{_ascii(key)}' was ignored")
    return tuple(warnings)
