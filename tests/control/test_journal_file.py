"""`--journal FILE`: every finished request appended as one JSON line, off the event loop, flushed at
shutdown, never a credential."""

from __future__ import annotations

import json
import os
import signal
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
from pydantic import ValidationError

from tests.cli.test_cli import CONSOLE_SCRIPT, Served, clean_env
from tests.conftest import MakeServer
from tests.control.helpers import control, ok
from tests.scenarios.helpers import ask, ask_stream, post_chat, sdk
from tests.support.polling import wait_until
from zenmux_emulator.cli.main import build_parser, settings_from
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.settings import Settings

OpenClient = Callable[..., openai.OpenAI]
SECRET = "sk-ai-v1-very-secret-journal-key"
ADMIN = "admin-token-never-written"
ENTRY_KEYS = {
    "seq",
    "request_id",
    "time",
    "method",
    "path",
    "api",
    "headers",
    "session",
    "body",
    "rule",
    "reply_index",
    "scenario",
    "state_before",
    "state_after",
    "near_misses",
    "unscripted",
    "warnings",
    "status",
    "error_type",
    "stream",
    "response",
    "events_sent",
    "client_gone",
    "duration_ms",
    "unmet_expectations",
    "response_headers",
    "arrived",
    "fault",
    "misbehaved",
    "dropped",
    "routing",
    "bytes",
    "first_byte_ms",
    "event_offsets_ms",
    "worker",
    "recorded",
}

RULES = """\
rules:
  - name: greet
    match: {last_user: {contains: hello}}
    reply: {content: "hi there"}
"""


