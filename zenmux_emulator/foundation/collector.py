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
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_pauses = 0
_was_enabled = False


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cycle collection while the body runs (in any thread: the collector is the process's);
    pauses nest and overlap, and the collector comes back as it was when the last one ends."""
    global _pauses, _was_enabled
    with _lock:
        if _pauses == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _lock:
            _pauses -= 1
            if _pauses == 0 and _was_enabled:
                gc.freeze()
                gc.enable()
