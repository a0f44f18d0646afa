"""A select LLM's vote (§4.4, §5): targets resolved to candidates, then filtered, merged, ranked, normalised."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Any

from zenmux_emulator.scenario.query import ContentTarget, IndexTarget, JsonTarget, Target

from . import ids


@dataclass(frozen=True, slots=True)
class Candidate:
    """A choice a select LLM may vote for: a select_deterministic or a non-error generate choice."""

    index: int
    content: str
    generate_id: str
    confidence_id: str
    llm: int | None  # the model_index of a generate choice's LLM
    slot: int


@dataclass(frozen=True, slots=True)
class Ballot:
    """A resolved vote: (confidence_id, p) in rank order, p summing to 1, and the top candidate."""

    entries: list[tuple[str, float]]
    top: Candidate

    @property
    def confidence_id(self) -> str | dict[str, float]:
        if len(self.entries) == 1:
            return self.entries[0][0]
        return dict(self.entries)


def _glob_target(target: str, candidates: list[Candidate], generators: list[tuple[int, str]]) -> Candidate | None:
    glob, _, slot_text = target.partition("#")
    slot = int(slot_text) if slot_text.isdigit() else 0
    llm = next((index for index, slug in generators if fnmatch.fnmatchcase(slug, glob)), None)
    return next((c for c in candidates if c.llm == llm and c.slot == slot), None) if llm is not None else None


def resolve(
    target: Target, candidates: list[Candidate], schema: Any, generators: list[tuple[int, str]]
) -> Candidate | None:
    """The candidate a target names, or None. `generators` are the generate LLMs as
    (model_index, upstream id) in model_index order."""
    if isinstance(target, str):
        return _glob_target(target, candidates, generators)
    if isinstance(target, JsonTarget):
        wanted = ids.value_confidence_id(target.json_value, schema)
        return next((c for c in candidates if c.confidence_id == wanted), None)
    if isinstance(target, ContentTarget):
        return next((c for c in candidates if c.content == target.content), None)
    assert isinstance(target, IndexTarget)
    return next((c for c in candidates if c.index == target.index), None)


def ballot(pairs: list[tuple[Candidate, float]], logprobs_mode: bool, top_logprobs: int | None) -> Ballot:
    """§4.4: drop p <= 0; outside logprobs modes keep the top entry at p = 1; merge by confidence id;
    rank (p descending, then first candidate index); keep the top `select_top_logprobs`; normalise."""
    kept = [(c, p) for c, p in pairs if p > 0]
    if not logprobs_mode:
        best = min(kept, key=lambda cp: (-cp[1], cp[0].index))
        kept = [(best[0], 1.0)]
    merged: dict[str, tuple[Candidate, float]] = {}
    for candidate, p in kept:
        first, total = merged.get(candidate.confidence_id, (candidate, 0.0))
        merged[candidate.confidence_id] = (first if first.index <= candidate.index else candidate, total + p)
    ranked = sorted(merged.items(), key=lambda kv: (-kv[1][1], kv[1][0].index))
    ranked = ranked[: max(1, top_logprobs if top_logprobs is not None else 20)]
    total = sum(p for _, (_, p) in ranked)
    return Ballot(entries=[(cid, p / total) for cid, (_, p) in ranked], top=ranked[0][1][0])
