"""`zenmux-emulator wait`: poll the health endpoint until the server answers, or give up.

For CI: it exits 0 as soon as the URL answers 2xx, and 1 once `--timeout` seconds have passed
without that (a server that did not start, a wrong port), so a job never waits forever. Given the
server's `--pid`, it exits 1 as soon as that process is gone, without waiting out the timeout.
"""

from __future__ import annotations

import os
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

DEFAULT_URL = "http://127.0.0.1:8000/_emulator/health"
HEALTH = "/_emulator/health"


def health_url(url: str) -> str:
    """The URL to poll: as given, or the health endpoint when only a server (or its /api/v1) is named."""
    parts = urlsplit(url if "://" in url else f"http://{url}")
    if parts.path in ("", "/", "/api/v1", "/api/v1/"):
        return f"{parts.scheme}://{parts.netloc}{HEALTH}"
    return parts.geturl()


def _answers(url: str, timeout: float) -> str | None:
    """None when `url` answers 2xx; else why not."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return None if 200 <= response.status < 300 else f"status {response.status}"
    except urllib.error.HTTPError as exc:
        return f"status {exc.code}"
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        return str(getattr(reason, "strerror", None) or reason)


def alive(pid: int) -> bool:
    """Whether process `pid` still runs (an exited child its parent has not reaped yet does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True  # no /proc: the signal said it exists


def wait(url: str, timeout: float, pid: int | None = None, interval: float = 0.2) -> int:
    """0 once `url` answers 2xx; 1 when `timeout` seconds pass first (the last reason printed), or
    as soon as process `pid` (the server) has exited."""
    target = health_url(url)
    if urlsplit(target).scheme not in ("http", "https"):
        print(f"zenmux-emulator wait: {url}: only http and https URLs can be polled", file=sys.stderr)
        return 2
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        why = _answers(target, max(0.1, min(2.0, left)))
        if why is None:
            print(f"ready: {target}")
            return 0
        if pid is not None and not alive(pid):
            print(
                f"zenmux-emulator wait: the server (pid {pid}) exited before {target} answered (last: {why})",
                file=sys.stderr,
            )
            return 1
        left = deadline - time.monotonic()
        if left <= 0:
            print(f"zenmux-emulator wait: {target} did not answer within {timeout:g} s (last: {why})", file=sys.stderr)
            return 1
        time.sleep(min(interval, left))
