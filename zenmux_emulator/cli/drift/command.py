"""The command line of `zenmux-emulator drift`: its options, and the run from them to an exit code.

Exit codes: 0 no drift (every difference is in --known), 1 drift, 2 a usage problem, 3 no drift
but --budget stopped the run before every probe was sent."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

DRIFT_HELP = "compare the real gateway's answers (or recorded ones) with the emulator's, by shape"
DRIFT_DESCRIPTION = """\
Send a small fixed set of probes per face (plain, streamed, a tool call, reasoning where the model
has it, structured output, count_tokens, an embedding, an unknown model, a bad parameter) to
UPSTREAM and the same requests to the emulator, and compare the answers' shapes: status, fields
added, missing or retyped by JSON path, headers, the stream's event grammar, tool-call shape, error
type and code. Texts, ids, times and token counts are not compared. Prints a table per face, writes
a JSON report, exits 1 on drift not in --known (0 without, 3 when --budget stopped it early).
The key is read from $ZENMUX_API_KEY (or --key-env NAME) and is never printed or written."""
KEY_ENV = "ZENMUX_API_KEY"
EXIT_DRIFT = 1
EXIT_USAGE = 2
EXIT_BUDGET = 3


def _words(text: str) -> list[str]:
    return [word.strip() for word in text.split(",") if word.strip()]


def add_drift_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("drift", help=DRIFT_HELP, description=DRIFT_DESCRIPTION)
    p.add_argument(
        "--upstream", metavar="URL", help="the gateway's root, e.g. https://zenmux.ai (the only address contacted)"
    )
    p.add_argument(
        "--recorded",
        type=Path,
        metavar="DIR",
        help="compare the exchanges `record --out DIR` wrote instead of asking an upstream (no key, no network)",
    )
    p.add_argument("--key", help=f"the upstream's API key (better: leave it in ${KEY_ENV})")
    p.add_argument(
        "--key-env", default=KEY_ENV, metavar="NAME", help=f"the variable the key is read from (default {KEY_ENV})"
    )
    p.add_argument(
        "--emulator", metavar="URL", help="a running emulator's root (default: one started here, on a free port)"
    )
    p.add_argument(
        "--faces", type=_words, metavar="FACE,…", help="the faces probed (default chat,anthropic,responses,embeddings)"
    )
    p.add_argument(
        "--models", type=_words, default=[], metavar="MODEL,…", help="the models probed (default: a cheap one per face)"
    )
    p.add_argument(
        "--budget",
        type=float,
        metavar="USD",
        help="stop before a probe that could bring the spend past USD (catalogue prices)",
    )
    p.add_argument(
        "--known", type=Path, metavar="FILE", help="YAML allow-list of differences the emulator has on purpose"
    )
    p.add_argument(
        "--catalogue",
        metavar="FILE",
        help="the catalogue file (from `catalogue pull`) the started emulator serves and --budget prices from",
    )
    p.add_argument(
        "--report",
        type=Path,
        default=Path("drift-report.json"),
        metavar="FILE",
        help="the JSON report (default drift-report.json)",
    )


def _key(args: argparse.Namespace) -> str | None:
    return args.key or os.environ.get(args.key_env) or None


def drift(args: argparse.Namespace) -> int:
    """Run `drift` from its parsed options; the exit code."""
    from zenmux_emulator.cli.drift.probes import FACES
    from zenmux_emulator.cli.drift.report import KnownFileProblem, read_known

    faces = args.faces or list(FACES)
    unknown = [face for face in faces if face not in FACES]
    if unknown:
        return _usage(f"--faces: no probes for {', '.join(unknown)} (the faces probed: {', '.join(FACES)})")
    try:
        known = read_known(args.known)
    except KnownFileProblem as exc:
        return _usage(f"--known {exc}")
    if args.catalogue and not Path(args.catalogue).is_file():
        return _usage(f"--catalogue {args.catalogue}: no such file")
    if args.recorded is not None:
        if args.upstream:
            return _usage("--recorded DIR and --upstream URL: give one")
        return _recorded(args, faces, known)
    if not args.upstream:
        return _usage("--upstream URL (or --recorded DIR) is needed")
    key = _key(args)
    if key is None:
        return _usage(f"no upstream key: set ${args.key_env} (or --key-env NAME, or --key KEY)")
    if args.budget is not None and args.budget < 0:
        return _usage("--budget must be 0 or more")
    import asyncio

    return asyncio.run(_live(args, faces, key, known))


def _recorded(args: argparse.Namespace, faces: list[str], known: list[Any]) -> int:
    """`--recorded DIR`: the recorded answers against the emulator's now."""
    import asyncio

    from zenmux_emulator.cli.drift.recorded import RecordingProblem, read_recorded

    try:
        recorded = read_recorded(args.recorded)
    except RecordingProblem as exc:
        return _usage(f"--recorded {exc}")
    chosen = [r for r in recorded if r.probe.face in faces or not args.faces]
    chosen = [r for r in chosen if not args.models or r.probe.model in args.models]
    return asyncio.run(_replay(args, chosen, known))


