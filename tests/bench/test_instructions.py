"""bench/instructions.py counts the work of real requests: its driver sends them through the
app's own handler and insists on 200s, and it reads callgrind's count right."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from instructions import collected, drive  # noqa: E402


@pytest.mark.parametrize("server", ["emulator", "floor"])
def test_the_driver_sends_requests_that_are_answered(server: str, tmp_path: Path) -> None:
    answered, seconds = asyncio.run(drive(server, 5, folder=tmp_path))
    assert answered == 5 and seconds > 0
    assert asyncio.run(drive(server, 5, handle=False, folder=tmp_path))[0] == 0  # the control run


def test_the_driver_refuses_an_answer_that_is_not_200(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import instructions

    monkeypatch.setattr(instructions, "BODY", b'{"model": "openai/gpt-5", "messages": []}')
    with pytest.raises(RuntimeError, match="answered 400"):
        asyncio.run(drive("emulator", 1, folder=tmp_path))


def test_callgrinds_count_is_read_from_its_report() -> None:
    report = "==123== Events    : Ir\n==123== Collected : 4666898343\n==123==\n==123== I   refs:      4,666,898,343\n"
    assert collected(report) == 4_666_898_343
    with pytest.raises(RuntimeError, match="no instruction count"):
        collected("valgrind: command failed")
