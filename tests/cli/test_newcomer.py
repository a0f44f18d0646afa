"""A newcomer's first hour (issue 18): the version, `init`, `serve` without scenarios, `wait`, the
environment variables named after the options, the start-up summary, and the installed package."""

from __future__ import annotations

import contextlib
import importlib.metadata
import json
import re
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import openai
import pytest

from tests.cli.test_cli import CONSOLE_SCRIPT, PYTHON_M, Served, chat, clean_env, run, serve
from tests.conftest import SHIPPED
from tests.docs.pages import page
from tests.support.shipped import load_paths
from zenmux_emulator.cli.environment import EnvironmentProblem, variables
from zenmux_emulator.cli.main import build_parser, serve_parser, settings_from
from zenmux_emulator.settings import Settings

VERSION = importlib.metadata.version("zenmux-emulator")
"""The installed release, as pip read it from `pyproject.toml` (which takes the package's `__version__`)."""
GETTING_STARTED = page("getting-started.md")
SUMMARY = re.compile(
    r"serving chat, anthropic, responses, objectiveai, vertex, embeddings, rerank, platform, images, speech, transcription, videos, imagen, systemone, interactions; (\d+) rules from (\d+) scenario files; "
    r"API keys (.+); catalogue (zenmux|open|closed) \((\d+) models\) "
    r"of (\d{4}-\d\d-\d\d)"
)


__all__ = ["serve"]  # the fixture that starts (and always stops) `serve` processes


def readme_curl_body() -> dict[str, object]:
    """The JSON body of the first curl request of docs/getting-started.md."""
    [body] = re.findall(
        r"curl -s http://127\.0\.0\.1:8000/api/v1/chat/completions.*?-d '(.*?)'", GETTING_STARTED, re.DOTALL
    )
    return dict(json.loads(body))


def post_json(url: str, body: dict[str, object]) -> dict[str, object]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Authorization": "Bearer sk-anything", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return dict(json.loads(response.read()))


def second_line(served: Served) -> str:
    return served._lines.get(timeout=30).rstrip("\n")


# --- the version, help -------------------------------------------------------------------------------


@pytest.mark.parametrize("words", [["--version"], ["-V"], ["version"]])
def test_the_version_is_printed(words: list[str]):
    result = run([str(CONSOLE_SCRIPT), *words])
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"zenmux-emulator {VERSION}\n"


def test_help_explains_log_format_and_level_and_the_variables():
    out = run([*PYTHON_M, "serve", "--help"]).stdout
    flat = " ".join(out.split())
    assert "one JSON object per line, the start-up lines included" in flat  # --log-format
    assert "the least severe log line written" in flat  # --log-level
    assert "--no-watch ZENMUX_EMULATOR_NO_WATCH=true" in flat
    assert "An unknown ZENMUX_EMULATOR_* variable stops the start." in flat
    top = run([str(CONSOLE_SCRIPT), "--help"]).stdout
    for command in ("serve", "validate", "init", "wait", "version"):
        assert command in top


def test_help_does_not_import_the_server():
    probe = (
        "import sys; from zenmux_emulator.cli.main import build_parser; build_parser(); "
        "print(sorted(m for m in ('aiohttp', 'asyncio', 'pydantic', 'yaml', 'jinja2') if m in sys.modules))"
    )
    assert (
        subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
        ).stdout.strip()
        == "[]"
    )


# --- init and a server without scenarios ----------------------------------------------------------------


