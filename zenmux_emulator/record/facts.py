"""The match of a recorded rule: what the request that produced it says, as narrowly as the match
keys allow (face, model, stream, turn, texts, tools, tool result), so it answers that request only."""

from __future__ import annotations

import hashlib
import re
from typing import Any

import orjson

from zenmux_emulator.core.neutral.request import NeutralRequest
from zenmux_emulator.record.redact import Redactor
from zenmux_emulator.scenario.schema import QUERY_API

_GLOB = re.compile(r"([*?\[])")
_WORDS = re.compile(r"[a-z0-9]+")


def literal_glob(text: str) -> str:
    """A glob that matches exactly `text` (its `*`, `?` and `[` taken literally)."""
    return _GLOB.sub(r"[\1]", text)


def match_of(ask: NeutralRequest, redactor: Redactor) -> dict[str, Any]:
    """The match keys of the request, texts masked where `--redact` (or a key) says."""
    match: dict[str, Any] = {"api": ask.face}
    if ask.face == QUERY_API:
        match["query_model"] = literal_glob(ask.query_model)
    else:
        match["model"] = literal_glob(ask.model)
    match["stream"] = ask.stream
    match["turn"] = ask.turn
    match["last_user"] = redactor.text_match(ask.last_user)
    if ask.system:
        match["system"] = redactor.text_match(ask.system)
    if ask.face != QUERY_API:
        if ask.tools:
            match["tools"] = list(ask.tools)
        if ask.stated_tool_choice is not None:
            match["tool_choice"] = ask.tool_choice
        result = ask.last_tool_result
        if result is None:
            match["tool_result"] = False
        else:
            name, content = result
            match["tool_result"] = {"name": name, "content": redactor.text_match(content)}
    return match


def key_of(match: dict[str, Any]) -> str:
    """One text per distinct match: identical requests share it."""
    return orjson.dumps(match, option=orjson.OPT_SORT_KEYS).decode()


def rule_name(match: dict[str, Any], last_user: str) -> str:
    """A readable, stable, unique name: the face, the first words of the prompt, a hash of the match."""
    words = "-".join(_WORDS.findall(last_user.lower())[:6])[:48].strip("-") or "request"
    digest = hashlib.sha256(key_of(match).encode()).hexdigest()[:8]
    return f"recorded-{match['api']}-{words}-{digest}"
