"""A rerank request, checked as ZenMux documents it. Rules match it on its query (`last_user`)
and its documents (`any_message`: the query and every document; an image or video as its URL)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zenmux_emulator.core.neutral.request import cached
from zenmux_emulator.faces.common.inputs import InputsRequest, model_and_input
from zenmux_emulator.faces.rerank.models import MEDIA_TOKENS, MULTIMODAL
from zenmux_emulator.foundation import tokens
from zenmux_emulator.foundation.errors import invalid_params

MAX_DOCUMENTS = 500
MEDIA = ("image", "video")
PARAMETERS = frozenset({"top_n", "return_documents", "instruct", "fps"})


class RerankRequest(InputsRequest):
    face = "rerank"

    def __init__(
        self,
        body: Mapping[str, Any],
        headers: Mapping[str, str],
        kinds: tuple[tuple[str, bool], ...],
        top_n: int,
        return_documents: bool,
        warnings: tuple[str, ...],
        instruct: str = "",
    ) -> None:
        super().__init__(body, headers, model=body["model"], warnings=warnings)
        self.kinds = kinds
        """The query then each document as (text, whether an image or video: its URL or data)."""
        self.query = kinds[0][0]
        self.documents = tuple(text for text, _ in kinds[1:])
        self.originals: list[Any] = body["input"]["documents"]
        self.media = sum(1 for _, media in kinds if media)
        """How many images and videos the query and documents hold."""
        self.top_n = top_n
        self.return_documents = return_documents
        self.instruct = instruct
        """`parameters.instruct` (empty when not given)."""
        self.computed: dict[str, float] | None = None
        """Each distinct document's computed relevance, when made in advance (the face's `prepare`)."""

    @cached
    def last_user(self) -> str:
        return self.query

    @cached
    def system(self) -> str:
        return self.instruct

    @cached
    def texts(self) -> tuple[str, ...]:
        return (self.query, *self.documents)

    @cached
    def prompt_tokens(self) -> int:
        return sum(tokens.count(text) for text, media in self.kinds if not media) + self.media * MEDIA_TOKENS


def _content(value: object, where: str, multimodal: bool) -> tuple[str, bool]:
    """A query or document as (text, is image or video)."""
    if isinstance(value, str):
        if not value:
            raise invalid_params(f"Parameter {where} is not valid: expected a non-empty string")
        return value, False
    if isinstance(value, dict) and len(value) == 1:
        [(kind, content)] = value.items()
        if kind in ("text", *MEDIA) and isinstance(content, str) and content:
            if kind != "text" and not multimodal:
                raise invalid_params(f"Parameter {where} is not valid: this model ranks text only")
            return content, kind != "text"
    raise invalid_params(
        f"Parameter {where} is not valid: expected a string or one of "
        "{text}, {image}, {video} with a non-empty string"
    )


def parse_request(body: object, headers: Mapping[str, str]) -> RerankRequest:
    """Validate the body (400 `invalid_params` naming the field) and read it."""
    body, multimodal = model_and_input(body, MULTIMODAL, "a rerank")
    given = body["input"]
    if not isinstance(given, dict):
        raise invalid_params("Parameter input is not valid: expected an object with query and documents")
    for field in ("query", "documents"):
        if field not in given:
            raise invalid_params(f"Parameter input.{field} is required")
    documents = given["documents"]
    if not isinstance(documents, list) or not documents:
        raise invalid_params("Parameter input.documents is not valid: expected a non-empty array")
    if len(documents) > MAX_DOCUMENTS:
        raise invalid_params(f"Parameter input.documents is not valid: at most {MAX_DOCUMENTS} documents")
    kinds = [_content(given["query"], "input.query", multimodal)]
    kinds.extend(_content(doc, f"input.documents[{i}]", multimodal) for i, doc in enumerate(documents))
    top_n, returned, instruct, warnings = _parameters(body.get("parameters"), len(documents))
    return RerankRequest(body, headers, tuple(kinds), top_n, returned, warnings, instruct)


def _parameters(parameters: object, documents: int) -> tuple[int, bool, str, tuple[str, ...]]:
    """`parameters`, checked: top_n (at most the documents), return_documents, instruct, and the
    warnings of the names that are not rerank parameters."""
    if parameters is None:  # null is absent, as each parameter's own null is
        parameters = {}
    elif not isinstance(parameters, dict):  # not `or {}`: 0, false, "" and [] are not objects either
        raise invalid_params("Parameter parameters is not valid: expected an object")
    top_n = parameters.get("top_n")
    if top_n is None:
        top_n = documents
    if isinstance(top_n, bool) or not isinstance(top_n, int) or top_n < 1:
        raise invalid_params("Parameter parameters.top_n is not valid: expected a positive integer")
    returned = parameters.get("return_documents", False)
    if not isinstance(returned, bool):
        raise invalid_params("Parameter parameters.return_documents is not valid: expected a boolean")
    instruct = parameters.get("instruct")
    if instruct is not None and not isinstance(instruct, str):
        raise invalid_params("Parameter parameters.instruct is not valid: expected a string")
    fps = parameters.get("fps")
    if fps is not None and (isinstance(fps, bool) or not isinstance(fps, (int, float)) or fps <= 0):
        raise invalid_params("Parameter parameters.fps is not valid: expected a positive number")
    unknown = sorted(set(parameters) - PARAMETERS)
    warnings = tuple(f"parameters.{name}: not a rerank parameter; ignored" for name in unknown)
    return min(top_n, documents), returned, instruct or "", warnings
