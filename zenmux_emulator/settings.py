"""Server settings: one pydantic model. Settings built in code are exactly what the code says;
only the command line reads `ZENMUX_EMULATOR_*` (cli/environment.py)."""

from __future__ import annotations

import math
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

from zenmux_emulator.foundation.ids import DEFAULT_SEED
from zenmux_emulator.foundation.patterns import regex_problem


def _split_list(value: object) -> object:
    """Accept `a,b` (or `a:b` for paths) from an environment variable as well as a list."""
    if isinstance(value, str):
        sep = "," if "," in value else None
        return [part.strip() for part in value.split(sep) if part.strip()]
    return value


STATE_SCHEMES = ("redis://", "rediss://", "unix://")


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity), at least one."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


LATEST_CLOCK = 253_402_300_799
"""9999-12-31T23:59:59Z: the latest clock, so `created` stays a four-digit-year time."""

CommaList = Annotated[list[str], BeforeValidator(_split_list)]


def parse_clock(value: str | float | None) -> int | None:
    """A frozen clock as unix seconds, from an integer or an ISO 8601 timestamp."""
    if value is None or value == "":
        return None
    if isinstance(value, (int, float)):
        if not math.isfinite(value):
            raise ValueError(f"clock must be unix seconds or an ISO 8601 time, got {value!r}")
        return int(value)
    text = value.strip()
    if text.lstrip("-").isdigit():
        return int(text)
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as exc:
        raise ValueError(f"clock must be unix seconds or an ISO 8601 time, got {value!r}") from exc
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp())


