"""OpenAI's chat message parts and tool calls as pydantic models, shared by the faces whose
requests carry chat messages (chat completions, ObjectiveAI's Query Completions). Each face keeps
its own unions over them, which word a wrong tag its API's way (and ObjectiveAI's own audio part)."""

from typing import Literal

from zenmux_emulator.faces.common.validation import StrictModel


class CacheControl(StrictModel):
    """Anthropic-style prompt-cache breakpoint on a text part."""

    type: Literal["ephemeral"]
    ttl: Literal["5m", "1h"] | None = None


class TextPart(StrictModel):
    """`{"type": "text", "text": ...}`."""

    type: Literal["text"]
    text: str
    cache_control: CacheControl | None = None


class RefusalPart(StrictModel):
    """`{"type": "refusal", "refusal": ...}` (assistant history only)."""

    type: Literal["refusal"]
    refusal: str


class ImageUrl(StrictModel):
    """The `image_url` object of an image part."""

    url: str
    detail: Literal["auto", "low", "high"] | None = None


class ImagePart(StrictModel):
    """`{"type": "image_url", "image_url": {...}}`."""

    type: Literal["image_url"]
    image_url: ImageUrl


class FileRef(StrictModel):
    """The `file` object of a file part; every key is optional."""

    file_id: str | None = None
    file_data: str | None = None
    filename: str | None = None


class FilePart(StrictModel):
    """`{"type": "file", "file": {...}}`."""

    type: Literal["file"]
    file: FileRef


class FunctionCallBody(StrictModel):
    """`{name, arguments}` of a function tool call (or the legacy `function_call`)."""

    name: str
    arguments: str


class FunctionToolCall(StrictModel):
    """`{"id", "type": "function", "function": {name, arguments}}`."""

    id: str
    type: Literal["function"]
    function: FunctionCallBody


class CustomCallBody(StrictModel):
    """`{name, input}` of a custom tool call."""

    name: str
    input: str


class CustomToolCall(StrictModel):
    """`{"id", "type": "custom", "custom": {name, input}}`."""

    id: str
    type: Literal["custom"]
    custom: CustomCallBody
