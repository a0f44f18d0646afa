"""What the file watcher is doing, as `GET /_emulator/health` shows it: `off` (not asked for),
`running` (over its folders), or `error` with the reason (a folder gone, the watcher failed), from
which it recovers by itself. Kept apart from `core.rules.watch`, so that reading it never imports
watchfiles."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal


@dataclass(slots=True)
class WatchStatus:
    state: Literal["off", "running", "error"] = "off"
    reason: str | None = None
    folders: list[str] = field(default_factory=list)

    def running(self, folders: list[str]) -> None:
        self.state, self.reason, self.folders = "running", None, folders

    def failed(self, reason: str) -> None:
        self.state, self.reason = "error", reason

    def as_dict(self) -> dict[str, object]:
        shown: dict[str, object] = {"state": self.state}
        if self.state != "off":
            shown["folders"] = self.folders
        if self.reason is not None:
            shown["reason"] = self.reason
        return shown
