"""The System One face over HTTP, as ZenMux's docs' own Python example sends it (`requests`): the
docs' example answered in the documented shape, determinism by seed, scripted answers, the 400s
naming the field, the journal entry and the generation record."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import orjson
import pytest
import requests

from tests.conftest import REPO, MakeServer, served_yaml
from tests.support.clients import API_KEY
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.settings import Settings

MODEL = "typesafe/jev-latest"
STATE = "Help! My payouts have been failing for 3 days."
QUESTIONS: dict[str, Any] = {
    "is_urgent": {"type": "noul", "instructions": "Does this convey urgency?"},
    "department": {
        "type": "choice",
        "instructions": "Which team should handle this?",
        "criteria": {
            "billing": "Payments, invoicing, refunds",
            "technical": "Bugs, outages, integrations",
            "sales": "Pricing, upgrades, new accounts",
        },
    },
    "frustration": {
        "type": "score",
        "instructions": "How frustrated is the customer?",
        "criteria": ["Calm", "Frustrated", "Very angry"],
    },
}
EXAMPLE = {"model": MODEL, "state": STATE, "questions": QUESTIONS}
SCENARIO = """\
rules:
  - name: scripted
    match: {api: systemone, last_user: {contains: scripted}}
    reply:
      answers:
        is_urgent: 0.92
        department: technical
        frustration: 1.6
  - name: weighted
    match: {api: systemone, last_user: {contains: weighted}}
    reply:
      answers:
        department: {billing: 1, technical: 2}
        frustration: {"Very angry": 3, "0": 1}
        is_urgent: sales
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    with served_yaml(tmp_path_factory.mktemp("systemone"), SCENARIO) as started:
        yield started


def post(server: EmulatorServer, body: object, key: str = API_KEY) -> requests.Response:
    return requests.post(
        f"{server.base_url}/systemone",
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        data=orjson.dumps(body),
        timeout=30,
    )


def exact_sum(reply: requests.Response, *path: str) -> Decimal:
    """The probabilities' sum as rendered: each read as the decimal the body writes."""
    node: Any = reply.json(parse_float=Decimal)
    for key in path:
        node = node[key]
    return sum(node.values(), Decimal(0))


def test_the_docs_example_is_answered_in_the_documented_shape(server: EmulatorServer) -> None:
    reply = post(server, EXAMPLE)
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert body["model"] == MODEL and list(body["answers"]) == list(QUESTIONS)
    urgent, department, frustration = (body["answers"][key] for key in QUESTIONS)
    assert urgent.keys() == {"type", "noul"} and urgent["type"] == "noul" and 0 <= urgent["noul"] <= 1
    assert department.keys() == {"type", "choice", "probabilities", "confidence"}
    probabilities = department["probabilities"]
    assert list(probabilities) == ["billing", "technical", "sales"]
    assert department["choice"] == max(probabilities, key=probabilities.get)
    assert exact_sum(reply, "answers", "department", "probabilities") == 1
    assert 0 <= department["confidence"] <= 1
    assert frustration["legend"] == {"0": "Calm", "1": "Frustrated", "2": "Very angry"}
    levels = frustration["probabilities"]
    assert list(levels) == ["0", "1", "2"]
    assert exact_sum(reply, "answers", "frustration", "probabilities") == 1
    assert frustration["score"] == pytest.approx(sum(int(k) * p for k, p in levels.items()))
    assert 0 <= frustration["score"] <= 2 and 0 <= frustration["confidence"] <= 1
    assert body["usage"]["output_tokens"] == 48 and body["usage"]["input_tokens"] > 0


def test_the_same_request_is_byte_identical_and_another_seed_changes_it(server: EmulatorServer, tmp_path: Path) -> None:
    first = post(server, EXAMPLE)
    assert post(server, EXAMPLE).content == first.content
    (tmp_path / "s.yaml").write_text("rules: []\n", encoding="utf-8")
    with EmulatorServer(Settings(port=0, scenarios=[str(tmp_path)], watch=False, seed=7)) as other:
        assert post(other, EXAMPLE).json()["answers"] != first.json()["answers"]


def test_answers_do_not_depend_on_the_questions_keys(server: EmulatorServer) -> None:
    """ZenMux does not send the keys to the model: the same question under another key is answered alike."""
    renamed = {"model": MODEL, "state": STATE, "questions": {"team": QUESTIONS["department"]}}
    assert post(server, renamed).json()["answers"]["team"] == post(server, EXAMPLE).json()["answers"]["department"]


def test_a_rule_scripts_the_answers(server: EmulatorServer) -> None:
    reply = post(server, {**EXAMPLE, "state": "scripted: " + STATE})
    assert reply.headers["x-emulator-rule"] == "scripted"
    answers = reply.json()["answers"]
    assert answers["is_urgent"] == {"type": "noul", "noul": 0.92}
    assert answers["department"]["choice"] == "technical"
    assert max(answers["department"]["probabilities"].values()) == answers["department"]["probabilities"]["technical"]
    assert answers["frustration"]["score"] == 1.6
    assert answers["frustration"]["probabilities"] == {"0": 0.0, "1": 0.4, "2": 0.6}


def test_scripted_weights_are_normalised_and_a_misfit_is_computed_with_a_warning(server: EmulatorServer) -> None:
    reply = post(server, {**EXAMPLE, "state": "weighted: " + STATE})
    answers = reply.json()["answers"]
    assert answers["department"]["probabilities"] == {"billing": 0.3333, "technical": 0.6667, "sales": 0.0}
    assert answers["department"]["choice"] == "technical"
    assert answers["frustration"]["probabilities"] == {"0": 0.25, "1": 0.0, "2": 0.75}
    assert answers["frustration"]["score"] == 1.5
    assert answers["is_urgent"]["type"] == "noul"  # "sales" fits no noul: computed
    entry = server.state.journal.entries()[-1]
    assert any("answers.is_urgent" in warning for warning in entry.warnings)