class Settings(BaseModel):
    """Everything `zenmux-emulator serve` can be told."""

    model_config = ConfigDict(extra="forbid")

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    scenarios: CommaList = Field(default_factory=lambda: ["scenarios"])
    seed: int = DEFAULT_SEED
    clock: int | None = None
    strict: bool = False
    api_keys: CommaList = Field(default_factory=list)
    log_format: Literal["text", "json"] = "text"
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    watch: bool = True
    keepalive_ms: int = Field(default=10_000, ge=1)
    header_timeout: float = Field(default=10.0, gt=0)
    """Seconds a new connection has to send one whole request header before it is closed."""
    idle_timeout: float = Field(default=60.0, gt=0)
    """Seconds a kept-alive connection may wait for its next request before it is closed."""
    max_connections: int | None = Field(default=None, ge=1)
    """Open connections at most; default: the open-file limit less 64."""
    max_body_bytes: int = Field(default=32 * 1024 * 1024, ge=1024)
    journal_size: int = Field(default=1000, ge=0)
    journal_bytes: int = Field(default=32 * 1024 * 1024, ge=0)
    """The journal's bodies and responses kept in memory, at most (oldest entries forgotten first)."""
    journal_body_bytes: int = Field(default=256 * 1024, ge=0)
    """A request body or response larger than this is journaled as its size and hash."""
    journal_file: Path | None = None
    """Append every finished request to this file as one JSON line."""
    admin_token: str | None = None
    allowed_hosts: CommaList = Field(default_factory=list)
    """Host names (besides loopback ones and `host`) the control API answers under without an
    admin token: a DNS-rebinding page names its own host, which is refused."""
    reasoning_secret: str | None = None
    """Key of the reasoning signatures; default: derived from the seed."""
    reasoning_check: Literal["strict", "warn", "off"] = "strict"
    """What an altered or missing signed reasoning block gets: a 400 `invalid_params`, a warning, or nothing."""
    control_headers: bool = True
    """Obey the X-Emulator-Rule, -Fault, -Chaos and -Time-Scale request headers (off for shared deployments)."""
    chaos_rate: float = Field(default=0.0, ge=0, le=1)
    """The seeded share of requests that fail when neither the rule nor a header says otherwise."""
    chaos_failure: str = "error=503"
    """How they fail: error=STATUS, delay=MS, hang, close or reset."""
    misbehave: list[str] = Field(default_factory=list)
    """Faults of the misbehaviour catalogue a seeded share of every request gets: `NAME[;variant]:RATE`
    each, their rates adding up to 1 at most (rules, sessions and headers take precedence)."""
    time_scale: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    """What every wait the emulator makes (first token, chunk gaps, keep-alives, delay faults, provider
    latency) is multiplied by: 0 sends at once, 1 as scripted; None: the scenarios' `settings.time_scale`,
    else 1. A request's `X-Emulator-Time-Scale` header comes first."""
    workers: int = Field(default=1, ge=1, le=256)
    """Serving processes on the one port (`auto`: the cores this process may use)."""
    state: str | None = None
    """Where the state lives: None keeps it in the process, `redis://HOST:PORT/DB` shares it."""
    state_timeout: float = Field(default=2.0, gt=0, le=3600)
    """Seconds one operation on the shared state may take (retries included) before the request
    answers 503 `emulator_state_unavailable`: a Redis that accepts connections but never answers
    holds no request longer."""

    @field_validator("workers", mode="before")
    @classmethod
    def _workers(cls, value: object) -> object:
        if isinstance(value, str) and value.strip().lower() == "auto":
            return available_cores()
        return value

    @field_validator("state", mode="before")
    @classmethod
    def _state(cls, value: object) -> object:
        if value is None or value == "":
            return None
        text = str(value).strip()
        if not text.startswith(STATE_SCHEMES):
            raise ValueError(f"state must be a Redis URL ({', '.join(STATE_SCHEMES)}…), got {text!r}")
        return text

    cache_dir: Path | None = None
    """Where validated scenario files are kept across starts (`scenario/cache.py`); None: the
    `ZENMUX_EMULATOR_CACHE_DIR` variable, else `$XDG_CACHE_HOME/zenmux-emulator`, else
    `zenmux-emulator-<uid>` in the system's temporary folder."""
    catalogue: Path | None = None
    """A catalogue file (`zenmux-emulator catalogue pull` writes one) served instead of the packaged
    snapshot."""
    upstream: str | None = None
    """The gateway that `--record-missing` (and `record`) forwards to: the only address contacted."""
    record_missing: bool = False
    """Forward requests no rule matches to `upstream` and record the exchanges as scenario rules."""
    record_out: Path | None = None
    """The folder recordings are written to (default: the first scenario folder)."""
    redact: list[str] = Field(default_factory=list)
    """Regular expressions whose matches are masked in everything recorded."""
    record_errors: bool = False
    """Record failed upstream calls (errors, broken streams, unreachable upstream) as error rules too."""
    upstream_key: str | None = Field(default=None, repr=False)
    """The key sent to `upstream` in place of the caller's (the pytest plugin's cassettes: the test's
    own key is the emulator's); masked wherever it appears in a recording, never shown."""
    record_exchanges: bool = False
    """Also write each recorded exchange's wire answer to `exchanges.jsonl` (what `drift --recorded`
    compares); `record` does, `--record-missing` keeps a scenario folder to its files."""

    @field_validator("clock", mode="before")
    @classmethod
    def _clock(cls, value: object) -> int | None:
        if value is None or isinstance(value, (str, int, float)):
            at = parse_clock(value)
            if at is not None and not 0 <= at <= LATEST_CLOCK:
                raise ValueError(
                    f"clock must be between 1970-01-01 and 9999-12-31 (0 to {LATEST_CLOCK} unix seconds), got {value!r}"
                )
            return at
        raise ValueError("clock must be unix seconds or an ISO 8601 time")

    @field_validator("misbehave")
    @classmethod
    def _misbehave(cls, value: list[str]) -> list[str]:
        from zenmux_emulator.foundation.misbehaviours import parse_server

        total = sum(parse_server(item).rate for item in value)
        if total > 1:
            raise ValueError(f"the --misbehave rates add up to {total:g}, more than 1")
        return [item.strip() for item in value]

    @field_validator("chaos_failure")
    @classmethod
    def _chaos_failure(cls, value: str) -> str:
        from zenmux_emulator.foundation.failures import parse_failure

        parse_failure(value)
        return value.strip()

    @field_validator("journal_file", mode="before")
    @classmethod
    def _journal_file(cls, value: object) -> object:
        if value is None or value == "":
            return None
        path = Path(str(value))
        if path.is_dir():
            raise ValueError(f"{path} is a folder; the journal needs a file name")
        if not path.parent.is_dir():
            raise ValueError(f"the folder {path.parent} does not exist")
        return path

    @field_validator("upstream")
    @classmethod
    def _upstream(cls, value: str | None) -> str | None:
        if value is None:
            return None
        from yarl import URL

        url = URL(value)
        if url.scheme not in ("http", "https") or not url.host:
            raise ValueError(f"upstream must be an http(s) URL, got {value!r}")
        return value

    @field_validator("redact")
    @classmethod
    def _redact(cls, value: list[str]) -> list[str]:
        for pattern in value:
            if (problem := regex_problem(pattern)) is not None:
                raise ValueError(f"--redact {pattern!r} is not a regular expression: {problem}")
        return value

    @model_validator(mode="after")
    def _recording(self) -> Settings:
        if self.record_missing and self.upstream is None:
            raise ValueError("--record-missing needs --upstream URL: the gateway to forward unmatched requests to")
        if self.record_missing and self.recording_folder() is None:
            raise ValueError("--record-missing needs --record-out DIR or a scenario folder to record into")
        return self

    def recording_folder(self) -> Path | None:
        """Where recordings go: `record_out`, else the first scenario folder (a file's folder)."""
        if self.record_out is not None:
            return self.record_out
        for path in self.scenario_paths():
            return path if path.suffix not in (".yaml", ".yml") else path.parent
        return None

    def scenario_paths(self) -> list[Path]:
        """The configured scenario files and folders as paths."""
        return [Path(p) for p in self.scenarios]
