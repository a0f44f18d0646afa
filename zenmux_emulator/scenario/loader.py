"""Read scenario files and validate them against the scenario language: a `ScenarioFile` per
source with where its rules start, or a ScenarioError listing every problem with its line.

Blocking (file reads): call it off the event loop, as the registry does. `core.rules.compile` turns
the validated files into what the request path uses.

The YAML loaders (`scenario/positions.py`) and the problems' wording (`scenario/located.py`) are
imported when a file is parsed: a start whose files all come from the parse cache needs neither.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from zenmux_emulator.foundation.errors import ScenarioError, ScenarioProblem
from zenmux_emulator.foundation.release import drop_gradually
from zenmux_emulator.scenario.attached import folder_of, noting
from zenmux_emulator.scenario.faces import FaceNames, context
from zenmux_emulator.scenario.language import language
from zenmux_emulator.scenario.outline import PositionMap, snippet
from zenmux_emulator.scenario.schema import Rule, ScenarioFile

if TYPE_CHECKING:
    from zenmux_emulator.scenario.cache import ParseCache

SUFFIXES = (".yaml", ".yml")
RULES_AT_ONCE = 200
"""Rules validated in one call of `validated_in_steps` (some milliseconds of one core)."""


class SchemaProblems(ScenarioError):
    """A source that is YAML but not a valid scenario: its problems, and the data and positions read,
    so the checks that do not need a valid file (templates, rule names) still run in the same pass."""

    def __init__(self, problems: list[ScenarioProblem], data: object, positions: SourcePositions) -> None:
        super().__init__(problems)
        self.data, self.positions = data, positions


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


def load_yaml(text: str, filename: str) -> tuple[object, PositionMap]:
    """`scenario/positions.py`'s exact loader, imported on the first parse."""
    from zenmux_emulator.scenario import positions

    return positions.load_yaml(text, filename)


def load_yaml_fast(text: str) -> tuple[object, PositionMap] | None:
    """`scenario/positions.py`'s libyaml loader, imported on the first parse."""
    from zenmux_emulator.scenario import positions

    return positions.load_yaml_fast(text)


def parse_file(text: str, filename: str, faces: FaceNames) -> tuple[ScenarioFile, SourcePositions]:
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
                spec = validated_in_steps(data, faces, folder_of(filename))
            except ValidationError:
                pass
            else:
                if isinstance(data.get("rules"), list):
                    drop_gradually(data["rules"])  # what the rules were read from: a slice at a time
                return spec, SourcePositions(text, filename, outline)
    data, positions = load_yaml(text, filename)
    located = SourcePositions(text, filename, positions, positions)
    if data is None:
        return ScenarioFile(), located
    if not isinstance(data, dict):
        problem = ScenarioProblem(
            filename, 1, 1, "", "a scenario file is a mapping with settings, models and rules", snippet(text, 1, 1)
        )
        raise ScenarioError([problem])
    model = language(faces).file
    try:
        return model.model_validate(data, context=context(faces, folder_of(filename))), located
    except ValidationError as exc:
        from zenmux_emulator.scenario.located import problems_from_validation_error

        raise SchemaProblems(
            problems_from_validation_error(
                exc, text=text, filename=filename, positions=positions, data=data, model=model
            ),
            data,
            located,
        ) from None


def parse_cached(
    text: str, filename: str, faces: FaceNames, cache: ParseCache | None
) -> tuple[ScenarioFile, SourcePositions]:
    """`parse_file`, through the cache of validated files when there is one (`scenario/cache.py`)."""
    if cache is None or not cache.wanted(filename):
        return parse_file(text, filename, faces)
    key = cache.key(text, filename, faces)
    language(faces)  # the models an entry of these faces names, compiled before it is read
    found = cache.get(key)
    if found is not None:
        return found[0], SourcePositions(text, filename, found[1])
    with noting() as attached:
        spec, positions = parse_file(text, filename, faces)
    if not attached:  # a file that gives files is read whole each time (scenario/attached.py)
        cache.put(key, (spec, positions.rules))
    return spec, positions


def validated_in_steps(data: dict[str, Any], faces: FaceNames, folder: Path | None = None) -> ScenarioFile:
    """`ScenarioFile.model_validate(data)` (the faces' `language`), a long `rules` list validated `RULES_AT_ONCE` rules at a
    time. Pydantic validates in Rust holding the GIL, so one call over 50,000 rules held the event
    loop for seconds although the registry builds off it, in a thread; between these calls the
    loop runs. Any problem raises `ValidationError` (from a step: its paths are the step's, so
    `parse_file` validates the whole file again to locate every problem exactly)."""
    rules, ctx, spoken = data.get("rules"), context(faces, folder), language(faces)
    if not isinstance(rules, list) or len(rules) <= RULES_AT_ONCE:
        return spoken.file.model_validate(data, context=ctx)
    head = spoken.file.model_validate({**data, "rules": []}, context=ctx)
    steps: list[Rule] = []
    for start in range(0, len(rules), RULES_AT_ONCE):
        steps += spoken.rules.validate_python(rules[start : start + RULES_AT_ONCE], context=ctx)
    return head.model_copy(update={"rules": steps})


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
