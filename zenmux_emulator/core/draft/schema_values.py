"""A value that satisfies a JSON Schema, made deterministically with a seeded faker, within a budget.

Covers what tool and structured-output schemas use: types (and type lists), `enum` / `const`,
objects with `properties` / `required` / `additionalProperties` / `minProperties`, arrays with
`items` / `prefixItems` / `minItems` / `maxItems` / `uniqueItems`, strings with `pattern` (made by
rstr from the regular expression), `format` (date, date-time, time, email, uri, uuid, ipv4, ipv6,
hostname, duration and their kin) and length bounds, numbers with bounds and `multipleOf`,
`anyOf` / `oneOf` (the first branch, with the schema's other keywords) / `allOf` (merged), and
local `$ref`s. Strings are chosen by the property name when it says what it holds (city, email…).

One budget bounds the whole value, checked as it grows: `MAX_BYTES` of JSON, `MAX_VALUES` values,
`MAX_SECONDS` of work. Optional properties and extra array items are made only near the top
(`SHALLOW`), so a recursive schema ends; what is required is made to `MAX_DEPTH`. A schema that
cannot be satisfied within the budget (or at all: `minimum` above `maximum`, `not: {}`, a pattern
no string of the allowed length matches) raises `Unsatisfiable` naming the schema path, which
`schema_value` turns into the face's 400.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import orjson

from zenmux_emulator.core.draft.fake import generate
from zenmux_emulator.foundation.errors import RequestRejected, invalid_params

if TYPE_CHECKING:
    from faker import Faker  # imported when first used (see core.draft.draft.Kit)

    from zenmux_emulator.core.draft.pattern import PatternStrings  # rstr: imported by the first pattern

MAX_BYTES = 64 * 1024
"""The JSON a made value may take: more than a model writes into one tool call (about 16k tokens)."""
MAX_VALUES = 1_000
"""Values (leaves and containers) in one made value: each costs a faker call."""
MAX_SECONDS = 0.25
"""The work one value may take: a guard behind the other two, which keep it far below this (and
deterministic: a value refused for its time would be the one answer that depends on the machine)."""
MAX_DEPTH = 32
SHALLOW = 6
"""Below this depth only what the schema requires is made: no optional property, no extra item."""
_TIME_CHECK_EVERY = 64

Path = tuple[str | int, ...]


class Unsatisfiable(Exception):
    """The schema at `path` asks for more than the budget allows, or for something no value is."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(reason)
        self.path = path
        self.reason = reason

    @property
    def where(self) -> str:
        """The schema path as a JSON Pointer fragment: `#/properties/a/items`."""
        return "#" + "".join(f"/{part}" for part in self.path)


def schema_value(faker: Faker, schema: Any, where: str, untyped: str = "string") -> Any:
    """A value for `schema` (its own `$defs` resolve `$ref`s); a 400 naming `where` (the request
    field that holds the schema) and the schema path when it cannot be made within the budget.
    `untyped` is the type made at the top when the schema names none (a tool's: "object")."""
    try:
        return SchemaValues(faker, schema if isinstance(schema, Mapping) else {}, untyped).value(schema)
    except Unsatisfiable as exc:
        raise unsatisfiable(where, exc) from None


def unsatisfiable(where: str, exc: Unsatisfiable) -> RequestRejected:
    """The 400 for a schema the generator cannot satisfy."""
    return invalid_params(
        f"{where}: the emulator cannot make a value for this JSON Schema at {exc.where}: {exc.reason}"
    )


