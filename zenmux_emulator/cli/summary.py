"""The lines `serve` prints once it listens: where, and what it serves (as text, or JSON lines)."""

from __future__ import annotations

import datetime
import logging
from typing import Any

from aiohttp import web

from zenmux_emulator.cli.logs import JsonFormatter
from zenmux_emulator.core.keys import REGISTRY
from zenmux_emulator.core.spec import REGISTERED
from zenmux_emulator.scenario.default_models import PACKAGED
from zenmux_emulator.settings import Settings


def facts(app: web.Application, settings: Settings, port: int) -> dict[str, Any]:
    """What a started server serves: its URL, faces, scenarios, keys and catalogue."""
    scenarios = app[REGISTRY].current.scenarios
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    keys = set(settings.api_keys) | scenarios.api_keys
    return {
        "url": f"http://{host}:{port}/api/v1",
        "inspector": f"http://{host}:{port}/_emulator/ui/",
        "control_access": control_access(settings),
        "faces": [face.name for face in app[REGISTERED]],
        "scenario_files": len(scenarios.files),
        "rules": len(scenarios.rules),
        "scenario_warnings": len(scenarios.warnings),
        "api_keys": len(keys),
        "catalogue": scenarios.catalogue_mode,
        "models": len(scenarios.listing()),
        **catalogue_facts(app),
    }


def catalogue_facts(app: web.Application) -> dict[str, Any]:
    """The served catalogue's snapshot day, its file (None: the packaged one) and, when it is older
    than 90 days, the hint to refresh it (today's date, not the emulator's clock)."""
    catalogue = app[REGISTRY].faces.catalogue or PACKAGED
    today = datetime.datetime.now(datetime.UTC).date()
    return {
        "catalogue_snapshot": catalogue.snapshot.isoformat(),
        "catalogue_file": catalogue.path,
        "catalogue_hint": catalogue.hint(today),
    }


def control_access(settings: Settings) -> str:
    """Who the inspector and the control API answer (server/control/guard.py), in words."""
    if settings.admin_token:
        return "every client that sends the admin token (open the page with ?token=…)"
    names = ", ".join(["localhost", "127.0.0.1", *settings.allowed_hosts])
    return f"loopback clients only, at {names}; other machines get a 403 (--admin-token opens them)"


def _sentences(data: dict[str, Any]) -> tuple[str, str, str]:
    keys = (
        f"restricted to {data['api_keys']} key(s)"
        if data["api_keys"]
        else "not restricted (any non-empty key; --api-key restricts them)"
    )
    warned = f" ({data['scenario_warnings']} warning(s): see the log)" if data["scenario_warnings"] else ""
    source = f" from {data['catalogue_file']}" if data["catalogue_file"] else ""
    return (
        f"ZenMux emulator listening on {data['url']}",
        f"serving {', '.join(data['faces'])}; {data['rules']} rules from {data['scenario_files']} "
        f"scenario files{warned}; API keys {keys}; catalogue {data['catalogue']} ({data['models']} models) "
        f"of {data['catalogue_snapshot']}{source}",
        f"inspector (the requests as they arrive, in a browser): {data['inspector']}, "
        f"answering {data['control_access']}",
    )


def start_lines(app: web.Application, settings: Settings, port: int) -> list[str]:
    """Three lines: `ZenMux emulator listening on URL`, the summary, the inspector page's URL; one
    JSON object each under `--log-format json` (the facts as fields)."""
    data = facts(app, settings, port)
    listening, summary, inspector = _sentences(data)
    if settings.log_format != "json":
        return [listening, summary, inspector]
    formatter = JsonFormatter()
    lines = []
    for message, fields in (
        (listening, {"url": data["url"]}),
        (summary, data),
        (inspector, {"inspector": data["inspector"], "control_access": data["control_access"]}),
    ):
        record = logging.LogRecord("emulator", logging.INFO, __file__, 0, message, None, None)
        record.__dict__.update(fields)
        lines.append(formatter.format(record))
    return lines


__all__ = ["catalogue_facts", "facts", "start_lines"]
