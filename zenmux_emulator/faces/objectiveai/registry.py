"""The stored Query Models (§4.10): scenario `query_models:` and every model a request validated (LRU)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from zenmux_emulator.scenario.query_model import QueryModel

from .wire import model_ids


class QueryModelRegistry:
    """Query Models by id. Scenario models are pinned; remembered ones are bounded, least recent first out."""

    def __init__(self, capacity: int = 1024) -> None:
        self.capacity = capacity
        self._pinned: dict[str, QueryModel] = {}
        self._recent: OrderedDict[str, QueryModel] = OrderedDict()

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


def normalised(model: QueryModel) -> dict[str, Any]:
    """`POST /query_models`'s answer: `{name, models: [{…given fields, name, index}] sorted by name, weight}`."""
    name, llm_ids, indices = model_ids(model)
    llms = [
        {**llm.model_dump(exclude_unset=True, by_alias=True), "name": llm_name, "index": index}
        for llm, llm_name, index in zip(model.models, llm_ids, indices, strict=True)
    ]
    llms.sort(key=lambda llm: str(llm["name"]))
    return {"name": name, "models": llms, "weight": model.weight.model_dump(exclude_unset=True)}
