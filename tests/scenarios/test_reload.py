"""Scenario files are reloaded while the server runs; a bad edit keeps the last good rules in force."""

from __future__ import annotations

import os
import shutil
import textwrap
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import openai
import pytest

from tests.conftest import FROZEN, MakeServer
from tests.scenarios.helpers import EXPLODE, INTERNALS, ask, break_loading, get_json
from tests.support.shipped import ScenarioRegistry
from zenmux_emulator.core.rules.registry import LoadFailed
from zenmux_emulator.foundation.errors import ScenarioError
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.settings import Settings

OpenClient = Callable[..., openai.OpenAI]
TIMEOUT = 10.0


def rules(content: str, name: str = "answer") -> str:
    return f"rules:\n  - name: {name}\n    reply: {{content: {content}}}\n"


BROKEN = "rules:\n  - name: answer\n    reply: {content: v2, finish_reason: done}\n"


def edit_until(path: Path, text: str, condition: Callable[[], object], atomic: bool = False) -> object:
    """Write `text` to `path` and poll `condition` for up to TIMEOUT seconds, writing again every second
    (the watcher may start listening a moment after the server answers)."""
    deadline = time.monotonic() + TIMEOUT
    next_write = 0.0
    while time.monotonic() < deadline:
        if time.monotonic() >= next_write:
            if atomic:  # as editors save: a new file renamed over the old one
                temporary = path.with_name(f".{path.name}.tmp")
                temporary.write_text(text, encoding="utf-8")
                os.replace(temporary, path)
            else:
                path.write_text(text, encoding="utf-8")
            next_write = time.monotonic() + 1.0
        if value := condition():
            return value
        time.sleep(0.05)
    return condition()


def scenario_file(server: EmulatorServer) -> Path:
    return Path(server.settings.scenarios[0]) / "s0.yaml"


def test_a_valid_edit_is_picked_up_without_restart(make_server: MakeServer, session: str, open_client: OpenClient):
    server = make_server(rules("v1"), watch=True)
    client = open_client(server, session)
    assert ask(client, "hi").content == "v1"
    generation = server.state.registry.generation
    assert edit_until(scenario_file(server), rules("v2"), lambda: ask(client, "hi").content == "v2")
    assert server.state.registry.generation > generation
    assert server.state.registry.last_error is None


def test_an_invalid_edit_keeps_the_last_good_rules_and_is_reported(
    make_server: MakeServer, session: str, open_client: OpenClient, caplog: pytest.LogCaptureFixture
):
    server = make_server(rules("v1"), watch=True)
    client = open_client(server, session)
    path = scenario_file(server)
    registry = server.state.registry
    generation = registry.generation

    assert edit_until(path, BROKEN, lambda: registry.last_error is not None), "the broken edit was never noticed"
    assert registry.generation == generation
    answer = ask(client, "hi")
    assert (answer.rule, answer.content) == ("answer", "v1")

    health = get_json(f"{server.origin}/_emulator/health")
    error = health["last_reload_error"]
    assert error is not None and f"{path}:3" in error and "finish_reason" in error
    assert health["generation"] == generation
    assert any("reload failed" in r.getMessage() and f"{path}:3" in r.getMessage() for r in caplog.records)

    assert edit_until(path, rules("v3"), lambda: ask(client, "hi").content == "v3")
    assert get_json(f"{server.origin}/_emulator/health")["last_reload_error"] is None


def test_an_unexpected_reload_failure_is_reported_and_the_watcher_keeps_watching(
    make_server: MakeServer,
    session: str,
    open_client: OpenClient,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
):
    server = make_server(rules("v1"), watch=True)
    client = open_client(server, session)
    registry = server.state.registry
    generation = registry.generation
    break_loading(monkeypatch)

    path = scenario_file(server)
    assert edit_until(path, rules(f"'v2 {EXPLODE}'"), lambda: isinstance(registry.last_error, LoadFailed)), (
        "the failing reload was never recorded"
    )
    assert registry.generation == generation
    assert ask(client, "hi").content == "v1"
    health = get_json(f"{server.origin}/_emulator/health")
    assert health["last_reload_error"] == str(LoadFailed())
    assert INTERNALS not in health["last_reload_error"]
    [record] = [r for r in caplog.records if "reload failed unexpectedly" in r.getMessage()]
    assert record.exc_info is not None and str(record.exc_info[1]) == INTERNALS  # the traceback, in the log

    # The watcher survived: the next edit is picked up.
    assert edit_until(path, rules("v3"), lambda: ask(client, "hi").content == "v3")
    assert registry.last_error is None


