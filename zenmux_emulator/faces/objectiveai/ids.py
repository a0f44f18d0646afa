"""ObjectiveAI's content-derived ids (spec §4.2): XXH3-128 (seed 0) in 22 base62 characters.

LLM ids hash a canonical compact JSON of the LLM; a Query Model id hashes its weight JSON and then
its sorted LLM ids; `generate_id` hashes a choice's content and `confidence_id` the content after
the `_confidence` / `_preserveOrder` transform of its json_schema.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import xxhash

from zenmux_emulator.foundation.ids import completion_id

B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
ID_LENGTH = 22

# canonical key order of a Query LLM; the value's kind says how it prints
_FLOAT_FIELDS = frozenset(
    {"frequency_penalty", "presence_penalty", "temperature", "top_p", "min_p", "repetition_penalty", "top_a"}
)
_INT_FIELDS = frozenset({"select_top_logprobs", "max_completion_tokens", "max_tokens", "top_k"})
_LLM_ORDER = (
    "id",
    "mode",
    "select_top_logprobs",
    "frequency_penalty",
    "logit_bias",
    "max_completion_tokens",
    "presence_penalty",
    "reasoning_effort",
    "stop",
    "temperature",
    "top_p",
    "max_tokens",
    "min_p",
    "provider",
    "reasoning",
    "repetition_penalty",
    "top_a",
    "top_k",
    "verbosity",
    "models",
    "weight",
)
_DEFAULTS: dict[str, Any] = {
    "frequency_penalty": 0,
    "presence_penalty": 0,
    "repetition_penalty": 1,
    "temperature": 1,
    "top_p": 1,
    "min_p": 0,
    "top_a": 0,
    "max_completion_tokens": 0,
    "max_tokens": 0,
    "top_k": 0,
    "verbosity": "medium",
}
LOGPROBS_MODES = frozenset({"select_thinking_logprobs", "select_non_thinking_logprobs"})


def b62_22(n: int) -> str:
    """`n` in base62 (`0-9A-Za-z`), most significant digit first, left-padded with `0` to 22."""
    digits = []
    while n:
        n, r = divmod(n, 62)
        digits.append(B62[r])
    return "".join(reversed(digits)).rjust(ID_LENGTH, "0")


def hash_id(*parts: str) -> str:
    """One streaming XXH3-128 (seed 0) over the UTF-8 of the parts, as a 22-character id."""
    x = xxhash.xxh3_128(seed=0)
    for part in parts:
        x.update(part.encode())
    return b62_22(x.intdigest())


def jdump(value: Any) -> str:
    """Compact JSON, non-ASCII kept, keys in the value's own order."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _sub(schema: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = schema.get(key)
    return value if isinstance(value, dict) else {}


def _skipped(schema: Any) -> bool:
    """A property left out of the confidence id: `_confidence: false` (or the seed's `_confidence_`)."""
    return isinstance(schema, dict) and (schema.get("_confidence") is False or schema.get("_confidence_") is False)


def canon(value: Any, schema: Any) -> Any:
    """The value as the confidence id sees it: `_confidence: false` properties dropped, object keys
    and array items sorted unless `_preserveOrder: true`; only properties / additionalProperties /
    items are followed."""
    schema = schema if isinstance(schema, dict) else {}
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        addl = _sub(schema, "additionalProperties")
        items = [(k, canon(v, props.get(k, addl))) for k, v in value.items() if not _skipped(props.get(k, addl))]
        if schema.get("_preserveOrder") is not True:
            items.sort(key=lambda kv: kv[0])
        return dict(items)
    if isinstance(value, list):
        out = [canon(v, _sub(schema, "items")) for v in value]
        if schema.get("_preserveOrder") is not True:
            out.sort(key=jdump)
        return out
    return value


def misspelled_confidence(schema: Any) -> bool:
    """Whether the schema anywhere uses the seed's misspelling `_confidence_` (worth a warning)."""
    if isinstance(schema, dict):
        return "_confidence_" in schema or any(misspelled_confidence(v) for v in schema.values())
    if isinstance(schema, list):
        return any(misspelled_confidence(v) for v in schema)
    return False


def _float(value: Any) -> float:
    return float(value)


