"""What a test asks of its emulator: the `zenmux` marker's scenarios and settings, merged from
module (`pytestmark`) to test, the closest marker winning."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from zenmux_emulator.foundation.ids import DEFAULT_SEED
from zenmux_emulator.pytest_plugin.cassette import cassette_path

MARKER = "zenmux"
MARKER_HELP = (
    "zenmux(scenarios=[...], strict=None, seed=None, clock=None, misbehave=None): scenario files "
    "loaded for the test through the control API; strict/seed/clock that differ from the session's "
    "server give the test a dedicated emulator; misbehave='NAME[;variant]' (or a dict with fault, "
    "variant, rate) gives every request of the test that fault of the misbehaviour catalogue; "
    "record='cassettes/NAME.yaml' records the test's exchanges through --zenmux-upstream into that "
    "scenario file and replays them after (--zenmux-record-mode)"
)
SETTINGS_KEYS = ("strict", "seed", "clock")


@dataclass(frozen=True, slots=True)
class ServerOptions:
    """The settings that need a server of their own when they differ."""

    strict: bool = False
    seed: int = DEFAULT_SEED
    clock: int | None = None  # unix seconds, as parse_clock reads the marker's


@dataclass(slots=True)
class MarkerOptions:
    scenarios: list[Path] = field(default_factory=list)
    overrides: dict[str, object] = field(default_factory=dict)
    misbehave: dict[str, object] | None = None
    """The fault the test's session gets (`fault`, `variant`, `rate`), from the closest marker."""
    record: Path | None = None
    """The test's cassette (`record=`), from the closest marker."""


def _resolve(path: str | Path, rootdir: Path, test_dir: Path) -> Path:
    """Absolute as is; relative to the rootdir, else to the test file's folder."""
    given = Path(path)
    if given.is_absolute():
        return given
    for base in (rootdir, test_dir):
        if (base / given).exists():
            return (base / given).resolve()
    raise pytest.UsageError(
        f"zenmux marker: scenario {str(path)!r} is neither under the rootdir {rootdir} "
        f"nor next to the test in {test_dir}"
    )


def _misbehave(value: object) -> dict[str, object] | None:
    """The marker's `misbehave`: `NAME[;variant]`, a dict of fault/variant/rate, or None (none)."""
    if value is None:
        return None
    if isinstance(value, str):
        fault, _, variant = value.partition(";")
        return {"fault": fault.strip(), "variant": variant.strip() or None}
    if isinstance(value, dict) and set(value) <= {"fault", "variant", "rate"} and "fault" in value:
        return dict(value)
    raise pytest.UsageError(
        f"zenmux marker: misbehave takes 'NAME[;variant]' or a dict with fault, variant and rate, got {value!r}"
    )


def read_markers(item: pytest.Item) -> MarkerOptions:
    """Scenarios from every marker (outermost first, no repeats); settings from the closest one."""
    options = MarkerOptions()
    markers = list(item.iter_markers(MARKER))  # closest first
    for marker in reversed(markers):
        if marker.args:
            raise pytest.UsageError(f"zenmux marker takes keyword arguments only, got {marker.args!r}")
        unknown = set(marker.kwargs) - {"scenarios", "misbehave", "record", *SETTINGS_KEYS}
        if unknown:
            raise pytest.UsageError(
                f"zenmux marker: unknown option(s) {sorted(unknown)}; "
                "use scenarios, strict, seed, clock, misbehave, record"
            )
        if "record" in marker.kwargs:
            options.record = cassette_path(marker.kwargs["record"], item.path.parent)
        if "misbehave" in marker.kwargs:
            options.misbehave = _misbehave(marker.kwargs["misbehave"])
        scenarios = marker.kwargs.get("scenarios", [])
        if isinstance(scenarios, (str, Path)):
            scenarios = [scenarios]
        for path in scenarios:
            resolved = _resolve(path, item.config.rootpath, item.path.parent)
            if resolved not in options.scenarios:
                options.scenarios.append(resolved)
        options.overrides.update({k: v for k, v in marker.kwargs.items() if k in SETTINGS_KEYS})
    return options
