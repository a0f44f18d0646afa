"""The faces the scenario language can name (`match.api`), and what a rule without `api` or with
`api: zenmux` answers on.

An app knows the faces it registered (`create_app` makes `FaceNames` from its `FaceSpec`s and its
scenario registry validates and compiles every file with them); what reads scenario files without
an app (`zenmux-emulator validate`) gives the shipped faces' names, made from the one list of them
(`faces/shipped.py` `NAMES`). This module names no face: every file is read with the faces given,
and with the reply keys they register (`replies`, compiled by `scenario/language.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationInfo
from pydantic_core import PydanticCustomError

from zenmux_emulator.scenario.attached import FOLDER_KEY

ZENMUX = "zenmux"
"""The `api` that names every ZenMux face at once."""
CONTEXT_KEY = "faces"
"""Where the validation context carries the `FaceNames` a scenario file is read with."""


@dataclass(frozen=True, slots=True)
class FaceTraits:
    """What the rules need to know of a face besides its name."""

    zenmux: bool = True
    """One of ZenMux's own APIs: `api: zenmux` names it."""
    unnamed_rules: bool = True
    """A rule without `api` answers it (ObjectiveAI's Query face answers only rules that name it)."""
    scripted: bool = True
    """Rules answer it: False for a family of routes that answers from the emulator's own state
    (the Platform API), which rules cannot name."""
    answers_unscripted: bool = False
    """Its answer without a rule is a real one (embeddings' vectors, rerank's scores), not a
    placeholder: a request of it that no rule could answer is not a miss (not UNMATCHED)."""


ZENMUX_FACE = FaceTraits()
"""A face of ZenMux's own that rules without `api` answer: the usual traits."""


@dataclass(frozen=True, slots=True)
class FaceNames:
    """The faces rules can name, in registration order, with their traits."""

    traits: Mapping[str, FaceTraits] = field(default_factory=dict)
    models: Mapping[str, Any] = field(default_factory=dict)
    """Models the faces serve beyond the packaged catalogue (the embedding and rerank models), as
    `ModelSpec`s (which are read with this module: not named here): admitted and priced like its
    models, but not in the model listings."""
    catalogue: Any = None
    """The catalogue served instead of the packaged snapshot (`serve --catalogue FILE`), a
    `default_models.Catalogue`; None for the packaged one."""
    replies: tuple[tuple[str, type[BaseModel]], ...] = ()
    """The reply keys each face adds to the scenario language (its `FaceSpec.reply`, a
    `schema.ReplyKeys`), by its name: `language.language(faces)` compiles them into the `Reply`
    scenario files are read with."""

    def names(self) -> tuple[str, ...]:
        """Every `api` a rule may give, `zenmux` last."""
        return (*self.traits, ZENMUX)

    def everything(self) -> frozenset[str]:
        return frozenset(self.traits)

    def named_only(self) -> frozenset[str]:
        """The faces a rule without `api` does not answer on."""
        return frozenset(name for name, traits in self.traits.items() if not traits.unnamed_rules)

    def expand(self, apis: frozenset[str]) -> frozenset[str]:
        """The faces a rule's `api` names, `zenmux` replaced by the ZenMux faces."""
        if ZENMUX not in apis:
            return apis
        return apis - {ZENMUX} | {name for name, traits in self.traits.items() if traits.zenmux}

    def check(self, value: object) -> str:
        """A `match.api` value: a known face's name, else pydantic's wording for a choice."""
        if isinstance(value, str) and (value in self.traits or value == ZENMUX):
            return value
        listed = [repr(name) for name in self.names()]
        expected = ", ".join(listed[:-1]) + " or " + listed[-1]
        raise PydanticCustomError("literal_error", "Input should be {expected}", {"expected": expected})


def known_api(value: object, info: ValidationInfo) -> str:
    """The `api` validator: checked against the faces in the validation context (`context(faces)`)."""
    given = info.context
    faces = given.get(CONTEXT_KEY) if isinstance(given, dict) else None
    if not isinstance(faces, FaceNames):
        raise TypeError("a scenario file is read with the faces it may name: validate it with context(faces)")
    return faces.check(value)


def context(faces: FaceNames, folder: Path | None = None) -> dict[str, object]:
    """The validation context a scenario file is read with: the faces it may name, and the folder the
    files its rules give are read from (`attached.py`; None: it can give none)."""
    return {CONTEXT_KEY: faces, FOLDER_KEY: folder}
