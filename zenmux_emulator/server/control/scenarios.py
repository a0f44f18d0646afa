"""`/_emulator/scenarios`: list the rules in force with their hits; load, replace and remove
scenarios at run time; re-read the files now."""

from __future__ import annotations

import logging
import re
from typing import Any

import yaml
from aiohttp import web

from zenmux_emulator.core.body import read_body
from zenmux_emulator.core.keys import ENTRY, REGISTRY, STATE
from zenmux_emulator.core.match.rule import CompiledRule
from zenmux_emulator.core.rules.compiled import ScenarioSet
from zenmux_emulator.core.rules.registry import (
    API_PREFIX,
    LoadFailed,
    ScenarioRegistry,
    SourceExists,
    UnknownSource,
)
from zenmux_emulator.core.state import AdminState
from zenmux_emulator.foundation.errors import (
    RequestRejected,
    ScenarioError,
    invalid_params,
)
from zenmux_emulator.server.control.wire import (
    json_object,
    json_response,
    not_found,
    problems_response,
    query,
)
from zenmux_emulator.state.sessions import Session

log = logging.getLogger("emulator.scenarios")

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
RESERVED = frozenset({"reload"})
"""Names a scenario may not take: they are the control API's own paths under `/scenarios/`."""
SCENARIO_TYPES = frozenset({"application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml", "application/json"})


def match_summary(rule: CompiledRule) -> dict[str, str]:
    """Each condition of the rule in words, by key (the same words as near misses use)."""
    summary: dict[str, str] = {}
    for predicate in rule.predicates:
        if predicate.key == "api" and rule.rule.match.api is None:
            continue  # the implicit "every face but objectiveai" of a rule without `api`
        seen = summary.get(predicate.key)
        summary[predicate.key] = predicate.expected if seen is None else f"{seen} and {predicate.expected}"
    return summary


def describe(rule: CompiledRule, totals: dict[str, int], session: Session | None) -> dict[str, Any]:
    hits: dict[str, int] = {"total": totals.get(rule.name, 0)}
    if session is not None:
        hits["session"] = session.hits.get(rule.name, 0)
    return {
        "name": rule.name,
        "source": rule.source,
        "line": rule.line,
        "where": rule.where,
        "priority": rule.rule.priority,
        "match": match_summary(rule),
        "replies": len(rule.replies),
        "then": rule.rule.then,
        "hits": hits,
    }


def sources(registry: ScenarioRegistry, scenarios: ScenarioSet) -> list[dict[str, Any]]:
    counts: dict[str, int] = {}
    for rule in scenarios.rules:
        counts[rule.source] = counts.get(rule.source, 0) + 1
    files = [
        {"kind": "file", "name": name, "source": name, "rules": counts.get(name, 0)} for name in registry.file_names
    ]
    api = [
        {"kind": "api", "name": name, "source": API_PREFIX + name, "rules": counts.get(API_PREFIX + name, 0)}
        for name in registry.api_names
    ]
    return files + api


async def list_scenarios(request: web.Request) -> web.Response:
    registry = request.config_dict[REGISTRY]
    state: AdminState = request.config_dict[STATE]
    params = query(request, {"session"})
    await state.read_scenarios()
    session = None
    if "session" in params:
        session = await state.session(params["session"])
        if session is None:
            raise not_found("unknown_session", f"Session {params['session']!r} is not known: no request has used it")
    scenarios = registry.current.scenarios
    totals = await state.total_hits()
    return json_response(
        {
            "generation": registry.generation,
            "sources": sources(registry, scenarios),
            "rules": [describe(rule, totals, session) for rule in scenarios.rules],
        }
    )


def _name(value: str | None) -> str:
    if value is None:
        raise invalid_params("Parameter name is required: POST /_emulator/scenarios?name=my-rules")
    if not NAME.fullmatch(value):
        raise invalid_params(
            f"Parameter name is not valid: use 1 to 64 letters, digits, '.', '_' or '-' "
            f"starting with a letter or digit, got {value!r}"
        )
    if value in RESERVED:
        raise invalid_params(
            f"Parameter name {value!r} is reserved: POST /_emulator/scenarios/{value} is the "
            "control API's own; choose another name"
        )
    return value


async def _scenario_text(request: web.Request) -> str:
    if request.content_type not in SCENARIO_TYPES:
        raise RequestRejected(
            415,
            "invalid_params",
            f"Content-Type must be application/yaml, text/yaml or application/json, got {request.content_type}",
        )
    raw = await read_body(request, request.client_max_size)
    if not raw.strip():
        raise invalid_params("Request body is empty: expected a scenario in YAML or JSON")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise invalid_params(f"Request body is not UTF-8: {exc}") from None
    if is_null_document(text):
        raise invalid_params(
            "Request body is an empty scenario (null, or a mapping with nothing in it): expected "
            "a scenario (a mapping of settings, models and rules)"
        )
    return text


