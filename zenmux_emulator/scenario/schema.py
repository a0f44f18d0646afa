"""Pydantic models of a scenario file: `settings`, `models` and `rules`.

Every model forbids unknown keys so a typo fails at load with its line, not at request time.
Numbers are finite (JSON has no NaN or Infinity), and free-form values that a reply sends as JSON
(tool call `arguments`) are JSON data only. The field descriptions are the scenario reference;
docs/reference/scenario-schema.md lists them (written from these models), and docs/guide/scenarios.md
explains them with examples.
"""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    NonNegativeInt,
    PlainValidator,
    PrivateAttr,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from zenmux_emulator.foundation.metered import Metered
from zenmux_emulator.foundation.misbehaviours import Ask, check
from zenmux_emulator.foundation.patterns import regex_problem
from zenmux_emulator.scenario import attached
from zenmux_emulator.scenario.faces import known_api
from zenmux_emulator.scenario.query_model import StoredQueryModel

LANGUAGE = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, defer_build=True)
"""The scenario language's models' config (the faces' reply keys use it too): unknown keys refused,
immutable, and built on their first validation, so a start whose rules come from the parse cache
(`scenario/cache.py`) builds none."""

NOT_JSON = "not_json"
"""The pydantic error type of a value that JSON cannot carry; its context gives `at`, the path of the
fault below the field, and `key`, whether the fault is that path's last key rather than a value."""

_KEY_KINDS = (
    (bool, "a boolean (YAML reads yes, no, on and off as booleans too)"),
    (int, "a number"),
    (float, "a number"),
    (type(None), "null"),
    (datetime.date, "a timestamp"),
)


def _not_json_key(key: object) -> str:
    kind = next((what for cls, what in _KEY_KINDS if isinstance(key, cls)), f"a {type(key).__name__}")
    return f"not JSON: key {key!r} is {kind}, but JSON object keys are strings; quote it"


def _not_json_value(value: object) -> str:
    if isinstance(value, float):
        return (
            f"not JSON: {value!r} has no JSON form (JSON numbers are finite); "
            "arguments given as a string are sent as written"
        )
    if isinstance(value, (bytes, bytearray)):
        what, instead = "binary data (!!binary)", "a string"
    elif isinstance(value, (set, frozenset)):
        what, instead = "a set (!!set)", "a list"
    elif isinstance(value, datetime.date):
        what, instead = "a timestamp (!!timestamp)", "a string"
    elif isinstance(value, tuple):
        what, instead = "a pair (!!omap, !!pairs)", "a mapping"
    else:
        what, instead = f"a {type(value).__name__}", "JSON data"
    return f"not JSON: {what} cannot be sent in a JSON reply; write {instead}"


def _json_fault(value: object, at: tuple[object, ...]) -> tuple[tuple[object, ...], str, bool] | None:
    """The first value (or key) in document order that JSON cannot carry: (its path, why, is a key)."""
    if value is None or isinstance(value, (str, int)):  # bool is an int
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else (at, _not_json_value(value), False)
    if isinstance(value, list):
        for i, item in enumerate(value):
            if (fault := _json_fault(item, (*at, i))) is not None:
                return fault
        return None
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                return (*at, key), _not_json_key(key), True
            if (fault := _json_fault(item, (*at, key))) is not None:
                return fault
        return None
    return at, _not_json_value(value), False


def json_data(value: Any) -> Any:
    """Refuse, located below the field, any value JSON cannot carry: JSON data is strings, finite
    numbers, booleans, null, lists and mappings with string keys (integers stay within 64 bits and
    strings within Unicode at load: see `positions`)."""
    fault = _json_fault(value, ())
    if fault is not None:
        at, reason, is_key = fault
        raise PydanticCustomError(NOT_JSON, "{reason}", {"reason": reason, "at": at, "key": is_key})
    return value


class TextMatch(BaseModel):
    """Conditions on a piece of text; all given conditions must hold. A bare string means `contains`."""

    model_config = LANGUAGE

    contains: str | Annotated[list[str], Field(min_length=1)] | None = Field(
        None, description="substring(s) that must all occur"
    )
    not_contains: str | None = Field(None, description="substring that must not occur")
    equals: str | None = Field(None, description="the whole text, exactly")
    starts_with: str | None = None
    ends_with: str | None = None
    regex: str | None = Field(None, description="Python regular expression searched in the text")
    ignore_case: bool = False

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        return {"contains": value} if isinstance(value, str) else value

    @field_validator("regex")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None and (problem := regex_problem(value)) is not None:
            raise ValueError(f"invalid regular expression: {problem}")
        return value

    @model_validator(mode="after")
    def _not_empty(self) -> TextMatch:
        if not any(
            v is not None
            for v in (self.contains, self.not_contains, self.equals, self.starts_with, self.ends_with, self.regex)
        ):
            raise ValueError(
                "a text match needs at least one of contains, not_contains, equals, starts_with, ends_with, regex"
            )
        return self


