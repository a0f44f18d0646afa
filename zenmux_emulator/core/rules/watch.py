"""Reload the scenarios when a scenario file changes (watchfiles: native events, debounced).

A watched folder may be deleted and made again, as `git checkout` does: the native watch of the
old folder then sees nothing more. The watcher takes an event about a watched folder itself, or a
change of its identity (device and inode, looked at after every batch and at least every
`look_ms`), as the end of that folder's watch; when one is gone it says so in its status
(`error`, "... does not exist; watching for it to come back") and waits for it; when one is back,
or was replaced, it watches the new folder and reloads, so that nothing written meanwhile is
missed. A failure of watchfiles itself is reported the same way and retried.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from watchfiles import Change, awatch

from zenmux_emulator.core.rules.registry import ScenarioRegistry
from zenmux_emulator.core.rules.watch_status import WatchStatus
from zenmux_emulator.scenario.loader import SUFFIXES

log = logging.getLogger("emulator.scenarios")

Identity = tuple[int, int] | None
"""A folder's (device, inode), None when it does not exist."""


def _identity(folder: Path) -> Identity:
    try:
        found = os.stat(folder)
    except OSError:
        return None
    return found.st_dev, found.st_ino


async def _pause(stop: asyncio.Event, seconds: float) -> bool:
    """Wait `seconds`, or less when `stop` is set; whether it is."""
    try:
        await asyncio.wait_for(stop.wait(), seconds)
    except TimeoutError:
        return False
    return True


@dataclass(frozen=True)
class Watched:
    """What one watch covers: the folders named, the files named (watched through their folders),
    and every folder the native watch is set on."""

    folders: list[Path]
    files: set[Path]
    targets: list[Path]

    def wanted(self, change: Change, path: str) -> bool:
        # a file named directly is watched through its folder, so an editor's save-by-rename is seen;
        # an event about a watched folder itself (deleted, moved) ends its watch
        resolved = Path(path).resolve()
        return resolved in self.targets or (
            path.endswith(SUFFIXES)
            and (resolved in self.files or any(resolved.is_relative_to(folder) for folder in self.folders))
        )

    def missing(self) -> Path | None:
        """The first folder that does not exist now."""
        return next((t for t in self.targets if _identity(t) is None), None)

    def replaced(self, seen: dict[Path, Identity]) -> Path | None:
        """The first folder that is not the one the watch started on."""
        return next((t for t in self.targets if _identity(t) != seen[t]), None)


async def _watch_until_moved(
    registry: ScenarioRegistry, stop: asyncio.Event, watched: Watched, catch_up: bool, debounce_ms: int, look_ms: int
) -> Path | None:
    """Reload on every batch of changes (and once first when `catch_up`), until `stop` or until a
    folder is deleted or replaced; that folder, or None on `stop`."""
    seen = {t: _identity(t) for t in watched.targets}
    changes: AsyncIterator[set[tuple[Change, str]]] = awatch(
        *watched.targets,
        watch_filter=watched.wanted,
        stop_event=stop,
        debounce=debounce_ms,
        step=50,
        recursive=True,
        rust_timeout=look_ms,
        yield_on_timeout=True,
    )
    async for batch in changes:
        moved = next((Path(p).resolve() for _, p in batch if Path(p).resolve() in watched.targets), None)
        changed = [p for _, p in batch if Path(p).resolve() not in watched.targets]
        if changed:
            log.info("scenario files changed: %s", ", ".join(sorted(str(Path(p)) for p in changed)))
        if changed or catch_up:
            catch_up = False
            await registry.reload()
        moved = moved or watched.replaced(seen)
        if moved is not None:
            return moved
    return None


async def watch(
    registry: ScenarioRegistry,
    stop: asyncio.Event,
    status: WatchStatus | None = None,
    debounce_ms: int = 150,
    look_ms: int = 500,
) -> None:
    """Reload on every batch of changes to YAML files under the registry's paths, until `stop`,
    through the deletion and return of the folders (see the module's docstring)."""
    status = status if status is not None else WatchStatus()
    folders = [p.resolve() for p in registry.paths if p.is_dir()]
    files = {p.resolve() for p in registry.paths if p.is_file()}
    watched = Watched(folders=folders, files=files, targets=sorted({*folders, *(f.parent for f in files)}))
    if not watched.targets:
        return
    catch_up = False  # reload once the new watch is up: what changed while none was
    while not stop.is_set():
        missing = watched.missing()
        if missing is not None:
            reason = f"{missing} does not exist; watching for it to come back"
            if status.reason != reason:
                log.warning("scenario folder %s", reason)
            status.failed(reason)
            catch_up = True
            if await _pause(stop, look_ms / 1000):
                return
            continue
        status.running([str(t) for t in watched.targets])
        try:
            moved = await _watch_until_moved(registry, stop, watched, catch_up, debounce_ms, look_ms)
        except Exception as exc:  # noqa: BLE001  # watchfiles failed (a folder gone as it started, a limit of the OS): retried
            log.warning("the scenario file watcher failed: %s; starting it again", exc)
            status.failed(f"the watcher failed: {exc}; starting it again")
            catch_up = True
            if await _pause(stop, look_ms / 1000):
                return
            continue
        catch_up = moved is not None
        if moved is not None:
            log.warning("scenario folder %s was deleted or replaced; watching it again", moved)