def without(question: str, field: str) -> dict[str, Any]:
    questions = {**QUESTIONS, question: {k: v for k, v in QUESTIONS[question].items() if k != field}}
    return {**EXAMPLE, "questions": questions}


def replaced(question: str, field: str, value: object) -> dict[str, Any]:
    return {**EXAMPLE, "questions": {**QUESTIONS, question: {**QUESTIONS[question], field: value}}}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"model": MODEL, "questions": QUESTIONS}, "Parameter state is required"),
        ({"model": MODEL, "state": STATE}, "Parameter questions is required"),
        ({"state": STATE, "questions": QUESTIONS}, "Parameter model is required"),
        ({**EXAMPLE, "state": 3}, "Parameter state is not valid"),
        ({**EXAMPLE, "questions": {}}, "Parameter questions is not valid"),
        ({**EXAMPLE, "model": "openai/gpt-5"}, "Model openai/gpt-5 is not valid"),
        (replaced("department", "type", "rank"), "Parameter questions.department.type is not valid"),
        (without("department", "type"), "Parameter questions.department.type is required"),
        (without("is_urgent", "instructions"), "Parameter questions.is_urgent.instructions is required"),
        (without("department", "criteria"), "Parameter questions.department.criteria is required"),
        (replaced("department", "criteria", ["a", "b"]), "Parameter questions.department.criteria is not valid"),
        (replaced("department", "criteria", {"a": 1}), "Parameter questions.department.criteria.a is not valid"),
        (without("frustration", "criteria"), "Parameter questions.frustration.criteria is required"),
        (replaced("frustration", "criteria", ["only"]), "Parameter questions.frustration.criteria is not valid"),
        (replaced("frustration", "criteria", ["a", None]), "Parameter questions.frustration.criteria[1] is not valid"),
        (
            replaced("is_urgent", "criteria", {"maybe": "?"}),
            "Parameter questions.is_urgent.criteria.maybe is not valid",
        ),
        ({**EXAMPLE, "questions": {"x": "yes?"}}, "Parameter questions.x is not valid"),
    ],
)
def test_bad_requests_are_zenmuxs_400_naming_the_field(server: EmulatorServer, body: object, message: str) -> None:
    reply = post(server, body)
    assert reply.status_code == 400, reply.text
    error = reply.json()["error"]
    assert error["type"] == "invalid_params"
    assert error["message"].startswith(message)


def test_a_noul_may_say_what_yes_and_no_mean(server: EmulatorServer) -> None:
    body = replaced("is_urgent", "criteria", {"true": "needs action today", "false": "can wait"})
    reply = post(server, body)
    assert reply.status_code == 200, reply.text
    assert post(server, EXAMPLE).json()["usage"]["input_tokens"] < reply.json()["usage"]["input_tokens"]


def test_the_journal_and_the_generation_record_bill_it(server: EmulatorServer) -> None:
    reply = post(server, EXAMPLE)
    entry = server.state.journal.entries()[-1]
    assert (entry.api, entry.path, entry.status) == ("systemone", "/api/v1/systemone", 200)
    generation = requests.get(
        f"{server.base_url}/management/generation",
        params={"id": reply.headers["x-generation-id"]},
        headers={"Authorization": f"Bearer {API_KEY}"},
        timeout=30,
    ).json()
    usage = reply.json()["usage"]
    assert generation["api"] == "systemone"
    assert generation["nativeTokens"]["prompt_tokens"] == usage["input_tokens"]
    assert generation["nativeTokens"]["completion_tokens"] == usage["output_tokens"]
    assert generation["usage"] > 0


def test_keys_limits_and_balances_apply_as_on_every_face(make_server: MakeServer) -> None:
    server = make_server("""\
        settings:
          limits: {rpm: 2}
          balances: {sk-ai-v1-poor: 0.0000001}
        rules: []
    """)
    unkeyed = requests.post(f"{server.base_url}/systemone", json=EXAMPLE, timeout=30)
    chat = requests.post(
        f"{server.base_url}/chat/completions", json={"model": "openai/gpt-5", "messages": []}, timeout=30
    )
    assert (
        unkeyed.status_code == chat.status_code >= 400
        and unkeyed.json()["error"]["type"] == chat.json()["error"]["type"]
    )
    first = post(server, EXAMPLE)
    assert first.headers["x-ratelimit-remaining-requests"] == "1"
    assert post(server, EXAMPLE).status_code == 200
    assert post(server, EXAMPLE).status_code == 429
    poor = {**EXAMPLE, "state": "a long enough state to cost more than the balance " * 40}
    assert post(server, poor, key="sk-ai-v1-poor").status_code == 200
    assert post(server, EXAMPLE, key="sk-ai-v1-poor").status_code == 402


def test_a_scripted_answer_is_checked_at_load_with_its_file_and_line(tmp_path: Path) -> None:
    scenario = tmp_path / "answers.yaml"
    scenario.write_text(
        "rules:\n  - name: bad\n    match: {api: systemone}\n    reply:\n      answers:\n"
        "        is_urgent: -0.5\n        department: {billing: 0, technical: 0}\n",
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZENMUX_EMULATOR_")}
    done = subprocess.run(
        [sys.executable, "-m", "zenmux_emulator", "validate", str(scenario)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stdout
    assert f"{scenario}:6:" in done.stderr and "rules[0].reply.answers.is_urgent" in done.stderr
    assert f"{scenario}:7:" in done.stderr and "the weights must add up to more than 0" in done.stderr
    assert "Traceback" not in done.stderr
