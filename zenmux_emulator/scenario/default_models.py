"""The built-in catalogue: ZenMux's models as public facts recorded them (`catalogue.json`, read
once at import; never per request). Scenario files add models of their own or change the mode."""

from __future__ import annotations

import datetime
from importlib.resources import files

import orjson

from zenmux_emulator.scenario.schema import ModelSpec

_DOCUMENT = orjson.loads(files(__package__).joinpath("catalogue.json").read_bytes())

SOURCE: str = _DOCUMENT["source"]
"""Where the facts come from."""
SNAPSHOT = datetime.date.fromisoformat(_DOCUMENT["snapshot"])
"""The day the facts were recorded."""

CREATED = int(datetime.datetime.combine(SNAPSHOT, datetime.time(), datetime.UTC).timestamp())
"""`created` of a model with no release date: the snapshot's day (the model existed by then)."""

DEFAULT_CATALOGUE: dict[str, ModelSpec] = {
    model_id: ModelSpec.model_validate(facts) for model_id, facts in _DOCUMENT["models"].items()
}
"""Every model of the snapshot by id, in id order."""


def created_of(spec: ModelSpec) -> int:
    """A model's `created` (Unix seconds): as declared, else its release day, else the snapshot's."""
    if spec.created is not None:
        return spec.created
    if spec.release_date is not None:
        return int(datetime.datetime.combine(spec.release_date, datetime.time(), datetime.UTC).timestamp())
    return CREATED
