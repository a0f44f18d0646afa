"""Rebuild zenmux_emulator/scenario/catalogue.json from a snapshot of public facts about ZenMux's
catalogue (models.dev's ZenMux provider, as `zenmux-models.json` records it).

    python tools/build_catalogue.py path/to/zenmux-models.json [SNAPSHOT-DATE]

Each model keeps the facts the snapshot has, under the emulator's `ModelSpec` names; a fact the
snapshot lacks is left out (the scenario schema's default applies). Display names follow ZenMux's
`Vendor: Name` form; `pdf` input is ZenMux's `file` modality. Run by hand when the snapshot
changes, never by the emulator or its tests.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent.parent / "zenmux_emulator" / "scenario" / "catalogue.json"

VENDORS = {
    "anthropic": "Anthropic",
    "baidu": "Baidu",
    "deepseek": "DeepSeek",
    "google": "Google",
    "inclusionai": "inclusionAI",
    "kuaishou": "Kuaishou",
    "minimax": "MiniMax",
    "moonshotai": "MoonshotAI",
    "openai": "OpenAI",
    "qwen": "Qwen",
    "sapiens-ai": "Sapiens AI",
    "stepfun": "StepFun",
    "tencent": "Tencent",
    "volcengine": "Volcengine",
    "x-ai": "xAI",
    "xiaomi": "Xiaomi",
    "z-ai": "Z.AI",
}
MODALITIES = {"pdf": "file"}
PRICES = {
    "input": "prompt",
    "output": "completion",
    "cache_read": "input_cache_read",
    "cache_write": "input_cache_write",
}


def _prices(cost: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {PRICES[k]: v for k, v in cost.items() if k in PRICES}
    tiers = [
        {"from_prompt_tokens": t["tier"]["size"], **{PRICES[k]: v for k, v in t.items() if k in PRICES}}
        for t in cost.get("tiers", ())
    ]
    if tiers:
        out["tiers"] = tiers
    return out


def _modalities(names: list[str]) -> list[str]:
    mapped = [MODALITIES.get(n, n) for n in names]
    return sorted(set(mapped), key=mapped.index)


def spec(fact: dict[str, Any]) -> dict[str, Any]:
    """One model's facts under ModelSpec's names."""
    vendor = fact["id"].split("/", 1)[0]
    out: dict[str, Any] = {}
    if "name" in fact:
        out["display_name"] = f"{VENDORS.get(vendor, vendor)}: {fact['name']}"
    if "limit" in fact:
        out["context_length"] = fact["limit"]["context"]
        out["max_output_tokens"] = fact["limit"]["output"]
    for key in ("reasoning", "tool_call", "attachment", "temperature", "release_date"):
        if key in fact:
            out[key] = fact[key]
    out["pricing"] = _prices(fact["cost_per_million_usd"])
    out["owned_by"] = vendor
    if "modalities" in fact:
        out["input_modalities"] = _modalities(fact["modalities"]["input"])
        out["output_modalities"] = _modalities(fact["modalities"]["output"])
    out["preferred_face"] = fact["preferred_face"]
    return out


def main(argv: list[str]) -> None:
    source = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    found = re.search(r"\d{4}-\d{2}-\d{2}", source["source"])
    snapshot = argv[2] if len(argv) > 2 else found.group(0) if found else ""
    document = {
        "source": source["source"],
        "snapshot": snapshot,
        "note": "ZenMux's catalogue as public facts recorded it on the snapshot date; not live. "
        "Regenerate with tools/build_catalogue.py; add models of your own in a scenario file's `models:`.",
        "models": {fact["id"]: spec(fact) for fact in sorted(source["models"], key=lambda f: f["id"])},
    }
    OUT.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(document['models'])} models -> {OUT}")


if __name__ == "__main__":
    main(sys.argv)
