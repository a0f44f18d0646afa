"""Cassettes per test (`@pytest.mark.zenmux(record=…)`, `--zenmux-record-mode`): a test recorded once through a
stand-in upstream (a second emulator that takes only its own key) writes its cassette with no key in it, passes
again from the cassette with the upstream gone, replays on more than one face, and `none` without the file fails
naming it."""

from __future__ import annotations

import pytest
import yaml

from tests.conftest import MakeServer
from tests.plugin.helpers import INI

UPSTREAM = """\
rules:
  - name: capital
    match: {last_user: {contains: "capital of France"}}
    reply: {content: "Paris, said the real gateway"}
  - name: count
    match: {last_user: {contains: "count"}}
    replies: [{content: "one"}, {content: "two"}]
"""
REAL_KEY = "sk-ai-v1-the-real-upstream-key-4f9a"
"""The only key the stand-in upstream takes: the test's own key would be refused there."""

RECORDED_TEST = """
import pytest


def ask(client, text):
    return client.chat.completions.create(
        model="openai/gpt-5", messages=[{"role": "user", "content": text}]).choices[0].message.content


@pytest.mark.zenmux(record="cassettes/capital.yaml")
def test_capital(zenmux):
    assert ask(zenmux.openai_client(), "What is the capital of France?") == "Paris, said the real gateway"
    reply = zenmux.anthropic_client().messages.create(
        model="openai/gpt-5", max_tokens=64, messages=[{"role": "user", "content": "count with me"}])
    assert reply.content[0].text == "one"
    assert ask(zenmux.openai_client(), "count again") == "two"
"""


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "tests/test_recorded.py", *args)


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makeini(INI)
    (pytester.path / "tests").mkdir()
    (pytester.path / "tests/test_recorded.py").write_text(RECORDED_TEST, encoding="utf-8")
    monkeypatch.setenv("ZENMUX_API_KEY", REAL_KEY)
    return pytester


def test_once_records_through_the_upstream_then_replays_without_it(project, make_server: MakeServer):
    upstream = make_server(UPSTREAM, api_keys=[REAL_KEY])
    cassette = project.path / "tests/cassettes/capital.yaml"

    run(project, "--zenmux-record-mode=once", f"--zenmux-upstream={upstream.origin}").assert_outcomes(passed=1)
    assert sum(1 for entry in upstream.state.journal.entries() if entry.status == 200) == 3
    text = cassette.read_text(encoding="utf-8")
    assert REAL_KEY not in text and "sk-zenmux-test-" not in text
    rules = yaml.safe_load(text)["rules"]
    assert {rule["match"]["api"] for rule in rules} == {"chat", "anthropic"}

    upstream.stop()  # replayed from the cassette alone, in both modes that replay
    run(project, "--zenmux-record-mode=once", f"--zenmux-upstream={upstream.origin}").assert_outcomes(passed=1)
    run(project).assert_outcomes(passed=1)


def test_a_request_the_cassette_does_not_hold_fails_the_test(project, make_server: MakeServer):
    upstream = make_server(UPSTREAM, api_keys=[REAL_KEY])
    run(project, "--zenmux-record-mode=once", f"--zenmux-upstream={upstream.origin}").assert_outcomes(passed=1)
    test = project.path / "tests/test_recorded.py"
    test.write_text(RECORDED_TEST.replace("capital of France", "capital of Spain"), encoding="utf-8")
    result = run(project)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*emulator_no_match*"])

    # new episodes: the missing request goes to the upstream and joins the cassette; the rest is replayed
    before = len(upstream.state.journal.entries())
    test.write_text(RECORDED_TEST.replace("Paris, said the real gateway", "Madrid").replace("France", "Spain"))
    upstream.stop()
    spain = make_server(
        UPSTREAM.replace("France", "Spain").replace("Paris, said the real gateway", "Madrid"), api_keys=[REAL_KEY]
    )
    run(project, "--zenmux-record-mode=new_episodes", f"--zenmux-upstream={spain.origin}").assert_outcomes(passed=1)
    assert len(spain.state.journal.entries()) == 1 and before == 3
    names = [
        rule["match"]["last_user"]["equals"]
        for rule in yaml.safe_load((project.path / "tests/cassettes/capital.yaml").read_text(encoding="utf-8"))["rules"]
    ]
    assert "What is the capital of France?" in names and "What is the capital of Spain?" in names


def test_none_without_the_cassette_fails_naming_it(project):
    result = run(project)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*zenmux cassette */tests/cassettes/capital.yaml does not exist*--zenmux-record-mode=once*"]
    )


def test_recording_without_an_upstream_or_a_key_says_which(project, monkeypatch: pytest.MonkeyPatch):
    run(project, "--zenmux-record-mode=once").stdout.fnmatch_lines(
        ["*no upstream is given: add --zenmux-upstream URL*"]
    )
    monkeypatch.delenv("ZENMUX_API_KEY")
    result = run(project, "--zenmux-record-mode=all", "--zenmux-upstream=http://127.0.0.1:9")
    result.stdout.fnmatch_lines(["*$ZENMUX_API_KEY is not set*"])
    assert not (project.path / "tests/cassettes/capital.yaml").exists()


LOCAL_RULES = """\
rules:
  - name: local
    match: {last_user: {contains: "local question"}}
    reply: {content: "answered here"}
"""
LOCAL_TEST = """
import pytest


def ask(client, text):
    return client.chat.completions.create(
        model="openai/gpt-5", messages=[{"role": "user", "content": text}]).choices[0].message.content


@pytest.mark.zenmux(record="cassettes/mixed.yaml")
def test_mixed(zenmux):
    assert ask(zenmux.openai_client(), "What is the capital of France?") == "Paris, said the real gateway"
    assert ask(zenmux.openai_client(), "a local question") == "answered here"
"""


def test_the_run_s_scenarios_answer_first_when_recording_as_when_replaying(project, make_server: MakeServer):
    (project.path / "tests/local.yaml").write_text(LOCAL_RULES, encoding="utf-8")
    (project.path / "tests/test_recorded.py").write_text(LOCAL_TEST, encoding="utf-8")
    upstream = make_server(UPSTREAM, api_keys=[REAL_KEY])
    local = "--zenmux-scenarios=tests/local.yaml"
    run(project, local, "--zenmux-record-mode=once", f"--zenmux-upstream={upstream.origin}").assert_outcomes(passed=1)
    assert [entry.rule for entry in upstream.state.journal.entries() if entry.api] == ["capital"]
    rules = yaml.safe_load((project.path / "tests/cassettes/mixed.yaml").read_text(encoding="utf-8"))["rules"]
    assert [rule["match"]["last_user"] for rule in rules] == [{"equals": "What is the capital of France?"}]
    upstream.stop()
    run(project, local).assert_outcomes(passed=1)
