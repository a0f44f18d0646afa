"""The OpenAPI 3.1 description of the control API, kept by hand beside the routes it describes
(a test checks that every route is described and every description is a route)."""

from __future__ import annotations

from typing import Any

import orjson
from aiohttp import web

from zenmux_emulator.foundation.misbehaviours import CATALOGUE
from zenmux_emulator.server.control.clock import LATEST
from zenmux_emulator.server.control.scenarios import NAME, RESERVED, SCENARIO_TYPES
from zenmux_emulator.server.control.wire import MAX_COUNT

JSON = "application/json"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": description, "content": {JSON: {"schema": schema}}}


def _error(description: str) -> dict[str, Any]:
    return _json(description, _ref("Error"))


def _query(name: str, description: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "name": name,
        "in": "query",
        "required": False,
        "description": description,
        "schema": schema or {"type": "string"},
    }


YAML_TEXT: dict[str, Any] = {
    "type": "string",
    "pattern": "\\S",
    "description": "not empty; a document YAML reads as nothing (null, ~, {}) is refused",
}
SCENARIO_BODY: dict[str, Any] = {
    "required": True,
    "description": "A scenario in YAML (or JSON, which YAML reads too), validated exactly as a file is. An empty "
    "body, or one YAML reads as nothing (null, ~, {}), is refused with 400 invalid_params.",
    "content": {
        **{kind: {"schema": YAML_TEXT} for kind in sorted(SCENARIO_TYPES - {JSON})},
        JSON: {
            "schema": {"type": "object", "minProperties": 1},
            "example": {"rules": [{"name": "hi", "reply": {"content": "hello"}}]},
        },
    },
}
SCENARIO_BODY["content"]["application/yaml"]["example"] = "rules:\n  - name: hi\n    reply: {content: hello}\n"

NAME_SCHEMA: dict[str, Any] = {"type": "string", "pattern": f"^{NAME.pattern}$", "not": {"enum": sorted(RESERVED)}}
"""A name a scenario may be loaded under (the control API's own paths, such as `reload`, are not)."""

NAME_PARAMETER: dict[str, Any] = {
    "name": "name",
    "in": "path",
    "required": True,
    "description": "The name the scenario was loaded under.",
    "schema": NAME_SCHEMA,
}

COUNT: dict[str, Any] = {"type": "integer", "minimum": 0, "maximum": MAX_COUNT}

BAD_REQUEST = _error("a bad parameter or body (ZenMux's error envelope)")
BAD_QUERY = _error("a query parameter this route does not take")
TOO_LARGE = _error("the body is larger than the server's body limit (--max-body-bytes)")
FORBIDDEN = _error(
    "not a loopback client, or the admin token is missing or wrong; or an Origin that is not the emulator's "
    "own, or (without an admin token) a Host that is not a loopback name, --host or an --allowed-host"
)
NOT_JSON = _error("a body, or a Content-Type, that is not application/json (as a form of another site sends)")
JSON_ROUTES = ("/clock", "/match", "/sessions/reset", "/misbehave", "/scenarios/reload")
"""The POST routes that read a JSON body (or, reload, none): each answers 415 for another Content-Type."""
INVALID_SCENARIO = _json(
    "invalid_scenario: the scenario does not load (every problem located); or invalid_params: "
    "a bad name, or a body that is empty, null, not UTF-8 or nested too deeply",
    {"anyOf": [_ref("InvalidScenario"), _ref("Error")]},
)

JOURNAL_FIELDS = [
    "seq",
    "request_id",
    "time",
    "method",
    "path",
    "api",
    "headers",
    "session",
    "body",
    "rule",
    "reply_index",
    "scenario",
    "state_before",
    "state_after",
    "near_misses",
    "unscripted",
    "warnings",
    "unmet_expectations",
    "status",
    "error_type",
    "response_headers",
    "arrived",
    "stream",
    "response",
    "events_sent",
    "client_gone",
    "fault",
    "misbehaved",
    "dropped",
    "routing",
    "duration_ms",
    "first_byte_ms",
    "event_offsets_ms",
    "worker",
    "bytes",
    "recorded",
]
"""Every field of a journal entry, as `JournalEntry.as_dict` writes it (a test holds them to real entries)."""

OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {
        "title": "ZenMux Emulator control API",
        "version": "1",
        "description": "Inspect and steer a running emulator. Loopback clients are allowed; when the server "
        "has --admin-token, every client must send it in X-Emulator-Admin-Token. A request whose Origin is not "
        "the emulator's own is refused, and without --admin-token one whose Host is not a loopback name or "
        "address, --host or an --allowed-host; a JSON body must be sent as application/json and give each key "
        "once. Errors use "
        'ZenMux\'s envelope {"error": {"code", "type", "message"}}.',
    },
    "servers": [{"url": "/_emulator"}],
    "security": [{}, {"adminToken": []}],
    "paths": {
        "/": {
            "get": {
                "operationId": "index",
                "summary": "What this emulator serves: its faces, their base URLs and routes, "
                "this API, and the ZenMux APIs it does not emulate (also at GET /)",
                "responses": {
                    "200": {
                        "description": "the index: JSON, or an HTML page for a client that accepts "
                        "text/html (a browser)",
                        "content": {JSON: {"schema": _ref("Index")}, "text/html": {"schema": {"type": "string"}}},
                    },
                    "403": FORBIDDEN,
                },
            }
        },
        "/health": {
            "get": {
                "operationId": "health",
                "summary": "Rules loaded, sources, journal and the last reload error",
                "responses": {
                    "200": _json("the emulator is serving", _ref("Health")),
                    "400": BAD_QUERY,
                    "403": FORBIDDEN,
                },
            }
        },
        "/scenarios": {
            "get": {
                "operationId": "listScenarios",
                "summary": "Sources and rules in force, with hit counts",
                "parameters": [_query("session", "also count the hits of this session")],
                "responses": {
                    "200": _json("the scenarios", _ref("Scenarios")),
                    "400": BAD_REQUEST,
                    "403": FORBIDDEN,
                    "404": _error("unknown_session: no request used that session"),
                },
            },
            "post": {
                "operationId": "addScenario",
                "summary": "Load a scenario after the files and earlier ones",
                "parameters": [
                    {
                        **_query("name", "the name to load it under (named api:<name> in rules)", NAME_SCHEMA),
                        "required": True,
                    }
                ],
                "requestBody": SCENARIO_BODY,
                "responses": {
                    "201": _json("loaded", _ref("Loaded")),
                    "400": INVALID_SCENARIO,
                    "403": FORBIDDEN,
                    "409": _error("scenario_exists: use PUT to replace it"),
                    "413": TOO_LARGE,
                    "415": _error("not a YAML or JSON Content-Type"),
                },
            },
        },
        "/scenarios/reload": {
            "post": {
                "operationId": "reloadScenarios",
                "summary": "Read the scenario files again now (API scenarios stay)",
                "responses": {
                    "200": _json(
                        "the files loaded",
                        {
                            "type": "object",
                            "properties": {
                                "reloaded": {"const": True},
                                "generation": {"type": "integer"},
                                "files": {"type": "array", "items": {"type": "string"}},
                                "rules": {"type": "integer"},
                            },
                        },
                    ),
                    "400": _json(
                        "invalid_scenario: the files do not load (the last good set stays); or invalid_params: "
                        "a body other than nothing or {} (the route takes none)",
                        {"anyOf": [_ref("InvalidScenario"), _ref("Error")]},
                    ),
                    "403": FORBIDDEN,
                },
            }
        },
        "/scenarios/{name}": {
            "parameters": [NAME_PARAMETER],
            "put": {
                "operationId": "replaceScenario",
                "summary": "Replace a scenario loaded through the API",
                "requestBody": SCENARIO_BODY,
                "responses": {
                    "200": _json("replaced, in the same place in the order", _ref("Loaded")),
                    "400": INVALID_SCENARIO,
                    "403": FORBIDDEN,
                    "404": _error("unknown_scenario"),
                    "413": TOO_LARGE,
                    "415": _error("not a YAML or JSON Content-Type"),
                },
            },
            "delete": {
                "operationId": "removeScenario",
                "summary": "Unload a scenario loaded through the API",
                "responses": {
                    "200": _json(
                        "removed",
                        {
                            "type": "object",
                            "properties": {
                                "removed": {"type": "string"},
                                "generation": {"type": "integer"},
                                "rules": {"type": "integer"},
                            },
                        },
                    ),
                    "400": BAD_QUERY,
                    "403": FORBIDDEN,
                    "404": _error("unknown_scenario"),
                },
            },
        },
        "/journal": {
            "get": {
                "operationId": "listJournal",
                "summary": "Requests received, oldest first",
                "parameters": [
                    _query("session", "only this session's requests"),
                    _query("rule", "only requests this rule answered"),
                    _query("path", "only requests to this path, e.g. /api/v1/chat/completions"),
                    _query(
                        "unmatched",
                        "true: only chat requests no rule answered",
                        {"type": "string", "enum": ["true", "false", "1", "0"]},
                    ),
                    _query("limit", "only the newest N (a page)", COUNT),
                    _query(
                        "before",
                        "only entries whose seq is below this: the cursor of the page before, "
                        "given as `older` by the last answer",
                        COUNT,
                    ),
                    _query("after", "only entries whose seq is above this (new ones since a seq)", COUNT),
                ],
                "responses": {
                    "200": _json(
                        "a page of entries, oldest first",
                        {
                            "type": "object",
                            "required": ["count", "total", "older", "entries"],
                            "properties": {
                                "count": {"type": "integer", "description": "entries on this page"},
                                "total": {"type": "integer", "description": "entries the filters match, pages aside"},
                                "older": {
                                    "type": ["integer", "null"],
                                    "description": "pass as `before` for the page "
                                    "before this one; null when no older entry matches",
                                },
                                "entries": {"type": "array", "items": _ref("JournalEntry")},
                            },
                        },
                    ),
                    "400": BAD_REQUEST,
                    "403": FORBIDDEN,
                },
            },
            "delete": {
                "operationId": "clearJournal",
                "summary": "Forget the journal, or one session's entries",
                "parameters": [_query("session", "only this session's entries")],
                "responses": {
                    "200": _json(
                        "how many entries were forgotten",
                        {"type": "object", "properties": {"cleared": {"type": "integer"}}},
                    ),
                    "400": BAD_REQUEST,
                    "403": FORBIDDEN,
                },
            },
        },
        "/journal/unmatched": {
            "get": {
                "operationId": "listUnmatched",
                "summary": "Chat requests no rule answered (default reply or strict 404), with their near misses",
                "parameters": [
                    _query("session", "only this session's requests"),
                    _query("limit", "only the newest N", COUNT),
                ],
                "responses": {
                    "200": _json(
                        "the unmatched requests",
                        {
                            "type": "object",
                            "properties": {
                                "count": {"type": "integer"},
                                "entries": {"type": "array", "items": _ref("Unmatched")},
                            },
                        },
                    ),
                    "400": BAD_REQUEST,
                    "403": FORBIDDEN,
                },
            }
        },
        "/journal/verdict": {
            "get": {
                "operationId": "journalVerdict",
                "summary": "What one session's client did wrong: signed reasoning not passed back intact, tool calls "
                "never answered, a retry before Retry-After ran out, a non-retryable error sent again, unmet "
                "expectations (the pytest handle's verdict())",
                "parameters": [
                    {
                        "name": "session",
                        "in": "query",
                        "required": True,
                        "description": "the session whose requests are judged",
                        "schema": {"type": "string", "minLength": 1},
                    }
                ],
                "responses": {
                    "200": _json(
                        "the findings, in the order of the requests they show in",
                        {
                            "type": "object",
                            "required": ["session", "findings"],
                            "properties": {
                                "session": {"type": "string"},
                                "findings": {
                                    "type": "array",
                                    "items": {
                                        "type": "object",
                                        "required": ["check", "seq", "message"],
                                        "properties": {
                                            "check": {"type": "string"},
                                            "seq": {"type": "integer"},
                                            "message": {"type": "string"},
                                        },
                                    },
                                },
                            },
                        },
                    ),
                    "400": BAD_REQUEST,
                    "403": FORBIDDEN,
                },
            }
        },
        "/match": {
            "post": {
                "operationId": "wouldMatch",
                "summary": "Would this request match? A body run through its face and the rules, not answered",
                "description": "Nothing is counted, journaled or used up. An unmatched body gets the same nearest "
                "rules, field by field, as the journal's near misses for that request.",
                "requestBody": {
                    "required": True,
                    "content": {
                        JSON: {
                            "schema": {
                                "type": "object",
                                "required": ["path", "body"],
                                "additionalProperties": False,
                                "properties": {
                                    "path": {
                                        "type": "string",
                                        "pattern": "^/(?!/)",
                                        "description": "the face's path, query included",
                                        "examples": ["/api/v1/chat/completions"],
                                    },
                                    "body": {"description": "the request's JSON body, as a client would send it"},
                                    "headers": {
                                        "type": ["object", "null"],
                                        "additionalProperties": {"type": "string"},
                                        "description": "request headers the rules may match (null: none)",
                                    },
                                    "session": {
                                        "type": ["string", "null"],
                                        "description": "whose sequence positions count (default: the "
                                        "X-Emulator-Session header, else `inspector`)",
                                    },
                                },
                            }
                        }
                    },
                },
                "responses": {
                    "200": _json("the verdict", _ref("MatchVerdict")),
                    "400": BAD_REQUEST,
                    "403": FORBIDDEN,
                    "413": TOO_LARGE,
                },
            }
        },
        "/sessions/reset": {
            "post": {
                "operationId": "resetSessions",
                "summary": "Restart the request count, reply sequences and scenario states of one session, or of all",
                "requestBody": {
                    "required": False,
                    "content": {
                        JSON: {
                            "schema": {
                                "type": "object",
                                "additionalProperties": False,
                                "properties": {
                                    "session": {"type": ["string", "null"], "description": "absent or null: all"}
                                },
                            }
                        }
                    },
                },
                "responses": {
                    "200": _json(
                        "how many sessions were reset",
                        {
                            "type": "object",
                            "properties": {"session": {"type": ["string", "null"]}, "reset": {"type": "integer"}},
                        },
                    ),
                    "400": BAD_REQUEST,
                    "403": FORBIDDEN,
                    "404": _error("unknown_session"),
                    "413": TOO_LARGE,
                },
            }
        },
        "/states": {
            "get": {
                "operationId": "listStates",
                "summary": "Where each scenario (scenario, when_state, set_state) stands, per session",
                "parameters": [_query("session", "only this session's states (and the server-wide ones)")],
                "responses": {
                    "200": _json(
                        "every scenario the rules name; a session not listed stands at started", _ref("States")
                    ),
                    "400": BAD_QUERY,
                    "403": FORBIDDEN,
                },
            }
        },
        "/states/{scenario}": {
            "parameters": [
                {
                    "name": "scenario",
                    "in": "path",
                    "required": True,
                    "description": "A scenario a rule names (`scenario:`).",
                    "schema": {"type": "string", "minLength": 1, "maxLength": 128},
                }
            ],
            "put": {
                "operationId": "setState",
                "summary": "Jump a session (any, for a server-wide scenario) into a state of the scenario",
                "requestBody": {
                    "required": True,
                    "content": {
                        JSON: {
                            "schema": {
                                "type": "object",
                                "additionalProperties": False,
                                "required": ["state"],
                                "properties": {
                                    "state": {"type": "string", "minLength": 1, "maxLength": 128},
                                    "session": {
                                        "type": ["string", "null"],
                                        "minLength": 1,
                                        "maxLength": 128,
                                        "description": "required unless the scenario is server-wide",
                                    },
                                },
                            }
                        }
                    },
                },
                "responses": {
                    "200": _json(
                        "the state set (no timed move pending)",
                        {
                            "type": "object",
                            "properties": {
                                "scenario": {"type": "string"},
                                "session": {"type": "string", "description": "* for a server-wide scenario"},
                                "state": {"type": "string"},
                            },
                        },
                    ),
                    "400": BAD_REQUEST,
                    "403": FORBIDDEN,
                    "404": _error("unknown_scenario"),
                    "413": TOO_LARGE,
                },
            },
            "delete": {
                "operationId": "resetState",
                "summary": "Put the scenario back to started: for every session, or one",
                "parameters": [_query("session", "only this session")],
                "responses": {
                    "200": _json(
                        "how many states were put back",
                        {
                            "type": "object",
                            "properties": {
                                "scenario": {"type": "string"},
                                "session": {"type": ["string", "null"]},
                                "reset": {"type": "integer"},
                            },
                        },
                    ),
                    "400": BAD_QUERY,
                    "403": FORBIDDEN,
                    "404": _error("unknown_scenario"),
                },
            },
        },
        "/misbehave": {
            "get": {
                "operationId": "listMisbehave",
                "summary": "The misbehaviour catalogue, the precedence of asks, the server's and the sessions' faults",
                "responses": {
                    "200": _json("the catalogue and the standing asks", _ref("Misbehave")),
                    "400": BAD_REQUEST,
                    "403": FORBIDDEN,
                },
            },
            "post": {
                "operationId": "setMisbehave",
                "summary": "Give every request of a session a fault of the catalogue (fault null: stop)",
                "requestBody": {
                    "required": True,
                    "content": {
                        JSON: {
                            "schema": {
                                "type": "object",
                                "required": ["session", "fault"],
                                "additionalProperties": False,
                                "properties": {
                                    "session": {
                                        "type": "string",
                                        "minLength": 1,
                                        "description": "the X-Emulator-Session name",
                                    },
                                    "fault": {"enum": [*CATALOGUE, None], "description": "a fault's name; null stops"},
                                    "variant": {
                                        "type": ["string", "null"],
                                        "description": "default: drawn per request",
                                    },
                                    "rate": {
                                        "type": "number",
                                        "minimum": 0,
                                        "maximum": 1,
                                        "default": 1,
                                        "description": "the seeded share of the session's requests that get it",
                                    },
                                },
                            },
                            "examples": {
                                "refuse": {"value": {"session": "agent-1", "fault": "refusal"}},
                                "stop": {"value": {"session": "agent-1", "fault": None}},
                            },
                        }
                    },
                },
                "responses": {
                    "200": _json("the catalogue and the standing asks after the change", _ref("Misbehave")),
                    "400": BAD_REQUEST,
                    "403": FORBIDDEN,
                    "413": TOO_LARGE,
                },
            },
        },
        "/clock": {
            "get": {
                "operationId": "getClock",
                "summary": "The time `created` and the journal use",
                "responses": {"200": _json("the clock", _ref("Clock")), "400": BAD_QUERY, "403": FORBIDDEN},
            },
            "post": {
                "operationId": "setClock",
                "summary": "Freeze, advance or release the clock",
                "requestBody": {
                    "required": True,
                    "content": {
                        JSON: {
                            "schema": {
                                "type": "object",
                                "minProperties": 1,
                                "maxProperties": 1,
                                "additionalProperties": False,
                                "properties": {
                                    "freeze_at": {
                                        "type": ["number", "string"],
                                        "minimum": 0,
                                        "maximum": LATEST,
                                        "description": "unix seconds or an ISO 8601 time (UTC when no offset), "
                                        "from 1970 to 9999-12-31T23:59:59Z",
                                    },
                                    "advance": {
                                        "type": "number",
                                        "minimum": 0,
                                        "maximum": LATEST,
                                        "description": "seconds; a running clock freezes at now + advance, which must "
                                        "stay before 9999-12-31T23:59:59Z",
                                    },
                                    "unfreeze": {"const": True},
                                },
                            },
                            "examples": {
                                "freeze": {"value": {"freeze_at": "2026-01-01T00:00:00Z"}},
                                "advance": {"value": {"advance": 60}},
                                "unfreeze": {"value": {"unfreeze": True}},
                            },
                        }
                    },
                },
                "responses": {
                    "200": _json("the clock after the change", _ref("Clock")),
                    "400": BAD_REQUEST,
                    "403": FORBIDDEN,
                    "413": TOO_LARGE,
                },
            },
        },
        "/openapi.json": {
            "get": {
                "operationId": "openapi",
                "summary": "This description",
                "responses": {"200": _json("OpenAPI 3.1", {"type": "object"}), "403": FORBIDDEN},
            }
        },
    },
    "components": {
        "securitySchemes": {"adminToken": {"type": "apiKey", "in": "header", "name": "X-Emulator-Admin-Token"}},
        "schemas": {
            "Error": {
                "type": "object",
                "required": ["error"],
                "properties": {
                    "error": {
                        "type": "object",
                        "required": ["code", "type", "message"],
                        "properties": {
                            "code": {"type": "string", "examples": ["400"]},
                            "type": {"type": "string"},
                            "message": {"type": "string"},
                        },
                    }
                },
            },
            "Problem": {
                "type": "object",
                "required": ["file", "line", "column", "path", "reason"],
                "properties": {
                    "file": {"type": "string", "description": "a file name, or api:<name>"},
                    "line": {"type": ["integer", "null"]},
                    "column": {"type": ["integer", "null"]},
                    "path": {"type": "string", "examples": ["rules[0].reply.finish_reason"]},
                    "reason": {"type": "string"},
                },
            },
            "InvalidScenario": {
                "type": "object",
                "required": ["error"],
                "properties": {
                    "error": {
                        "type": "object",
                        "required": ["code", "type", "message", "problems"],
                        "properties": {
                            "code": {"const": "400"},
                            "type": {"const": "invalid_scenario"},
                            "message": {"type": "string"},
                            "problems": {"type": "array", "items": _ref("Problem")},
                        },
                    }
                },
            },
            "Index": {
                "type": "object",
                "required": ["emulator", "faces", "control_api", "not_emulated"],
                "properties": {
                    "emulator": {"type": "string"},
                    "faces": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["name", "title", "base_url", "routes"],
                            "properties": {
                                "name": {"type": "string"},
                                "title": {"type": "string"},
                                "base_url": {"type": "string"},
                                "routes": {"type": "array", "items": {"type": "string"}},
                            },
                        },
                    },
                    "control_api": {"type": "object", "required": ["base_url", "openapi", "routes"]},
                    "not_emulated": {"type": "array", "items": {"type": "string"}},
                },
            },
            "Health": {
                "type": "object",
                "properties": {
                    "status": {"const": "ok"},
                    "rules": {"type": "integer"},
                    "files": {"type": "array", "items": {"type": "string"}},
                    "api_scenarios": {"type": "array", "items": {"type": "string"}},
                    "generation": {"type": "integer"},
                    "last_reload_error": {"type": ["string", "null"]},
                    "pid": {"type": "integer", "description": "the process that answered (one of --workers)"},
                    "state": {
                        "enum": ["in process", "shared"],
                        "description": "where sessions, limits, balances "
                        "and the journal live: this process, or the --state store",
                    },
                    "versions": {
                        "type": "object",
                        "additionalProperties": {"type": "integer"},
                        "description": "the versions of what this process holds of the state (scenarios: "
                        "the control API's set in force): every worker and instance has caught up when "
                        "each reports the same",
                    },
                    "watcher": {
                        "type": "object",
                        "required": ["state"],
                        "description": "the scenario file watcher: "
                        "`off` without watching, `running` over its folders, or `error` with the reason "
                        "(a folder gone, the watcher failed), from which it recovers by itself",
                        "properties": {
                            "state": {"enum": ["off", "running", "error"]},
                            "folders": {"type": "array", "items": {"type": "string"}},
                            "reason": {"type": "string"},
                        },
                    },
                    "journal": {
                        "type": "object",
                        "properties": {
                            "entries": {"type": "integer"},
                            "bytes": {"type": "integer", "description": "bodies and responses the entries keep"},
                            "max_bytes": {"type": "integer", "description": "--journal-bytes"},
                            "file": {"type": ["string", "null"]},
                        },
                    },
                    "collector": {
                        "type": "object",
                        "description": "Python's garbage collector: paused during "
                        "start-up, on while serving; start-up's objects are frozen out of its scans",
                        "properties": {"enabled": {"type": "boolean"}, "frozen_objects": {"type": "integer"}},
                    },
                },
            },
            "Scenarios": {
                "type": "object",
                "properties": {
                    "generation": {"type": "integer"},
                    "sources": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "kind": {"enum": ["file", "api"]},
                                "name": {"type": "string"},
                                "source": {"type": "string"},
                                "rules": {"type": "integer"},
                            },
                        },
                    },
                    "rules": {"type": "array", "description": "in the order they are tried", "items": _ref("Rule")},
                },
            },
            "Rule": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "source": {"type": "string"},
                    "line": {"type": ["integer", "null"]},
                    "where": {"type": "string", "examples": ["scenarios/basics.yaml:3", "api:my-rules:2"]},
                    "priority": {"type": "integer"},
                    "match": {
                        "type": "object",
                        "additionalProperties": {"type": "string"},
                        "description": "each condition in words, by key",
                    },
                    "replies": {"type": "integer"},
                    "then": {"enum": ["repeat_last", "cycle", "error", "fall_through"]},
                    "hits": {
                        "type": "object",
                        "properties": {
                            "total": {"type": "integer", "description": "summed over the sessions known"},
                            "session": {"type": "integer", "description": "with ?session="},
                        },
                    },
                },
            },
            "Loaded": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "source": {"type": "string"},
                    "rules": {"type": "array", "items": {"type": "string"}},
                    "generation": {"type": "integer"},
                },
            },
            "Misbehaved": {
                "type": "object",
                "required": ["fault", "variant", "source"],
                "properties": {
                    "fault": {"type": "string"},
                    "variant": {"type": "string", "description": "'' when it has none"},
                    "source": {"enum": ["header", "session", "rule", "server"]},
                },
            },
            "Misbehave": {
                "type": "object",
                "required": ["faults", "header", "precedence", "server", "sessions"],
                "properties": {
                    "faults": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["fault", "variants", "wrong"],
                            "properties": {
                                "fault": {"type": "string"},
                                "variants": {"type": "array", "items": {"type": "string"}},
                                "tool_call": {"type": "boolean"},
                                "wrong": {"type": "string"},
                            },
                        },
                    },
                    "header": {"type": "string"},
                    "precedence": {"type": "array", "items": {"type": "string"}},
                    "server": {"type": "array", "items": {"type": "string"}, "description": "--misbehave NAME:RATE"},
                    "sessions": {"type": "object", "additionalProperties": {"type": "object"}},
                },
            },
            "Clock": {
                "type": "object",
                "required": ["now", "frozen"],
                "properties": {"now": {"type": "number", "description": "unix seconds"}, "frozen": {"type": "boolean"}},
            },
            "States": {
                "type": "object",
                "required": ["now", "scenarios"],
                "properties": {
                    "now": {"type": "number", "description": "the emulator's clock, unix seconds"},
                    "scenarios": {
                        "type": "object",
                        "additionalProperties": {
                            "type": "object",
                            "required": ["server_wide", "sessions", "machine"],
                            "properties": {
                                "server_wide": {"type": "boolean"},
                                "machine": {
                                    "type": "object",
                                    "description": "the states and moves the rules draw",
                                    "required": ["states", "moves", "matching", "unreachable", "dead_ends"],
                                    "properties": {
                                        "states": {"type": "array", "items": {"type": "string"}},
                                        "moves": {
                                            "type": "array",
                                            "description": "from null: any state; after_s: a timed move's second leg",
                                            "items": {
                                                "type": "object",
                                                "properties": {
                                                    "from": {"type": ["string", "null"]},
                                                    "to": {"type": "string"},
                                                    "rule": {"type": "string"},
                                                    "after_s": {"type": ["number", "null"]},
                                                },
                                            },
                                        },
                                        "matching": {
                                            "type": "object",
                                            "description": "the rules matching in each state (*: any)",
                                            "additionalProperties": {"type": "array", "items": {"type": "string"}},
                                        },
                                        "unreachable": {
                                            "type": "array",
                                            "description": "when_states no move reaches from started",
                                            "items": {"type": "string"},
                                        },
                                        "dead_ends": {
                                            "type": "array",
                                            "description": "states reached that no rule leaves",
                                            "items": {"type": "string"},
                                        },
                                    },
                                },
                                "sessions": {
                                    "type": "object",
                                    "description": "by session (* for a server-wide scenario)",
                                    "additionalProperties": {
                                        "type": "object",
                                        "required": ["state", "pending"],
                                        "properties": {
                                            "state": {"type": "string"},
                                            "pending": {
                                                "type": ["object", "null"],
                                                "description": "a timed move (set_state's after_s) not yet due",
                                                "properties": {
                                                    "to": {"type": "string"},
                                                    "due": {"type": "number", "description": "unix seconds"},
                                                    "due_in_s": {"type": "number"},
                                                },
                                            },
                                        },
                                    },
                                },
                            },
                        },
                    },
                },
            },
            "JournalEntry": {
                "type": "object",
                "required": JOURNAL_FIELDS,
                "properties": {
                    "seq": {"type": "integer"},
                    "request_id": {"type": "string"},
                    "time": {"type": "number"},
                    "method": {"type": "string"},
                    "path": {"type": "string"},
                    "api": {"type": ["string", "null"], "description": "the face that answered: chat"},
                    "headers": {"type": "object", "description": "credentials masked"},
                    "session": {"type": ["string", "null"]},
                    "body": {},
                    "rule": {"type": ["string", "null"]},
                    "reply_index": {"type": ["integer", "null"]},
                    "scenario": {"type": ["string", "null"], "description": "the answering rule's scenario"},
                    "state_before": {"type": ["string", "null"], "description": "its state when the request matched"},
                    "state_after": {"type": ["string", "null"], "description": "its state once the rule answered"},
                    "near_misses": {"type": "array", "items": _ref("NearMiss")},
                    "unscripted": {
                        "type": "boolean",
                        "description": "answered by a face that answers without rules (embeddings, rerank) when "
                        "none of them could: not unmatched",
                    },
                    "warnings": {"type": "array", "items": {"type": "string"}},
                    "status": {"type": ["integer", "null"]},
                    "error_type": {"type": ["string", "null"]},
                    "stream": {"type": "boolean"},
                    "response": {
                        "description": "the JSON body (an error envelope too), or the SSE events sent as text"
                    },
                    "events_sent": {"type": ["integer", "null"]},
                    "client_gone": {"type": "boolean"},
                    "unmet_expectations": {"type": "array", "items": {"type": "string"}},
                    "response_headers": {"type": "object"},
                    "arrived": {"type": "number", "description": "wall-clock unix seconds"},
                    "fault": {"type": ["string", "null"], "description": "the transport or stream fault carried out"},
                    "misbehaved": {
                        "oneOf": [{"type": "null"}, _ref("Misbehaved")],
                        "description": "the fault of the misbehaviour catalogue the reply was made wrong with",
                    },
                    "dropped": {"type": "boolean", "description": "the connection was closed before any response"},
                    "routing": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "model": {"type": "string"},
                                "provider": {"type": "string"},
                                "outcome": {"type": "string"},
                                "latency_ms": {"type": "number"},
                            },
                        },
                    },
                    "duration_ms": {"type": ["number", "null"]},
                    "first_byte_ms": {"type": ["number", "null"], "description": "when the response's headers went"},
                    "event_offsets_ms": {
                        "type": "array",
                        "items": {"type": "number"},
                        "description": "each SSE event's offset from arrival, as written",
                    },
                    "worker": {"type": "integer", "description": "the process that answered (one of --workers)"},
                    "bytes": {
                        "type": "integer",
                        "description": "the body's and response's bytes this entry keeps in "
                        "the journal; past --journal-body-bytes each is a summary {summary, bytes, xxh3_128}",
                    },
                    "recorded": {"type": "boolean", "description": "forwarded to the upstream and recorded"},
                },
            },
            "MatchVerdict": {
                "type": "object",
                "required": ["face", "session", "accepted", "rejected", "rule", "reply_index", "where", "near_misses"],
                "properties": {
                    "face": {"type": "string"},
                    "session": {"type": "string"},
                    "accepted": {"type": "boolean", "description": "false: the face rejects the body (see rejected)"},
                    "rejected": {
                        "type": ["object", "null"],
                        "properties": {
                            "status": {"type": "integer"},
                            "type": {"type": "string"},
                            "message": {"type": "string"},
                        },
                    },
                    "rule": {"type": ["string", "null"], "description": "the rule that would answer; null: none"},
                    "reply_index": {"type": ["integer", "null"]},
                    "where": {"type": ["string", "null"], "description": "the rule's file and line"},
                    "near_misses": {
                        "type": "array",
                        "items": _ref("NearMiss"),
                        "description": "when no rule would answer: the three nearest",
                    },
                },
            },
            "NearMiss": {
                "type": "object",
                "properties": {
                    "rule": {"type": "string"},
                    "where": {"type": "string"},
                    "misses": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "key": {"type": "string"},
                                "expected": {"type": "string"},
                                "actual": {"type": "string"},
                            },
                        },
                    },
                },
            },
            "Unmatched": {
                "type": "object",
                "properties": {
                    "seq": {"type": "integer"},
                    "request_id": {"type": "string"},
                    "time": {"type": "number"},
                    "session": {"type": ["string", "null"]},
                    "model": {},
                    "stream": {"type": "boolean"},
                    "status": {"type": ["integer", "null"]},
                    "error_type": {"type": ["string", "null"]},
                    "near_misses": {"type": "array", "items": _ref("NearMiss")},
                    "body": {},
                },
            },
        },
    },
}

for _path in JSON_ROUTES:
    OPENAPI["paths"][_path]["post"]["responses"]["415"] = NOT_JSON
OPENAPI["paths"]["/states/{scenario}"]["put"]["responses"]["415"] = NOT_JSON  # a JSON body too

DOCUMENT = orjson.dumps(OPENAPI)


async def openapi(request: web.Request) -> web.Response:
    return web.Response(body=DOCUMENT, content_type="application/json")
