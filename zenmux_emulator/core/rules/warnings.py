"""What loads but is likely a mistake, said at load (`validate`, the server's log) without refusing it:
a rule that answers everything hiding the rules after it, and an error type ZenMux never sends."""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Sequence

from zenmux_emulator.core.match.rule import CompiledRule
from zenmux_emulator.foundation.envelope import CATALOGUE
from zenmux_emulator.foundation.errors import ScenarioProblem
from zenmux_emulator.scenario.faces import FaceNames
from zenmux_emulator.scenario.loader import SourcePositions
from zenmux_emulator.scenario.outline import KeyPath, dotted, locate, snippet
from zenmux_emulator.scenario.schema import ErrorReply, Match, ScenarioFile

ZENMUX_TYPES = frozenset(kind for _, kind in CATALOGUE)
"""The error types of ZenMux's catalogue (foundation/envelope.py)."""
_MATCH_KEYS = tuple(key for key in Match.model_fields if key != "api")


def _faces(match: Match, faces: FaceNames) -> frozenset[str]:
    """The faces a rule answers on (as `compile_match` reads `api`)."""
    if match.api is None:
        return faces.everything() - faces.named_only()
    return faces.expand(match.apis)


def _answers_everything(rule: CompiledRule) -> bool:
    """An empty match (but for `api`) that never lets a request through to later rules (a rule
    that matches in one state of its scenario only does, in the others)."""
    match = rule.rule.match
    return (
        rule.rule.then != "fall_through"
        and rule.when_state is None
        and all(getattr(match, key) is None for key in _MATCH_KEYS)
    )


def shadowed(rules: Sequence[CompiledRule], faces: FaceNames) -> list[ScenarioProblem]:
    """One warning per rule that answers every request on its faces while rules ranked after it
    answer only there: those are never reached (but through `X-Emulator-Rule`)."""
    found = []
    for i, rule in enumerate(rules):
        if not _answers_everything(rule):
            continue
        answered = _faces(rule.rule.match, faces)
        hidden = [later for later in rules[i + 1 :] if _faces(later.rule.match, faces) <= answered]
        if hidden:
            names = ", ".join(f"{r.name!r} ({r.where})" for r in hidden[:5]) + (", ..." if len(hidden) > 5 else "")
            found.append(
                ScenarioProblem(
                    rule.source,
                    rule.line,
                    None,
                    "",
                    f"rule {rule.name!r} answers every request (its match is empty), so the {len(hidden)} rule(s) "
                    f"tried after it are never reached: {names}; give it a match, a lower priority, "
                    "or then: fall_through",
                )
            )
    return found


def _errors(spec: ScenarioFile) -> Iterator[tuple[KeyPath, ErrorReply]]:
    for i, rule in enumerate(spec.rules):
        at: list[tuple[KeyPath, ErrorReply | None]] = [
            (("rules", i, "chaos", "error"), rule.chaos.error if rule.chaos is not None else None)
        ]
        if rule.reply is not None:
            at.append((("rules", i, "reply", "error"), rule.reply.error))
        for j, reply in enumerate(rule.replies or ()):
            at.append((("rules", i, "replies", j, "error"), reply.error))
        yield from ((path, error) for path, error in at if error is not None)
    for model_id, model in spec.models.items():
        for k, provider in enumerate(model.providers):
            if provider.fail is not None:
                yield ("models", model_id, "providers", k, "fail"), provider.fail


def unknown_error_types(spec: ScenarioFile, positions: SourcePositions) -> list[ScenarioProblem]:
    """A warning for each scripted error `type` that is not in ZenMux's catalogue."""
    found = []
    for path, error in _errors(spec):
        if error.type is None or error.type in ZENMUX_TYPES:
            continue
        close = difflib.get_close_matches(error.type, sorted(ZENMUX_TYPES), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        line, column = locate(positions.exact(), (*path, "type"))
        found.append(
            ScenarioProblem(
                positions.filename,
                line,
                column,
                dotted((*path, "type")),
                f"error type {error.type!r} is not in ZenMux's catalogue ({hint}ZenMux sends: "
                f"{', '.join(sorted(ZENMUX_TYPES))}); clients that branch on the type will not recognise it",
                snippet(positions.text, line, column),
            )
        )
    return found