def test_init_writes_the_shipped_examples_and_keeps_existing_files(tmp_path: Path):
    result = run([str(CONSOLE_SCRIPT), "init", str(tmp_path / "demo")])
    assert result.returncode == 0, result.stderr
    assert f"next: zenmux-emulator serve --scenarios {tmp_path / 'demo'}" in result.stdout
    written = sorted(p.name for p in (tmp_path / "demo").iterdir())
    assert written == sorted(p.name for p in SHIPPED.glob("*.yaml"))
    for name in written:
        assert (tmp_path / "demo" / name).read_bytes() == (SHIPPED / name).read_bytes()
    (tmp_path / "demo" / "basics.yaml").write_text("rules: []\n", encoding="utf-8")
    again = run([str(CONSOLE_SCRIPT), "init", str(tmp_path / "demo")])
    assert again.returncode == 1
    assert "already has" in again.stderr and "basics.yaml" in again.stderr and "--force" in again.stderr
    assert (tmp_path / "demo" / "basics.yaml").read_text(encoding="utf-8") == "rules: []\n"
    assert run([str(CONSOLE_SCRIPT), "init", str(tmp_path / "demo"), "--force"]).returncode == 0
    assert (tmp_path / "demo" / "basics.yaml").read_bytes() == (SHIPPED / "basics.yaml").read_bytes()


