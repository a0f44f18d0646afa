"""Python's cycle collector kept out of the building of a large structure.

Building 50,000 scenario rules in a thread set off the collector's full collections over and over,
each over the whole growing heap and each stopping every thread, the event loop's among them: a
pause of 0.1 s, then 0.2, ... then over a second (and the build took twice as long). While one is
paused the collector does not run at all; when the last pause ends, what was built is frozen
(`gc.freeze`: left out of every later collection, freed by its reference counts as before), so no
collection has to scan it either. Only cyclic garbage made during the pause and still unfreed
then is frozen with it: the pause is for large builds only.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager

_lock = threading.Lock()
_pauses = 0
_freezes = 0
_was_enabled = False


@contextmanager
def collector_paused(freeze: bool = True) -> Iterator[None]:
    """No cycle collection while the body runs (in any thread: the collector is the process's);
    pauses nest and overlap, and the collector comes back as it was when the last one ends, what
    was built then frozen if any of them asked (`freeze=False`: a request's short pause, whose
    objects go when it ends, and must not freeze whatever else is alive then)."""
    global _pauses, _freezes, _was_enabled
    with _lock:
        if _pauses == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pauses += 1
        _freezes += freeze
    try:
        yield
    finally:
        with _lock:
            _pauses -= 1
            if _pauses == 0:
                if _freezes:
                    gc.freeze()
                _freezes = 0
                if _was_enabled:
                    gc.enable()


HOLD_S = 1.0
"""How long a large request body keeps the collector paused (`hold_collector`) once decoded."""
HELD_AT_MOST_S = 3.0
"""How long holds may follow one another before the collector is let run again."""
WHOLE_EVERY_S = 30.0
"""A release collects the young generations, and every generation at most this often: holds in a
row keep the collector from its own full collections."""
HELD_BYTES = 8 << 20
"""The bodies' bytes holds may follow one another for before the collector is let run again: what
the requests leave in reference cycles waits for it meanwhile (31 Responses of 4 MiB each held in a
row grew the server by 280 MiB)."""


class _Hold:
    """The one running hold: its pause, when it started and ends, the bodies' bytes it holds, and
    the thread that ends it (a thread, not the event loop's timer: a loop stopped meanwhile, a
    server in a test process, must not leave the collector off)."""

    lock = threading.Lock()
    pause: AbstractContextManager[None] | None = None
    since = 0.0
    until = 0.0
    size = 0
    watcher: threading.Thread | None = None
    collected = 0.0
    """When a release last collected every generation (`time.monotonic`)."""


def hold_collector(size: int, seconds: float = HOLD_S) -> None:
    """Pause the cycle collector (without freezing anything) for `seconds` from now: for a large
    request body, so that the collections its hundreds of thousands of objects would set off (a
    young one over all of them, on whichever thread allocates next, holding the event loop as
    long) do not come while it is alive; most requests are answered and their body gone well
    within the hold. A later hold extends it, up to `HELD_AT_MOST_S` and `HELD_BYTES` of bodies
    (`size` each) in a row; then the collector runs (collecting what the holds left) before the
    next one starts."""
    now = time.monotonic()
    with _Hold.lock:
        if _Hold.pause is not None and (now - _Hold.since > HELD_AT_MOST_S or _Hold.size + size > HELD_BYTES):
            _end()  # held long enough: what the holds left is collected now, before this body's hold
        if _Hold.pause is None:
            _Hold.pause = collector_paused(freeze=False)
            _Hold.pause.__enter__()
            _Hold.since, _Hold.size = now, 0
        _Hold.size += size
        _Hold.until = now + seconds
        if _Hold.watcher is None:
            _Hold.watcher = threading.Thread(target=_watch, name="collector-hold", daemon=True)
            _Hold.watcher.start()


def release_hold() -> None:
    """End the hold now, if there is one (the collector back, what it left collected)."""
    with _Hold.lock:
        _end()


def _watch() -> None:
    """The hold's thread: ends it once its time is past (each hold moves that time on)."""
    while True:
        with _Hold.lock:
            wait = _Hold.until - time.monotonic()
            if wait <= 0 or _Hold.pause is None:
                _end()
                _Hold.watcher = None
                return
        time.sleep(wait)


def _end() -> None:
    """(Under the hold's lock) the hold ended: the collector back, and the young objects the holds
    left (garbage of the requests answered meanwhile, most of it) collected at once, rather than
    by whichever allocation comes next, perhaps while another large body is alive."""
    pause, _Hold.pause = _Hold.pause, None
    if pause is None:
        return
    pause.__exit__(None, None, None)
    if gc.isenabled():
        now = time.monotonic()
        whole = now - _Hold.collected > WHOLE_EVERY_S
        gc.collect(2 if whole else 1)
        _Hold.collected = now if whole else _Hold.collected
