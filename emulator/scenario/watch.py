"""Reload the scenarios when a scenario file changes (watchfiles: native events, debounced)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from pathlib import Path

from watchfiles import Change, awatch

from emulator.scenario.loader import SUFFIXES
from emulator.scenario.registry import ScenarioRegistry

log = logging.getLogger("emulator.scenarios")


def _is_scenario(change: Change, path: str) -> bool:
    return path.endswith(SUFFIXES)


async def watch(registry: ScenarioRegistry, stop: asyncio.Event, debounce_ms: int = 150) -> None:
    """Reload on every batch of changes to YAML files under the registry's paths, until `stop`."""
    targets = [p for p in registry.paths if p.exists()]
    if not targets:
        return
    changes: AsyncIterator[set[tuple[Change, str]]] = awatch(
        *targets, watch_filter=_is_scenario, stop_event=stop, debounce=debounce_ms, step=50, recursive=True
    )
    async for batch in changes:
        log.info("scenario files changed: %s", ", ".join(sorted(str(Path(p)) for _, p in batch)))
        await registry.reload()
