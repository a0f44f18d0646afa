"""Scenario problems as a newcomer reads them (issue 18): every problem in one pass, in the words of
the YAML file, with hints for YAML's own surprises; warnings for what loads but cannot be meant."""

from __future__ import annotations

import logging
import textwrap
from pathlib import Path

import pytest

from tests.cli.test_cli import CONSOLE_SCRIPT, run
from tests.conftest import MakeServer
from tests.scenarios.helpers import ask, sdk


def validate(tmp_path: Path, **files: str) -> tuple[int, str, str]:
    paths = []
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
        paths.append(str(tmp_path / name))
    done = run([str(CONSOLE_SCRIPT), "validate", *paths])
    assert "Traceback" not in done.stderr
    return done.returncode, done.stdout, done.stderr


def test_schema_template_and_name_problems_come_in_one_pass(tmp_path: Path):
    code, _, err = validate(
        tmp_path,
        **{
            "a.yaml": """\
        rules:
          - name: twice
            match: {turn: "two"}
            reply: {content: "{{ unclosed "}
          - name: twice
            reply: {content: hi}
        """,
            "b.yaml": """\
        rules:
          - name: twice
            reply: {content: ok}
        """,
        },
    )
    assert code == 1
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    assert (
        f"{a}:3:19: expected a turn number, or a mapping with min and/or max, got 'two' at rules[0].match.turn" in err
    )
    assert f"{a}:4:22: template error: " in err  # found although the file's schema failed
    assert f"{a}:5: rule name 'twice' is already used in {a}:2 at rules[1].name" in err
    assert f"{b}:2: rule name 'twice' is already used in {a}:5 at rules[0].name" in err
    assert "4 problem(s) found" in err


@pytest.mark.parametrize(
    ("yaml_text", "message"),
    [
        (
            "rules:\n  - name: a\n    match: 5\n    reply: {content: x}\n",
            "3:12: expected a mapping (api, model, last_user, any_message, system, tools, ...), got 5 at rules[0].match",
        ),
        (
            "rules:\n  - name: a\n    match: {turn: [1]}\n    reply: {content: x}\n",
            "3:19: expected a turn number, or a mapping with min and/or max, got a list at rules[0].match.turn",
        ),
        (
            "rules:\n  - x\n",
            "2:5: expected a mapping (name, priority, match, expect, reply, replies, ...), got 'x' at rules[0]",
        ),
        (
            "rules:\n  - name: a\n    reply: {content: x, finish_reason: done}\n",
            "3:40: expected one of 'stop', 'length', 'content_filter', 'tool_calls', 'function_call', got 'done' "
            "at rules[0].reply.finish_reason",
        ),
        (
            "rules:\n  - name: a\n    reply: {content: x, stream: {chunk_ms: -1}}\n",
            "3:44: expected a number greater than or equal to 0, got -1 at rules[0].reply.stream.chunk_ms",
        ),
        (
            "rules:\n  - name: a\n    replies: []\n",
            "3:14: expected at least 1 item, got an empty list at rules[0].replies",
        ),
        (
            "rules:\n  - name: a\n    priority: 1.5\n    reply: {content: x}\n",
            "3:15: expected a whole number, got 1.5 at rules[0].priority",
        ),
        ("rules:\n  - reply: {content: x}\n", "2:5: missing key 'name' at rules[0].name"),
    ],
    ids=["match", "turn", "rule", "choice", "bound", "empty list", "whole number", "missing"],
)
def test_messages_name_what_the_yaml_may_say_not_the_schema_classes(tmp_path: Path, yaml_text: str, message: str):
    code, _, err = validate(tmp_path, **{"s.yaml": yaml_text})
    assert code == 1
    assert f"{tmp_path / 's.yaml'}:{message}\n" in err
    for internal in ("TurnRange", "Match", "Rule", "instance of", "Input should", "dictionary"):
        assert internal not in err


def test_an_unquoted_yes_is_explained_once(tmp_path: Path):
    code, _, err = validate(
        tmp_path,
        **{
            "s.yaml": """\
        rules:
          - name: a
            match: {last_user: {contains: yes}}
            reply: {content: x}
        """
        },
    )
    assert code == 1
    assert err.count(" at rules[0].match.last_user.contains") == 1  # not once per member of `str | list`
    assert (
        "3:35: expected text or a list, got yes (YAML reads an unquoted yes as the boolean true; "
        'write "yes" in quotes to mean the text) at rules[0].match.last_user.contains'
    ) in err


