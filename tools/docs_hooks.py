"""MkDocs hook: the reference pages' tables are written from the code when the site is built, so they cannot
drift from it. A page asks for one with a line `<!-- generated: NAME -->`; NAME is a key of GENERATORS.

- `cli-usage`: every command's usage line, from the argument parser;
- `serve-options`: every `serve` option with its environment variable and help, from the `serve` parser;
- `environment`: every accepted `ZENMUX_EMULATOR_*` variable, from the same derivation the command line uses;
- `scenario-schema`: every object of a scenario file with its keys, types, defaults and descriptions, from the
  pydantic models that validate the files (with the shipped faces' own reply keys, each described with its face).

The control API's table is written by hand, with an example per route; tests/control/test_readme_routes.py checks
it against the routes the server has.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from typing import Any

GENERATED = re.compile(r"^<!-- generated: ([a-z-]+) -->$", re.MULTILINE)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _option(action: argparse.Action) -> str:
    name = max(action.option_strings, key=len)
    if action.choices:
        return f"`{name} {{{','.join(str(c) for c in action.choices)}}}`"
    if action.nargs == 0:
        return f"`{name}`"
    metavar = action.metavar or action.dest.upper()
    return f"`{name} {metavar}`"


def cli_usage() -> str:
    from zenmux_emulator.cli.main import build_parser

    parser = build_parser()
    [commands] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    lines = [" ".join(sub.format_usage().split()).removeprefix("usage: ") for sub in commands.choices.values()]
    return "```text\n" + "\n".join(lines) + "\n```\n"


def _default(field: Any) -> str:
    """A setting's default as the table shows it: the value, when it is a plain one."""
    if field is None or field.default_factory is not None:
        return ""
    value = field.default
    if value is None or isinstance(value, bool):  # a switch, or unset: the help says what that means
        return ""
    return f"`{value}`"


def serve_options() -> str:
    from zenmux_emulator.cli.environment import Variable, variables
    from zenmux_emulator.cli.main import serve_parser
    from zenmux_emulator.settings import Settings

    by_option: dict[str, Variable] = {}
    for variable in variables(serve_parser(), Settings.model_fields).values():  # the option's own name first
        by_option.setdefault(variable.option, variable)
    rows = ["| option | variable | default | meaning |", "|---|---|---|---|"]
    for action in serve_parser()._actions:
        if not action.option_strings or action.dest == "help":
            continue
        variable = by_option.get(max(action.option_strings, key=len))
        name = f"`{variable.name}{'=true' if variable.negated else ''}`" if variable else ""
        default = _default(Settings.model_fields.get(action.dest))
        rows.append(f"| {_option(action)} | {name} | {default} | {_cell(action.help or '')} |")
    return "\n".join(rows) + "\n"


def environment() -> str:
    from zenmux_emulator.cli.environment import variables
    from zenmux_emulator.cli.main import serve_parser
    from zenmux_emulator.settings import Settings

    rows = ["| variable | option | how it is read |", "|---|---|---|"]
    for variable in sorted(variables(serve_parser(), Settings.model_fields).values(), key=lambda v: v.name):
        if not variable.option:
            continue
        alias = variable.name.removeprefix("ZENMUX_EMULATOR_").lower().replace("_", "-") != variable.option[2:]
        how = (
            "`true` sets the switch"
            if variable.negated
            else "a JSON list, or comma-separated"
            if variable.repeatable
            else "the option's value"
        )
        if alias:
            how += f" (the setting's own name, an alias of `{variable.option}`)"
        rows.append(f"| `{variable.name}` | `{variable.option}` | {how} |")
    return "\n".join(rows) + "\n"


def _type(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{name.lower()})"
    if "anyOf" in schema:
        return " or ".join(_type(s) for s in schema["anyOf"] if s.get("type") != "null")
    if "const" in schema:
        return f"`{schema['const']}`"
    if "enum" in schema:
        return " or ".join(f"`{v}`" for v in schema["enum"])
    kind = schema.get("type", "any")
    if kind == "array":
        return f"list of {_type(schema.get('items', {}))}"
    if kind == "object" and "additionalProperties" in schema and schema["additionalProperties"] is not False:
        extra = schema["additionalProperties"]
        return f"mapping of {_type(extra) if isinstance(extra, dict) else 'any'}"
    return str(kind)


def scenario_schema() -> str:
    from zenmux_emulator.faces.shipped import NAMES
    from zenmux_emulator.scenario.language import language

    # the shipped faces' language: every key of the schema, and each face's own reply keys, said with its name
    document = language(NAMES).file.model_json_schema(by_alias=True)
    definitions: dict[str, dict[str, Any]] = {"ScenarioFile": document, **document.get("$defs", {})}
    out: list[str] = []
    for name, definition in definitions.items():
        out += [f"### {name}", "", _cell(definition.get("description", "")).strip(), ""]
        properties: dict[str, dict[str, Any]] = definition.get("properties", {})
        if not properties:
            out += [f"A {_type(definition)}.", ""]
            continue
        required = set(definition.get("required", []))
        out += ["| key | type | default | meaning |", "|---|---|---|---|"]
        for key, field in properties.items():
            default = (
                "required"
                if key in required
                else (f"`{field['default']}`" if field.get("default") not in (None, [], {}) else "")
            )
            out.append(f"| `{key}` | {_type(field)} | {_cell(default)} | {_cell(field.get('description', ''))} |")
        out.append("")
    return "\n".join(out)


GENERATORS: dict[str, Callable[[], str]] = {
    "cli-usage": cli_usage,
    "serve-options": serve_options,
    "environment": environment,
    "scenario-schema": scenario_schema,
}


def expand(markdown: str) -> str:
    """The page with each `<!-- generated: NAME -->` line replaced by the generated text."""
    return GENERATED.sub(lambda m: GENERATORS[m.group(1)](), markdown)


def on_page_markdown(markdown: str, **_: Any) -> str:
    return expand(markdown)
