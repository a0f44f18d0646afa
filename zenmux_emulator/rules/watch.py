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
from pathlib import Path

from watchfiles import Change, awatch

from zenmux_emulator.rules.registry import ScenarioRegistry
from zenmux_emulator.rules.watch_status import WatchStatus
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
    targets = sorted({*folders, *(f.parent for f in files)})
    if not targets:
        return

    watched = set(targets)

    def wanted(change: Change, path: str) -> bool:
        # a file named directly is watched through its folder, so an editor's save-by-rename is seen;
        # an event about a watched folder itself (deleted, moved) ends its watch
        resolved = Path(path).resolve()
        return resolved in watched or (
            path.endswith(SUFFIXES)
            and (resolved in files or any(resolved.is_relative_to(folder) for folder in folders))
        )

    catch_up = False  # reload once the new watch is up: what changed while none was
    while not stop.is_set():
        missing = [t for t in targets if _identity(t) is None]
        if missing:
            reason = f"{missing[0]} does not exist; watching for it to come back"
            if status.reason != reason:
                log.warning("scenario folder %s", reason)
            status.failed(reason)
            catch_up = True
            if await _pause(stop, look_ms / 1000):
                return
            continue
        seen = {t: _identity(t) for t in targets}
        status.running([str(t) for t in targets])
        moved: Path | None = None
        try:
            changes: AsyncIterator[set[tuple[Change, str]]] = awatch(
                *targets,
                watch_filter=wanted,
                stop_event=stop,
                debounce=debounce_ms,
                step=50,
                recursive=True,
                rust_timeout=look_ms,
                yield_on_timeout=True,
            )
            async for batch in changes:
                moved = next((Path(p).resolve() for _, p in batch if Path(p).resolve() in watched), None)
                changed = [p for _, p in batch if Path(p).resolve() not in watched]
                if changed:
                    log.info("scenario files changed: %s", ", ".join(sorted(str(Path(p)) for p in changed)))
                if changed or catch_up:
                    catch_up = False
                    await registry.reload()
                moved = moved or next((t for t in targets if _identity(t) != seen[t]), None)
                if moved is not None:
                    break
        except Exception as exc:  # noqa: BLE001  # watchfiles failed (a folder gone as it started, a limit of the OS): retried
            log.warning("the scenario file watcher failed: %s; starting it again", exc)
            status.failed(f"the watcher failed: {exc}; starting it again")
            catch_up = True
            if await _pause(stop, look_ms / 1000):
                return
            continue
        if moved is not None:
            log.warning("scenario folder %s was deleted or replaced; watching it again", moved)
            catch_up = True
