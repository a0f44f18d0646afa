"""glibc's allocator kept from holding freed memory between long-lived large blocks.

glibc maps a block of 128 KiB or more on its own (given back whole when freed), but it raises that
threshold each time it frees such a block, up to 32 MiB: after the first large request body, the
large values a store keeps (a thread's JSON, some hundreds of kB) come from the heap instead, laid
among the requests' passing blocks, whose holes the heap cannot give back. 150 Anthropic threads of
16,383 messages (0.57 MB of JSON each, the store bounded at 64 MiB) grew the process 236 MiB so, 68
MiB with the threshold fixed. Fixing it (`mallopt(M_MMAP_THRESHOLD)`) stops the rise; elsewhere than
glibc this does nothing."""

from __future__ import annotations

import ctypes
import sys

M_MMAP_THRESHOLD = -3
"""glibc's `mallopt` parameter (malloc.h)."""
THRESHOLD = 128 * 1024
"""glibc's own starting threshold, kept fixed."""

_fixed: list[bool] = []


def fix_mmap_threshold() -> bool:
    """Fix glibc's mmap threshold at `THRESHOLD`, once per process; whether it is fixed."""
    if not _fixed:
        _fixed.append(_mallopt())
    return _fixed[0]


def _mallopt() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the process's own symbols, libc's among them: no ldconfig run
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, THRESHOLD))
