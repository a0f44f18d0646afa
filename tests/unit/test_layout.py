"""`tests/unit/` mirrors the package: a unit test sits in the folder of the module it tests, so the test of
`zenmux_emulator/core/match/near_miss.py` is `tests/unit/core/match/test_near_miss.py`."""

from __future__ import annotations

from pathlib import Path

UNIT = Path(__file__).parent
PACKAGE = UNIT.parents[1] / "zenmux_emulator"


def test_every_unit_test_sits_in_a_folder_the_package_has() -> None:
    astray = sorted(
        str(test.relative_to(UNIT))
        for test in UNIT.rglob("test_*.py")
        if not (PACKAGE / test.parent.relative_to(UNIT)).is_dir()
    )
    assert not astray, f"unit tests outside the package's mirror (move each beside its module): {astray}"