def is_null_document(text: str) -> bool:
    """Whether YAML reads the text as nothing (`null`, `~`, `{}`, only comments or `---`): a file
    may be empty, a scenario sent to be loaded may not. Read from its first events only, so a
    scenario of any size costs nothing here (its loader reads it whole, off the event loop)."""
    events = yaml.parse(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    try:
        for event in events:
            if isinstance(event, (yaml.StreamStartEvent, yaml.DocumentStartEvent)):
                continue
            if isinstance(event, yaml.MappingStartEvent):
                return isinstance(next(events), yaml.MappingEndEvent)
            if isinstance(event, yaml.ScalarEvent):
                return event.tag == NULL_TAG or (
                    event.tag is None and bool(event.implicit[0]) and event.value in NULL_WORDS
                )
            return isinstance(event, (yaml.StreamEndEvent, yaml.DocumentEndEvent))
    except yaml.YAMLError:
        return False  # the loader locates what is wrong
    return True


NULL_TAG = "tag:yaml.org,2002:null"
NULL_WORDS = frozenset({"", "~", "null", "Null", "NULL"})


def _failed(request: web.Request, what: str) -> RequestRejected:
    """The 500 of a scenario change that failed unexpectedly (call it while handling the exception):
    the traceback logged under the request's id, the answer without internals, as the envelope
    middleware answers any other unexpected failure."""
    request_id = request[ENTRY].request_id
    log.exception("%s: failed unexpectedly while answering request %s", what, request_id)
    return RequestRejected(
        500,
        "internal_server_error",
        f"{what}: the emulator failed unexpectedly; see its log "
        f"for request {request_id}. The scenarios in force are unchanged",
    )


def _loaded(name: str, scenarios: ScenarioSet, generation: int) -> dict[str, Any]:
    source = API_PREFIX + name
    rules = sorted((r for r in scenarios.rules if r.source == source), key=lambda r: r.order)
    return {"name": name, "source": source, "rules": [r.name for r in rules], "generation": generation}


async def _put(request: web.Request, name: str, *, replace: bool) -> web.Response:
    registry = request.config_dict[REGISTRY]
    text = await _scenario_text(request)
    state: AdminState = request.config_dict[STATE]
    await state.read_scenarios()
    try:
        scenarios = await registry.add(name, text, replace=replace)
    except SourceExists:
        raise RequestRejected(
            409,
            "scenario_exists",
            f"A scenario named {name!r} is loaded already; PUT /_emulator/scenarios/{name} replaces it",
        ) from None
    except UnknownSource:
        raise _unknown(name) from None
    except ScenarioError as exc:
        return problems_response(exc, f"Scenario {name!r} was not loaded")
    except Exception:  # noqa: BLE001  # a bug of ours: logged by _failed, answered 500, nothing changed
        raise _failed(request, f"Scenario {name!r} was not loaded") from None
    await state.publish_scenarios()
    return json_response(_loaded(name, scenarios, registry.generation), status=200 if replace else 201)


def _unknown(name: str) -> RequestRejected:
    return not_found(
        "unknown_scenario",
        f"No scenario named {name!r} was loaded through the control API; "
        f"POST /_emulator/scenarios?name={name} loads one (files are changed on disk)",
    )


async def add_scenario(request: web.Request) -> web.Response:
    name = _name(query(request, {"name"}).get("name"))
    return await _put(request, name, replace=False)


async def replace_scenario(request: web.Request) -> web.Response:
    query(request, ())
    return await _put(request, _name(request.match_info["name"]), replace=True)


async def remove_scenario(request: web.Request) -> web.Response:
    query(request, ())
    name = request.match_info["name"]
    registry = request.config_dict[REGISTRY]
    state: AdminState = request.config_dict[STATE]
    await state.read_scenarios()
    try:
        scenarios = await registry.remove(name)
    except UnknownSource:
        raise _unknown(name) from None
    except ScenarioError as exc:
        return problems_response(exc, f"Scenario {name!r} could not be removed")
    except Exception:  # noqa: BLE001  # a bug of ours: logged by _failed, answered 500, nothing changed
        raise _failed(request, f"Scenario {name!r} was not removed") from None
    await state.publish_scenarios()
    return json_response({"removed": name, "generation": registry.generation, "rules": len(scenarios.rules)})


async def reload_scenarios(request: web.Request) -> web.Response:
    """No body (or `{}`): it re-reads the files `--scenarios` names, and takes nothing else."""
    query(request, ())
    body = await json_object(request, required=False)
    if body:
        raise invalid_params(
            f"Parameter {next(iter(body))} is not supported here: POST /_emulator/scenarios/reload takes no "
            "body (it re-reads the scenario files; POST or PUT /_emulator/scenarios loads a scenario sent to it)"
        )
    registry = request.config_dict[REGISTRY]
    state: AdminState = request.config_dict[STATE]
    await state.read_scenarios()
    if not await registry.reload():
        error = registry.last_error or ScenarioError([])
        if isinstance(error, LoadFailed):  # logged with its traceback by the registry
            raise RequestRejected(
                500,
                "internal_server_error",
                "The scenario files were not reloaded: the emulator "
                "failed unexpectedly; see its log. The last good scenarios stay in force",
            )
        return problems_response(error, "The scenario files have problems; the last good scenarios stay in force")
    await state.publish_scenarios()  # every worker and instance reads its files again
    return json_response(
        {
            "reloaded": True,
            "generation": registry.generation,
            "files": registry.file_names,
            "rules": len(registry.current.scenarios.rules),
        }
    )
