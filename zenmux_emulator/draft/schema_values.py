"""A value that satisfies a JSON Schema, made deterministically with a seeded faker.

Covers what tool schemas use: types (and type lists), `enum` / `const`, objects with
`properties` / `required` / `additionalProperties`, arrays with `items` / `minItems` / `maxItems`,
string `format`s (date, date-time, time, email, uri, uuid, ipv4) and length bounds, numeric
bounds, `anyOf` / `oneOf` / `allOf` (first branch / merged), and local `$ref`s into `$defs`.
Strings are chosen by the property name when it says what it holds (city, email, name, ...).

`schema_value` is the entry point: a schema it cannot satisfy within its bounds (a string of
more than `MAX_TEXT` characters, an array of more than `MAX_ITEMS`, more than `MAX_VALUES` values
in all) gets `FALLBACK`, the same every time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from zenmux_emulator.draft.fake import generate

if TYPE_CHECKING:
    from faker import Faker  # imported when first used (see draft.draft.Kit)

_MAX_DEPTH = 8
MAX_TEXT = 10_000
MAX_ITEMS = 100
MAX_VALUES = 10_000
FALLBACK: dict[str, Any] = {}
"""What a schema the generator cannot satisfy gets: an empty object (JSON, and tool arguments)."""


class Unsatisfiable(Exception):
    """The schema asks for more than the generator makes, or for something it cannot make."""


def schema_value(faker: Faker, schema: Any) -> Any:
    """A value for `schema` (its own `$defs` resolve `$ref`s), or `FALLBACK` when it cannot be made.
    Schemas reaching here passed the meta-schema check; what is left to fail is the generator's
    reach (sizes, empty ranges, shapes it does not know), so any failure falls back the same way."""
    try:
        return SchemaValues(faker, schema if isinstance(schema, Mapping) else {}).value(schema)
    except (Unsatisfiable, ArithmeticError, AttributeError, KeyError, IndexError, TypeError, ValueError,
            RecursionError):
        return dict(FALLBACK)
_BY_NAME = {
    "city": "city", "country": "country", "email": "email", "name": "name", "first_name": "first_name",
    "last_name": "last_name", "company": "company", "address": "address", "street": "street_address",
    "phone": "phone_number", "url": "url", "website": "url", "username": "user_name", "job": "job",
    "title": "sentence", "description": "sentence", "query": "sentence", "text": "sentence",
    "message": "sentence", "location": "city", "color": "color_name",
}
_BY_FORMAT = {"date": "date", "date-time": "iso8601", "time": "time", "email": "email", "uri": "url",
              "url": "url", "uuid": "uuid4", "ipv4": "ipv4"}


class SchemaValues:
    """Values for the schemas of one document (its `$defs` resolve `$ref`s)."""

    def __init__(self, faker: Faker, root: Mapping[str, Any]) -> None:
        self.faker = faker
        self.root = root
        self.made = 0

    def value(self, schema: Any, name: str = "", depth: int = 0) -> Any:
        if not isinstance(schema, Mapping) or depth > _MAX_DEPTH:
            return None
        self.made += 1
        if self.made > MAX_VALUES:
            raise Unsatisfiable(f"more than {MAX_VALUES} values")
        schema = self._resolved(schema)
        if "const" in schema:
            return schema["const"]
        if schema.get("enum"):
            return self.faker.random_element(list(schema["enum"]))
        for key in ("anyOf", "oneOf"):
            if schema.get(key):
                return self.value(schema[key][0], name, depth + 1)
        if schema.get("allOf"):
            merged: dict[str, Any] = {}
            for part in schema["allOf"]:
                if not isinstance(part, Mapping):
                    continue  # `true` adds nothing; `false` cannot be met, and is not tried
                part = self._resolved(part)
                for k, v in part.items():
                    merged[k] = {**merged[k], **v} if isinstance(v, dict) and isinstance(merged.get(k), dict) else v
            return self.value(merged, name, depth + 1)
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "null")
        if kind is None:
            kind = "object" if "properties" in schema else "array" if "items" in schema else "string"
        return getattr(self, f"_{kind}", self._string)(schema, name, depth)

    def _resolved(self, schema: Mapping[str, Any]) -> Mapping[str, Any]:
        ref = schema.get("$ref")
        if not isinstance(ref, str) or not ref.startswith("#/"):
            return schema
        target: Any = self.root
        for part in ref[2:].split("/"):
            target = target.get(part, {}) if isinstance(target, Mapping) else {}
        return target if isinstance(target, Mapping) else {}

    def _object(self, schema: Mapping[str, Any], name: str, depth: int) -> dict[str, Any]:
        properties = schema.get("properties") or {}
        return {key: self.value(sub, key, depth + 1) for key, sub in properties.items()}

    def _array(self, schema: Mapping[str, Any], name: str, depth: int) -> list[Any]:
        low = int(schema.get("minItems", 1))
        if low > MAX_ITEMS:
            raise Unsatisfiable(f"minItems {low} is more than {MAX_ITEMS}")
        high = max(low, int(schema.get("maxItems", max(low, 2))))
        count = self.faker.random_int(low, min(high, low + 2))
        return [self.value(schema.get("items", {}), name, depth + 1) for _ in range(count)]

    def _string(self, schema: Mapping[str, Any], name: str, depth: int) -> str:
        generator = _BY_FORMAT.get(str(schema.get("format", ""))) or _BY_NAME.get(name.lower())
        text = str(generate(self.faker, generator)) if generator else self.faker.word()
        low, high = int(schema.get("minLength", 0)), schema.get("maxLength")
        if low > MAX_TEXT:
            raise Unsatisfiable(f"minLength {low} is more than {MAX_TEXT}")
        while len(text) < low:
            text += self.faker.word()
        return text[: int(high)] if high is not None else text

    @staticmethod
    def _range(schema: Mapping[str, Any]) -> tuple[float, float]:
        """(lower, upper) from inclusive or exclusive bounds; a missing side is 100 from the other."""
        low = schema.get("minimum", schema.get("exclusiveMinimum"))
        high = schema.get("maximum", schema.get("exclusiveMaximum"))
        if low is None and high is None:
            return 0, 100
        if low is None:
            return high - 100, high
        if high is None:
            return low, low + 100
        return low, high

    def _integer(self, schema: Mapping[str, Any], name: str, depth: int) -> int:
        low, high = self._range(schema)
        low = int(low) + (1 if "minimum" not in schema and "exclusiveMinimum" in schema else 0)
        high = int(high) - (1 if "maximum" not in schema and "exclusiveMaximum" in schema else 0)
        value = self.faker.random_int(low, max(low, high))
        if not -(2**63) <= value < 2**64:
            raise Unsatisfiable(f"{value} is out of JSON's 64-bit integer range")
        return value

    def _number(self, schema: Mapping[str, Any], name: str, depth: int) -> float:
        low, high = self._range(schema)
        # strictly inside the bounds, so exclusive ones hold too
        return low + (max(high, low) - low) * self.faker.random_int(1, 999) / 1000

    def _boolean(self, schema: Mapping[str, Any], name: str, depth: int) -> bool:
        return bool(self.faker.random_int(0, 1))

    def _null(self, schema: Mapping[str, Any], name: str, depth: int) -> None:
        return None
