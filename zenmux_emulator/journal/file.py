"""`--journal FILE`: every finished request appended as one JSON line, written off the event loop."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from zenmux_emulator.journal.entry import JournalEntry
from zenmux_emulator.journal.safe_json import dumps

log = logging.getLogger("emulator.journal")


class JournalFile:
    """A queue of finished entries drained by one task that appends them in batches from a worker
    thread. `start()` and `close()` run on the server's loop; `close()` writes what is queued."""

    def __init__(self, path: Path, batch: int = 512) -> None:
        self.path = path
        self.batch = batch
        self._queue: asyncio.Queue[JournalEntry | None] | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._queue = asyncio.Queue()
        self._task = asyncio.create_task(self._drain(self._queue), name="journal-file")

    def submit(self, entry: JournalEntry) -> None:
        """Queue a finished entry (never blocks; after `close()` it is dropped with a warning)."""
        if self._queue is None:
            log.warning("journal file closed; request %s not written", entry.request_id)
            return
        self._queue.put_nowait(entry)

    async def close(self) -> None:
        """Write every entry queued so far, then stop."""
        queue, task = self._queue, self._task
        self._queue = self._task = None
        if queue is None or task is None:
            return
        queue.put_nowait(None)
        await task

    async def _drain(self, queue: asyncio.Queue[JournalEntry | None]) -> None:
        """Until the `None` that `close()` queues: take what is waiting (up to `batch`), append it."""
        closing = False
        while not closing:
            batch = [await queue.get()]
            while len(batch) < self.batch and not queue.empty():
                batch.append(queue.get_nowait())
            entries = [e for e in batch if e is not None]
            closing = len(entries) < len(batch)
            if entries:
                for entry in entries:
                    entry.settle()  # header views copied here, on the loop, not in the thread
                try:
                    await asyncio.to_thread(self._append, entries)
                except OSError as exc:
                    log.error("cannot write the journal file %s: %s", self.path, exc)
                except Exception:  # never let one bad batch stop the writer
                    log.exception("cannot write %d journal entries to %s", len(entries), self.path)

    def _append(self, entries: list[JournalEntry]) -> None:
        """In a worker thread: serialise (finished entries are no longer changed) and append."""
        lines = b"".join(_line(entry) for entry in entries)
        with self.path.open("ab") as out:
            out.write(lines)


def _line(entry: JournalEntry) -> bytes:
    return dumps(entry.as_dict()) + b"\n"
