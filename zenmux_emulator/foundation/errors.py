"""The emulator's exceptions.

    EmulatorError
    ├── RequestRejected    a client request answered with ZenMux's error envelope
    └── ScenarioError      a scenario file (or body) that cannot be loaded, with every problem located
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


class EmulatorError(Exception):
    """Base class of every error the emulator raises on purpose."""


class RequestRejected(EmulatorError):
    """A request answered with `{"error": {"code": "<status>", "type": ..., "message": ...}}`."""

    def __init__(
        self,
        status: int,
        type: str,
        message: str,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.type = type
        self.message = message
        self.headers = dict(headers or {})


def invalid_params(message: str) -> RequestRejected:
    """The 400 `invalid_params` rejection that ZenMux gives every validation failure."""
    return RequestRejected(400, "invalid_params", message)


@dataclass(frozen=True)
class ScenarioProblem:
    """One reason a scenario source cannot be loaded, located as precisely as the source allows."""

    file: str
    line: int | None
    column: int | None
    path: str
    reason: str
    snippet: str = ""

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        if self.line is not None and self.column is not None:
            where += f":{self.column}"
        at = f" at {self.path}" if self.path else ""
        return f"{where}: {self.reason}{at}"


class ScenarioError(EmulatorError):
    """A scenario source failed to load; `problems` lists every fault found, not just the first."""

    def __init__(self, problems: list[ScenarioProblem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))

    def render(self) -> str:
        """Every problem with its source snippet, as `zenmux-emulator validate` prints it."""
        parts = []
        for problem in self.problems:
            parts.append(str(problem))
            if problem.snippet:
                parts.append(problem.snippet)
        return "\n".join(parts)
