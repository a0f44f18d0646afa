"""Scenario files compiled into a `ScenarioSet`: predicates, templates and gateway settings made
once at load, every problem of every file reported together."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from zenmux_emulator.draft.compiled import CompiledReply
from zenmux_emulator.draft.text import TemplateProblem, compile_template, is_template
from zenmux_emulator.foundation.errors import ScenarioError, ScenarioProblem
from zenmux_emulator.foundation.signatures import RecordedReasoning
from zenmux_emulator.gateway.limits import merge_settings
from zenmux_emulator.match.predicates import compile_expect, compile_match
from zenmux_emulator.match.rule import CompiledRule
from zenmux_emulator.rules.compiled import ScenarioSet
from zenmux_emulator.scenario.default_models import DEFAULT_CATALOGUE
from zenmux_emulator.scenario.loader import SourcePositions, parse_file, read_sources
from zenmux_emulator.scenario.positions import locate, snippet
from zenmux_emulator.scenario.query_model import QueryModel
from zenmux_emulator.scenario.schema import FileSettings, ModelSpec, ScenarioFile


def _compile_text(source: str | None, where: tuple[str | int, ...], positions: SourcePositions,
                  problems: list[ScenarioProblem], verbatim: bool = False) -> object:
    if source is None or verbatim or not is_template(source):
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
                content=_compile_text(reply.content, (*at, "content"), positions, problems, reply.verbatim),
                refusal=_compile_text(reply.refusal, (*at, "refusal"), positions, problems, reply.verbatim),
                reasoning=_compile_text(reply.reasoning, (*at, "reasoning"), positions, problems, reply.verbatim),
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
    query_models: list[QueryModel] = []
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
        query_models.extend(spec.query_models)
        rules.extend(compiled)
    gateway, gateway_problems = merge_settings(file_settings)
    problems.extend(gateway_problems)
    if problems:
        raise ScenarioError(problems)
    served = dict(models) if closed else {**DEFAULT_CATALOGUE, **models}
    return ScenarioSet(tuple(sorted(rules, key=lambda r: r.rank)), models, closed, served, frozenset(keys), tuple(files),
                       gateway, tuple(query_models), recorded_reasoning(rules))


def recorded_reasoning(rules: Iterable[CompiledRule]) -> RecordedReasoning:
    """Every upstream signature and encrypted block the replies carry, bound to its text or item id."""
    signatures: set[tuple[str, str]] = set()
    encrypted: set[tuple[str, str]] = set()
    for rule in rules:
        for reply in rule.rule.sequence:
            if reply.reasoning_signature is not None and reply.reasoning is not None:
                signatures.add((reply.reasoning, reply.reasoning_signature))
            if reply.reasoning_encrypted is not None:
                encrypted.add((reply.reasoning_encrypted.id, reply.reasoning_encrypted.data))
    return RecordedReasoning(frozenset(signatures), frozenset(encrypted))


def load_paths(paths: Iterable[Path]) -> ScenarioSet:
    """Read and compile every scenario file under `paths`."""
    return build_set(read_sources(paths))
