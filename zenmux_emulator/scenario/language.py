"""The scenario language of a set of faces: `schema.py`'s models, with each registered face's reply
keys added to `Reply`.

A face registers the keys its rules' replies may use as a `schema.ReplyKeys` model (its
`FaceSpec.reply`); `FaceNames.replies` carries them to whatever reads scenario files (an app's
registry, `zenmux-emulator validate`), and `language(faces)` compiles them, once per set of
faces, into a `Reply` that is `schema.Reply` and every face's model at once, with the `Rule` and
the `ScenarioFile` that hold it. A key no face registered is refused as any unknown key is; a
face's key is validated by its face's model, its errors located as the schema's own.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import sys
import types
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from pydantic import BaseModel, ConfigDict, TypeAdapter, create_model
from pydantic.fields import FieldInfo

from zenmux_emulator.scenario.faces import FaceNames
from zenmux_emulator.scenario.schema import FACE_KEY, Reply, ReplyKeys, Rule, ScenarioFile

LATER = ConfigDict(defer_build=True)
"""The rules' adapter's config: its validator is built on its first use, not with the language."""

FaceReplies = tuple[tuple[str, type[BaseModel]], ...]
"""Each face's reply keys model, by the face's name, in registration order."""


@dataclass(frozen=True, slots=True)
class Language:
    """The models a scenario file is validated with, for one set of faces."""

    reply: type[Reply]
    rule: type[Rule]
    file: type[ScenarioFile]
    rules: TypeAdapter[list[Rule]]
    """A list of rules, validated apart from their file (`loader.validated_in_steps`): built on its
    first validation (`LATER`), as a start whose files come from the parse cache validates none."""
    owners: Mapping[str, str]
    """The face each face-owned reply key belongs to, by the key."""


def owners(replies: Iterable[tuple[str, type[BaseModel]]]) -> dict[str, str]:
    """The face of each key the faces add to `Reply`, refusing a model that is not a `ReplyKeys`, a key
    every reply already has, and a key two faces register."""
    owned: dict[str, str] = {}
    for face, model in replies:
        if not issubclass(model, ReplyKeys):
            raise TypeError(f"face {face!r}: its reply keys model {model.__name__} is not a ReplyKeys")
        for key in model.model_fields:
            if key in Reply.model_fields:
                raise ValueError(f"face {face!r}: reply key {key!r} is one every reply has")
            if key in owned:
                raise ValueError(f"reply key {key!r} is registered by two faces: {owned[key]} and {face}")
            owned[key] = face
    return owned


def _field(info: FieldInfo, annotation: Any) -> tuple[Any, FieldInfo]:
    """A field as `create_model` takes it: `info` (its default, bounds, description) over `annotation`."""
    return annotation, copy.copy(info)


def _owned(face: str, info: FieldInfo) -> tuple[Any, FieldInfo]:
    """A face's key as the compiled Reply has it: described with its face's name first, and marked as
    its face's (`FACE_KEY`: the JSON Schema says so, and the loader's "did you mean")."""
    annotation, field = _field(info, info.annotation)
    said = info.description or ""
    field.description = said if said.startswith(f"{face}: ") else f"{face}: {said}".rstrip(": ")
    extra = info.json_schema_extra
    field.json_schema_extra = {**(extra if isinstance(extra, dict) else {}), FACE_KEY: face}
    return annotation, field


def _mark(replies: FaceReplies) -> str:
    """A name for one set of faces' compiled models, the same in every process that registers them."""
    said = repr([(face, model.__module__, model.__qualname__) for face, model in replies])
    return hashlib.sha256(said.encode()).hexdigest()[:12]


def _named(model: type[BaseModel], name: str, mark: str) -> type[BaseModel]:
    """The compiled model, findable by pickle as `<name>` in the module `language_<mark>` beside this
    one, made here: the cache of validated files (`scenario/cache.py`) keeps instances of it, read
    back once the same faces compiled it again. Its own name stays `name`, in messages and in the
    JSON Schema (built when first asked for, after this)."""
    home = f"{__name__}_{mark}"
    module = sys.modules.get(home)
    if module is None:
        module = sys.modules[home] = types.ModuleType(home, f"The scenario language of one set of faces ({__name__}).")
    model.__module__ = home
    setattr(module, name, model)
    return model


@functools.cache
def compiled(replies: FaceReplies) -> Language:
    """The language of these faces' reply keys (the schema's own models when there are none)."""
    owned = owners(replies)
    if not owned:
        return Language(Reply, Rule, ScenarioFile, TypeAdapter(list[Rule], config=LATER), {})
    mark = _mark(replies)
    keys: dict[str, Any] = {
        key: _owned(face, model.model_fields[key]) for face, model in replies for key in model.model_fields
    }
    bases: tuple[type[BaseModel], ...] = (*(model for _, model in reversed(replies)), Reply)
    made = create_model("Reply", __base__=bases, __module__=Reply.__module__, __doc__=Reply.__doc__, **keys)
    named = cast(type[BaseModel], made)
    reply = cast(type[Reply], _named(named, "Reply", mark))  # Reply's own keys first, then the faces' in order
    given, several = Rule.model_fields, cast(Any, list[reply])  # type: ignore[valid-type]
    rule = create_model(
        "Rule",
        __base__=Rule,
        __module__=Rule.__module__,
        __doc__=Rule.__doc__,
        reply=_field(given["reply"], reply | None),
        replies=_field(given["replies"], several | None),
    )
    _named(rule, "Rule", mark)
    file = create_model(
        "ScenarioFile",
        __base__=ScenarioFile,
        __module__=ScenarioFile.__module__,
        __doc__=ScenarioFile.__doc__,
        rules=_field(ScenarioFile.model_fields["rules"], list[rule]),
    )
    _named(file, "ScenarioFile", mark)
    rules: Any = list[rule]  # a list of the compiled Rule, which mypy knows as a Rule
    return Language(reply, rule, file, TypeAdapter[list[Rule]](rules, config=LATER), owned)


def language(faces: FaceNames) -> Language:
    """The language scenario files are read with where these faces are registered."""
    return compiled(faces.replies)