def test_a_reload_keeps_the_sequence_positions_of_rules_that_kept_their_names(
    make_server: MakeServer, session: str, open_client: OpenClient
):
    before = "rules:\n  - name: seq\n    replies: [{content: a1}, {content: a2}, {content: a3}]\n    then: cycle\n"
    after = "rules:\n  - name: seq\n    replies: [{content: b1}, {content: b2}, {content: b3}]\n    then: cycle\n"
    server = make_server(before, watch=True)
    client = open_client(server, session)
    assert ask(client, "hi").content == "a1"
    registry = server.state.registry
    generation = registry.generation
    assert edit_until(scenario_file(server), after, lambda: registry.generation > generation)
    assert [ask(client, "hi").content for _ in range(3)] == ["b2", "b3", "b1"]


def test_a_new_file_in_the_folder_is_picked_up_and_a_removed_one_dropped(
    make_server: MakeServer, session: str, open_client: OpenClient
):
    server = make_server(rules("v1"), watch=True)
    client = open_client(server, session)
    extra = Path(server.settings.scenarios[0]) / "extra.yml"
    extra_rules = "rules:\n  - name: extra\n    priority: 1\n    reply: {content: extra}\n"
    assert edit_until(extra, extra_rules, lambda: ask(client, "hi").rule == "extra")
    extra.unlink()
    registry = server.state.registry
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline and registry.current.scenarios.rule("extra") is not None:
        time.sleep(0.05)
    assert registry.current.scenarios.rule("extra") is None
    assert ask(client, "hi").rule == "answer"


def test_a_scenario_file_named_directly_survives_atomic_saves(tmp_path: Path, session: str, open_client: OpenClient):
    path = tmp_path / "only.yaml"
    path.write_text(rules("v1"), encoding="utf-8")
    with EmulatorServer(Settings(port=0, scenarios=[str(path)], clock=FROZEN, watch=True)) as server:
        client = open_client(server, session)
        assert ask(client, "hi").content == "v1"
        assert edit_until(path, rules("v2"), lambda: ask(client, "hi").content == "v2", atomic=True)
        # An editor saves the same file again: the watcher must still be listening.
        assert edit_until(path, rules("v3"), lambda: ask(client, "hi").content == "v3", atomic=True), (
            "the second save of a directly named scenario file was not picked up"
        )


def test_a_server_does_not_start_on_a_broken_file(tmp_path: Path):
    path = tmp_path / "broken.yaml"
    path.write_text(BROKEN, encoding="utf-8")
    with pytest.raises(ScenarioError) as caught:
        with EmulatorServer(Settings(port=0, scenarios=[str(path)], watch=False)):
            pass
    assert [(p.file, p.line) for p in caught.value.problems] == [(str(path), 3)]


async def test_registry_reload_with_a_broken_file_returns_false_and_keeps_current(tmp_path: Path):
    path = tmp_path / "s.yaml"
    path.write_text(rules("v1"), encoding="utf-8")
    registry = ScenarioRegistry([tmp_path])
    await registry.load()
    current = registry.current
    assert (registry.generation, current.scenarios.rules[0].replies[0].content) == (1, "v1")

    path.write_text(BROKEN, encoding="utf-8")
    assert await registry.reload() is False
    assert registry.current is current
    assert registry.generation == 1
    assert registry.last_error is not None
    assert [(p.file, p.line, p.path) for p in registry.last_error.problems] == [
        (str(path), 3, "rules[0].reply.finish_reason")
    ]

    path.write_text(rules("v2"), encoding="utf-8")
    assert await registry.reload() is True
    assert registry.current is not current
    assert registry.generation == 2
    assert registry.last_error is None
    assert registry.current.scenarios.rules[0].replies[0].content == "v2"


@pytest.mark.parametrize(
    ("broken", "where", "reason"),
    [
        (
            "rules:\n  - name: answer\n    reply: {content: v2}\n    stream: !!bool tre\n",
            (4, 13),
            "cannot read '!!bool tre': not a boolean",
        ),
        (
            "rules:\n  - name: answer\n    reply: {content: v2}\n    priority: !!int x\n",
            (4, 15),
            "cannot read '!!int x': not an integer",
        ),
        (
            "rules:\n  - name: answer\n    reply: {content: " + "[" * 5000 + "]" * 5000 + "}\n",
            (3, 22 + 100 - 4),
            "nesting deeper than 100 levels",
        ),
    ],
    ids=["bad boolean", "bad integer", "deep nesting"],
)
async def test_registry_reload_with_an_unreadable_file_keeps_the_last_good_set(
    tmp_path: Path, broken: str, where: tuple[int, int], reason: str
):
    path = tmp_path / "s.yaml"
    path.write_text(rules("v1"), encoding="utf-8")
    registry = ScenarioRegistry([tmp_path])
    await registry.load()
    current = registry.current

    path.write_text(broken, encoding="utf-8")
    assert await registry.reload() is False
    assert registry.current is current
    assert registry.generation == 1
    assert registry.last_error is not None
    assert [(p.file, (p.line, p.column), p.reason) for p in registry.last_error.problems] == [
        (str(path), where, reason)
    ]

    path.write_text(rules("v2"), encoding="utf-8")
    assert await registry.reload() is True
    assert registry.current.scenarios.rules[0].replies[0].content == "v2"


