"""The stored Query Models (§4.10): scenario `query_models:` and every model a request validated
(LRU here; kept in the state's shelf too, so every worker and instance finds it under `--state`)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from zenmux_emulator.core.state import Shelf
from zenmux_emulator.scenario.query_model import QueryModel

from .wire import model_ids

REMEMBERED_BYTES = 16 * 1024 * 1024
"""The bytes the validated models may hold in the state's shelf, in all (their JSON)."""


class KeptModel:
    """A validated Query Model as the state keeps it: its JSON, read back as the same model."""

    __slots__ = ("model",)

    def __init__(self, model: QueryModel) -> None:
        self.model = model

    def encode(self) -> bytes:
        return self.model.model_dump_json(by_alias=True, exclude_unset=True).encode()

    @classmethod
    def decode(cls, blob: bytes) -> KeptModel:
        return cls(QueryModel.model_validate_json(blob))


class QueryModelRegistry:
    """Query Models by id. Scenario models are pinned; remembered ones are bounded, least recent first out."""

    def __init__(self, capacity: int = 1024) -> None:
        self.capacity = capacity
        self._pinned: dict[str, QueryModel] = {}
        self._recent: OrderedDict[str, QueryModel] = OrderedDict()
        self.shelf: Shelf[KeptModel] | None = None
        """Where the state keeps the validated models for every worker and instance (None: here only)."""

    def pin(self, models: Iterable[QueryModel]) -> list[str]:
        """Put the scenario files' models (validated at load) in place of the pinned ones; their ids.
        A model the files no longer declare is forgotten."""
        pinned = {model_ids(model)[0]: model for model in models}
        self._pinned = pinned
        return list(pinned)

    def remember(self, name: str, model: QueryModel) -> None:
        """Keep a validated model so a later request may name it."""
        if name in self._pinned:
            return
        if self.shelf is not None and name not in self._recent:
            self.shelf.keep(name, KeptModel(model))
        self._recent[name] = model
        self._recent.move_to_end(name)
        while len(self._recent) > self.capacity:
            self._recent.popitem(last=False)

    def get(self, name: str) -> QueryModel | None:
        """The model with that id, or None."""
        if name in self._pinned:
            return self._pinned[name]
        model = self._recent.get(name)
        if model is not None:
            self._recent.move_to_end(name)
        return model

    def names(self) -> list[str]:
        """Every stored id, sorted."""
        return sorted({*self._pinned, *self._recent})

    async def fetch(self, name: str) -> QueryModel | None:
        """The model with that id, from the state's shelf when this process has not seen it."""
        found = self.get(name)
        if found is None and self.shelf is not None:
            kept = await self.shelf.get(name)
            if kept is not None:
                found = kept.model
                self._recent[name] = found
                self._recent.move_to_end(name)
                while len(self._recent) > self.capacity:
                    self._recent.popitem(last=False)
        return found

    async def all_names(self) -> list[str]:
        """Every stored id, sorted: the pinned and those any worker or instance validated."""
        shelved = await self.shelf.names() if self.shelf is not None else []
        return sorted({*self._pinned, *self._recent, *shelved})


def normalised(model: QueryModel) -> dict[str, Any]:
    """`POST /query_models`'s answer: `{name, models: [{…given fields, name, index}] sorted by name, weight}`."""
    name, llm_ids, indices = model_ids(model)
    llms = [
        {**llm.model_dump(exclude_unset=True, by_alias=True), "name": llm_name, "index": index}
        for llm, llm_name, index in zip(model.models, llm_ids, indices, strict=True)
    ]
    llms.sort(key=lambda llm: str(llm["name"]))
    return {"name": name, "models": llms, "weight": model.weight.model_dump(exclude_unset=True)}
