"""The gateway's model listings made into a catalogue document (the packaged `catalogue.json`'s
shape): `GET /api/v1/models` (ids, limits, modalities, reasoning and `pricings`, tiered by prompt
size under `conditions`), and for models that only they list the Anthropic face's `GET
/api/anthropic/v1/models` and the Vertex AI face's `GET /api/vertex-ai/v1beta/models` (Google's
shape: `name`, `displayName`, `inputTokenLimit`, `outputTokenLimit`, `thinking`; no prices). What
the listings do not say (output limit, tool calls, attachments, the face clients
use) is kept from the packaged snapshot for a model it has, and guessed from the vendor otherwise."""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

from zenmux_emulator.scenario.default_models import PACKAGED

ITEMS = ("prompt", "completion", "input_cache_read", "input_cache_write", "internal_reasoning")
ALIASES = {"input_cache_write_5_min": "input_cache_write"}
"""A pricings item read as another when the listing has no item of that name."""
MEDIA_ITEMS = frozenset({"image", "audio", "video", "audio_and_video"})
"""The pricings items of media, kept as `units` when priced per count or per second."""
MODALITIES = frozenset({"text", "image", "audio", "video", "file"})
VERTEX_LISTING = "/api/vertex-ai/v1beta/models"
LISTINGS = ("/api/v1/models", "/api/anthropic/v1/models", VERTEX_LISTING)
NOTE = (
    "ZenMux's catalogue as its model listings said on the snapshot date; written by `zenmux-emulator "
    "catalogue pull`, served by `zenmux-emulator serve --catalogue FILE`."
)


def lower_bound(conditions: Any) -> int:
    """The first prompt size (tokens) an item's `conditions` price; 0 without a lower bound."""
    window = conditions.get("prompt_tokens") if isinstance(conditions, dict) else None
    if not isinstance(window, dict):
        return 0
    scale = 1000 if window.get("unit", "kTokens") == "kTokens" else 1
    if isinstance(window.get("gte"), int | float):
        return int(window["gte"] * scale)
    if isinstance(window.get("gt"), int | float):
        return int(window["gt"] * scale) + 1
    return 0


def pricing(pricings: Any) -> dict[str, Any]:
    """`pricings` (each item a list of {value, unit, conditions?}) as the catalogue's `pricing`:
    the base prices and, for each larger prompt size priced apart, a tier (its missing items
    at the base's prices)."""
    if not isinstance(pricings, dict):
        return {}
    levels: dict[int, dict[str, float]] = {}
    units: dict[str, list[dict[str, Any]]] = {}
    for name, entries in pricings.items():
        if name in MEDIA_ITEMS and isinstance(entries, list):
            media = media_prices(entries)
            if media:
                units[name] = media
            continue
        item = name if name in ITEMS else ALIASES.get(name)
        if item is None or not isinstance(entries, list):
            continue
        for entry in entries:
            if not isinstance(entry, dict) or entry.get("unit", "perMTokens") != "perMTokens":
                continue
            if isinstance(entry.get("value"), int | float) and not isinstance(entry["value"], bool):
                levels.setdefault(lower_bound(entry.get("conditions")), {}).setdefault(item, float(entry["value"]))
    base = levels.pop(0, {})
    tiers = [{"from_prompt_tokens": start, **base, **items} for start, items in sorted(levels.items())]
    return {**base, **({"tiers": tiers} if tiers else {}), **({"units": units} if units else {})}


def media_prices(entries: list[Any]) -> list[dict[str, Any]]:
    """A media item's prices per count or per second (its `perMTokens` entries, or a flag, are not prices)."""
    return [
        {"value": float(entry["value"]), "unit": entry["unit"]}
        for entry in entries
        if isinstance(entry, dict)
        and entry.get("unit") in ("perCount", "perSecond")
        and isinstance(entry.get("value"), int | float)
        and not isinstance(entry["value"], bool)
    ]


def _face(model_id: str) -> str:
    vendor = model_id.split("/", 1)[0]
    return "anthropic" if vendor == "anthropic" else "responses" if vendor == "openai" else "chat"


def model_facts(entry: Mapping[str, Any]) -> dict[str, Any]:
    """One listing entry as a catalogue entry (over the packaged snapshot's facts of it)."""
    model_id = str(entry["id"])
    known = PACKAGED.models.get(model_id)
    facts: dict[str, Any] = known.model_dump(mode="json", exclude_defaults=True) if known else {}
    facts.setdefault("preferred_face", _face(model_id))
    if isinstance(entry.get("display_name"), str):
        facts["display_name"] = entry["display_name"]
    for size in ("context_length", "max_output_tokens"):
        if isinstance(entry.get(size), int) and not isinstance(entry[size], bool) and entry[size] > 0:
            facts[size] = entry[size]
    if isinstance(entry.get("owned_by"), str):
        facts["owned_by"] = entry["owned_by"]
    if isinstance(entry.get("created"), int) and not isinstance(entry["created"], bool):
        facts["created"] = entry["created"]
    capabilities = entry.get("capabilities")
    if isinstance(capabilities, dict) and isinstance(capabilities.get("reasoning"), bool):
        facts["reasoning"] = capabilities["reasoning"]
    for side in ("input_modalities", "output_modalities"):
        listed = [m for m in entry.get(side) or [] if m in MODALITIES]
        if listed:
            facts[side] = listed
    priced = pricing(entry.get("pricings"))
    if priced:
        facts["pricing"] = priced
    return facts


def vertex_entry(model: Any) -> dict[str, Any] | None:
    """An entry of the Vertex AI face's listing (Google's shape) as `/api/v1/models` would list it;
    None when it names no model."""
    if not isinstance(model, dict) or not isinstance(model.get("name"), str):
        return None
    name = model["name"].removeprefix("models/")
    if "/models/" in name:  # Vertex AI's own form, publishers/{provider}/models/{model}
        provider, _, rest = name.removeprefix("publishers/").partition("/models/")
        name = f"{provider}/{rest}"
    if "/" not in name:
        return None
    entry: dict[str, Any] = {"id": name}
    if isinstance(model.get("outputTokenLimit"), int) and model["outputTokenLimit"] > 0:
        entry["max_output_tokens"] = model["outputTokenLimit"]
    if isinstance(model.get("displayName"), str):
        entry["display_name"] = model["displayName"]
    if isinstance(model.get("inputTokenLimit"), int):
        entry["context_length"] = model["inputTokenLimit"]
    if isinstance(model.get("thinking"), bool):
        entry["capabilities"] = {"reasoning": model["thinking"]}
    return entry


def listed_entries(path: str, body: Any) -> list[Any]:
    """The model entries of one listing's body, in `/api/v1/models`' shape."""
    if path == VERTEX_LISTING:
        models = body.get("models") if isinstance(body, dict) else None
        return [vertex_entry(model) for model in models] if isinstance(models, list) else []
    data = body.get("data") if isinstance(body, dict) else None
    return data if isinstance(data, list) else []


def catalogue_document(listings: Mapping[str, Any], source: str, today: datetime.date) -> dict[str, Any]:
    """The catalogue file's document from the listings' bodies by path (the first listing a model
    is in gives its facts)."""
    models: dict[str, dict[str, Any]] = {}
    for path in LISTINGS:
        for entry in listed_entries(path, listings.get(path)):
            if isinstance(entry, dict) and isinstance(entry.get("id"), str) and entry["id"] not in models:
                models[entry["id"]] = model_facts(entry)
    return {
        "source": source,
        "snapshot": today.isoformat(),
        "note": NOTE,
        "models": dict(sorted(models.items())),
    }
