"""Chat messages (developer, system, user, assistant, tool) and their content parts."""

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    model_validator,
)

from zenmux_emulator.faces.common.chat_parts import (
    CustomToolCall,
    FilePart,
    FunctionCallBody,
    FunctionToolCall,
    ImagePart,
    RefusalPart,
    TextPart,
)
from zenmux_emulator.faces.common.validation import StrictModel, by_shape, not_valid, tag

# --- content parts ---------------------------------------------------------------------------


class InputAudio(StrictModel):
    """The `input_audio` object of an audio part."""

    data: str
    format: str


class AudioPart(StrictModel):
    """`{"type": "input_audio", "input_audio": {...}}`."""

    type: Literal["input_audio"]
    input_audio: InputAudio


UserPart = Annotated[TextPart | ImagePart | AudioPart | FilePart, Field(discriminator="type")]
AssistantPart = Annotated[TextPart | RefusalPart, Field(discriminator="type")]
Part = TextPart | RefusalPart | ImagePart | AudioPart | FilePart


def _one_refusal_or_texts(parts: list[TextPart | RefusalPart]) -> list[TextPart | RefusalPart]:
    if len(parts) > 1 and any(isinstance(part, RefusalPart) for part in parts):
        raise not_valid("expected text parts or exactly one refusal part")
    return parts


TextContent = Annotated[
    Annotated[str, tag("string")] | Annotated[list[TextPart], tag("array")],
    by_shape("expected a string or an array of text parts"),
]
UserContent = Annotated[
    Annotated[str, tag("string")] | Annotated[list[UserPart], tag("array")],
    by_shape("expected a string or an array of content parts"),
]
AssistantContent = Annotated[
    Annotated[str, tag("string")] | Annotated[list[AssistantPart], AfterValidator(_one_refusal_or_texts), tag("array")],
    by_shape("expected a string or an array of content parts"),
]


def _part_text(part: Part) -> str | None:
    if isinstance(part, TextPart):
        return part.text
    if isinstance(part, RefusalPart):
        return part.refusal
    return None


# --- assistant history -----------------------------------------------------------------------


ToolCall = Annotated[FunctionToolCall | CustomToolCall, Field(discriminator="type")]


class AudioRef(StrictModel):
    """Reference to an earlier audio reply."""

    id: str


class ReasoningDetail(StrictModel):
    """One `reasoning_details` element; every key is kept and `raw` is the element as sent."""

    model_config = ConfigDict(extra="allow")

    type: str
    text: str | None = None
    summary: str | None = None
    data: str | None = None
    id: str | None = None
    signature: str | None = None
    format: str | None = None
    index: int | str | None = None

    _raw: dict[str, Any] = PrivateAttr(default_factory=dict)

    @model_validator(mode="wrap")
    @classmethod
    def _keep_raw(cls, data: Any, handler: ModelWrapValidatorHandler["ReasoningDetail"]) -> "ReasoningDetail":
        detail = handler(data)
        if isinstance(data, dict):
            detail._raw = dict(data)
        return detail

    @property
    def raw(self) -> dict[str, Any]:
        """The element exactly as received (key order and values unchanged)."""
        return self._raw or self.model_dump(exclude_unset=True)


# --- messages --------------------------------------------------------------------------------


class _Message(StrictModel):
    content: Any = None

    def text(self) -> str:
        """The text of the content: a string as is, text and refusal parts joined by newlines."""
        content = self.content
        if content is None:
            return ""
        if isinstance(content, str):
            return content
        return "\n".join(text for text in map(_part_text, content) if text is not None)


class DeveloperMessage(_Message):
    """`role: developer`."""

    role: Literal["developer"]
    content: TextContent
    name: str | None = None


class SystemMessage(_Message):
    """`role: system`."""

    role: Literal["system"]
    content: TextContent
    name: str | None = None


class UserMessage(_Message):
    """`role: user`; content may mix text, image, audio and file parts."""

    role: Literal["user"]
    content: UserContent
    name: str | None = None


class AssistantMessage(_Message):
    """`role: assistant`; content is optional when `tool_calls` or `function_call` is set."""

    role: Literal["assistant"]
    content: AssistantContent | None = None
    refusal: str | None = None
    name: str | None = None
    audio: AudioRef | None = None
    tool_calls: list[ToolCall] | None = None
    function_call: FunctionCallBody | None = None
    reasoning: str | None = None
    reasoning_details: list[ReasoningDetail] | None = None


class ToolMessage(_Message):
    """`role: tool`; the result of the call named by `tool_call_id`."""

    role: Literal["tool"]
    content: TextContent
    tool_call_id: str
    name: str | None = None


Message = Annotated[
    DeveloperMessage | SystemMessage | UserMessage | AssistantMessage | ToolMessage,
    Field(discriminator="role"),
]
