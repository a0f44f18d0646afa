"""The built-in catalogue: ZenMux's models as public facts recorded them (`catalogue.json`, read
once at import; never per request), or a catalogue file `catalogue pull` wrote (`serve --catalogue
FILE`), read once at start-up. Scenario files add models of their own or change the mode."""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

import orjson
from pydantic import ValidationError

from zenmux_emulator.foundation.errors import ScenarioError, ScenarioProblem
from zenmux_emulator.scenario.schema import ModelSpec

STALE_DAYS = 90
"""A catalogue older than this gets a hint to refresh it, at start-up and in `GET /`."""


@dataclass(frozen=True)
class Catalogue:
    """A catalogue document: where its facts come from, the day they were taken, the models by id."""

    source: str
    snapshot: datetime.date
    models: Mapping[str, ModelSpec]
    path: str | None = None
    """The file it was read from; None for the packaged snapshot."""

    def age_days(self, today: datetime.date) -> int:
        return (today - self.snapshot).days

    def hint(self, today: datetime.date) -> str | None:
        """What to do about a catalogue older than STALE_DAYS; None for a fresh one."""
        age = self.age_days(today)
        if age <= STALE_DAYS:
            return None
        return (
            f"the catalogue is {age} days old: ZenMux adds models every week; refresh it with "
            "`zenmux-emulator catalogue pull --upstream https://zenmux.ai --out FILE` and serve it with --catalogue FILE"
        )

    def facts(self, today: datetime.date) -> dict[str, Any]:
        """What `GET /` and the start-up lines say of it."""
        return {
            "source": self.source,
            "snapshot": self.snapshot.isoformat(),
            "file": self.path,
            "models": len(self.models),
            "age_days": self.age_days(today),
            "hint": self.hint(today),
        }


def parse_catalogue(document: Any, path: str | None = None) -> Catalogue:
    """A catalogue from its JSON document: `source`, `snapshot` (YYYY-MM-DD) and `models` by id.
    Raises ScenarioError naming the file and the key that is wrong."""
    where = path or "catalogue.json"
    if not isinstance(document, dict) or not isinstance(document.get("models"), dict):
        problem = "expected an object with `source`, `snapshot` and `models` (an object by model id)"
        raise ScenarioError([ScenarioProblem(where, None, None, "catalogue", problem)])
    try:
        snapshot = datetime.date.fromisoformat(str(document.get("snapshot")))
    except ValueError as exc:
        raise ScenarioError([ScenarioProblem(where, None, None, "snapshot", f"{exc} (YYYY-MM-DD)")]) from None
    models: dict[str, ModelSpec] = {}
    problems: list[ScenarioProblem] = []
    for model_id, facts in sorted(document["models"].items()):
        try:
            models[model_id] = ModelSpec.model_validate(facts)
        except ValidationError as exc:
            for error in exc.errors():
                location = ".".join(str(part) for part in (model_id, *error["loc"]))
                problems.append(ScenarioProblem(where, None, None, f"models.{location}", error["msg"]))
    if problems:
        raise ScenarioError(problems)
    return Catalogue(str(document.get("source") or ""), snapshot, models, path)


def read_catalogue(path: Path) -> Catalogue:
    """A catalogue file (as `catalogue pull` writes it); ScenarioError when it cannot be read."""
    try:
        document = orjson.loads(path.read_bytes())
    except OSError as exc:
        raise ScenarioError([ScenarioProblem(str(path), None, None, "catalogue", exc.strerror or str(exc))]) from None
    except orjson.JSONDecodeError as exc:
        raise ScenarioError([ScenarioProblem(str(path), None, None, "catalogue", f"not JSON: {exc}")]) from None
    return parse_catalogue(document, str(path))


_DOCUMENT = orjson.loads(files(__package__).joinpath("catalogue.json").read_bytes())
PACKAGED = parse_catalogue(_DOCUMENT)
"""The packaged snapshot."""

SOURCE: str = PACKAGED.source
"""Where the facts come from."""
SNAPSHOT = PACKAGED.snapshot
"""The day the facts were recorded."""

CREATED = int(datetime.datetime.combine(SNAPSHOT, datetime.time(), datetime.UTC).timestamp())
"""`created` of a model with no release date: the snapshot's day (the model existed by then)."""

DEFAULT_CATALOGUE: dict[str, ModelSpec] = dict(PACKAGED.models)
"""Every model of the snapshot by id, in id order."""


def created_of(spec: ModelSpec) -> int:
    """A model's `created` (Unix seconds): as declared, else its release day, else the snapshot's."""
    if spec.created is not None:
        return spec.created
    if spec.release_date is not None:
        return int(datetime.datetime.combine(spec.release_date, datetime.time(), datetime.UTC).timestamp())
    return CREATED
