"""Scenario files compiled into a `ScenarioSet`: predicates, templates and gateway settings made
once at load, every problem of every file reported together."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from zenmux_emulator.core.draft.compiled import CompiledReply
from zenmux_emulator.core.draft.text import TemplateProblem, compile_template, is_template
from zenmux_emulator.core.gateway.catalogue import ServedModels
from zenmux_emulator.core.gateway.limits import merge_settings
from zenmux_emulator.core.match.predicates import compile_expect, compile_match
from zenmux_emulator.core.match.rule import CompiledRule
from zenmux_emulator.core.rules.compiled import ScenarioSet
from zenmux_emulator.core.rules.machines import state_warnings
from zenmux_emulator.core.rules.warnings import shadowed, unknown_error_types
from zenmux_emulator.foundation.errors import ScenarioError, ScenarioProblem
from zenmux_emulator.foundation.signatures import RecordedReasoning
from zenmux_emulator.scenario.cache import ParseCache
from zenmux_emulator.scenario.default_models import DEFAULT_CATALOGUE
from zenmux_emulator.scenario.faces import FaceNames
from zenmux_emulator.scenario.loader import SchemaProblems, SourcePositions, parse_cached, read_sources
from zenmux_emulator.scenario.outline import locate, snippet
from zenmux_emulator.scenario.query_model import QueryModel
from zenmux_emulator.scenario.schema import FileSettings, ModelSpec, RawReply, ScenarioFile


def _compile_text(
    source: str | None,
    where: tuple[str | int, ...],
    positions: SourcePositions,
    problems: list[ScenarioProblem],
    verbatim: bool = False,
) -> object:
    if source is None or verbatim or not is_template(source):
        return source
    try:
        return compile_template(source)
    except TemplateProblem as exc:
        problems.append(_problem_at(positions, where, f"template error: {exc.message}"))
        return None


def _problem_at(positions: SourcePositions, where: tuple[str | int, ...], reason: str) -> ScenarioProblem:
    """A problem of the key at `where` in the file, with its line, column and snippet when found."""
    line, column = locate(positions.exact(), where) or (None, None)
    path = ".".join(str(p) if isinstance(p, str) else f"[{p}]" for p in where).replace(".[", "[")
    return ScenarioProblem(
        positions.filename, line, column, path, reason, snippet(positions.text, line, column) if line else ""
    )


def _load_body_file(
    raw: RawReply, where: tuple[str | int, ...], positions: SourcePositions, problems: list[ScenarioProblem]
) -> None:
    """A raw reply's `body_file`, read from the scenario file's folder (a problem when it cannot be)."""
    try:
        raw.load(str(Path(positions.filename).parent))
    except ValueError as exc:
        problems.append(_problem_at(positions, where, f"cannot read {raw.body_file!r} beside the scenario file: {exc}"))


class FileProblems(ScenarioError):
    """A source's every problem, with the names of its rules (index, name, line) as far as they could
    be read, so that names used twice are reported in the same pass."""

    def __init__(self, problems: list[ScenarioProblem], names: list[tuple[int, str, int | None]]) -> None:
        super().__init__(problems)
        self.names = names


_TEMPLATED = ("content", "refusal", "reasoning")


def _salvage(exc: SchemaProblems) -> FileProblems:
    """The template problems and rule names of a source whose schema problems stop its compiling."""
    problems = list(exc.problems)
    names: list[tuple[int, str, int | None]] = []
    raw = exc.data.get("rules") if isinstance(exc.data, dict) else None
    for i, rule in enumerate(raw if isinstance(raw, list) else []):
        if not isinstance(rule, dict):
            continue
        if isinstance(rule.get("name"), str):
            names.append((i, rule["name"], (locate(exc.positions.rules, ("rules", i)) or (None, None))[0]))
        replies: list[tuple[tuple[str | int, ...], object]] = [(("rules", i, "reply"), rule.get("reply"))]
        if isinstance(rule.get("replies"), list):
            replies += [(("rules", i, "replies", j), reply) for j, reply in enumerate(rule["replies"])]
        for at, reply in replies:
            if not isinstance(reply, dict):
                continue
            for key in _TEMPLATED:
                if isinstance(reply.get(key), str):
                    _compile_text(reply[key], (*at, key), exc.positions, problems)
    return FileProblems(sorted(problems, key=lambda p: (p.line or 0, p.column or 0)), names)


def compile_file(
    text: str,
    filename: str,
    first_order: int,
    faces: FaceNames,
    cache: ParseCache | None = None,
) -> tuple[ScenarioFile, list[CompiledRule], list[ScenarioProblem]]:
    """Validate (or find validated in `cache`) and compile one source (with its warnings); rule order
    continues from `first_order`. Raises FileProblems with every problem found: schema, templates, or both."""
    try:
        spec, positions = parse_cached(text, filename, faces, cache)
    except SchemaProblems as exc:
        raise _salvage(exc) from None
    problems: list[ScenarioProblem] = []
    rules: list[CompiledRule] = []
    for i, rule in enumerate(spec.rules):
        base: tuple[str | int, ...] = ("rules", i)
        replies = []
        for j, reply in enumerate(rule.sequence):
            at = (*base, "reply") if rule.reply is not None else (*base, "replies", j)
            if reply.raw is not None and reply.raw.body_file is not None:
                _load_body_file(reply.raw, (*at, "raw", "body_file"), positions, problems)
            replies.append(
                CompiledReply(
                    spec=reply,
                    content=_compile_text(reply.content, (*at, "content"), positions, problems, reply.verbatim),
                    refusal=_compile_text(reply.refusal, (*at, "refusal"), positions, problems, reply.verbatim),
                    reasoning=_compile_text(reply.reasoning, (*at, "reasoning"), positions, problems, reply.verbatim),
                )
            )
        line = (locate(positions.rules, base) or (None, None))[0]
        expectations = compile_expect(rule.expect, faces) if rule.expect is not None else ()
        rules.append(
            CompiledRule(
                rule, filename, line, first_order + i, compile_match(rule.match, faces), tuple(replies), expectations
            )
        )
    if problems:
        raise FileProblems(problems, [(i, r.name, r.line) for i, r in enumerate(rules)])
    return spec, rules, unknown_error_types(spec, positions)


def _name_clashes(
    filename: str, found: list[tuple[int, str, int | None]], names: dict[str, str]
) -> list[ScenarioProblem]:
    """A problem for each rule named like an earlier one; `names` (name -> where) learns the new ones."""
    clashes = []
    for index, name, line in found:
        if name in names:
            clashes.append(
                ScenarioProblem(
                    filename, line, None, f"rules[{index}].name", f"rule name {name!r} is already used in {names[name]}"
                )
            )
        names[name] = f"{filename}:{line}" if line else filename
    return clashes


def build_set(sources: Iterable[tuple[str, str]], faces: FaceNames, cache: ParseCache | None = None) -> ScenarioSet:
    """Compile (filename, text) sources into one set, for the faces an app registered (`faces`),
    the files validated before found in `cache`; every problem of every source is reported."""
    problems: list[ScenarioProblem] = []
    rules: list[CompiledRule] = []
    models: dict[str, ModelSpec] = {}
    keys: set[str] = set()
    modes: set[str] = set()
    names: dict[str, str] = {}
    files: list[str] = []
    file_settings: list[tuple[str, FileSettings]] = []
    query_models: list[QueryModel] = []
    warnings: list[ScenarioProblem] = []
    server_wide: set[str] = set()
    for filename, text in sources:
        files.append(filename)
        try:
            spec, compiled, file_warnings = compile_file(text, filename, len(rules), faces, cache)
        except FileProblems as exc:
            problems.extend(exc.problems)
            problems.extend(_name_clashes(filename, exc.names, names))
            continue
        except ScenarioError as exc:
            problems.extend(exc.problems)
            continue
        problems.extend(_name_clashes(filename, [(r.order - len(rules), r.name, r.line) for r in compiled], names))
        for model_id, model in spec.models.items():
            if model_id in models:
                problems.append(
                    ScenarioProblem(
                        filename, None, None, f"models.{model_id}", f"model {model_id!r} is declared in two files"
                    )
                )
            models[model_id] = model
        keys.update(spec.settings.api_keys)
        server_wide.update(spec.settings.server_wide_scenarios)
        if spec.settings.catalogue is not None:
            modes.add(spec.settings.catalogue)
        file_settings.append((filename, spec.settings))
        query_models.extend(spec.query_models)
        rules.extend(compiled)
        warnings.extend(file_warnings)
    gateway, gateway_problems = merge_settings(file_settings)
    problems.extend(gateway_problems)
    if problems:
        raise ScenarioError(problems)
    # closed in any file: only the declared models; open in any other: every id answers; else
    # (zenmux) ZenMux's catalogue and the declared models, every other id refused
    catalogue = faces.catalogue.models if faces.catalogue is not None else DEFAULT_CATALOGUE
    served = ServedModels.of(models if "closed" in modes else {**catalogue, **faces.models, **models}, faces.catalogue)
    mode = "closed" if "closed" in modes else "open" if "open" in modes else "zenmux"
    ranked = tuple(sorted(rules, key=lambda r: r.rank))
    return ScenarioSet(
        ranked,
        models,
        mode != "open",
        served,
        frozenset(keys),
        tuple(files),
        gateway,
        tuple(query_models),
        recorded=recorded_reasoning(rules),
        warnings=(*shadowed(ranked, faces), *warnings, *state_warnings(ranked)),
        catalogue_mode=mode,
        unlisted=frozenset(faces.models).difference(models),
        server_wide=frozenset(server_wide),
    )


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


def load_paths(paths: Iterable[Path], faces: FaceNames, cache: ParseCache | None = None) -> ScenarioSet:
    """Read and compile every scenario file under `paths`."""
    return build_set(read_sources(paths), faces, cache)