def test_serve_without_scenarios_says_how_to_get_some(tmp_path: Path):
    result = subprocess.run(
        [str(CONSOLE_SCRIPT), "serve", "--port", "0"],
        cwd=tmp_path,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "scenarios: no such file or directory" in result.stderr
    assert (
        "zenmux-emulator: no scenarios to serve. Write the examples to start from with "
        "`zenmux-emulator init scenarios`" in result.stderr
    )
    assert "Traceback" not in result.stderr


def test_init_then_serve_answers_the_readme_curl(serve, tmp_path: Path):
    assert run([str(CONSOLE_SCRIPT), "init", "demo"], cwd=tmp_path).returncode == 0
    served = serve([str(CONSOLE_SCRIPT), "serve", "--scenarios", "demo", "--port", "0"], cwd=tmp_path).wait_listening()
    body = post_json(f"{served.base_url}/chat/completions", readme_curl_body())
    assert body["choices"][0]["message"]["content"] == "Hi hello there! How can I help?"  # type: ignore[index]
    assert served.stop() == 0


# --- wait ------------------------------------------------------------------------------------------------


def test_wait_returns_0_once_the_server_answers(serve):
    served = serve([*PYTHON_M, "serve", "--port", "0", "--scenarios", str(SHIPPED), "--no-watch"]).wait_listening()
    for url in (served.base_url, served.base_url.removesuffix("/api/v1")):
        result = run([str(CONSOLE_SCRIPT), "wait", "--url", url, "--timeout", "20"])
        assert result.returncode == 0, result.stderr
        assert result.stdout == f"ready: http://127.0.0.1:{served.port}/_emulator/health\n"
    assert served.stop() == 0


def test_wait_fails_within_its_timeout_when_the_server_did_not_start(tmp_path: Path):
    broken = tmp_path / "broken.yaml"
    broken.write_text("rules:\n  - name: a\n    mtach: {}\n    reply: {content: x}\n", encoding="utf-8")
    with open(tmp_path / "log", "wb") as log:
        server = subprocess.Popen(
            [str(CONSOLE_SCRIPT), "serve", "--port", "0", "--scenarios", str(broken)],
            env=clean_env(),
            stdout=log,
            stderr=log,
        )
        assert server.wait(60) == 1  # refused to start
    with socket_port() as port:  # a port nothing listens on
        result = subprocess.run(
            [str(CONSOLE_SCRIPT), "wait", "--url", f"http://127.0.0.1:{port}", "--timeout", "1"],
            env=clean_env(),
            capture_output=True,
            text=True,
            timeout=60,
        )  # a hang guard only
    assert result.returncode == 1
    assert f"http://127.0.0.1:{port}/_emulator/health did not answer within 1 s (last: " in result.stderr


@contextlib.contextmanager
def socket_port() -> Iterator[int]:
    """A port that refuses connections: bound by us, not listening."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


# --- environment variables ---------------------------------------------------------------------------


def test_every_option_reads_a_variable_named_after_it():
    parser = serve_parser()
    accepted = variables(parser, Settings.model_fields)
    options = [a for a in parser._actions if a.option_strings and a.dest in Settings.model_fields]
    assert len(options) >= 20
    for action in options:
        option = max(action.option_strings, key=len)
        name = "ZENMUX_EMULATOR_" + option.lstrip("-").replace("-", "_").upper()
        assert accepted[name].field == action.dest, option
    for field in Settings.model_fields:  # the field names of 0.1.0 stay accepted
        assert accepted["ZENMUX_EMULATOR_" + field.upper()].field == field


def from_env(**environ: str) -> Settings:
    return settings_from(build_parser().parse_args(["serve"]), {f"ZENMUX_EMULATOR_{k}": v for k, v in environ.items()})


def test_the_option_names_and_the_old_names_both_set_the_settings(tmp_path: Path):
    journal = str(tmp_path / "j.jsonl")
    new = from_env(API_KEY="a,b", NO_WATCH="true", NO_CONTROL_HEADERS="1", JOURNAL=journal, PORT="9")
    old = from_env(API_KEYS="a,b", WATCH="false", CONTROL_HEADERS="false", JOURNAL_FILE=journal, PORT="9")
    for settings in (new, old):
        assert (
            settings.api_keys,
            settings.watch,
            settings.control_headers,
            str(settings.journal_file),
            settings.port,
        ) == (["a", "b"], False, False, journal, 9)
    assert from_env(NO_WATCH="false").watch is True
    assert from_env(REDACT='["a{1,2}", "b"]').redact == ["a{1,2}", "b"]  # a JSON list keeps commas in a regex
    assert from_env(REDACT="a, b").redact == ["a", "b"]


def test_the_node_helpers_variables_are_left_to_it():
    # issue 41: the GitHub Action exports ZENMUX_EMULATOR_URL for the Node helper, and a suite sets
    # ZENMUX_EMULATOR_COMMAND; a server started later in the same job must not refuse them as unknown
    assert from_env(URL="http://127.0.0.1:9000", COMMAND="python -m zenmux_emulator", PORT="9").port == 9


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"APIKEY": "sk-a"}, "unknown variable ZENMUX_EMULATOR_APIKEY; did you mean ZENMUX_EMULATOR_API_KEY?"),
        ({"NO_WATCH": "maybe"}, "ZENMUX_EMULATOR_NO_WATCH='maybe': expected true or false (1/0, yes/no, on/off)"),
        ({"REDACT": "[1]"}, "ZENMUX_EMULATOR_REDACT: expected a JSON list of strings"),
        (
            {"API_KEY": "a", "API_KEYS": "b"},
            "ZENMUX_EMULATOR_API_KEYS and ZENMUX_EMULATOR_API_KEY both set --api-key; keep one",
        ),
    ],
)
def test_unknown_unreadable_or_doubled_variables_are_refused(environ: dict[str, str], message: str):
    with pytest.raises(EnvironmentProblem) as caught:
        from_env(**environ)
    assert str(caught.value) == message


def test_an_unknown_variable_stops_the_start_with_did_you_mean():
    # Issue 18: ZENMUX_EMULATOR_API_KEY was ignored silently and every key stayed accepted; now it is the
    # option's name, and a near miss is refused.
    result = run(
        [*PYTHON_M, "serve", "--port", "0", "--scenarios", str(SHIPPED)], env=clean_env(ZENMUX_EMULATOR_API_KY="sk-a")
    )
    assert result.returncode == 2
    assert result.stderr == (
        "zenmux-emulator: unknown variable ZENMUX_EMULATOR_API_KY; did you mean ZENMUX_EMULATOR_API_KEY?\n"
    )
    assert "listening" not in result.stdout


def test_a_refused_value_names_the_variable_or_the_flag():
    by_env = run([*PYTHON_M, "serve", "--scenarios", str(SHIPPED)], env=clean_env(ZENMUX_EMULATOR_PORT="-3"))
    assert by_env.returncode == 2
    assert by_env.stderr.startswith("zenmux-emulator: ZENMUX_EMULATOR_PORT (port): ")
    by_flag = run([*PYTHON_M, "serve", "--port", "-3", "--scenarios", str(SHIPPED)])
    assert by_flag.stderr.startswith("zenmux-emulator: --port (port): ")


def test_api_key_restricts_the_keys_and_the_summary_says_so(serve):
    served = serve(
        [*PYTHON_M, "--port", "0"],
        env=clean_env(
            ZENMUX_EMULATOR_API_KEY="sk-a", ZENMUX_EMULATOR_SCENARIOS=str(SHIPPED), ZENMUX_EMULATOR_NO_WATCH="1"
        ),
    )
    summary = SUMMARY.fullmatch(second_line(served.wait_listening()))
    assert summary is not None
    assert summary.group(3) == "restricted to 1 key(s)"
    with served.client(api_key="sk-a") as client:
        assert chat(client, "hello").headers.get("X-Emulator-Rule") == "greeting"
    with served.client(api_key="sk-b") as client, pytest.raises(openai.PermissionDeniedError):
        chat(client, "hello")
    assert served.stop() == 0


# --- the start-up lines ------------------------------------------------------------------------------


def test_the_summary_line_names_faces_scenarios_keys_and_catalogue(serve):
    served = serve([*PYTHON_M, "serve", "--port", "0", "--scenarios", str(SHIPPED), "--no-watch"]).wait_listening()
    summary = SUMMARY.fullmatch(second_line(served))
    assert summary is not None, served.stderr()
    assert summary.group(1, 2, 4, 5) == ("64", "16", "zenmux", str(len(load_paths([SHIPPED]).catalogue)))
    assert int(summary.group(5)) > 112  # ZenMux's 112 and the shipped files' own
    assert summary.group(3) == "not restricted (any non-empty key; --api-key restricts them)"
    assert served.stop() == 0


def test_under_json_logs_the_start_up_lines_are_json(serve):
    served = serve(
        [*PYTHON_M, "serve", "--port", "0", "--scenarios", str(SHIPPED), "--no-watch", "--log-format", "json"]
    ).wait_listening()
    listening = json.loads(served.first_line)
    assert listening["message"] == f"ZenMux emulator listening on {listening['url']}"
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/api/v1", listening["url"])
    assert {"time", "level", "logger"} <= set(listening)
    summary = json.loads(second_line(served))
    assert SUMMARY.fullmatch(summary["message"])
    assert (
        summary["faces"],
        summary["rules"],
        summary["scenario_files"],
        summary["api_keys"],
        summary["catalogue"],
    ) == (
        [
            "chat",
            "anthropic",
            "responses",
            "objectiveai",
            "vertex",
            "embeddings",
            "rerank",
            "platform",
            "images",
            "speech",
            "transcription",
            "videos",
            "imagen",
            "systemone",
            "interactions",
        ],
        64,
        16,
        0,
        "zenmux",
    )
    served.process.terminate()
    assert served.wait() == 0


# --- the small ones of issue 30 ----------------------------------------------------------------------


def test_init_into_a_reader_that_stops_early_prints_no_traceback(tmp_path: Path):
    done = subprocess.run(
        f"'{CONSOLE_SCRIPT}' init demo | head -c 5",
        shell=True,
        cwd=tmp_path,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout == "wrote"
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr
    assert sorted(p.name for p in (tmp_path / "demo").iterdir()) == sorted(p.name for p in SHIPPED.glob("*.yaml"))


def test_validate_counts_in_words_that_agree(tmp_path: Path):
    one = tmp_path / "one.yaml"
    one.write_text("rules:\n  - name: only\n    reply: {content: hi}\n", encoding="utf-8")
    result = run([str(CONSOLE_SCRIPT), "validate", str(one)])
    assert (result.returncode, result.stdout) == (0, "ok: 1 rule in 1 file\n")