def _provider(provider: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if provider.get("order") is not None:
        out["order"] = list(provider["order"])
    if provider.get("allow_fallbacks") is False:
        out["allow_fallbacks"] = False
    if provider.get("require_parameters") is True:
        out["require_parameters"] = True
    if provider.get("data_collection") == "deny":
        out["data_collection"] = "deny"
    for key in ("only", "ignore", "quantizations"):
        if provider.get(key) is not None:
            out[key] = sorted(provider[key])
    if provider.get("sort") is not None:
        out["sort"] = provider["sort"]
    return out


def _reasoning(reasoning: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if reasoning.get("max_tokens"):
        out["max_tokens"] = int(reasoning["max_tokens"])
    if reasoning.get("effort") is not None:
        out["effort"] = reasoning["effort"]
    if reasoning.get("enabled") is False:
        out["enabled"] = False
    return out


def _weight(weight: Mapping[str, Any]) -> dict[str, Any]:
    if weight["type"] == "static":
        return {"type": "static", "weight": _float(weight["weight"])}
    return {
        "type": "training_table",
        "base_weight": _float(weight["base_weight"]),
        "min_weight": _float(weight["min_weight"]),
        "max_weight": _float(weight["max_weight"]),
    }


def _canonical_value(key: str, value: Any, mode: str) -> Any:
    """The canonical form of one field, or None when it holds its default and is left out."""
    if value is None:
        return None
    if key == "select_top_logprobs":
        return None if int(value) == (20 if mode in LOGPROBS_MODES else 0) else int(value)
    if key in _DEFAULTS and value == _DEFAULTS[key]:
        return None
    if key in _FLOAT_FIELDS:
        return _float(value)
    if key in _INT_FIELDS:
        return int(value)
    if key == "logit_bias":
        return {k: (int(v) if float(v).is_integer() else float(v)) for k, v in value.items()} or None
    if key == "stop":
        stops = [value] if isinstance(value, str) else list(value)
        return None if not stops else stops[0] if len(stops) == 1 else sorted(stops)
    if key == "provider":
        return _provider(value) or None
    if key == "reasoning":
        return _reasoning(value) or None
    if key == "models":
        return list(value) or None
    if key == "weight":
        return _weight(value)
    return value


def llm_canonical(llm: Mapping[str, Any]) -> str:
    """The canonical compact JSON of a Query LLM (plain JSON data, as sent), the input of its id."""
    mode = str(llm.get("mode"))
    out: dict[str, Any] = {}
    for key in _LLM_ORDER:
        value = _canonical_value(key, llm.get(key), mode)
        if value is not None:
            out[key] = value
    return jdump(out)


def llm_id(llm: Mapping[str, Any]) -> str:
    """The 22-character id of a Query LLM."""
    return hash_id(llm_canonical(llm))


def model_weight_json(weight: Mapping[str, Any]) -> str:
    """`{"type":"static"}` or `{"type":"training_table","embeddings_model":…,"top":N}`."""
    if weight["type"] == "static":
        return jdump({"type": "static"})
    return jdump({"type": "training_table", "embeddings_model": weight["embeddings_model"], "top": int(weight["top"])})


def query_model_id(weight: Mapping[str, Any], llm_ids: Sequence[str]) -> str:
    """The Query Model id: its weight JSON, then its LLM ids sorted (duplicates kept)."""
    return hash_id(model_weight_json(weight), *sorted(llm_ids))


def model_indices(llm_ids: Sequence[str]) -> list[int]:
    """For each LLM in the given order, its `model_index`: its position after a stable sort by id."""
    order = sorted(range(len(llm_ids)), key=lambda i: llm_ids[i])
    index = [0] * len(llm_ids)
    for position, original in enumerate(order):
        index[original] = position
    return index


def generate_id(content: str | None) -> str:
    """`H(content)`, with null content hashed as the empty string."""
    return hash_id(content or "")


def confidence_id(content: str | None, schema: Any | None) -> str:
    """With a json_schema (`schema` not None) and JSON content: the hash of the canonical value;
    otherwise the generate id."""
    if schema is not None and content is not None:
        try:
            value = json.loads(content)
        except ValueError:
            return generate_id(content)
        return hash_id(jdump(canon(value, schema)))
    return generate_id(content)


def value_confidence_id(value: Any, schema: Any) -> str:
    """The confidence id of a JSON value under a schema (a `{json: …}` vote target)."""
    return hash_id(jdump(canon(value, schema)))


def response_id(seed: int, session: str, number: int, created: int) -> str:
    """`qrycpl-<32 hex>-<created>`, the hex being the emulator's `completion_id`."""
    return f"qrycpl-{completion_id(seed, session, number)}-{created}"


def metadata_id(response: str, index: int, created: int) -> str:
    """`completion_metadata.id` of an LLM choice: `gen-<created>-<20 chars of H(id/index)>`."""
    return f"gen-{created}-{hash_id(f'{response}/{index}')[:20]}"
