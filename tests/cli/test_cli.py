"""`zenmux-emulator` / `python -m zenmux_emulator` as a user runs them: real processes, signals, env vars, exit codes."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import openai
import pytest

from tests.conftest import FROZEN, REPO, SHIPPED
from zenmux_emulator.foundation.ids import completion_id

CONSOLE_SCRIPT = Path(sys.executable).with_name("zenmux-emulator")
PYTHON_M = [sys.executable, "-m", "zenmux_emulator"]
LISTENING = re.compile(r"ZenMux emulator listening on (http://127\.0\.0\.1:(\d+)/api/v1)")
START_TIMEOUT = 30.0
EXIT_TIMEOUT = 15.0

SLOW = """\
rules:
  - name: slow
    match: {last_user: {contains: "slow"}}
    reply:
      content: "a b c"
      stream: {first_token_ms: 20000}
"""

TYPO = """\
rules:
  - name: a
    mtach: {model: "openai/*"}
    reply: {content: hi}
"""


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without any ZENMUX_EMULATOR_* the caller may have set, plus `extra`."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("ZENMUX_EMULATOR_") or k == "ZENMUX_EMULATOR_CACHE_DIR"  # the suite's, in tmp
    }
    env.update(extra)
    return env


class Served:
    """A `serve` process: started, waited for until it prints its URL, stopped by its own pid."""

    def __init__(self, argv: list[str], stderr_path: Path, env: dict[str, str] | None = None, cwd: Path = REPO) -> None:
        self.stderr_path = stderr_path
        self._stderr: IO[bytes] = open(stderr_path, "wb")  # noqa: SIM115 - closed in close()
        self.process = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env if env is not None else clean_env(),
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
        )
        self._lines: queue.Queue[str] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.first_line = ""
        self.base_url = ""
        self.port = 0

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)
        self._lines.put("")

    def wait_listening(self) -> Served:
        try:
            self.first_line = self._lines.get(timeout=START_TIMEOUT).rstrip("\n")
        except queue.Empty:
            pytest.fail(f"no output within {START_TIMEOUT}s; stderr:\n{self.stderr()}")
        line = self.first_line  # under --log-format json, a JSON object with the same message
        found = LISTENING.fullmatch(json.loads(line)["message"] if line.startswith("{") else line)
        assert found, f"unexpected first line {self.first_line!r}; stderr:\n{self.stderr()}"
        self.base_url, self.port = found.group(1), int(found.group(2))
        return self

    def client(self, api_key: str = "sk-cli-test", **options: Any) -> openai.OpenAI:
        return openai.OpenAI(base_url=self.base_url, api_key=api_key, max_retries=0, **options)

    def stop(self, sig: signal.Signals = signal.SIGTERM) -> int:
        self.process.send_signal(sig)
        return self.wait()

    def wait(self) -> int:
        try:
            return self.process.wait(EXIT_TIMEOUT)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the process did not exit within {EXIT_TIMEOUT}s; stderr:\n{self.stderr()}")

    def stderr(self) -> str:
        self._stderr.flush()
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(EXIT_TIMEOUT)
        self._reader.join(EXIT_TIMEOUT)
        if self.process.stdout is not None:
            self.process.stdout.close()
        self._stderr.close()


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Any]:
    """`serve(argv, env=..., cwd=...)` starts a process; every one is killed (by pid) at the end if still alive."""
    started: list[Served] = []

    def start(argv: list[str], env: dict[str, str] | None = None, cwd: Path = REPO) -> Served:
        served = Served(argv, tmp_path / f"stderr{len(started)}.log", env, cwd)
        started.append(served)
        return served

    yield start
    for served in started:
        served.close()


def run(argv: list[str], **options: Any) -> subprocess.CompletedProcess[str]:
    options.setdefault("env", clean_env())
    options.setdefault("cwd", REPO)
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, **options)


def chat(client: openai.OpenAI, text: str, model: str = "openai/gpt-5.4-mini", **kwargs: Any) -> Any:
    return client.chat.completions.with_raw_response.create(
        model=model, messages=[{"role": "user", "content": text}], **kwargs
    )


# --- serve: start, answer, stop ------------------------------------------------------------------------


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_serve_prints_its_url_answers_and_exits_0_on_a_signal(serve, sig: signal.Signals):
    served = serve([*PYTHON_M, "serve", "--port", "0", "--scenarios", "scenarios", "--no-watch"]).wait_listening()
    assert served.port > 0
    with served.client() as client:
        raw = chat(client, "hello cli")
    assert raw.headers.get("X-Emulator-Rule") == "greeting"
    assert raw.parse().choices[0].message.content == "Hi hello cli! How can I help?"
    assert served.stop(sig) == 0
    assert "Traceback" not in served.stderr()


def test_the_console_script_serves_too(serve):
    served = serve([str(CONSOLE_SCRIPT), "serve", "--port", "0", "--scenarios", str(SHIPPED)]).wait_listening()
    with served.client() as client:
        assert chat(client, "x", model="acme/tiny-test").parse().choices[0].message.content == "tiny reply"
    assert served.stop(signal.SIGINT) == 0


@pytest.mark.parametrize("launcher", [[str(CONSOLE_SCRIPT)], PYTHON_M], ids=["console script", "python -m"])
def test_the_garbage_collector_is_back_on_once_serving(serve, launcher: list[str]):
    """Start-up runs with the collector paused (emulator/launch.py); serving without it would leak cycles."""
    served = serve([*launcher, "serve", "--port", "0", "--scenarios", str(SHIPPED), "--no-watch"]).wait_listening()
    with urllib.request.urlopen(f"http://127.0.0.1:{served.port}/_emulator/health", timeout=10) as response:
        collector = json.loads(response.read())["collector"]
    assert collector["enabled"] is True
    assert collector["frozen_objects"] > 10_000  # start-up's objects, out of every later scan
    assert served.stop() == 0


def test_no_subcommand_means_serve(serve):
    served = serve([*PYTHON_M, "--port", "0", "--no-watch"]).wait_listening()  # scenarios/ of the cwd
    with served.client() as client:
        assert chat(client, "hello").headers.get("X-Emulator-Rule") == "greeting"
    assert served.stop() == 0


def read_until_eof(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_ends_an_open_slow_stream_and_exits_0(serve, tmp_path: Path, sig: signal.Signals):
    scenario = tmp_path / "slow.yaml"
    scenario.write_text(SLOW, encoding="utf-8")
    served = serve([*PYTHON_M, "serve", "--port", "0", "--scenarios", str(scenario), "--no-watch"]).wait_listening()
    body = json.dumps(
        {"model": "openai/gpt-5.4-mini", "stream": True, "messages": [{"role": "user", "content": "go slow"}]}
    ).encode()
    with socket.create_connection(("127.0.0.1", served.port), timeout=EXIT_TIMEOUT) as sock:
        sock.sendall(
            b"POST /api/v1/chat/completions HTTP/1.1\r\nHost: emulator\r\n"
            b"Authorization: Bearer sk-cli-test\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
        )
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = sock.recv(65536)
            assert chunk, "the server closed the connection before the stream started"
            head += chunk
        assert head.startswith(b"HTTP/1.1 200"), head
        assert b"text/event-stream" in head
        assert b"data: " not in head  # the first token is 20 s away: the stream is open and waiting

        served.process.send_signal(sig)
        try:
            read_until_eof(sock)  # the connection must end, not hang until the first token
        except TimeoutError:
            pytest.fail(f"the stream stayed open {EXIT_TIMEOUT}s after the signal")
    assert served.wait() == 0
    assert "Traceback" not in served.stderr()


def test_a_signal_ends_an_open_stream_cleanly_for_the_sdk(serve, tmp_path: Path):
    # README: "Ctrl-C or SIGTERM stops it cleanly, ending open streams": the HTTP stream is ended, not cut,
    # so an SDK client finishes iterating instead of raising a connection error.
    scenario = tmp_path / "slow.yaml"
    scenario.write_text(SLOW, encoding="utf-8")
    served = serve([*PYTHON_M, "serve", "--port", "0", "--scenarios", str(scenario), "--no-watch"]).wait_listening()
    with served.client(timeout=EXIT_TIMEOUT) as client:
        stream = client.chat.completions.create(
            model="openai/gpt-5.4-mini", messages=[{"role": "user", "content": "go slow"}], stream=True
        )
        served.process.send_signal(signal.SIGTERM)  # the headers are in: the stream is open
        try:
            with stream:
                list(stream)
        except openai.APIConnectionError as error:
            pytest.fail(f"the stream was cut, not ended: {error!r} ({error.__cause__!r})")
    assert served.wait() == 0


# --- settings from flags and environment ----------------------------------------------------------------


def test_environment_variables_configure_the_server(serve):
    env = clean_env(
        ZENMUX_EMULATOR_PORT="0",
        ZENMUX_EMULATOR_SEED="7",
        ZENMUX_EMULATOR_API_KEYS="key-a,key-b",
        ZENMUX_EMULATOR_CLOCK="2026-01-01T00:00:00Z",
        ZENMUX_EMULATOR_SCENARIOS=str(SHIPPED),
        ZENMUX_EMULATOR_WATCH="false",
    )
    served = serve([*PYTHON_M], env=env).wait_listening()
    for key in ("key-a", "key-b"):
        with served.client(api_key=key, default_headers={"X-Emulator-Session": f"env-{key}"}) as client:
            raw = chat(client, "hello")
        completion = raw.parse()
        assert completion.created == 1767225600 == FROZEN
        assert completion.id == completion_id(7, f"env-{key}", 1)  # ids come from the seed
        assert raw.headers.get("x-generation-id") == completion.id
    with served.client(api_key="key-c") as client, pytest.raises(openai.PermissionDeniedError):
        chat(client, "hello")
    assert served.stop() == 0


def test_flags_configure_the_server_and_override_the_environment(serve):
    env = clean_env(ZENMUX_EMULATOR_CLOCK="0", ZENMUX_EMULATOR_SEED="1", ZENMUX_EMULATOR_API_KEYS="env-key")
    served = serve(
        [
            *PYTHON_M,
            "serve",
            "--port",
            "0",
            "--scenarios",
            str(SHIPPED),
            "--no-watch",
            "--api-key",
            "flag-1",
            "--api-key",
            "flag-2",
            "--clock",
            "1767225600",
            "--seed",
            "99",
            "--strict",
        ],
        env=env,
    ).wait_listening()
    with served.client(api_key="flag-2", default_headers={"X-Emulator-Session": "flags"}) as client:
        completion = chat(client, "hello").parse()
        assert completion.created == FROZEN
        assert completion.id == completion_id(99, "flags", 1)
        with pytest.raises(openai.NotFoundError) as caught:  # --strict
            chat(client, "nothing matches this")
        assert isinstance(caught.value.body, dict) and caught.value.body["type"] == "emulator_no_match"
    with served.client(api_key="flag-1") as client:
        assert chat(client, "hello").parse().created == FROZEN
    for key in ("env-key", "other"):
        with served.client(api_key=key) as client, pytest.raises(openai.PermissionDeniedError):
            chat(client, "hello")
    assert served.stop() == 0


def test_clock_accepts_an_iso_time_with_an_offset(serve):
    served = serve(
        [
            *PYTHON_M,
            "serve",
            "--port",
            "0",
            "--scenarios",
            str(SHIPPED),
            "--no-watch",
            "--clock",
            "2026-01-01T01:00:00+01:00",
        ]
    ).wait_listening()
    with served.client() as client:
        assert chat(client, "hello").parse().created == FROZEN
    assert served.stop() == 0


def test_json_logs_are_json_lines_without_api_keys(serve):
    secret, wrong = "sk-ai-v1-very-secret-0123", "sk-ai-v1-wrong-guess-4567"
    served = serve(
        [
            *PYTHON_M,
            "serve",
            "--port",
            "0",
            "--scenarios",
            str(SHIPPED),
            "--no-watch",
            "--api-key",
            secret,
            "--log-format",
            "json",
            "--log-level",
            "debug",
        ]
    ).wait_listening()
    with served.client(api_key=secret) as client:
        chat(client, "hello")
    with served.client(api_key=wrong) as client, pytest.raises(openai.PermissionDeniedError):
        chat(client, "hello")
    with (
        served.client(api_key=wrong, default_headers={"x-api-key": wrong}) as client,
        pytest.raises(openai.PermissionDeniedError),
    ):
        chat(client, "hello")
    assert served.stop() == 0
    text = served.stderr()
    lines = [line for line in text.splitlines() if line.strip()]
    records = []
    for line in lines:
        try:
            records.append(json.loads(line))
        except ValueError:
            pytest.fail(f"not a JSON line: {line!r}")
    assert all({"time", "level", "logger", "message"} <= set(r) for r in records)
    access = [r for r in records if r["logger"] == "emulator.access"]
    assert [r["status"] for r in access] == [200, 403, 403]
    assert access[0]["rule"] == "greeting"
    assert secret not in text and wrong not in text
    assert "very-secret" not in text and "wrong-guess" not in text


def test_an_invalid_setting_exits_2_naming_it(tmp_path: Path):
    result = run([*PYTHON_M, "serve", "--scenarios", str(SHIPPED)], env=clean_env(ZENMUX_EMULATOR_PORT="-3"))
    assert result.returncode == 2
    assert "port" in result.stderr
    assert "listening" not in result.stdout


# --- validate, broken files, busy ports, help -----------------------------------------------------------


def test_validate_accepts_the_shipped_scenarios():
    result = run([str(CONSOLE_SCRIPT), "validate", "scenarios"])
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok: 64 rules in 16 files"


def test_validate_reports_file_line_and_snippet_for_a_broken_file(tmp_path: Path):
    broken = tmp_path / "broken.yaml"
    broken.write_text(TYPO, encoding="utf-8")
    also = tmp_path / "also.yaml"
    also.write_text("rules:\n  - name: b\n    reply: {content: '{{ x '}\n", encoding="utf-8")
    result = run([*PYTHON_M, "validate", str(broken), str(also)])
    assert result.returncode == 1
    assert f"{broken}:3:5: unknown key 'mtach'; did you mean 'match'?" in result.stderr
    assert '>  3 |     mtach: {model: "openai/*"}' in result.stderr
    assert re.search(rf"^{re.escape(str(also))}:3:\d+: template error", result.stderr, re.MULTILINE)
    assert "2 problem(s) found" in result.stderr
    assert "Traceback" not in result.stderr


def test_validate_reports_unreadable_values_and_deep_nesting_without_a_traceback(tmp_path: Path):
    tags = tmp_path / "tags.yaml"
    tags.write_text(
        "rules:\n  - name: a\n    reply: {content: x}\n    stream: !!bool tre\n"
        "  - name: b\n    priority: !!int x\n    reply: {content: y}\n",
        encoding="utf-8",
    )
    deep = tmp_path / "deep.yaml"
    deep.write_text("rules:\n  - name: c\n    reply: {content: " + "[" * 3000 + "]" * 3000 + "}\n", encoding="utf-8")
    result = run([*PYTHON_M, "validate", str(tmp_path)])
    assert result.returncode == 1, result.stdout
    assert f"{deep}:3:118: nesting deeper than 100 levels" in result.stderr
    assert f"{tags}:4:13: cannot read '!!bool tre': not a boolean" in result.stderr
    assert ">  4 |     stream: !!bool tre\n     |             ^" in result.stderr
    assert "2 problem(s) found" in result.stderr  # a file's first YAML fault ends its reading
    assert "Traceback" not in result.stderr


def test_validate_refuses_values_a_json_reply_cannot_carry(tmp_path: Path):
    # These loaded before and answered 500 at request time ("Type is not JSON serializable: bytes", ...).
    calls = tmp_path / "calls.yaml"
    calls.write_text(
        "rules:\n  - name: call\n    reply:\n      tool_calls:\n"
        "        - {name: f, arguments: {x: !!binary aGk=}}\n"
        "        - {name: g, arguments: {tags: !!set {a, b}, by_id: {1: a}}}\n",
        encoding="utf-8",
    )
    usage = tmp_path / "usage.yaml"
    usage.write_text(
        "rules:\n  - name: usage\n    reply: {content: x, usage: {prompt_tokens: 99999999999999999999}}\n",
        encoding="utf-8",
    )
    result = run([*PYTHON_M, "validate", str(tmp_path)])
    assert result.returncode == 1, result.stdout
    assert (
        f"{calls}:5:36: not JSON: binary data (!!binary) cannot be sent in a JSON reply; write a string "
        "at rules[0].reply.tool_calls[0].arguments.x"
    ) in result.stderr
    assert ">  5 |         - {name: f, arguments: {x: !!binary aGk=}}\n     |" + " " * 36 + "^" in result.stderr
    assert (
        f"{calls}:6:39: not JSON: a set (!!set) cannot be sent in a JSON reply; write a list "
        "at rules[0].reply.tool_calls[1].arguments.tags"
    ) in result.stderr  # the first fault of each call
    assert (
        f"{usage}:3:48: integer '99999999999999999999' is beyond 64 bits: JSON replies carry -2**63 to 2**63-1"
        in result.stderr
    )
    assert "3 problem(s) found" in result.stderr
    assert "Traceback" not in result.stderr


def test_validate_reads_each_faces_reply_keys_and_says_whose_a_key_is(tmp_path: Path):
    faces = tmp_path / "faces.yaml"
    faces.write_text(
        "rules:\n  - name: v\n    match: {api: embeddings}\n    reply: {vectors: {hello: []}}\n"
        "  - name: s\n    match: {api: rerank}\n    reply: {score: {doc: 0.5}}\n",
        encoding="utf-8",
    )
    result = run([*PYTHON_M, "validate", str(faces)])
    assert result.returncode == 1, result.stdout
    assert (
        f"{faces}:4:30: expected at least 1 item, got an empty list at rules[0].reply.vectors.hello" in result.stderr
    )  # the embeddings face's own key, checked by its model and located as the schema's own keys
    assert f"{faces}:7:13: unknown key 'score'; did you mean 'scores' (a rerank reply key)?" in result.stderr
    assert "2 problem(s) found" in result.stderr


def test_validate_a_missing_path_exits_1(tmp_path: Path):
    result = run([*PYTHON_M, "validate", str(tmp_path / "nope.yaml")])
    assert result.returncode == 1
    assert f"{tmp_path / 'nope.yaml'}: no such file or directory" in result.stderr


def test_serve_refuses_to_start_on_a_broken_file(tmp_path: Path):
    broken = tmp_path / "broken.yaml"
    broken.write_text(TYPO, encoding="utf-8")
    result = run([str(CONSOLE_SCRIPT), "serve", "--port", "0", "--scenarios", str(broken)])
    assert result.returncode == 1
    assert f"{broken}:3:5: unknown key 'mtach'" in result.stderr
    assert "not started" in result.stderr
    assert "listening" not in result.stdout
    assert "Traceback" not in result.stderr


def test_a_busy_port_exits_1_with_a_clear_message():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = run([*PYTHON_M, "serve", "--port", str(port), "--scenarios", str(SHIPPED), "--no-watch"])
    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
    assert "in use" in result.stderr.lower()
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("argv", [[str(CONSOLE_SCRIPT), "--help"], [*PYTHON_M, "-h"]])
def test_help(argv: list[str]):
    result = run(argv)
    assert result.returncode == 0
    assert "serve" in result.stdout and "validate" in result.stdout


def test_serve_help_lists_the_options():
    result = run([*PYTHON_M, "serve", "--help"])
    assert result.returncode == 0
    for option in (
        "--port",
        "--scenarios",
        "--seed",
        "--clock",
        "--strict",
        "--api-key",
        "--log-format",
        "--no-watch",
        "ZENMUX_EMULATOR_",
    ):
        assert option in result.stdout, option


def test_a_banner_on_every_address_says_the_inspector_answers_loopback_only(serve):
    served = serve([*PYTHON_M, "serve", "--host", "0.0.0.0", "--port", "0", "--scenarios", str(SHIPPED), "--no-watch"])
    listening, _, inspector = (served._lines.get(timeout=START_TIMEOUT) for _ in range(3))
    assert listening.startswith("ZenMux emulator listening on http://0.0.0.0:"), served.stderr()
    assert "http://0.0.0.0:" in inspector and "/_emulator/ui/" in inspector
    assert "loopback clients only" in inspector and "403" in inspector and "--admin-token" in inspector
    assert served.stop() == 0


def test_an_allowed_host_opens_the_control_api_under_that_name(serve):
    env = clean_env(ZENMUX_EMULATOR_ALLOWED_HOST="emulator.test,other.test")
    served = serve([*PYTHON_M, "serve", "--port", "0", "--scenarios", str(SHIPPED), "--no-watch"], env=env)
    served.wait_listening()
    health = f"http://127.0.0.1:{served.port}/_emulator/health"
    for name, status in (("emulator.test", 200), ("other.test:1", 200), ("evil.example", 403)):
        request = urllib.request.Request(health, headers={"Host": name})
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                got = answer.status
        except urllib.error.HTTPError as refused:
            got = refused.code
        assert got == status, name
    assert served.stop() == 0


# --- --time-scale ---------------------------------------------------------------------------------------

SLOW_STREAM = """\
rules:
  - name: slow
    match: {}
    reply: {content: "one two three", stream: {first_token_ms: 3000, chunk_ms: 1000}}
