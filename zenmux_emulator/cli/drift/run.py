"""Sending the probes: each to the upstream (with the user's key) and to the emulator (with a key of
its own), both answers read whole and parsed, compared by shape.

The upstream is contacted at the one URL given and nowhere else (no redirects followed); the
emulator is the URL given or one started in this process on a free loopback port."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from yarl import URL

from zenmux_emulator.cli.drift.probes import Probe
from zenmux_emulator.cli.drift.shape import Answer, Difference, compare
from zenmux_emulator.record.capture.exchange import EventSplitter
from zenmux_emulator.record.upstream import base_of
from zenmux_emulator.scenario.schema import ModelSpec

EMULATOR_KEY = "sk-zenmux-emulator-drift"
"""The key the emulator's side is sent: the user's own key never goes to it."""
TIMEOUT = aiohttp.ClientTimeout(total=300, sock_connect=30)
MAX_BYTES = 8 * 1024 * 1024


@dataclass
class Outcome:
    """One probe's result: both statuses and the differences found (None: not sent)."""

    probe: Probe
    upstream_status: int | None = None
    emulator_status: int | None = None
    differences: list[Difference] = field(default_factory=list)
    skipped: str = ""


def url_for(base: URL, path: str) -> URL:
    prefix = base.path.rstrip("/")
    return base.with_path(prefix + path)


def parse(status: int, headers: Mapping[str, str], content_type: str, raw: bytes) -> Answer:
    """An answer as the comparison reads it: a stream's events, else its JSON body."""
    if content_type == "text/event-stream":
        splitter = EventSplitter()
        splitter.feed(raw + b"\n\n", 0)
        return Answer(status, headers, events=[(e.name, _json(e.data)) for e in splitter.events])
    return Answer(status, headers, body=_json(raw.decode("utf-8", "replace")))


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


async def ask(session: aiohttp.ClientSession, base: URL, key: str, probe: Probe) -> Answer:
    """The probe sent to one side; its answer read whole (at most MAX_BYTES)."""
    headers = {"Authorization": f"Bearer {key}", **probe.headers}
    if probe.face == "anthropic":
        headers["x-api-key"] = key
    try:
        async with session.post(
            url_for(base, probe.path), json=probe.body, headers=headers, allow_redirects=False
        ) as r:
            raw = await r.content.read(MAX_BYTES)
            return parse(r.status, dict(r.headers), r.content_type, raw)
    except (aiohttp.ClientError, TimeoutError, OSError) as exc:
        return Answer(0, {}, body=f"unreachable: {type(exc).__name__}")


@asynccontextmanager
async def emulator_at(url: str | None, catalogue_file: str | None = None) -> AsyncIterator[URL]:
    """The given emulator's root, or one started here over no scenarios (every face's default
    answers, the packaged or given catalogue) on a free loopback port, stopped on the way out."""
    if url:
        yield base_of(url)
        return
    from aiohttp import web

    from zenmux_emulator.server.app import create_app, make_runner
    from zenmux_emulator.settings import Settings

    options: dict[str, Any] = {"port": 0, "scenarios": [], "watch": False, "log_level": "warning"}
    if catalogue_file:
        options["catalogue"] = catalogue_file
    settings = Settings(**options)
    app = create_app(settings)
    runner = make_runner(app, settings)
    await runner.setup()
    try:
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        yield URL(f"http://127.0.0.1:{runner.addresses[0][1]}/")
    finally:
        await runner.cleanup()


@dataclass
class Plan:
    """What one run does: the probes, the two sides, the budget."""

    probes: Sequence[Probe]
    upstream: URL
    key: str
    catalogue: Mapping[str, ModelSpec]
    budget: float | None = None
    spent: float = 0.0


async def run(plan: Plan, emulator: URL) -> list[Outcome]:
    """Every probe to both sides in order; from the first that could pass the budget on, none is sent."""
    outcomes: list[Outcome] = []
    stopped = ""
    async with aiohttp.ClientSession(timeout=TIMEOUT) as session:
        for probe in plan.probes:
            cost = probe.cost(plan.catalogue)
            if not stopped and plan.budget is not None and plan.spent + cost > plan.budget:
                stopped = f"budget ${plan.budget:g}: {probe.face} {probe.name} could cost ${cost:.6f} more"
            if stopped:
                outcomes.append(Outcome(probe, skipped=stopped))
                continue
            plan.spent += cost
            upstream = await ask(session, plan.upstream, plan.key, probe)
            emulated = await ask(session, emulator, EMULATOR_KEY, probe)
            outcomes.append(Outcome(probe, upstream.status, emulated.status, compare(upstream, emulated)))
    return outcomes
