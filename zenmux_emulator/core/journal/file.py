"""`--journal FILE`: every finished request appended as one JSON line, written off the event loop.

Each batch is one `write` of whole lines, made as soon as the batch is taken, so a run killed with
`kill -9` loses at most the entries it had not written yet (the batch being written and those
queued behind it). A crash in the middle of a write can leave a torn last line: the next run
starts on a fresh line, cutting the torn fragment off (with a warning) so that every line reads
as JSON, or ending a last line that is whole but has no newline."""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path

import orjson

from zenmux_emulator.core.journal.entry import JournalEntry
from zenmux_emulator.core.journal.safe_json import dumps

log = logging.getLogger("emulator.journal")


class JournalFile:
    """A queue of finished entries drained by one task that appends them in batches from a worker
    thread. `start()` and `close()` run on the server's loop; `close()` writes what is queued."""

    def __init__(self, path: Path, batch: int = 512) -> None:
        self.path = path
        self.batch = batch
        self._queue: asyncio.Queue[JournalEntry | None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._mended = False

    async def start(self) -> None:
        """Create the file before the server serves (so that it is there to follow from the start), ending a torn
        last line of an earlier run; then drain the queue. A file that cannot be written is logged, as a failed
        write is, and the server serves on."""
        try:
            await asyncio.to_thread(self._prepare)
        except OSError as exc:
            log.error("cannot write the journal file %s: %s", self.path, exc)
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

    def _prepare(self) -> None:
        _start_on_a_fresh_line(self.path)
        self.path.open("ab").close()
        self._mended = True

    def _append(self, entries: list[JournalEntry]) -> None:
        """In a worker thread: serialise (finished entries are no longer changed) and append."""
        lines = b"".join(_line(entry) for entry in entries)
        if not self._mended:
            self._mended = True
            _start_on_a_fresh_line(self.path)
        with self.path.open("ab") as out:
            out.write(lines)


def _start_on_a_fresh_line(path: Path) -> None:
    """Before a run's first write: a last line without its newline is ended when it is whole JSON,
    and cut off otherwise (what a crash in the middle of a write leaves)."""
    try:
        out = path.open("r+b")
    except FileNotFoundError:
        return
    with out:
        size = out.seek(0, os.SEEK_END)
        if size == 0:
            return
        out.seek(size - 1)
        if out.read(1) == b"\n":
            return
        start = max(0, size - _TAIL)
        while True:  # find the start of the last line, reading back in steps
            out.seek(start)
            tail = out.read(size - start)
            newline = tail.rfind(b"\n")
            if newline >= 0 or start == 0:
                break
            start = max(0, start - _TAIL)
        cut = start + newline + 1
        out.seek(cut)
        last = out.read()
        try:
            orjson.loads(last)
        except orjson.JSONDecodeError:
            out.truncate(cut)
            log.warning(
                "journal file %s: cut off a torn last line of %d bytes (a run ended in the middle of a write)",
                path,
                len(last),
            )
        else:
            out.seek(0, os.SEEK_END)
            out.write(b"\n")


_TAIL = 64 * 1024


def _line(entry: JournalEntry) -> bytes:
    return dumps(entry.as_dict()) + b"\n"
