"""bench/instructions.py counts the work of real requests: its driver sends them through the
app's own handler and insists on 200s, its `--served` client sends them over HTTP and insists on
200s too, and it reads callgrind's count and the server's port right."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from gen_scenarios import write_scenarios  # noqa: E402
from instructions import (  # noqa: E402
    BODY,
    CHECKOUT,
    STREAM_BODY,
    collected,
    drive,
    listening_port,
    send,
    served_environment,
)

from zenmux_emulator.pytest_plugin.server import EmulatorServer  # noqa: E402
from zenmux_emulator.settings import Settings  # noqa: E402


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


@pytest.mark.parametrize(("body", "streamed"), [(BODY, False), (STREAM_BODY, True)])
def test_the_served_client_sends_every_request_from_its_connections(
    body: bytes, streamed: bool, tmp_path: Path
) -> None:
    folder = write_scenarios(tmp_path, 10)
    with EmulatorServer(Settings(port=0, scenarios=[str(folder)], watch=False)) as server:
        send(server.port, 7, 3, body)
        entries = server.state.journal.entries()
    assert len(entries) == 7
    assert {(entry.status, entry.stream, entry.rule) for entry in entries} == {
        (200, streamed, "stream" if streamed else "plain")
    }
    assert len({entry.session for entry in entries}) == 1


def test_the_served_client_refuses_an_answer_that_is_not_200(tmp_path: Path) -> None:
    folder = write_scenarios(tmp_path, 10)
    with EmulatorServer(Settings(port=0, scenarios=[str(folder)], watch=False)) as server:
        with pytest.raises(RuntimeError, match="answered 400"):
            send(server.port, 1, 1, b'{"model": "openai/gpt-5", "messages": []}')


def test_the_port_is_read_from_the_server_s_first_lines() -> None:
    lines = iter([b"starting\n", b"ZenMux emulator listening on http://127.0.0.1:40123/api/v1\n"])
    assert listening_port(lambda: next(lines)) == 40123
    with pytest.raises(RuntimeError, match="did not say where it listens"):
        listening_port(lambda: b"")


def test_the_served_count_says_it_needs_valgrind(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import instructions

    monkeypatch.setattr(instructions.shutil, "which", lambda name: None)
    monkeypatch.setattr(sys, "argv", ["instructions.py", "--served"])
    assert instructions.main() == 1
    assert "valgrind, which is not installed" in capsys.readouterr().err


def test_the_served_runs_import_the_package_measured_whatever_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server is started with `-m`, which puts its working directory first on the path: the
    environment names the package to measure (`--source`, else this checkout's) and the server runs
    elsewhere, so an older checkout given as the source is the one measured."""
    monkeypatch.delenv("PYTHONPATH", raising=False)
    assert BENCH.parent == CHECKOUT
    assert served_environment(None)["PYTHONPATH"] == str(CHECKOUT)
    older = tmp_path / "older"
    (older / "zenmux_emulator").mkdir(parents=True)
    (older / "zenmux_emulator" / "__init__.py").write_text("")
    assert served_environment(older)["PYTHONPATH"] == str(older.resolve())