async def test_registry_reload_that_fails_unexpectedly_keeps_the_last_good_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    path = tmp_path / "s.yaml"
    path.write_text(rules("v1"), encoding="utf-8")
    registry = ScenarioRegistry([tmp_path])
    await registry.load()
    current = registry.current
    break_loading(monkeypatch)

    path.write_text(rules(f"'v2 {EXPLODE}'"), encoding="utf-8")
    assert await registry.reload() is False  # it does not raise: the watcher would end
    assert registry.current is current
    assert registry.generation == 1
    assert isinstance(registry.last_error, LoadFailed)

    path.write_text(rules("v2"), encoding="utf-8")
    assert await registry.reload() is True
    assert registry.last_error is None
    assert registry.current.scenarios.rules[0].replies[0].content == "v2"


async def test_registry_first_load_raises_on_a_broken_file(tmp_path: Path):
    (tmp_path / "s.yaml").write_text(textwrap.dedent(BROKEN), encoding="utf-8")
    registry = ScenarioRegistry([tmp_path])
    with pytest.raises(ScenarioError):
        await registry.load()
    assert registry.generation == 0
    assert registry.current.scenarios.rules == ()


# --- the watcher survives its folder being deleted and made again (as `git checkout` does) ------------


def watcher_state(server: EmulatorServer) -> dict[str, object]:
    watcher = get_json(f"{server.origin}/_emulator/health")["watcher"]
    assert isinstance(watcher, dict)
    return watcher


def until(condition: Callable[[], object]) -> object:
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        if value := condition():
            return value
        time.sleep(0.05)
    return condition()


def test_the_watcher_recovers_when_its_folder_is_deleted_and_made_again(
    make_server: MakeServer, session: str, open_client: OpenClient
):
    server = make_server(rules("v1"), watch=True)
    client = open_client(server, session)
    path = scenario_file(server)
    folder = path.parent
    assert until(lambda: watcher_state(server)["state"] == "running")
    assert watcher_state(server)["folders"] == [str(folder.resolve())]

    shutil.rmtree(folder)
    folder.mkdir()
    assert edit_until(path, rules("v2"), lambda: ask(client, "hi").content == "v2"), "the new folder was never watched"
    assert edit_until(path, rules("v3"), lambda: ask(client, "hi").content == "v3"), "a later edit was ignored"
    assert watcher_state(server)["state"] == "running"

    shutil.rmtree(folder)  # gone, and made again with its file at once, between two looks of the watcher
    folder.mkdir()
    path.write_text(rules("v4"), encoding="utf-8")
    assert until(lambda: ask(client, "hi").content == "v4")
    assert edit_until(path, rules("v5"), lambda: ask(client, "hi").content == "v5")


def test_health_shows_the_watcher_waiting_for_a_folder_that_is_gone(
    make_server: MakeServer, session: str, open_client: OpenClient
):
    server = make_server(rules("v1"), watch=True)
    client = open_client(server, session)
    path = scenario_file(server)
    assert until(lambda: watcher_state(server)["state"] == "running")
    shutil.rmtree(path.parent)
    waiting = until(lambda: (state := watcher_state(server))["state"] == "error" and state)
    assert waiting, watcher_state(server)
    assert waiting["reason"] == f"{path.parent.resolve()} does not exist; watching for it to come back"  # type: ignore[index]
    assert ask(client, "hi").content == "v1"  # the last good rules stay in force
    # a manual reload says what is wrong, and keeps them too
    refused = requests_post(f"{server.origin}/_emulator/scenarios/reload")
    assert refused[0] == 400 and "no such file or directory" in refused[1]

    path.parent.mkdir()
    assert edit_until(path, rules("v2"), lambda: ask(client, "hi").content == "v2")
    assert until(lambda: watcher_state(server)["state"] == "running")
    assert watcher_state(server).get("reason") is None


def test_a_manual_reload_works_after_the_folder_was_made_again(
    make_server: MakeServer, session: str, open_client: OpenClient
):
    server = make_server(rules("v1"))  # not watched: the reload alone
    client = open_client(server, session)
    path = scenario_file(server)
    shutil.rmtree(path.parent)
    path.parent.mkdir()
    path.write_text(rules("v2"), encoding="utf-8")
    status, _ = requests_post(f"{server.origin}/_emulator/scenarios/reload")
    assert status == 200
    assert ask(client, "hi").content == "v2"
    assert watcher_state(server) == {"state": "off"}


def requests_post(url: str) -> tuple[int, str]:
    request = urllib.request.Request(url, method="POST")  # no body: a body other than JSON is refused
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()