_BY_NAME = {
    "city": "city",
    "country": "country",
    "email": "email",
    "name": "name",
    "first_name": "first_name",
    "last_name": "last_name",
    "company": "company",
    "address": "address",
    "street": "street_address",
    "phone": "phone_number",
    "url": "url",
    "website": "url",
    "username": "user_name",
    "job": "job",
    "title": "sentence",
    "description": "sentence",
    "query": "sentence",
    "text": "sentence",
    "message": "sentence",
    "location": "city",
    "color": "color_name",
}
_BY_FORMAT = {
    "date": "date",
    "date-time": "iso8601",
    "time": "time",
    "email": "email",
    "idn-email": "email",
    "uri": "url",
    "iri": "url",
    "uri-reference": "url",
    "iri-reference": "url",
    "url": "url",
    "uuid": "uuid4",
    "ipv4": "ipv4",
    "ipv6": "ipv6",
    "hostname": "domain_name",
    "idn-hostname": "domain_name",
}
_FORMAT_TRIES = 8
_UNIQUE_TRIES = 16
_FILLER_WORDS = 16


class SchemaValues:
    """Values for the schemas of one document (its `$defs` resolve `$ref`s), within one budget."""

    def __init__(self, faker: Faker, root: Mapping[str, Any], untyped: str = "string") -> None:
        self.faker = faker
        self.root = root
        self.untyped = untyped
        self.made = 0
        self.left = MAX_BYTES
        self.deadline = time.perf_counter() + MAX_SECONDS
        self._patterns: PatternStrings | None = None
        self._filler: list[str] | None = None

    def value(self, schema: Any, name: str = "", path: Path = (), depth: int = 0) -> Any:
        if schema is True:
            schema = {}
        if not isinstance(schema, Mapping):
            raise Unsatisfiable(path, "the schema `false` admits no value")
        if depth > MAX_DEPTH:
            raise Unsatisfiable(path, f"it requires values nested deeper than {MAX_DEPTH} levels")
        self.made += 1
        if self.made > MAX_VALUES:
            raise Unsatisfiable(path, f"it requires more than {MAX_VALUES} values")
        if self.made % _TIME_CHECK_EVERY == 0 and time.perf_counter() > self.deadline:
            raise Unsatisfiable(path, f"making it took longer than {MAX_SECONDS * 1000:.0f} ms")
        try:
            return self._made(self._resolved(schema), name, path, depth)
        except (ArithmeticError, TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
            raise Unsatisfiable(path, f"it cannot be made ({exc})") from None

    def spend(self, size: int, path: Path) -> None:
        """Take `size` bytes of JSON from the budget."""
        self.left -= size
        if self.left < 0:
            raise Unsatisfiable(path, f"the value would be larger than {MAX_BYTES} bytes of JSON")

    def _made(self, schema: Mapping[str, Any], name: str, path: Path, depth: int) -> Any:
        if "const" in schema:
            return self._spent(schema["const"], path)
        if "enum" in schema:
            if not schema["enum"]:
                raise Unsatisfiable((*path, "enum"), "an empty `enum` admits no value")
            return self._spent(self.faker.random_element(list(schema["enum"])), path)
        if schema.get("not") in ({}, True):
            raise Unsatisfiable((*path, "not"), "`not` refuses every value")
        for key in ("anyOf", "oneOf"):
            if schema.get(key):
                return self._one_branch(schema, key, name, path, depth)
        if schema.get("allOf"):
            return self._all_parts(schema, name, path, depth)
        kind = self._kind(schema, path)
        return getattr(self, f"_{kind}", self._string)(schema, name, path, depth)

    def _one_branch(self, schema: Mapping[str, Any], key: str, name: str, path: Path, depth: int) -> Any:
        """A value of the first branch of `anyOf`/`oneOf` whose `type` agrees with the schema's."""
        rest = {k: v for k, v in schema.items() if k != key}
        for index, option in enumerate(schema[key]):
            if option is False:  # a branch that admits no value
                continue
            branch = _merged([rest, self._resolved(option) if isinstance(option, Mapping) else {}])
            if branch.get("type") != []:
                return self.value(branch, name, (*path, key, index), depth + 1)
        raise Unsatisfiable((*path, key), "no branch admits a value of the schema's own `type`")

    def _all_parts(self, schema: Mapping[str, Any], name: str, path: Path, depth: int) -> Any:
        """A value of the schema merged with every part of its `allOf`."""
        if any(part is False for part in schema["allOf"]):
            raise Unsatisfiable((*path, "allOf"), "a part is `false`, which admits no value")
        rest = {k: v for k, v in schema.items() if k != "allOf"}
        parts = [self._resolved(p) for p in schema["allOf"] if isinstance(p, Mapping)]
        merged = _merged([rest, *parts])
        if merged.get("type") == []:
            raise Unsatisfiable((*path, "allOf"), "its parts' `type`s have no type in common")
        return self.value(merged, name, (*path, "allOf"), depth + 1)

    def _kind(self, schema: Mapping[str, Any], path: Path) -> str:
        """The type to make: the schema's (the top's own, or the first not null, of a list), else
        what its keywords imply, else the untyped default (`self.untyped` at the top, a string below)."""
        kind = schema.get("type")
        top = self.untyped if not path else "string"
        if isinstance(kind, list):
            kind = top if top in kind else next((k for k in kind if k != "null"), "null")
        if kind is None and top != "object":
            kind = "object" if "properties" in schema else "array" if "items" in schema else top
        return str(kind or top)

    def _spent(self, value: Any, path: Path) -> Any:
        self.spend(len(orjson.dumps(value)), path)
        return value

    def _resolved(self, schema: Mapping[str, Any]) -> Mapping[str, Any]:
        ref = schema.get("$ref")
        if not isinstance(ref, str) or not ref.startswith("#"):
            return schema
        target: Any = self.root
        for part in ref[2:].split("/") if ref.startswith("#/") else ():
            target = target.get(part.replace("~1", "/").replace("~0", "~"), {}) if isinstance(target, Mapping) else {}
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        target = target if isinstance(target, Mapping) else {}
        return _merged([siblings, target]) if siblings else target

    def _object(self, schema: Mapping[str, Any], name: str, path: Path, depth: int) -> dict[str, Any]:
        properties = schema.get("properties") or {}
        required = [key for key in schema.get("required") or () if isinstance(key, str)]
        extra = schema.get("additionalProperties", True)
        keys = list(properties) if depth < SHALLOW else [key for key in properties if key in required]
        keys += [key for key in required if key not in properties]
        made: dict[str, Any] = {}
        for key in dict.fromkeys(keys):
            sub = properties.get(key, extra)
            where = path + (("properties", key) if key in properties else ("additionalProperties",))
            if sub is False:
                raise Unsatisfiable(where, f"{key!r} is required, and no value is allowed for it")
            self.spend(len(key) + 4, path)
            made[key] = self.value(sub, key, where, depth + 1)
        wanted = int(schema.get("minProperties", 0))
        if len(made) < wanted:
            if extra is False:
                raise Unsatisfiable(path, f"minProperties {wanted} is more than the {len(made)} properties allowed")
            while len(made) < wanted:
                key = f"{self.faker.word()}_{len(made)}"
                self.spend(len(key) + 4, path)
                made[key] = self.value(extra, key, (*path, "additionalProperties"), depth + 1)
        self.spend(2, path)
        return made

    def _array(self, schema: Mapping[str, Any], name: str, path: Path, depth: int) -> list[Any]:
        low = int(schema.get("minItems", 0 if depth >= SHALLOW else 1))
        high = schema.get("maxItems")
        high = max(low, 2) if high is None else int(high)
        if low > high:
            raise Unsatisfiable(path, f"minItems {low} is more than maxItems {high}")
        count = low if depth >= SHALLOW else self.faker.random_int(low, min(high, low + 2))
        prefix = schema.get("prefixItems") or []
        items = schema.get("items", True)
        if items is False and count > len(prefix):
            if low > len(prefix):
                raise Unsatisfiable(path, f"minItems {low} is more than the {len(prefix)} items allowed")
            count = len(prefix)
        made: list[Any] = []
        seen: set[bytes] = set()
        unique = schema.get("uniqueItems") is True
        for _ in range(count + (_UNIQUE_TRIES if unique else 0)):
            if len(made) == count:
                break
            i = len(made)
            sub, where = (prefix[i], (*path, "prefixItems", i)) if i < len(prefix) else (items, (*path, "items"))
            self.spend(1, path)
            item = self.value(sub, name, where, depth + 1)
            if unique:
                key = orjson.dumps(item, option=orjson.OPT_SORT_KEYS)
                if key in seen:
                    continue
                seen.add(key)
            made.append(item)
        if len(made) < low:
            raise Unsatisfiable(path, f"uniqueItems: fewer than minItems {low} distinct items were made")
        self.spend(2, path)
        return made

    def _string(self, schema: Mapping[str, Any], name: str, path: Path, depth: int) -> str:
        low = int(schema.get("minLength", 0))
        high = None if schema.get("maxLength") is None else int(schema["maxLength"])
        if high is not None and low > high:
            raise Unsatisfiable(path, f"minLength {low} is more than maxLength {high}")
        if low > self.left:
            raise Unsatisfiable(path, f"minLength {low} is more than the {MAX_BYTES} bytes of JSON a value may take")
        pattern = schema.get("pattern")
        if isinstance(pattern, str):
            text = self._matching(pattern, low, high, path)
        elif schema.get("format") in _BY_FORMAT:
            text = self._formatted(str(schema["format"]), low, high, path)
        else:
            generator = _BY_NAME.get(name.lower())
            text = str(generate(self.faker, generator)) if generator else self.faker.word()
            if len(text) < low:
                text = self._padded(text, low)
            text = text[:high] if high is not None else text
        self.spend(len(text.encode()) + 2, path)
        return text

    def _padded(self, text: str, length: int) -> str:
        """`text` made `length` characters long with seeded prose (repeated, so the cost is the length's)."""
        if self._filler is None:
            self._filler = self.faker.words(nb=_FILLER_WORDS)
        start = self.faker.random_int(0, _FILLER_WORDS - 1)
        filler = " " + " ".join(self._filler[start:] + self._filler[:start])
        text = (text + filler * (1 + (length - len(text)) // len(filler)))[:length]
        return text[:-1] + "." if text.endswith(" ") else text

    def _formatted(self, form: str, low: int, high: int | None, path: Path) -> str:
        for _ in range(_FORMAT_TRIES):
            text = str(generate(self.faker, _BY_FORMAT[form]))
            if low <= len(text) and (high is None or len(text) <= high):
                return text
        span = f"{low} to {high}" if high is not None else f"at least {low}"
        raise Unsatisfiable(path, f"no {form} of {span} characters was found in {_FORMAT_TRIES} tries")

    def _matching(self, pattern: str, low: int, high: int | None, path: Path) -> str:
        if self._patterns is None:
            from zenmux_emulator.core.draft.pattern import PatternStrings

            self._patterns = PatternStrings(self.faker.random)
        try:
            return self._patterns.matching(pattern, low, high, self.left)
        except ValueError as exc:
            raise Unsatisfiable((*path, "pattern"), str(exc)) from None

    def _integer(self, schema: Mapping[str, Any], name: str, path: Path, depth: int) -> int:
        low, high = _range(schema)
        low = math.floor(low) + 1 if _exclusive(schema, "Minimum") else math.ceil(low)
        high = math.ceil(high) - 1 if _exclusive(schema, "Maximum") else math.floor(high)
        step = schema.get("multipleOf")
        if step is not None:
            if step != int(step):
                raise Unsatisfiable(path, f"multipleOf {step} on an integer is not supported")
            step = int(step)
            first, last = -(-low // step), high // step
            if first > last:
                raise Unsatisfiable(path, f"no multiple of {step} lies between {low} and {high}")
            value = self.faker.random_int(first, min(last, first + 100)) * step
        else:
            if low > high:
                raise Unsatisfiable(path, f"no integer lies between the bounds ({low} to {high})")
            value = self.faker.random_int(low, high)
        if not -(2**63) <= value < 2**64:
            raise Unsatisfiable(path, f"{value} is out of JSON's 64-bit integer range")
        return int(self._spent(value, path))

    def _number(self, schema: Mapping[str, Any], name: str, path: Path, depth: int) -> float:
        low, high = _range(schema)
        if high < low or (high == low and (_exclusive(schema, "Minimum") or _exclusive(schema, "Maximum"))):
            raise Unsatisfiable(path, f"no number lies between the bounds ({low} to {high})")
        step = schema.get("multipleOf")
        if step is not None:
            first, last = math.floor(low / step) + 1, math.ceil(high / step) - 1
            if low == high or first > last:
                raise Unsatisfiable(path, f"no multiple of {step} lies strictly between {low} and {high}")
            digits = max(0, -int(Decimal(str(step)).as_tuple().exponent))
            return float(self._spent(round(self.faker.random_int(first, min(last, first + 100)) * step, digits), path))
        # strictly inside the bounds, so exclusive ones hold too
        return float(self._spent(low + (high - low) * self.faker.random_int(1, 999) / 1000, path))

    def _boolean(self, schema: Mapping[str, Any], name: str, path: Path, depth: int) -> bool:
        self.spend(5, path)
        return bool(self.faker.random_int(0, 1))

    def _null(self, schema: Mapping[str, Any], name: str, path: Path, depth: int) -> None:
        self.spend(4, path)
        return None


def _bound(schema: Mapping[str, Any], side: str) -> tuple[float | None, bool]:
    """The tighter bound on `side` ("minimum" or "maximum") and whether it is exclusive."""
    inclusive, exclusive = schema.get(side), schema.get(f"exclusive{side.capitalize()}")
    if exclusive is None:
        return inclusive, False
    if inclusive is None:
        return exclusive, True
    tighter = exclusive >= inclusive if side == "minimum" else exclusive <= inclusive
    return (exclusive, True) if tighter else (inclusive, False)


def _exclusive(schema: Mapping[str, Any], side: str) -> bool:
    """Whether the bound on `side` ("Minimum" or "Maximum") is an exclusive one."""
    return _bound(schema, side.lower())[1]


def _range(schema: Mapping[str, Any]) -> tuple[float, float]:
    """(lower, upper) from inclusive or exclusive bounds; a missing side is 100 (or the other's
    size, when larger) from the other."""
    low, high = _bound(schema, "minimum")[0], _bound(schema, "maximum")[0]
    if low is None and high is None:
        return 0, 100
    if low is None:
        assert high is not None
        return high - max(100, abs(high)), high
    if high is None:
        return low, low + max(100, abs(low))
    return low, high


def _merged(parts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The keywords of every part in one schema: `properties` (and other objects) merged key by
    key, `required` lists joined, `type` the types every part allows (`[]` when none), any other
    keyword the last part's."""
    merged: dict[str, Any] = {}
    for part in parts:
        for key, value in part.items():
            before = merged.get(key)
            if key == "type" and before is not None:
                merged[key] = _common_type(before, value)
            elif isinstance(value, Mapping) and isinstance(before, Mapping):
                merged[key] = {**before, **value}
            elif key == "required" and isinstance(value, list) and isinstance(before, list):
                merged[key] = before + [k for k in value if k not in before]
            else:
                merged[key] = value
    return merged


def _common_type(before: Any, value: Any) -> Any:
    """The types two `type` keywords both allow (an integer is also a number): one name, a list, or
    `[]` when they share none; `value` itself when either is not a type name or list of them."""
    left = {before} if isinstance(before, str) else set(before) if isinstance(before, list) else None
    right = [value] if isinstance(value, str) else list(value) if isinstance(value, list) else None
    if left is None or right is None:
        return value
    common = [kind for kind in right if kind in left or (kind == "integer" and "number" in left)]
    if "integer" in left and "number" in right and "integer" not in common:
        common.append("integer")
    return common[0] if len(common) == 1 else common
