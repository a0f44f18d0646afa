"""`zenmux-emulator record` and `serve --record-missing` as a user runs them: a real process."""

from __future__ import annotations

import signal
from pathlib import Path

import openai

from tests.cli.test_cli import CONSOLE_SCRIPT, Served, clean_env, run
from tests.conftest import MakeServer
from tests.record.helpers import upstream
from zenmux_emulator.record.store import FILENAME


def test_record_writes_what_the_upstream_said_and_exits_0(make_server: MakeServer, tmp_path: Path) -> None:
    source = upstream(make_server)
    out = tmp_path / "out"
    served = Served(
        [
            str(CONSOLE_SCRIPT),
            "record",
            "--port",
            "0",
            "--upstream",
            f"{source.origin}/api/v1",
            "--out",
            str(out),
            "--redact",
            "plain",
        ],
        tmp_path / "stderr.log",
        clean_env(),
    )
    try:
        url = served.wait_listening().base_url
        with openai.OpenAI(base_url=url, api_key="sk-cli-record-key", max_retries=0) as client:
            answer = client.chat.completions.create(
                model="openai/gpt-5.4-mini", messages=[{"role": "user", "content": "a plain question"}]
            )
        assert answer.choices[0].message.content == "You asked: a plain question"
        assert served.stop(signal.SIGTERM) == 0
    finally:
        served.close()
    text = (out / FILENAME).read_text(encoding="utf-8")
    assert "You asked: a [REDACTED] question" in text
    assert "sk-cli-record-key" not in text and "plain" not in text
    assert run([str(CONSOLE_SCRIPT), "validate", str(out)]).returncode == 0


def test_the_help_names_the_options_and_a_missing_upstream_is_refused() -> None:
    helped = run([str(CONSOLE_SCRIPT), "record", "--help"])
    assert helped.returncode == 0
    for option in ("--upstream", "--out", "--redact", "--record-errors"):
        assert option in helped.stdout
    serve_help = run([str(CONSOLE_SCRIPT), "serve", "--help"]).stdout
    assert "--record-missing" in serve_help and "--record-out" in serve_help
    refused = run([str(CONSOLE_SCRIPT), "serve", "--record-missing"])
    assert refused.returncode == 2
    assert "--record-missing needs --upstream URL" in refused.stderr
    no_out = run([str(CONSOLE_SCRIPT), "record", "--upstream", "http://127.0.0.1:9"])
    assert no_out.returncode == 2 and "--out" in no_out.stderr