"""


@pytest.mark.parametrize("given", ["flag", "variable"])
def test_time_scale_0_from_the_flag_or_its_variable_sends_a_slow_stream_at_once(serve, tmp_path: Path, given: str):
    (tmp_path / "slow.yaml").write_text(SLOW_STREAM, encoding="utf-8")
    argv = [*PYTHON_M, "serve", "--port", "0", "--scenarios", str(tmp_path / "slow.yaml"), "--no-watch"]
    env = clean_env(ZENMUX_EMULATOR_TIME_SCALE="0") if given == "variable" else clean_env()
    served = serve([*argv, "--time-scale", "0"] if given == "flag" else argv, env=env).wait_listening()
    with served.client(timeout=2.0) as client:  # a 6 s stream as scripted: a read timeout unless the scale is 0
        stream = client.chat.completions.create(
            model="openai/gpt-5", messages=[{"role": "user", "content": "x"}], stream=True
        )
        assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices) == "one two three"
    assert served.stop() == 0


def test_a_negative_time_scale_is_refused_naming_the_flag():
    result = run([*PYTHON_M, "serve", "--port", "0", "--time-scale", "-1", "--scenarios", str(SHIPPED)])
    assert result.returncode == 2
    assert result.stderr.startswith("zenmux-emulator: --time-scale (time_scale): ")
