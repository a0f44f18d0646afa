"""Cassettes per test: `@pytest.mark.zenmux(record="cassettes/NAME.yaml")` records the test's exchanges
through a real upstream the first time and replays them after, as pytest-recording's record modes do.

A cassette is an ordinary scenario file, written by the recorder (secrets masked): it can be edited,
validated and served like any other. Replaying serves it strictly, so a request it does not hold
fails the test instead of getting placeholder text."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from zenmux_emulator.settings import Settings

KEY_ENV = "ZENMUX_API_KEY"
"""The environment variable the upstream's key is read from unless `--zenmux-upstream-key-env` names another."""
RECORDED = "recorded.yaml"
"""The recorder's file in its folder (`record/store.py`): what becomes the cassette."""


class RecordMode(StrEnum):
    """What a test with a cassette does (pytest-recording's modes)."""

    NONE = "none"
    """Replay only: never reach the upstream; a missing cassette fails the test."""
    ONCE = "once"
    """Record when the cassette is missing, replay it when it is there."""
    NEW_EPISODES = "new_episodes"
    """Replay what the cassette holds and record the requests it does not, into it."""
    ALL = "all"
    """Record every request again, replacing the cassette."""


@dataclass(frozen=True, slots=True)
class Cassette:
    """One test's cassette, and whether this run records into it."""

    path: Path
    mode: RecordMode

    @property
    def records(self) -> bool:
        if self.mode is RecordMode.ONCE:
            return not self.path.exists()
        return self.mode in (RecordMode.NEW_EPISODES, RecordMode.ALL)

    def check_replayable(self) -> None:
        """A replay needs the file: fail the test naming it, and how to record it."""
        if not self.path.exists():
            pytest.fail(
                f"zenmux cassette {self.path} does not exist, and --zenmux-record-mode={self.mode} never "
                "records: run the test once with --zenmux-record-mode=once --zenmux-upstream URL",
                pytrace=False,
            )

    def recording_settings(self, base: Settings, folder: Path, upstream: str | None, key_env: str) -> Settings:
        """The settings of the test's own recording server: `record`'s (every request no rule of the
        run's `--zenmux-scenarios` or the test's marker answers is forwarded) or, for new episodes, the
        cassette served too, with only the requests it lacks forwarded; recorded in `folder`."""
        from zenmux_emulator.record.command import record_settings
        from zenmux_emulator.settings import Settings

        if not upstream:
            pytest.fail(
                f"zenmux cassette {self.path} is to be recorded (--zenmux-record-mode={self.mode}), "
                "but no upstream is given: add --zenmux-upstream URL (the gateway's root, e.g. https://zenmux.ai)",
                pytrace=False,
            )
        key = os.environ.get(key_env)
        if not key:
            pytest.fail(
                f"zenmux cassette {self.path} is to be recorded from {upstream}, but ${key_env} is not set: "
                "the upstream's key is read from it (--zenmux-upstream-key-env names another variable)",
                pytrace=False,
            )
        given: dict[str, Any] = {
            "seed": base.seed,
            "clock": base.clock,
            "port": 0,
            "upstream": upstream,
            "upstream_key": key,
        }
        if self.mode is RecordMode.NEW_EPISODES and self.path.exists():
            shutil.copyfile(self.path, folder / RECORDED)
            return Settings(
                **given,
                scenarios=[*base.scenarios, str(folder)],
                strict=True,
                watch=False,
                record_missing=True,
                record_out=folder,
                journal_size=base.journal_size,
            )
        recording = record_settings({**given, "out": str(folder)})
        # the run's --zenmux-scenarios answer first, as they do when the cassette is replayed
        return Settings(**{**recording, "scenarios": base.scenarios}, journal_size=base.journal_size)

    def save(self, folder: Path) -> bool:
        """The recording becomes the cassette (its folders made); False when nothing was recorded."""
        recorded = folder / RECORDED
        if not recorded.exists():
            return False
        self.path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(recorded, self.path)
        return True


def cassette_path(value: object, test_dir: Path) -> Path:
    """The marker's `record`: absolute as is, else relative to the test file's folder."""
    if not isinstance(value, (str, Path)) or not str(value).strip():
        raise pytest.UsageError(f"zenmux marker: record takes a cassette file's path, got {value!r}")
    given = Path(value)
    return given if given.is_absolute() else (test_dir / given).resolve()
