"""Read scenario files, validate them, compile them: one ScenarioSet, or a ScenarioError listing every problem.

Blocking (file reads): call it off the event loop, as the registry does.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pydantic import ValidationError

from zenmux_emulator.foundation.errors import ScenarioError, ScenarioProblem
from zenmux_emulator.gateway.limits import merge_settings
from zenmux_emulator.match.predicates import compile_expect, compile_match
from zenmux_emulator.draft.text import TemplateProblem, compile_template, is_template
from zenmux_emulator.rules.compiled import CompiledReply, CompiledRule, ScenarioSet
from zenmux_emulator.scenario.default_models import DEFAULT_CATALOGUE
from zenmux_emulator.scenario.located import problems_from_validation_error
from zenmux_emulator.scenario.positions import PositionMap, load_yaml, load_yaml_fast, locate, snippet
from zenmux_emulator.scenario.schema import FileSettings, ModelSpec, ScenarioFile

SUFFIXES = (".yaml", ".yml")


def scenario_files(paths: Iterable[Path]) -> list[Path]:
    """The files named, and the YAML files under the folders named (recursively, sorted)."""
    found: list[Path] = []
    missing: list[ScenarioProblem] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*") if p.suffix in SUFFIXES and p.is_file()))
        elif path.is_file():
            found.append(path)
        else:
            missing.append(ScenarioProblem(str(path), None, None, "", "no such file or directory"))
    if missing:
        raise ScenarioError(missing)
    return found


class SourcePositions:
    """Where things are in one source. `rules` (where each rule starts) is at hand from the load;
    `exact()` (every value) is parsed again by the position-keeping loader the first time a problem
    needs it, so a valid file never pays for it."""

    def __init__(self, text: str, filename: str, rules: PositionMap, exact: PositionMap | None = None) -> None:
        self.text, self.filename, self.rules, self._exact = text, filename, rules, exact

    def exact(self) -> PositionMap:
        if self._exact is None:
            self._exact = load_yaml(self.text, self.filename)[1]
        return self._exact


def parse_file(text: str, filename: str) -> tuple[ScenarioFile, SourcePositions]:
    """One scenario source → its validated model (raises ScenarioError with lines).

    libyaml loads it when it can (`load_yaml_fast`); anything wrong is found again by the exact loader,
    so that every problem is reported as that loader locates it."""
    fast = load_yaml_fast(text)
    if fast is not None:
        data, outline = fast
        if data is None:
            return ScenarioFile(), SourcePositions(text, filename, outline, outline)
        if isinstance(data, dict):
            try:
                return ScenarioFile.model_validate(data), SourcePositions(text, filename, outline)
            except ValidationError:
                pass
    data, positions = load_yaml(text, filename)
    located = SourcePositions(text, filename, positions, positions)
    if data is None:
        return ScenarioFile(), located
    if not isinstance(data, dict):
        problem = ScenarioProblem(filename, 1, 1, "", "a scenario file is a mapping with settings, models and rules",
                                  snippet(text, 1, 1))
        raise ScenarioError([problem])
    try:
        return ScenarioFile.model_validate(data), located
    except ValidationError as exc:
        raise ScenarioError(problems_from_validation_error(
            exc, text=text, filename=filename, positions=positions, data=data, model=ScenarioFile)) from None


def _compile_text(source: str | None, where: tuple[str | int, ...], positions: SourcePositions,
                  problems: list[ScenarioProblem]) -> object:
    if source is None or not is_template(source):
        return source
    try:
        return compile_template(source)
    except TemplateProblem as exc:
        text, filename = positions.text, positions.filename
        line, column = locate(positions.exact(), where) or (None, None)
        path = ".".join(str(p) if isinstance(p, str) else f"[{p}]" for p in where).replace(".[", "[")
        problems.append(ScenarioProblem(filename, line, column, path, f"template error: {exc.message}",
                                        snippet(text, line, column) if line else ""))
        return None


def compile_file(text: str, filename: str, first_order: int = 0) -> tuple[ScenarioFile, list[CompiledRule]]:
    """Validate and compile one source; rule order continues from `first_order`."""
    spec, positions = parse_file(text, filename)
    problems: list[ScenarioProblem] = []
    rules: list[CompiledRule] = []
    for i, rule in enumerate(spec.rules):
        base: tuple[str | int, ...] = ("rules", i)
        replies = []
        for j, reply in enumerate(rule.sequence):
            at = (*base, "reply") if rule.reply is not None else (*base, "replies", j)
            replies.append(CompiledReply(
                spec=reply,
                content=_compile_text(reply.content, (*at, "content"), positions, problems),
                refusal=_compile_text(reply.refusal, (*at, "refusal"), positions, problems),
                reasoning=_compile_text(reply.reasoning, (*at, "reasoning"), positions, problems),
            ))
        line = (locate(positions.rules, base) or (None, None))[0]
        expectations = compile_expect(rule.expect) if rule.expect is not None else ()
        rules.append(CompiledRule(rule, filename, line, first_order + i, compile_match(rule.match), tuple(replies),
                                  expectations))
    if problems:
        raise ScenarioError(problems)
    return spec, rules


def build_set(sources: Iterable[tuple[str, str]]) -> ScenarioSet:
    """Compile (filename, text) sources into one set; every problem of every source is reported."""
    problems: list[ScenarioProblem] = []
    rules: list[CompiledRule] = []
    models: dict[str, ModelSpec] = {}
    keys: set[str] = set()
    closed = False
    names: dict[str, str] = {}
    files: list[str] = []
    file_settings: list[tuple[str, FileSettings]] = []
    for filename, text in sources:
        files.append(filename)
        try:
            spec, compiled = compile_file(text, filename, len(rules))
        except ScenarioError as exc:
            problems.extend(exc.problems)
            continue
        for rule in compiled:
            if rule.name in names:
                problems.append(ScenarioProblem(filename, rule.line, None, f"rules[{rule.order - len(rules)}].name",
                                                f"rule name {rule.name!r} is already used in {names[rule.name]}"))
            names[rule.name] = rule.where
        for model_id, model in spec.models.items():
            if model_id in models:
                problems.append(ScenarioProblem(filename, None, None, f"models.{model_id}",
                                                f"model {model_id!r} is declared in two files"))
            models[model_id] = model
        keys.update(spec.settings.api_keys)
        closed = closed or spec.settings.catalogue == "closed"
        file_settings.append((filename, spec.settings))
        rules.extend(compiled)
    gateway, gateway_problems = merge_settings(file_settings)
    problems.extend(gateway_problems)
    if problems:
        raise ScenarioError(problems)
    served = dict(models) if closed else {**DEFAULT_CATALOGUE, **models}
    return ScenarioSet(tuple(sorted(rules, key=lambda r: r.rank)), models, closed, served, frozenset(keys), tuple(files),
                       gateway)


def read_sources(paths: Iterable[Path]) -> list[tuple[str, str]]:
    """(filename, text) of every scenario file under `paths`."""
    sources: list[tuple[str, str]] = []
    unreadable: list[ScenarioProblem] = []
    for path in scenario_files(paths):
        try:
            sources.append((str(path), path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError) as exc:
            unreadable.append(ScenarioProblem(str(path), None, None, "", f"cannot read: {exc}"))
    if unreadable:
        raise ScenarioError(unreadable)
    return sources


def load_paths(paths: Iterable[Path]) -> ScenarioSet:
    """Read and compile every scenario file under `paths`."""
    return build_set(read_sources(paths))