class TurnRange(BaseModel):
    """An inclusive range of turns (assistant messages so far); a bare number means exactly that turn."""

    model_config = LANGUAGE

    min: NonNegativeInt | None = None
    max: NonNegativeInt | None = None

    @model_validator(mode="before")
    @classmethod
    def _exact(cls, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return {"min": value, "max": value}
        return value

    @model_validator(mode="after")
    def _ordered(self) -> TurnRange:
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min ({self.min}) is above max ({self.max}): no turn could match")
        return self


JsonScalar = str | int | float | bool | None


class ToolResultMatch(BaseModel):
    """The last message is a tool result; optionally for a named tool, with matching content or JSON fields."""

    model_config = LANGUAGE

    name: str | None = Field(None, description="the tool whose result came last")
    content: TextMatch | None = None
    json_fields: dict[str, JsonScalar | TextMatch] | None = Field(
        None, alias="json", description="dotted paths into the result parsed as JSON: a value, or a text match"
    )


Globs = Annotated[list[str], Field(min_length=1)]


APIS = Annotated[str, PlainValidator(known_api)]
"""A face a rule can be narrowed to with `match.api` (a registered face's name, `scenario/faces.py`);
`zenmux` names the ZenMux faces."""
QUERY_API = "objectiveai"
"""The face of ObjectiveAI Query requests: only rules that name it answer them (spec §5)."""
NOT_IN_QUERY_RULES = ("model", "tool_choice", "tool_result", "metadata")
"""Match keys a Query request has nothing for: refused in a rule that answers Query requests."""
QUERY_ONLY = ("query_model", "query_llms")
"""Match keys only a Query request has: they need the rule narrowed to `api: objectiveai`."""


class Match(BaseModel):
    """When a rule answers. Every given key must hold; an empty match answers everything."""

    model_config = LANGUAGE

    api: APIS | list[APIS] | None = Field(
        None,
        description="the face(s) the rule answers on: chat, anthropic, responses (zenmux: those three), objectiveai (default: every face but objectiveai)",
    )
    model: str | Globs | None = Field(None, description="glob(s) on the model id, e.g. 'openai/*'")
    last_user: TextMatch | None = Field(None, description="the text of the last user message")
    any_message: TextMatch | None = Field(None, description="the text of any message")
    system: TextMatch | None = Field(None, description="the system and developer prompts, joined")
    tools: list[str] | None = Field(None, description="names of tools that must all be offered")
    tool_choice: str | None = Field(None, description="none, auto, required, or a function name")
    turn: TurnRange | None = Field(None, description="assistant messages so far: 2, or {min: 1, max: 3}")
    tool_result: bool | ToolResultMatch | None = Field(None, description="whether the last message is a tool result")
    headers: dict[str, str | TextMatch] | None = Field(None, description="request headers (name case-insensitive)")
    metadata: dict[str, str | TextMatch] | None = Field(None, description="request metadata values")
    stream: bool | None = None
    query_model: str | None = Field(None, description="objectiveai: a glob on the 22-character Query Model id")
    query_llms: Globs | None = Field(
        None, description="objectiveai: upstream LLM id globs that must all be in the Query Model"
    )

    @property
    def apis(self) -> frozenset[str]:
        """The faces named by `api` (empty when it is absent)."""
        return frozenset([self.api] if isinstance(self.api, str) else self.api or ())


class StreamTiming(BaseModel):
    """How a streamed reply is paced and cut into chunks."""

    model_config = LANGUAGE

    first_token_ms: float = Field(0, ge=0, description="wait before the first chunk")
    chunk_ms: float = Field(0, ge=0, description="wait between chunks")
    chunk_tokens: int = Field(1, ge=1, description="tokens of content (and reasoning) per chunk")
    argument_chars: int = Field(16, ge=1, description="characters of tool-call arguments per chunk")
    tokens_per_second: float | None = Field(None, gt=0, description="pace instead of chunk_ms")
    jitter_ms: float = Field(0, ge=0, description="seeded random extra wait, up to this, per chunk")
    fault: StreamFault | None = None
    tool_calls: Literal["sequential", "interleaved"] = Field(
        "sequential", description="stream parallel calls one after another, or their fragments interleaved"
    )


class StreamFault(BaseModel):
    """Break a stream part-way: after `after_chunks` events (or a fraction of them)."""

    model_config = LANGUAGE

    kind: Literal["disconnect", "error", "malformed", "stall"]
    after_chunks: int | None = Field(None, ge=0, description="events written before the fault")
    after_fraction: float | None = Field(None, ge=0, le=1, description="share of the events written first")
    stall_ms: float = Field(0, ge=0, description="for stall: how long the stream stops")
    code: str = Field("500", description="for error: the in-stream error's code")
    message: str = Field("The provider returned an error mid-stream", description="for error: its message")

    @model_validator(mode="after")
    def _one_position(self) -> StreamFault:
        if (self.after_chunks is None) == (self.after_fraction is None):
            raise ValueError("a stream fault needs exactly one of after_chunks or after_fraction")
        return self


class ToolCallSpec(BaseModel):
    """A scripted tool call: a function call (`arguments`) or a custom tool call (`input`)."""

    model_config = LANGUAGE

    name: str = Field(min_length=1)
    type: Literal["function", "custom"] = "function"
    arguments: Annotated[dict[str, Any] | list[Any] | str | None, BeforeValidator(json_data)] = Field(
        None, description="a mapping (sent as a JSON string) or a raw string, sent as is"
    )
    input: str | None = Field(None, description="the input of a custom tool call")
    id: str | None = Field(None, description="default: deterministic, in the model family's style")

    @model_validator(mode="after")
    def _fits_type(self) -> ToolCallSpec:
        if self.type == "function" and self.input is not None:
            raise ValueError("'input' belongs to custom tool calls; a function call takes 'arguments'")
        if self.type == "custom" and self.arguments is not None:
            raise ValueError("'arguments' belongs to function calls; a custom tool call takes 'input'")
        return self


ReasoningShape = Literal["anthropic", "openai", "google"]


class UsageOverride(BaseModel):
    """Token counts to report instead of the computed ones."""

    model_config = LANGUAGE

    prompt_tokens: NonNegativeInt | None = None
    completion_tokens: NonNegativeInt | None = None
    reasoning_tokens: NonNegativeInt | None = None
    cached_tokens: NonNegativeInt | None = None


HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
HEADER_VALUE = re.compile(r"^[\x20-\x7e]*$")


def check_headers(headers: dict[str, str]) -> dict[str, str]:
    """Response headers must be sendable: token names, printable ASCII values."""
    for name, value in headers.items():
        if not HEADER_NAME.match(name):
            raise ValueError(f"header name {name!r} is not a valid HTTP header name")
        if not HEADER_VALUE.match(value):
            raise ValueError(f"header {name!r} must be printable ASCII without line breaks")
    return headers


Headers = Annotated[dict[str, str], AfterValidator(check_headers)]
"""Scripted response headers, checked at load so they can always be sent."""


class ErrorReply(BaseModel):
    """Answer with ZenMux's error envelope: a status, its type and message (catalogue defaults)."""

    model_config = LANGUAGE

    status: int = Field(ge=400, le=599)
    type: str | None = Field(None, description="default: the catalogue's type for the status")
    message: str | None = Field(None, description="default: the catalogue's message")
    headers: Headers | None = None


class RawReply(BaseModel):
    """Answer with exactly these bytes: an HTML page from a proxy, an empty body, an error inside a
    200, or a file's bytes (`body_file`: recorded audio or images, kept beside the scenario)."""

    model_config = LANGUAGE

    status: int = Field(200, ge=100, le=599)
    content_type: str = "application/json"
    body: str = ""
    body_file: str | None = Field(
        None, min_length=1, description="the body is this file's bytes, its path relative to the scenario file's folder"
    )
    headers: Headers | None = None
    _data: bytes | None = PrivateAttr(None)

    @field_validator("body_file")
    @classmethod
    def _inside(cls, value: str | None) -> str | None:
        if value is not None and (value.startswith(("/", "\\")) or ".." in value.replace("\\", "/").split("/")):
            raise ValueError("body_file must be a path inside the scenario file's folder (no leading / and no ..)")
        return value

    @model_validator(mode="after")
    def _one_body(self) -> RawReply:
        if self.body_file is not None and self.body:
            raise ValueError("give body or body_file, not both")
        return self

    @property
    def data(self) -> bytes:
        """The bytes answered: `body`'s, or the file's, read when the scenario was loaded."""
        return self._data if self._data is not None else self.body.encode()

    def load(self, folder: str) -> None:
        """Read `body_file` from the scenario file's `folder`, confined to it and bounded as every file a
        rule gives (`attached.read`; a ValueError saying why when it cannot be read)."""
        if self.body_file is not None:
            self._data = attached.read(self.body_file, Path(folder))

    @field_validator("content_type")
    @classmethod
    def _sendable(cls, value: str) -> str:
        if not HEADER_VALUE.match(value):
            raise ValueError("content_type must be printable ASCII without line breaks")
        return value


class Fault(BaseModel):
    """Before any response: wait, hang until the client leaves, close the connection, or reset it."""

    model_config = LANGUAGE

    kind: Literal["delay", "hang", "close", "reset"]
    delay_ms: float = Field(0, ge=0, description="for delay: the wait before answering")


FinishReason = Literal["stop", "length", "content_filter", "tool_calls", "function_call"]


class EncryptedReasoning(BaseModel):
    """An upstream's `reasoning.encrypted` block, kept as received: sent and accepted back verbatim."""

    model_config = LANGUAGE

    id: str = Field(min_length=1, description="the reasoning item's id (rs_…)")
    data: str = Field(min_length=1, description="the opaque encrypted content")


class UrlCitation(BaseModel):
    """A web source the reply's content cites: `content[start_index:end_index]` is the cited text."""

    model_config = LANGUAGE

    url: str = Field(min_length=1)
    title: str = ""
    start_index: NonNegativeInt = Field(description="the first character of the cited text in `content`")
    end_index: NonNegativeInt = Field(description="one past its last character (OpenAI's convention)")


class Annotation(BaseModel):
    """`{type: url_citation, url_citation: {...}}`, as chat completions carry it."""

    model_config = LANGUAGE

    type: Literal["url_citation"] = "url_citation"
    url_citation: UrlCitation


def _template_syntax(text: str) -> bool:
    return "{{" in text or "{%" in text or "{#" in text


class Reply(BaseModel):
    """One scripted answer. `content` and `refusal` may use templates over the request. A face may
    add keys of its own, described with its name (ObjectiveAI's `query`, embeddings' `vectors`,
    rerank's `scores`)."""

    # The keys every face reads. A face adds its own with a `ReplyKeys` model on its `FaceSpec`, and
    # rules are read with the Reply compiled from the registered faces' keys (`scenario/language.py`).

    model_config = LANGUAGE

    content: str | None = Field(None, description="reply text; a template")
    refusal: str | None = Field(None, description="refusal text; a template")
    finish_reason: FinishReason | None = Field(None, description="default: stop, or as truncation dictates")
    usage: UsageOverride | None = None
    model: str | None = Field(None, description="the model the reply says served it")
    service_tier: str | None = None
    system_fingerprint: str | None = None
    headers: Headers | None = Field(None, description="extra response headers")
    stream: StreamTiming | None = Field(None, description="pacing when the request streams")
    tool_calls: list[ToolCallSpec] | None = Field(None, min_length=1, description="tool calls to make")
    reasoning: str | None = Field(None, description="reasoning text; a template. Default: generated when asked for")
    reasoning_shape: ReasoningShape | None = Field(
        None, description="reasoning_details shape; default: by the model's vendor"
    )
    error: ErrorReply | None = Field(None, description="answer with an error envelope instead")
    raw: RawReply | None = Field(None, description="answer with exactly these bytes instead")
    fault: Fault | None = Field(None, description="a transport fault before any response")
    verbatim: bool = Field(
        False,
        description=(
            "send content, refusal and reasoning exactly as written: not templates, not cut by the request's "
            "limits, reasoning only when written (what `zenmux-emulator record` writes)"
        ),
    )
    reasoning_signature: str | None = Field(
        None, description="the reasoning block's signature as an upstream sent it (anthropic, google shapes)"
    )
    reasoning_encrypted: EncryptedReasoning | None = Field(
        None, description="the encrypted reasoning block as an upstream sent it (openai shape)"
    )
    annotations: list[Annotation] | None = Field(
        None, description="url_citation annotations of `content` (literal text; indices checked at load)"
    )

    @model_validator(mode="after")
    def _one_kind(self) -> Reply:
        if self.error is not None and self.raw is not None:
            raise ValueError("a reply is an error or a raw body, not both")
        if (self.reasoning_signature is not None or self.reasoning_encrypted is not None) and self.reasoning is None:
            raise ValueError("a recorded reasoning_signature or reasoning_encrypted needs the reasoning it goes with")
        return self

    @model_validator(mode="after")
    def _citations_fit(self) -> Reply:
        """Each citation's [start_index, end_index) lies inside the literal content."""
        for i, note in enumerate(self.annotations or ()):
            cite, at = note.url_citation, ("annotations", i, "url_citation")
            if self.content is None or (not self.verbatim and _template_syntax(self.content)):
                raise PydanticCustomError(
                    "citation",
                    "{reason}",
                    {
                        "reason": ("annotations cite literal content: this reply's content is absent or a template"),
                        "at": at,
                    },
                )
            if not cite.start_index <= cite.end_index <= len(self.content):
                raise PydanticCustomError(
                    "citation",
                    "{reason}",
                    {
                        "reason": (
                            f"start_index {cite.start_index} and end_index {cite.end_index} must satisfy "
                            f"start_index <= end_index <= {len(self.content)} (the content's length)"
                        ),
                        "at": at,
                    },
                )
        return self


FACE_KEY = "face"
"""Where a face's own reply key names its face, in the compiled Reply's field (`json_schema_extra`, so
the JSON Schema says it too) for the loader's "did you mean"."""


class ReplyKeys(BaseModel):
    """The reply keys a face adds to the scenario language: subclass it with optional fields (default
    None) and register it as its `FaceSpec.reply`. A rule's reply is then an instance of it too, so the
    face reads its keys with `isinstance(draft.spec, ItsKeys)`; its validators run on the whole reply."""

    model_config = LANGUAGE


SequenceEnd = Literal["repeat_last", "cycle", "error", "fall_through"]


class Expect(Match):
    """What a request that this rule answers must also satisfy; a miss does not stop the answer,
    it is reported (journal, `X-Emulator-Expectations`, a failing test under the plugin)."""

    body: dict[str, JsonScalar | TextMatch] | None = Field(
        None, description="dotted paths into the request body: a value, or a text match"
    )
    reasoning_intact: bool = Field(
        False, description="every assistant tool-call message carries the signed reasoning it received, unaltered"
    )


class Chaos(BaseModel):
    """A seeded share (`rate`) of requests fail with an error (default 503) or a transport fault."""

    model_config = LANGUAGE

    rate: float = Field(ge=0, le=1, description="the share of requests that fail, 0 to 1")
    error: ErrorReply | None = Field(None, description="the error they answer (default: status 503)")
    fault: Fault | None = Field(None, description="or the transport fault they suffer")

    @model_validator(mode="after")
    def _one_failure(self) -> Chaos:
        if self.error is not None and self.fault is not None:
            raise ValueError("chaos fails with an error or a fault, not both")
        return self


class Misbehave(BaseModel):
    """A fault of the misbehaviour catalogue the rule's replies are made wrong with: a seeded share
    (`rate`) of its answers, at most `times` of them in a session."""

    model_config = LANGUAGE

    fault: str = Field(description="the fault's name (GET /_emulator/misbehave lists them)")
    variant: str | None = Field(None, description="one of the fault's variants (default: drawn per request)")
    rate: float = Field(1.0, ge=0, le=1, description="the share of the rule's answers that misbehave, 0 to 1")
    times: int | None = Field(None, ge=1, description="at most this many of its answers in a session")

    @model_validator(mode="before")
    @classmethod
    def _named(cls, value: Any) -> Any:
        """`misbehave: refusal` is `misbehave: {fault: refusal}`."""
        return {"fault": value} if isinstance(value, str) else value

    @model_validator(mode="after")
    def _known(self) -> Misbehave:
        check(self.fault, self.variant)
        return self

    def ask(self) -> Ask:
        return Ask(self.fault, self.variant, self.rate, self.times)


StateName = Annotated[str, Field(min_length=1, max_length=128)]


class TimedState(BaseModel):
    """A move that ends by itself: to `to` at once, then on to `then` after `after_s` seconds of
    the emulator's clock (a provider outage that recovers, a cool-down, a token that expires)."""

    model_config = LANGUAGE

    to: StateName = Field(description="the state the scenario moves to when the rule answers")
    after_s: float | None = Field(None, gt=0, description="seconds on the emulator's clock before it moves on")
    then: StateName | None = Field(None, description="the state it moves on to (default: started)")

    @model_validator(mode="after")
    def _then_needs_after(self) -> TimedState:
        if self.then is not None and self.after_s is None:
            raise ValueError("'then' needs 'after_s': the seconds before the scenario moves on")
        return self

    @property
    def next(self) -> str | None:
        """The state it moves on to once `after_s` has passed (None: it stays)."""
        return None if self.after_s is None else (self.then or "started")


class Rule(BaseModel):
    """A named stub: a `match` and the `reply` (or sequence of `replies`) it answers with."""

    model_config = LANGUAGE

    name: str = Field(min_length=1)
    priority: int = Field(0, description="higher wins; ties go to file order")
    match: Match = Field(default_factory=Match)
    expect: Expect | None = None
    reply: Reply | None = None
    replies: list[Reply] | None = Field(None, min_length=1)
    then: SequenceEnd = Field("repeat_last", description="after the last of `replies`")
    chaos: Chaos | None = Field(None, description="a seeded share of its requests fail instead")
    misbehave: Misbehave | None = Field(
        None, description="a fault its replies are made wrong with (docs/guide/misbehaviour.md)"
    )
    scenario: StateName | None = Field(None, description="the state machine the rule belongs to")
    when_state: StateName | None = Field(
        None, description="match only while its scenario is in this state (every scenario starts in started)"
    )
    set_state: StateName | TimedState | None = Field(
        None, description="after it answers, move its scenario to this state: a name, or {to, after_s, then}"
    )

    @field_validator("match", mode="before")
    @classmethod
    def _empty_match(cls, value: Any) -> Any:
        """A bare `match:` (null in YAML) is an empty match: it answers everything."""
        return {} if value is None else value

    @model_validator(mode="after")
    def _one_reply_form(self) -> Rule:
        if (self.reply is None) == (self.replies is None):
            raise ValueError("a rule needs exactly one of 'reply' or 'replies'")
        return self

    @model_validator(mode="after")
    def _states_need_a_scenario(self) -> Rule:
        for key in ("when_state", "set_state"):
            if getattr(self, key) is not None and self.scenario is None:
                raise PydanticCustomError(
                    "state_rule",
                    "{reason}",
                    {
                        "reason": f"{key!r} needs 'scenario': the state machine the rule belongs to",
                        "at": (key,),
                        "key": True,
                    },
                )
        return self

    @property
    def moves_to(self) -> TimedState | None:
        """`set_state` in its long form (a name is `{to: name}`)."""
        if isinstance(self.set_state, str):
            return TimedState(to=self.set_state)
        return self.set_state

    @model_validator(mode="after")
    def _keys_fit_the_faces(self) -> Rule:
        """A rule for Query requests matches on what they have (spec §5), and only such a rule
        matches on the Query Model: the refused key is located, as other schema problems are."""
        apis = self.match.apis
        for block, where in ((self.match, "match"), (self.expect, "expect")):
            if block is None:
                continue
            for key in NOT_IN_QUERY_RULES if QUERY_API in apis else ():
                if getattr(block, key) is not None:
                    hint = "; match on query_model or query_llms" if key == "model" else ""
                    raise PydanticCustomError(
                        "query_rule",
                        "{reason}",
                        {
                            "reason": (
                                f"{key!r} is refused in a rule for ObjectiveAI Query requests (api: objectiveai): "
                                f"a Query request has none{hint}"
                            ),
                            "at": (where, key),
                            "key": True,
                        },
                    )
            for key in QUERY_ONLY if apis != {QUERY_API} else ():
                if getattr(block, key) is not None:
                    raise PydanticCustomError(
                        "query_rule",
                        "{reason}",
                        {
                            "reason": (
                                f"{key!r} matches ObjectiveAI Query requests only: it needs the rule's match "
                                "to say api: objectiveai (and no other face)"
                            ),
                            "at": (where, key),
                            "key": True,
                        },
                    )
        return self

    @property
    def sequence(self) -> tuple[Reply, ...]:
        """The replies in serving order (a single `reply` is a sequence of one)."""
        return (self.reply,) if self.reply is not None else tuple(self.replies or ())


class PriceTier(BaseModel):
    """The prices of prompts from `from_prompt_tokens` on (ZenMux's long-context tiers)."""

    model_config = LANGUAGE

    from_prompt_tokens: int = Field(ge=1, description="the tier applies to prompts of at least this many tokens")
    prompt: float = Field(0, ge=0)
    completion: float = Field(0, ge=0)
    input_cache_read: float | None = Field(None, ge=0)
    input_cache_write: float | None = Field(None, ge=0)


PriceUnit = Literal["perCount", "perSecond"]


class UnitPrice(BaseModel):
    """A price not by tokens: USD per item made (`perCount`: an image, a video) or per second of
    media (`perSecond`: speech out, audio in, video), as ZenMux's `pricings` list media. A face
    reports what it metered (`foundation.metered`); `when` narrows the price to units with those
    traits (an image's `size` and `quality`), the most specific one that fits winning."""

    model_config = LANGUAGE

    value: float = Field(ge=0, description="USD per unit")
    unit: PriceUnit
    when: dict[str, str] = Field(default_factory=dict, description="traits a unit must have: size, quality, …")


class Pricing(BaseModel):
    """USD per million tokens, as ZenMux lists prices; media items (`image`, `audio`, `video`,
    `audio_and_video`) per unit in `units`."""

    model_config = LANGUAGE

    prompt: float = Field(0, ge=0)
    completion: float = Field(0, ge=0)
    input_cache_read: float | None = Field(None, ge=0)
    input_cache_write: float | None = Field(None, ge=0)
    internal_reasoning: float | None = Field(None, ge=0)
    tiers: list[PriceTier] = Field(default_factory=list, description="higher prices for long prompts, by size")
    units: dict[str, list[UnitPrice]] = Field(
        default_factory=dict, description="media priced per count or per second, by ZenMux's item: image, audio, video"
    )

    def for_prompt(self, prompt_tokens: int) -> Pricing | PriceTier:
        """The prices a prompt of this size pays: the largest tier it reaches, else the base."""
        reached = [t for t in self.tiers if prompt_tokens >= t.from_prompt_tokens]
        return max(reached, key=lambda t: t.from_prompt_tokens) if reached else self

    def unit_price(self, item: str, unit: str, traits: Mapping[str, str]) -> UnitPrice | None:
        """The price of one metered unit: of its item and unit, the one whose `when` fits its traits
        with the most conditions (None: this item is not priced so)."""
        fitting = [
            price
            for price in self.units.get(item, ())
            if price.unit == unit and all(traits.get(k) == v for k, v in price.when.items())
        ]
        return max(fitting, key=lambda price: len(price.when)) if fitting else None

    def fees(self, metered: list[Metered]) -> list[tuple[Metered, float]]:
        """Each metered item with its rate (USD a unit); an item this model does not price costs nothing."""
        out = []
        for used in metered:
            price = self.unit_price(used["item"], used["unit"], used["traits"])
            out.append((used, price.value if price is not None else 0.0))
        return out

    def metered_cost(self, metered: list[Metered]) -> float:
        """USD of the metered items at their rates."""
        return sum(used["amount"] * rate for used, rate in self.fees(metered))


Modality = Literal["text", "image", "audio", "video", "file"]
Face = Literal["chat", "anthropic", "responses"]


def _text_only() -> list[Modality]:
    """A model's default modalities: a fresh list each time."""
    return ["text"]


class ProviderSpec(BaseModel):
    """One provider of a model and how it behaves: healthy, failing always or for the first N
    requests (per session), and its latency."""

    model_config = LANGUAGE

    name: str = Field(min_length=1)
    latency_ms: float = Field(0, ge=0, description="added before the answer when it serves; orders least_latency")
    cost: float = Field(1, ge=0, description="relative price; orders primary_factor cost/price")
    fail: ErrorReply | None = Field(None, description="the error it answers with")
    fail_first: int | None = Field(None, ge=1, description="fail only the first N requests of a session")


class ModelSpec(BaseModel):
    """A catalogue entry, as `GET /api/v1/models` lists it, with its providers for routing."""

    model_config = LANGUAGE

    display_name: str | None = None
    context_length: int = Field(128_000, ge=1, description="prompts over it answer 413 `Prompt is too long`")
    reasoning: bool = False
    pricing: Pricing = Field(default_factory=Pricing)
    owned_by: str | None = None
    created: int | None = None
    input_modalities: list[Modality] = Field(default_factory=_text_only)
    output_modalities: list[Modality] = Field(default_factory=_text_only)
    providers: list[ProviderSpec] = Field(default_factory=list, description="default: one healthy provider, the vendor")
    fallback_model: str | None = Field(
        None, description='served when every provider fails (unless fallback is "false")'
    )
    max_output_tokens: int | None = Field(None, ge=1, description="the model's output limit (unknown: none)")
    tool_call: bool = Field(True, description="the model calls tools")
    attachment: bool = Field(False, description="the model reads attached files")
    temperature: bool = Field(True, description="the model takes a temperature")
    release_date: datetime.date | None = Field(None, description="listed as `created` (midnight UTC)")
    preferred_face: Face | None = Field(None, description="the face clients use for it: chat, anthropic or responses")


MODEL_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


class KeyLimits(BaseModel):
    """Rate limits of one API key: requests and prompt tokens per window (absent: not limited)."""

    model_config = LANGUAGE

    rpm: int | None = Field(None, ge=1, description="requests per window")
    tpm: int | None = Field(None, ge=1, description="prompt tokens per window, counted at admission")
    window_s: float | None = Field(None, gt=0, description="the window the buckets refill over")


class Limits(KeyLimits):
    """Rate limits of every key, with per-key overrides under `keys` (a key's given fields win)."""

    window_s: float | None = Field(60, gt=0, description="the window the buckets refill over (default 60 s)")
    keys: dict[str, KeyLimits] = Field(default_factory=dict, description="per-key overrides")


BalanceError = Literal["insufficient_credit", "quote_exceeded", "reject_no_credit"]


class QuotaWindow(BaseModel):
    """A rolling subscription window of the Platform API's `subscription/detail`."""

    model_config = LANGUAGE

    max_flows: float = Field(gt=0, description="the Flows the window allows")
    used_flows: float = Field(0, ge=0, description="Flows used before the emulator's own traffic (added to it)")


class Plan(BaseModel):
    """The subscription plan `subscription/detail` reports."""

    model_config = LANGUAGE

    tier: Literal["free", "pro", "max", "ultra"] = "ultra"
    amount_usd: float = Field(200, ge=0)
    expires_at: datetime.datetime | None = Field(
        None, description="default: 30 days after the emulator's clock at start"
    )


class Account(BaseModel):
    """The account the Platform API (`/api/v1/management/...`) reports on; spend comes from the
    emulator's own generation records."""

    model_config = LANGUAGE

    top_up_credits: float | None = Field(
        None, ge=0, description="PAYG credits bought (USD); default: the sum of `balances`, else 100"
    )
    bonus_credits: float = Field(0, ge=0, description="PAYG credits given; spent before the top-up credits")
    plan: Plan = Field(default_factory=Plan)
    account_status: Literal["healthy", "monitored", "abusive", "suspended", "banned"] = "healthy"
    base_usd_per_flow: float = Field(0.03283, gt=0)
    effective_usd_per_flow: float | None = Field(None, gt=0, description="default: the base rate")
    quota_5_hour: QuotaWindow = Field(default_factory=lambda: QuotaWindow(max_flows=800))
    quota_7_day: QuotaWindow = Field(default_factory=lambda: QuotaWindow(max_flows=6182))
    quota_monthly_flows: float = Field(34560, gt=0)
    usage_rpm: int = Field(60, ge=1, description="requests a minute `/usage` and `/cost` share")


class FileSettings(BaseModel):
    """Server behaviour a scenario file may set."""

    model_config = LANGUAGE

    api_keys: list[str] = Field(default_factory=list, description="accept only these keys (with --api-key)")
    catalogue: Literal["open", "closed"] | None = Field(
        None,
        description="unset: ZenMux's catalogue and the declared models, others refused; "
        "open: any well-formed model id answers; closed: only the declared models",
    )
    limits: Limits | None = Field(None, description="per-key rate limits: rpm, tpm, window_s, keys")
    balances: dict[str, float] = Field(default_factory=dict, description="USD credits per key; others unlimited")
    balance_error: BalanceError | None = Field(
        None, description="the 402 type of a spent balance (default reject_no_credit)"
    )
    account: Account | None = Field(None, description="the account the Platform API reports (balance, plan, quotas)")
    server_wide_scenarios: list[StateName] = Field(
        default_factory=list,
        description="scenarios whose state every session shares (default: each session has its own)",
    )
    time_scale: float | None = Field(
        None,
        ge=0,
        description="what every wait (first token, chunk gaps, keep-alives, delay faults, provider latency) is "
        "multiplied by: 0 sends at once, 1 as scripted (--time-scale and X-Emulator-Time-Scale come first)",
    )


class ScenarioFile(BaseModel):
    """A whole scenario file."""

    model_config = LANGUAGE

    settings: FileSettings = Field(default_factory=FileSettings)
    models: dict[str, ModelSpec] = Field(default_factory=dict)
    query_models: list[StoredQueryModel] = Field(
        default_factory=list, description="objectiveai: stored Query Models, named by id in Query requests"
    )
    rules: list[Rule] = Field(default_factory=list)

    @field_validator("models")
    @classmethod
    def _model_ids(cls, value: dict[str, ModelSpec]) -> dict[str, ModelSpec]:
        for model_id in value:
            if not MODEL_ID.match(model_id):
                raise ValueError(f"model id {model_id!r} is not of the form vendor/model")
        return value
