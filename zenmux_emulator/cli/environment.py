"""`ZENMUX_EMULATOR_<OPTION>`: one variable per command-line option, named after the option.

The names are derived from the `serve` parser, so every option added there gets its variable:
`--port` reads `ZENMUX_EMULATOR_PORT`, `--api-key` `ZENMUX_EMULATOR_API_KEY` (comma-separated),
`--no-watch` `ZENMUX_EMULATOR_NO_WATCH=true`; a repeatable option takes a JSON list, or a
comma-separated one. The settings' own field names are accepted too
(`ZENMUX_EMULATOR_API_KEYS`, `ZENMUX_EMULATOR_JOURNAL_FILE`, `ZENMUX_EMULATOR_WATCH=false`, the
names of earlier versions). Any other `ZENMUX_EMULATOR_*` variable is refused, with the nearest
name, so that a typo cannot silently leave a server open. The Node helper's own two
(`ZENMUX_EMULATOR_URL`, `ZENMUX_EMULATOR_COMMAND`: where a test suite finds an emulator) are left to it.
"""

from __future__ import annotations

import argparse
import difflib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

PREFIX = "ZENMUX_EMULATOR_"
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off", ""})
CLIENT_VARIABLES = frozenset({PREFIX + "URL", PREFIX + "COMMAND"})
"""Read by the Node helper (clients/js) and exported by the GitHub Action, never by the server."""


class EnvironmentProblem(ValueError):
    """A `ZENMUX_EMULATOR_*` variable that is unknown, unreadable or given twice."""


@dataclass(frozen=True, slots=True)
class Variable:
    """One accepted variable: the setting it sets, the option it stands for, and whether it is a
    `--no-...` switch (true means the setting is false)."""

    name: str
    field: str
    option: str
    negated: bool = False
    repeatable: bool = False


def _variable_name(option: str) -> str:
    return PREFIX + option.lstrip("-").replace("-", "_").upper()


def variables(parser: argparse.ArgumentParser, fields: Iterable[str]) -> dict[str, Variable]:
    """Every accepted variable by name: the options' names first, then the fields' names as aliases."""
    known = list(fields)
    found: dict[str, Variable] = {}
    for action in parser._actions:  # argparse has no public list of a parser's options
        if action.dest not in known or not action.option_strings:
            continue
        option = max(action.option_strings, key=len)
        negated = isinstance(action, argparse._StoreConstAction) and action.const is False
        name = _variable_name(option)
        found[name] = Variable(name, action.dest, option, negated, isinstance(action, argparse._AppendAction))
    for field in known:
        name = PREFIX + field.upper()
        if name not in found:
            like = next((v for v in found.values() if v.field == field), None)
            found[name] = Variable(name, field, like.option if like else "", repeatable=bool(like and like.repeatable))
    return found


def _items(variable: Variable, value: str) -> list[str]:
    """A repeatable option's values: a JSON list of strings, or comma-separated."""
    if value.lstrip().startswith("["):
        try:
            items = json.loads(value)
        except ValueError as exc:
            raise EnvironmentProblem(f"{variable.name}: not a JSON list: {exc}") from None
        if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
            raise EnvironmentProblem(f"{variable.name}: expected a JSON list of strings")
        return items
    return [item.strip() for item in value.split(",") if item.strip()]


def _switch(variable: Variable, value: str) -> bool:
    word = value.strip().lower()
    if word in _TRUE:
        return not variable.negated
    if word in _FALSE:
        return variable.negated
    raise EnvironmentProblem(f"{variable.name}={value!r}: expected true or false (1/0, yes/no, on/off)")


def read(environ: Mapping[str, str], accepted: Mapping[str, Variable]) -> dict[str, object]:
    """The settings the environment gives, by field; raises EnvironmentProblem naming every variable
    that is unknown (with the nearest name), unreadable, or set twice under two names."""
    values: dict[str, object] = {}
    by: dict[str, str] = {}
    problems: list[str] = []
    for name in sorted(k for k in environ if k.startswith(PREFIX) and k not in CLIENT_VARIABLES):
        variable = accepted.get(name)
        if variable is None:
            close = difflib.get_close_matches(name, list(accepted), n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]}?" if close else f"; known: {', '.join(sorted(accepted))}"
            problems.append(f"unknown variable {name}{hint}")
            continue
        if variable.field in by:
            problems.append(f"{name} and {by[variable.field]} both set {variable.option or variable.field}; keep one")
            continue
        raw = environ[name]
        try:
            values[variable.field] = (
                _switch(variable, raw) if variable.negated else _items(variable, raw) if variable.repeatable else raw
            )
        except EnvironmentProblem as exc:
            problems.append(str(exc))
            continue
        by[variable.field] = name
    if problems:
        raise EnvironmentProblem("\n".join(problems))
    return values


def sources(environ: Mapping[str, str], accepted: Mapping[str, Variable]) -> dict[str, str]:
    """The variable that set each field, to name it in an error."""
    return {accepted[name].field: name for name in environ if name in accepted}
