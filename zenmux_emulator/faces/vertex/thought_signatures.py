"""Gemini's thought signatures: minted on the parts of a reply, checked when they come back.

A signature sits beside the data of a part (`{"functionCall": …, "thoughtSignature": …}`), never
inside it. The emulator puts one on the first function call of a reply, and on the last text part
of a reply that reasoned and called nothing, as Gemini does; each is the server's signer's
signature over that part's data, so an edited call, text or signature no longer verifies.

Passed back, every signature must verify (400 on every model, as Google refuses a corrupted one);
a Gemini 3 model also refuses a function call of the current turn that comes back without its
signature, with Google's own words: the Gemini API's on the `v1beta` path, Vertex AI's on `v1`.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from zenmux_emulator.foundation.signatures import Signer

FAMILY = "google"
CORRUPTED = "Corrupted thought signature."
GEMINI_API_MISSING = (
    "Function call is missing a thought_signature in functionCall parts. This is required for tools to work "
    "correctly, and missing thought_signature may lead to degraded model performance. Additional data, function "
    "call `default_api:{name}` , position {position}. Please refer to "
    "https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
)
VERTEX_MISSING = (
    "Unable to submit request because function call `{name}` in the {position}. content block is missing a "
    "`thought_signature`. Learn more: https://docs.cloud.google.com/vertex-ai/generative-ai/docs/thought-signatures"
)


def signed_data(part: Mapping[str, Any]) -> str | None:
    """What a part's signature covers: its function call (name and arguments) or its text."""
    call = part.get("functionCall")
    if isinstance(call, Mapping):
        data = {"name": call.get("name"), "args": call.get("args") or {}}
        return "functionCall:" + orjson.dumps(data, option=orjson.OPT_SORT_KEYS).decode()
    text = part.get("text")
    return "text:" + text if isinstance(text, str) else None


def sign(signer: Signer, part: Mapping[str, Any]) -> str:
    data = signed_data(part)
    assert data is not None
    return signer.sign(FAMILY, 0, data)


def _standard(signature: str) -> str | None:
    """The signature in standard base64: SDKs decode it to bytes and may send it back URL-safe."""
    try:
        raw = base64.b64decode(signature.replace("-", "+").replace("_", "/"), validate=True)
    except (binascii.Error, ValueError):
        return None
    return base64.b64encode(raw).decode()


def verifies(signer: Signer, part: Mapping[str, Any]) -> bool:
    data, signature = signed_data(part), part.get("thoughtSignature")
    if data is None or not isinstance(signature, str):
        return False
    standard = _standard(signature)
    return standard is not None and signer.verify(FAMILY, 0, data, standard)


def _current_turn(contents: Sequence[Mapping[str, Any]]) -> int:
    """Where the current turn starts: after the last user content that is not only function responses."""
    for i in range(len(contents) - 1, -1, -1):
        content = contents[i]
        parts = content.get("parts") or ()
        if content.get("role", "user") == "user" and not all("functionResponse" in p for p in parts):
            return i + 1
    return 0


def findings(
    contents: Sequence[Mapping[str, Any]],
    signer: Signer,
    *,
    gemini_3: bool,
    gemini_api: bool,
    require_all: bool = False,
) -> list[str]:
    """What is wrong with the signatures passed back: a corrupted one as `path: message`, a missing
    one in Google's words (which name the call and its content's position)."""
    found: list[str] = []
    turn = _current_turn(contents)
    for i, content in enumerate(contents):
        if content.get("role") != "model":
            continue
        parts = content.get("parts") or ()
        first_call = next((n for n, p in enumerate(parts) if "functionCall" in p), None)
        for n, part in enumerate(parts):
            where = f"contents[{i}].parts[{n}]"
            if "thoughtSignature" in part:
                if not verifies(signer, part):
                    found.append(f"{where}.thoughtSignature: {CORRUPTED}")
            elif n == first_call and (require_all or (gemini_3 and i >= turn)):
                name = part["functionCall"].get("name", "")
                text = GEMINI_API_MISSING if gemini_api else VERTEX_MISSING
                found.append(text.format(name=name, position=i))
    return found