@pytest.mark.parametrize(
    ("yaml_text", "message"),
    [
        (
            "rules:\n  - name: a\n    match:\n      last_user: hi\n     reply: {content: hi}\n",
            "5:6: indentation: this line starts at column 6, but the entries of the block that begins at line 2 start at "
            "column 5; line it up with them, or indent it further under a key that ends with ':'",
        ),
        (
            "rules:\n  - name: a\n    reply: {content: hi}\n   - name: b\n    reply: {content: x}\n",
            "4:4: indentation: this list item starts at column 4, but the entries of the block that begins at line 2 "
            "start at column 3",
        ),
        (
            "rules:\n  - name: a\n  reply: {content: hi}\n",
            "3:3: indentation: this line is in line with the '-' of the list that begins at line 2; a key of a list item "
            "lines up with the first key after its '- ' (column 5)",
        ),
        ("rules:\n  - name: a\n    reply:\n      content: note: this\n", "4:20: a ': ' where no key can start"),
    ],
    ids=["deeper key", "list item", "key under the dash", "colon in a value"],
)
def test_yaml_slips_are_said_in_plain_words(tmp_path: Path, yaml_text: str, message: str):
    code, _, err = validate(tmp_path, **{"s.yaml": yaml_text})
    assert code == 1
    assert f"{tmp_path / 's.yaml'}:{message}" in err
    assert "<block" not in err and "block end" not in err


def test_a_bare_match_answers_everything(make_server: MakeServer):
    server = make_server("""\
        rules:
          - name: everything
            match:
            reply: {content: always}
        """)
    with sdk(server, "bare-match") as client:
        for text in ("hello", "anything at all"):
            answer = ask(client, text)
            assert (answer.rule, answer.content) == ("everything", "always")


def test_validate_warns_of_hidden_rules_and_unknown_error_types(tmp_path: Path):
    code, out, err = validate(
        tmp_path,
        **{
            "s.yaml": """\
        rules:
          - name: catch-all
            reply: {content: hi}
          - name: later
            match: {last_user: x}
            reply: {error: {status: 429, type: rate_limt}}
          - name: sequence
            replies: [{content: a}]
            then: fall_through
        """
        },
    )
    s = tmp_path / "s.yaml"
    assert code == 0
    assert out == "ok: 3 rules in 1 file, 2 warnings\n"
    assert (
        f"warning: {s}:2: rule 'catch-all' answers every request (its match is empty), so the 2 rule(s) tried "
        f"after it are never reached: 'later' ({s}:4), 'sequence' ({s}:7); give it a match, a lower priority, "
        "or then: fall_through\n"
    ) in err
    assert (
        f"warning: {s}:6:40: error type 'rate_limt' is not in ZenMux's catalogue (did you mean 'rate_limit'? "
        "ZenMux sends: "
    ) in err
    assert " at rules[1].reply.error.type\n" in err


def test_no_warning_for_a_catch_all_that_falls_through_or_serves_another_face(tmp_path: Path):
    code, out, err = validate(
        tmp_path,
        **{
            "s.yaml": """\
        rules:
          - name: first-only
            replies: [{content: a}]
            then: fall_through
          - name: claude-code-only
            match: {api: anthropic}
            reply: {content: b}
          - name: chat
            match: {api: chat}
            reply: {error: {status: 429, type: rate_limit}}
        """
        },
    )
    assert (code, out, err) == (0, "ok: 3 rules in 1 file\n", "")


def test_the_server_logs_the_warnings_at_load(make_server: MakeServer, caplog: pytest.LogCaptureFixture):
    with caplog.at_level(logging.WARNING, logger="emulator.scenarios"):
        make_server("""\
            rules:
              - name: all
                reply: {content: hi}
              - name: never
                match: {last_user: x}
                reply: {content: "no"}
            """)
    assert any("scenario warning:" in r.message and "'never'" in r.message for r in caplog.records)