def lines(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_finished_requests_appear_as_json_lines_without_secrets(make_server: MakeServer, tmp_path: Path):
    journal = tmp_path / "journal.jsonl"
    server = make_server(RULES, journal_file=str(journal), admin_token=ADMIN)
    with sdk(server, "file", api_key=SECRET) as client:
        assert ask(client, "hello").rule == "greet"
        assert ask_stream(client, "hello again")[1] == "hi there"
    assert (
        post_chat(
            server,
            {"model": "openai/gpt-5.4-mini", "messages": [{"role": "user", "content": "x"}]},
            {"x-api-key": SECRET, "Authorization": ""},
        ).status
        == 200
    )
    ok(control(server, "GET", "health", headers={"X-Emulator-Admin-Token": ADMIN}))  # not journaled

    written = wait_until(lambda: len(lines(journal)) >= 3 and lines(journal))
    assert [(e["seq"], e["rule"], e["stream"], e["status"]) for e in written] == [
        (1, "greet", False, 200),
        (2, "greet", True, 200),
        (3, None, False, 200),
    ]
    assert all(set(entry) == ENTRY_KEYS for entry in written)
    assert written[0]["headers"]["Authorization"] == "Bearer ***"
    assert written[0]["response"]["choices"][0]["message"]["content"] == "hi there"
    assert written[1]["response"][-1] == "data: [DONE]\n\n"
    assert len(written[1]["event_offsets_ms"]) == written[1]["events_sent"] == len(written[1]["response"])
    assert written[0]["event_offsets_ms"] == [] and 0 < written[0]["first_byte_ms"] <= written[0]["duration_ms"]
    assert all(entry["worker"] == os.getpid() for entry in written)  # the plugin's server runs in this process
    # the response's headers as sent, request id included, copied on the loop before the writer thread
    assert all(entry["response_headers"]["X-ZenMux-RequestId"] == entry["request_id"] for entry in written)
    assert {k.lower(): v for k, v in written[2]["headers"].items()}["x-api-key"] == "***"
    text = journal.read_text(encoding="utf-8")
    assert SECRET not in text and ADMIN not in text
    assert text.endswith("\n") and len(text.splitlines()) == 3


def test_a_request_that_ends_during_shutdown_is_still_written(make_server: MakeServer, tmp_path: Path):
    journal = tmp_path / "journal.jsonl"
    slow = (
        RULES + "  - name: slow\n    match: {last_user: slow}\n"
        "    reply: {content: a b c, stream: {first_token_ms: 60000}}\n"
    )
    server = make_server(slow, journal_file=str(journal), journal_size=0)
    received: list[str] = []

    def stream() -> None:
        with sdk(server, "shutdown") as client:
            received.append(ask_stream(client, "slow please")[1])

    streaming = threading.Thread(target=stream)
    streaming.start()
    try:
        # the stream is waiting for its first token once the server counted the request
        assert wait_until(lambda: server.state.received == 1)
        assert lines(journal) == []
        server.stop()  # ends the stream at once; its entry is queued while the server shuts down
    finally:
        streaming.join(30)
    assert received == ["a b c"]
    [entry] = lines(journal)
    assert (entry["rule"], entry["stream"], entry["status"], entry["client_gone"]) == ("slow", True, 200, False)
    assert entry["response"][-1] == "data: [DONE]\n\n"


def test_a_write_failure_is_logged_and_the_server_keeps_answering(
    make_server: MakeServer, open_client: OpenClient, tmp_path: Path, caplog: pytest.LogCaptureFixture
):
    journal = tmp_path / "journal.jsonl"
    server = make_server(RULES, journal_file=str(journal))
    journal.unlink()  # made at start-up ...
    journal.mkdir()  # ... and now it cannot be opened any more
    client = open_client(server)
    assert ask(client, "hello").content == "hi there"
    assert wait_until(lambda: any("cannot write the journal file" in r.getMessage() for r in caplog.records))
    journal.rmdir()
    assert ask(client, "hello").content == "hi there"
    server.stop()
    assert [e["seq"] for e in lines(journal)] == [2]  # the writer went on after the failure


def test_a_second_run_appends(make_server: MakeServer, open_client: OpenClient, tmp_path: Path):
    journal = tmp_path / "journal.jsonl"
    journal.write_text('{"earlier": true}\n', encoding="utf-8")
    server = make_server(RULES, journal_file=str(journal))
    ask(open_client(server), "hello")
    server.stop()
    first, second = lines(journal)
    assert first == {"earlier": True} and "body" in second and "seq" in second


def test_the_file_is_there_from_the_start(make_server: MakeServer, tmp_path: Path):
    journal = tmp_path / "journal.jsonl"
    make_server(RULES, journal_file=str(journal))
    assert journal.is_file() and journal.read_bytes() == b""  # to follow with tail -f before any request


def test_health_names_the_journal_file(make_server: MakeServer, tmp_path: Path):
    journal = tmp_path / "journal.jsonl"
    assert ok(control(make_server(RULES, journal_file=str(journal)), "GET", "health"))["journal"] == {
        "entries": 0,
        "bytes": 0,
        "max_bytes": 32 << 20,
        "file": str(journal),
    }
    assert ok(control(make_server(RULES), "GET", "health"))["journal"]["file"] is None


def test_the_setting_reads_the_environment_and_checks_the_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("ZENMUX_EMULATOR_JOURNAL", str(tmp_path / "from-env.jsonl"))
    assert settings_from(build_parser().parse_args(["serve"])).journal_file == tmp_path / "from-env.jsonl"
    monkeypatch.delenv("ZENMUX_EMULATOR_JOURNAL")
    monkeypatch.setenv("ZENMUX_EMULATOR_JOURNAL_FILE", str(tmp_path / "alias.jsonl"))  # the name of 0.1.0
    assert settings_from(build_parser().parse_args(["serve"])).journal_file == tmp_path / "alias.jsonl"
    assert Settings().journal_file is None  # settings built in code never read the environment
    with pytest.raises(ValidationError, match="does not exist"):
        Settings(journal_file=str(tmp_path / "missing" / "journal.jsonl"))
    with pytest.raises(ValidationError, match="is a folder"):
        Settings(journal_file=str(tmp_path))


@pytest.fixture
def served(tmp_path: Path) -> Iterator[list[Served]]:
    started: list[Served] = []
    yield started
    for process in started:
        process.close()


def test_the_command_line_option_writes_and_flushes_on_sigterm(tmp_path: Path, served: list[Served]):
    scenarios = tmp_path / "rules.yaml"
    scenarios.write_text(RULES, encoding="utf-8")
    journal = tmp_path / "cli-journal.jsonl"
    process = Served(
        [str(CONSOLE_SCRIPT), "--port", "0", "--scenarios", str(scenarios), "--journal", str(journal)],
        tmp_path / "stderr.log",
        clean_env(),
    )
    served.append(process)
    process.wait_listening()
    with process.client(api_key=SECRET) as client:
        for _ in range(3):
            client.chat.completions.create(model="openai/gpt-5.4-mini", messages=[{"role": "user", "content": "hello"}])
    assert process.stop(signal.SIGTERM) == 0
    written = lines(journal)
    assert [(e["seq"], e["rule"]) for e in written] == [(1, "greet"), (2, "greet"), (3, "greet")]
    assert SECRET not in journal.read_text(encoding="utf-8")


def test_an_unused_server_leaves_an_empty_file(tmp_path: Path):
    journal = tmp_path / "journal.jsonl"  # issue 30: the file is made at start-up (it used to wait for a request)
    with EmulatorServer(Settings(port=0, scenarios=[], watch=False, journal_file=str(journal))) as server:
        ok(control(server, "GET", "health"))  # the control API is not journaled
    assert journal.read_bytes() == b""


def test_each_run_starts_on_a_fresh_line_after_a_kill_9(tmp_path: Path, served: list[Served]):
    """A run killed by SIGKILL loses at most what it had not written; a torn last line (a crash in
    the middle of a write) is cut off by the next run, which starts on a fresh line: every line reads."""
    scenarios = tmp_path / "rules.yaml"
    scenarios.write_text(RULES, encoding="utf-8")
    journal = tmp_path / "crashed.jsonl"
    journal.write_text('{"earlier": true}\n{"seq": 7, "rule": "gre', encoding="utf-8")  # torn by an earlier crash
    argv = [str(CONSOLE_SCRIPT), "--port", "0", "--scenarios", str(scenarios), "--journal", str(journal)]

    def run(requests: int) -> Served:
        process = Served(argv, tmp_path / f"stderr{len(served)}.log", clean_env())
        served.append(process)
        process.wait_listening()
        with process.client(api_key=SECRET) as client:
            for _ in range(requests):
                client.chat.completions.create(
                    model="openai/gpt-5.4-mini", messages=[{"role": "user", "content": "hello"}]
                )
        return process

    killed = run(3)
    wait_until(lambda: journal.read_bytes().count(b'"rule":"greet"') == 3)
    assert killed.stop(signal.SIGKILL) == -signal.SIGKILL
    assert "torn last line" in killed.stderr()
    with journal.open("ab") as out:
        out.write(b'{"seq": 4, "request_id": "')  # as if the kill had come in the middle of a write
    assert run(2).stop(signal.SIGTERM) == 0
    text = journal.read_text(encoding="utf-8")
    assert text.endswith("\n")
    written = [json.loads(line) for line in text.splitlines()]
    assert written[0] == {"earlier": True}
    assert [(e["seq"], e["rule"]) for e in written[1:]] == [
        (1, "greet"),
        (2, "greet"),
        (3, "greet"),
        (1, "greet"),
        (2, "greet"),
    ]


def test_a_last_line_that_is_whole_but_unended_is_kept(
    make_server: MakeServer, open_client: OpenClient, tmp_path: Path
):
    journal = tmp_path / "journal.jsonl"
    journal.write_text('{"earlier": true}', encoding="utf-8")  # written by hand, without its newline
    server = make_server(RULES, journal_file=str(journal))
    ask(open_client(server), "hello")
    server.stop()
    first, second = lines(journal)
    assert first == {"earlier": True} and second["rule"] == "greet"
