"""The emulator's exceptions.

    EmulatorError
    ├── RequestRejected    a client request answered with an error envelope (the face's shape)
    ├── ConnectionDropped  a fault took the connection: nothing may be sent
    └── ScenarioError      a scenario file (or body) that cannot be loaded, with every problem located

The error `type` strings the emulator itself raises are constants here; ZenMux's catalogue of
types and default messages is `envelope.py`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


class EmulatorError(Exception):
    """Base class of every error the emulator raises on purpose."""


INVALID_PARAMS = "invalid_params"
ACCESS_DENIED_TYPE = "access_denied"
NO_MATCH = "emulator_no_match"
SEQUENCE_EXHAUSTED = "emulator_sequence_exhausted"
INTERNAL = "internal_server_error"


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

    def with_headers(self, headers: Mapping[str, str]) -> RequestRejected:
        """The same rejection, also carrying `headers` (its own win on a clash)."""
        return RequestRejected(self.status, self.type, self.message, {**headers, **self.headers})


class ConnectionDropped(EmulatorError):
    """A transport fault closed or reset the connection: the request ends with nothing sent."""

    def __init__(self, fault: str) -> None:
        super().__init__(fault)
        self.fault = fault


def invalid_params(message: str) -> RequestRejected:
    """The 400 `invalid_params` rejection that ZenMux gives every validation failure."""
    return RequestRejected(400, INVALID_PARAMS, message)


def too_large(message: str) -> RequestRejected:
    """A 413: the body over the size limit, or the prompt over the model's context window."""
    return RequestRejected(413, INVALID_PARAMS, message)


def no_match(message: str) -> RequestRejected:
    """The 404 of `--strict` (or an unknown forced rule): nothing answers this request."""
    return RequestRejected(404, NO_MATCH, message)


def sequence_exhausted(rule: str, replies: int) -> RequestRejected:
    """A rule with `then: error` asked for a reply past the end of its sequence."""
    return RequestRejected(400, SEQUENCE_EXHAUSTED, f"Rule {rule!r} has served all {replies} of its replies")


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
