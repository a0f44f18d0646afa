"""Extract OpenAI's chat completion and Responses schemas into `tests/support/openai_schemas.json`.

    python tools/extract_openai_schemas.py [path/to/openai-openapi.yaml]

The test-suite validates every response the emulator sends against these schemas without reading the
3 MB spec at run time. Each extracted schema is self-contained JSON Schema 2020-12: references to
`#/components/schemas/X` become `#/$defs/X` with the needed definitions copied under `$defs`, OpenAPI 3.0
`nullable: true` (which the 3.1 spec still uses in places) becomes an `anyOf` with `{"type": "null"}`, and
vendor extensions (`x-*`) and OpenAPI-only keywords (`discriminator`, `example`) are dropped.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SPEC = ROOT.parent / "shared" / "reference" / "openai-openapi.yaml"
OUTPUT = ROOT / "tests" / "support" / "openai_schemas.json"
WANTED = ("CreateChatCompletionResponse", "CreateChatCompletionStreamResponse")
RESPONSES = ("Response", "ResponseStreamEvent", "ResponseItemList")
"""Extracted together as one document, `Responses`, whose `$defs` hold them and all they reach:
a test validates against `{"$ref": "#/$defs/<name>"}` with those `$defs` (they share most of them)."""
COMPONENTS = "#/components/schemas/"

# Keywords whose value is one schema, a list of schemas, or a map of name -> schema.
ONE = {
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "additionalItems",
}
MANY = {"allOf", "anyOf", "oneOf", "prefixItems"}
NAMED = {"properties", "patternProperties", "dependentSchemas", "$defs", "definitions"}
DROPPED = {"discriminator", "example", "nullable", "xml", "externalDocs", "$recursiveAnchor"}


class _SpecLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """Safe loading, with dates left as strings so that the output stays plain JSON."""


_SpecLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def convert(schema: object, refs: set[str], here: str = "") -> object:
    """One OpenAPI schema object as JSON Schema 2020-12, noting the component names it refers to.
    `$recursiveRef: "#"` (2019-09, with `$recursiveAnchor`) refers to `here`, the component being converted."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, object] = {}
    for key, value in schema.items():
        if key.startswith("x-") or key in DROPPED:
            continue
        if key == "$ref":
            name = value.removeprefix(COMPONENTS)
            if name == value:
                raise ValueError(f"unexpected reference {value!r}")
            refs.add(name)
            out[key] = f"#/$defs/{name}"
        elif key == "$recursiveRef":
            if value != "#" or not here:
                raise ValueError(f"unexpected recursive reference {value!r}")
            out["$ref"] = f"#/$defs/{here}"
        elif key in ONE:
            out[key] = convert(value, refs, here)
        elif key in MANY:
            out[key] = [convert(item, refs, here) for item in value]
        elif key in NAMED:
            out[key] = {name: convert(item, refs, here) for name, item in value.items()}
        else:
            out[key] = value
    if schema.get("nullable") is True:
        notes = {k: out.pop(k) for k in ("title", "description", "default", "deprecated") if k in out}
        out = {**notes, "anyOf": [out, {"type": "null"}]}
    return out


def reached(components: dict[str, object], refs: set[str]) -> dict[str, object]:
    """The named components and every schema they reach, converted."""
    defs: dict[str, object] = {}
    pending = sorted(refs)
    while pending:
        ref = pending.pop()
        if ref in defs:
            continue
        found: set[str] = set()
        defs[ref] = convert(components[ref], found, ref)
        pending.extend(sorted(found - defs.keys()))
    return defs


def extract(components: dict[str, object], name: str) -> dict[str, object]:
    """`components[name]` with every schema it reaches copied under `$defs`."""
    refs: set[str] = set()
    root = convert(components[name], refs, name)
    defs = reached(components, refs)
    assert isinstance(root, dict)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": name,
        **root,
        "$defs": dict(sorted(defs.items())),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spec", nargs="?", type=Path, default=DEFAULT_SPEC, help="openai-openapi.yaml")
    parser.add_argument("-o", "--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)

    raw = args.spec.read_bytes()
    spec = yaml.load(raw, Loader=_SpecLoader)
    components = spec["components"]["schemas"]
    result: dict[str, object] = {name: extract(components, name) for name in WANTED}
    result["Responses"] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Responses",
        "$defs": dict(sorted(reached(components, set(RESPONSES)).items())),
    }
    result["source"] = (
        f"components.schemas of openai-openapi.yaml (OpenAPI {spec['openapi']}, API version {spec['info']['version']}, "
        f"sha256 {hashlib.sha256(raw).hexdigest()}), extracted by tools/extract_openai_schemas.py"
    )
    result["license"] = "MIT, from openai/openai-openapi"
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.output} ({', '.join(WANTED + RESPONSES)})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