async def _replay(args: argparse.Namespace, recorded: Any, known: list[Any]) -> int:
    from zenmux_emulator.cli.drift.recorded import run_recorded
    from zenmux_emulator.cli.drift.run import emulator_at
    from zenmux_emulator.record.upstream import shown

    async with emulator_at(args.emulator, args.catalogue) as emulator:
        outcomes = await run_recorded(recorded, emulator)
        header = {"recorded": str(args.recorded), "emulator": shown(emulator), "spent_at_most_usd": 0}
    faces = list(dict.fromkeys(o.probe.face for o in outcomes))
    return finish(outcomes, known, faces, header, args.report, [])


def _usage(message: str) -> int:
    print(f"zenmux-emulator drift: {message}", file=sys.stderr)
    return EXIT_USAGE


async def _live(args: argparse.Namespace, faces: list[str], key: str, known: list[Any]) -> int:
    from zenmux_emulator.cli.drift.probes import probe_set
    from zenmux_emulator.cli.drift.run import Plan, emulator_at, run
    from zenmux_emulator.record.upstream import base_of, shown
    from zenmux_emulator.scenario.default_models import DEFAULT_CATALOGUE, read_catalogue

    catalogue = dict(read_catalogue(Path(args.catalogue)).models) if args.catalogue else DEFAULT_CATALOGUE
    upstream = base_of(args.upstream)
    plan = Plan(probe_set(faces, args.models, catalogue), upstream, key, catalogue, args.budget)
    async with emulator_at(args.emulator, args.catalogue) as emulator:
        outcomes = await run(plan, emulator)
        header = {"upstream": shown(upstream), "emulator": shown(emulator), "spent_at_most_usd": round(plan.spent, 6)}
    return finish(outcomes, known, faces, header, args.report, [key])


def finish(outcomes: Any, known: Any, faces: list[str], header: dict[str, Any], path: Path, secrets: list[str]) -> int:
    """Print the tables and the summary, write the report (secrets masked everywhere); the exit code."""
    from zenmux_emulator.cli.drift.report import Findings, report, table
    from zenmux_emulator.record.redact import Redactor

    redactor = Redactor((), secrets)
    findings = Findings(outcomes, known)
    for line in table(findings, faces):
        print(redactor.text(line))
    drift, skipped = findings.drift(), findings.skipped()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report(findings, header, redactor), indent=1) + "\n", encoding="utf-8")
    summary = f"{len(drift)} drift, {len(findings.allowed())} known, {len(skipped)} probe(s) not sent; report: {path}"
    print(redactor.text(summary))
    if drift:
        return EXIT_DRIFT
    return EXIT_BUDGET if skipped else 0
