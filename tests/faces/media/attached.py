"""Files a media rule gives by path: a scenario written beside them in a served folder, and what a
reload of a bad one answers (the control API's located problems)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.control.helpers import control, error_of
from zenmux_emulator.pytest_plugin.server import EmulatorServer


def refused_on_reload(server: EmulatorServer, folder: Path, text: str) -> list[dict[str, Any]]:
    """The problems of `text` written as a scenario in the served `folder` and reloaded (the file is
    removed again, so the last good scenarios are what the next reload reads)."""
    bad = folder / "bad.yaml"
    bad.write_text(text, encoding="utf-8")
    try:
        error = error_of(control(server, "POST", "scenarios/reload"), 400, "invalid_scenario")
    finally:
        bad.unlink()
    problems: list[dict[str, Any]] = error["problems"]
    return problems
