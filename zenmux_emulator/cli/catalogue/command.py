"""The command line of `zenmux-emulator catalogue pull` and `catalogue diff`.

`pull` exits 0 once the file is written, 1 when the gateway did not answer its listing, 2 on a
usage problem; `diff` exits 0 when the catalogues list the same models at the same prices, 1
otherwise (as diff(1) does)."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
from pathlib import Path
from typing import Any

KEY_ENV = "ZENMUX_API_KEY"
PACKAGED_WORD = "packaged"


def add_catalogue_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("catalogue", help="pull the gateway's models into a catalogue file, or compare two")
    actions = p.add_subparsers(dest="catalogue_command", required=True)
    pull = actions.add_parser(
        "pull",
        help="write the gateway's models (with their prices) as a catalogue file for serve --catalogue",
        description="Fetch GET /api/v1/models (tiered pricings included), GET /api/anthropic/v1/models and "
        "GET /api/vertex-ai/v1beta/models from UPSTREAM and write them as a catalogue file; serve it with "
        "`zenmux-emulator serve --catalogue FILE`. "
        f"The key is read from ${KEY_ENV} (or --key-env NAME) and is never printed or written.",
    )
    pull.add_argument("--upstream", required=True, metavar="URL", help="the gateway's root, e.g. https://zenmux.ai")
    pull.add_argument("--key", help=f"the gateway's API key (better: leave it in ${KEY_ENV})")
    pull.add_argument(
        "--key-env", default=KEY_ENV, metavar="NAME", help=f"the variable the key is read from (default {KEY_ENV})"
    )
    pull.add_argument("--out", required=True, type=Path, metavar="FILE", help="the catalogue file written")
    diff = actions.add_parser(
        "diff",
        help="name the models added, removed and repriced between two catalogue files",
        description=f"Compare two catalogue files (`{PACKAGED_WORD}` names the packaged snapshot); exit 1 when they differ.",
    )
    diff.add_argument("old", metavar="OLD")
    diff.add_argument("new", metavar="NEW")


def catalogue(args: argparse.Namespace) -> int:
    if args.catalogue_command == "diff":
        return _diff(args.old, args.new)
    return _pull(args)


def _read(name: str) -> Any:
    from zenmux_emulator.scenario.default_models import PACKAGED, read_catalogue

    return PACKAGED if name == PACKAGED_WORD else read_catalogue(Path(name))


def _diff(old_name: str, new_name: str) -> int:
    from zenmux_emulator.cli.catalogue.diff import compare
    from zenmux_emulator.foundation.errors import ScenarioError

    try:
        old, new = _read(old_name), _read(new_name)
    except ScenarioError as exc:
        print(exc.render(), file=sys.stderr)
        return 2
    found = compare(old, new)
    for line in found.lines():
        print(line)
    print(
        f"{len(found.added)} added, {len(found.removed)} removed, {len(found.repriced)} repriced "
        f"({old.snapshot.isoformat()} -> {new.snapshot.isoformat()})"
    )
    return 0 if found.empty() else 1


def _pull(args: argparse.Namespace) -> int:
    from zenmux_emulator.cli.catalogue.pull import catalogue_document
    from zenmux_emulator.foundation.errors import ScenarioError
    from zenmux_emulator.record.redact import Redactor
    from zenmux_emulator.record.upstream import base_of, shown
    from zenmux_emulator.scenario.default_models import parse_catalogue

    key = args.key or os.environ.get(args.key_env) or None
    redactor = Redactor((), [key] if key else [])
    base = base_of(args.upstream)
    import asyncio

    listings, problem = asyncio.run(_fetch(base, key))
    if problem:
        print(redactor.text(f"zenmux-emulator catalogue pull: {problem}"), file=sys.stderr)
        return 1
    today = datetime.datetime.now(datetime.UTC).date()
    document = catalogue_document(listings, f"{shown(base).rstrip('/')}/api/v1/models, pulled {today}", today)
    document = redactor.deep(document)
    try:
        parse_catalogue(document, str(args.out))
    except ScenarioError as exc:
        print(redactor.text(exc.render()), file=sys.stderr)
        return 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(document['models'])} models of {today} written to {args.out}; serve them with --catalogue {args.out}")
    return 0


async def _fetch(base: Any, key: str | None) -> tuple[dict[str, Any], str | None]:
    """Each listing's JSON body by path; the problem when the first (the main one) did not answer."""
    import aiohttp

    from zenmux_emulator.cli.catalogue.pull import LISTINGS
    from zenmux_emulator.record.upstream import shown

    headers = {"Authorization": f"Bearer {key}", "x-api-key": key} if key else {}
    found: dict[str, Any] = {}
    timeout = aiohttp.ClientTimeout(total=120, sock_connect=30)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        for path in LISTINGS:
            url = base.with_path(base.path.rstrip("/") + path)
            try:
                found[path] = await _listing(session, url, headers)
                continue
            except _Unanswered as exc:
                problem = f"{shown(url)} answered {exc}"
            except (aiohttp.ClientError, TimeoutError, OSError, ValueError) as exc:
                problem = f"{shown(url)}: {type(exc).__name__} {exc}"
            if path == LISTINGS[0]:
                return found, problem
    return found, None


class _Unanswered(Exception):
    """A listing answered another status than 200 (the exception's text)."""


PAGES = 100
"""Pages of a listing read at most (Google's shape pages with `nextPageToken`; ZenMux's answers in one)."""


async def _listing(session: Any, url: Any, headers: dict[str, str]) -> Any:
    """A listing's JSON body; a Google-shaped one's further pages (`nextPageToken`) added to its `models`."""
    body: Any = None
    token = None
    for _ in range(PAGES):
        page_url = url if token is None else url.update_query(pageToken=token)
        async with session.get(page_url, headers=headers, allow_redirects=False) as response:
            if response.status != 200:
                raise _Unanswered(str(response.status))
            page = await response.json(content_type=None)
        if body is None:
            body = page
        elif isinstance(page, dict) and isinstance(page.get("models"), list):
            body["models"] = [*body.get("models", []), *page["models"]]
        token = page.get("nextPageToken") if isinstance(page, dict) else None
        if not isinstance(token, str) or not token:
            break
    return body
