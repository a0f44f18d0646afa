"""What this server serves, and where a request went wrong.

- The index (`GET /`, `GET /_emulator/`, and the base URL the start-up line prints): the faces, their base URLs
  and routes, the control API, and the ZenMux APIs that are not emulated; HTML for a browser, JSON otherwise.
- The message of a 404 for a path no route serves: the nearest route that does serve it (a missing `/api`, a base
  URL written twice, `/api/anthropic/messages` without its `/v1`, a near spelling), or the ZenMux API the path
  belongs to when the emulator does not serve that API. The middleware sends it in the envelope of the face whose
  base path the request falls under (`FaceSpec.error_body`: ObjectiveAI's under `/objectiveai`), ZenMux's otherwise.

The routes are read from the app's router and the faces from its registration (`FaceSpec.signpost`), so a face
or a route added to one is listed and suggested without more.
"""

from __future__ import annotations

import datetime
import difflib
import html
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from zenmux_emulator.core.keys import CLOCK, REGISTRY
from zenmux_emulator.core.spec import REGISTERED, FaceSpec
from zenmux_emulator.scenario.default_models import PACKAGED

CONTROL = "/_emulator"


@dataclass(frozen=True, slots=True)
class Group:
    """One entry of the index: a face (or the generation lookup), its base URL's path and the route prefixes
    that are its own."""

    name: str
    title: str
    base: str
    prefixes: tuple[str, ...]


GENERATION = Group(
    "generation", "Generation lookup", "/api/v1", ("/api/v1/management/generation", "/api/v1/generation")
)
"""The app's own generation lookup (`core/generation.py`), listed before the Platform API."""

NOT_EMULATED = (("/api/v1/management/statistics/", "ZenMux's platform statistics API"),)
"""Paths of ZenMux APIs no face serves (yet), by prefix, checked after every served route; each face adds
the paths of its own API it does not serve (`Signpost.beyond`)."""


def group_of(face: FaceSpec) -> Group:
    """A face's entry in the index: its signpost, or its name and everything under its base path."""
    sign = face.signpost
    if sign is None:
        return Group(face.name, face.name, face.base_path, (face.base_path.rstrip("/") + "/",))
    return Group(face.name, sign.title, face.base_path, sign.prefixes or (face.base_path.rstrip("/") + "/",))


def groups(faces: Sequence[FaceSpec]) -> list[Group]:
    """The index's entries: the faces in registration order, the generation lookup before the Platform API."""
    made = [group_of(face) for face in faces if face.traits.scripted]
    return [*made, GENERATION, *(group_of(face) for face in faces if not face.traits.scripted)]


def unserved(faces: Sequence[FaceSpec]) -> tuple[tuple[str, str], ...]:
    """Every path prefix of a ZenMux API no route serves, with its name."""
    return (*NOT_EMULATED, *(pair for face in faces if face.signpost is not None for pair in face.signpost.beyond))


INDEX_PATHS = ("/", "/api/v1", "/api/v1/")
"""Where the main app answers the index: the root, and the base URL the start-up line prints."""


@dataclass(frozen=True, slots=True)
class Route:
    methods: tuple[str, ...]
    canonical: str
    pattern: re.Pattern[str] | None  # a route with a {variable}; None: the path itself

    def serves(self, path: str) -> bool:
        return path == self.canonical if self.pattern is None else self.pattern.fullmatch(path) is not None

    def __str__(self) -> str:
        return f"{' '.join(self.methods)} {self.canonical}"


def main_app(request: web.Request) -> web.Application:
    """The emulator's app, also from a handler of the control sub-app."""
    apps = request.match_info.apps
    return apps[0] if apps else request.app


def routes(app: web.Application) -> list[Route]:
    """Every route of the app and of its sub-apps (the control API), without HEAD and the index itself."""
    found: list[Route] = []
    for resource in app.router.resources():
        info = resource.get_info()
        if "app" in info:
            found += routes(info["app"])
            continue
        methods = tuple(dict.fromkeys(r.method for r in resource if r.method != "HEAD"))
        canonical = resource.canonical
        if canonical in INDEX_PATHS or canonical == f"{CONTROL}/":
            continue
        found.append(Route(methods, canonical, info.get("pattern")))
    return found


def _candidates(path: str) -> Iterator[str]:
    """Paths the client may have meant, most likely first."""
    trimmed = path.rstrip("/") or "/"
    once = re.sub(r"^((?:/[^/]+)+?)\1+(?=/|$)", r"\1", trimmed)  # a base URL written twice: /api/v1/api/v1/…
    once = re.sub(r"/(v1|api)(?:/\1)+(?=/|$)", r"/\1", once)  # /api/v1/v1/…, /api/api/…
    for each in dict.fromkeys((trimmed, once)):
        yield each
        yield "/api" + each  # /v1/chat/completions
        yield "/api/v1" + each  # /chat/completions
        yield "/api/anthropic" + each  # /v1/messages
        yield "/objectiveai" + each  # /query/completions
        yield each.replace("/api/anthropic/", "/api/anthropic/v1/", 1)  # /api/anthropic/messages
        yield each.replace("/api/", "/api/v1/", 1)  # /api/chat/completions
        yield re.sub(r"^/api/v1/(messages|models)", r"/api/anthropic/v1/\1", each)  # Anthropic's under ZenMux's base
        yield re.sub(r"^/api/vertex-ai/(?=models/)", "/api/vertex-ai/v1beta/", each)  # the Gemini API's, unversioned
        yield re.sub(r"^/api/vertex-ai/(?=publishers/)", "/api/vertex-ai/v1/", each)  # Vertex AI's, unversioned


def nearest(path: str, served: list[Route]) -> str | None:
    """The served path the client most likely meant, or None."""
    for candidate in _candidates(path):
        if candidate != path and any(route.serves(candidate) for route in served):
            return candidate
    plain = [route.canonical for route in served if route.pattern is None]
    close = difflib.get_close_matches(path.rstrip("/"), plain, n=1, cutoff=0.8)
    return close[0] if close else None


def not_emulated(path: str, faces: Sequence[FaceSpec] = ()) -> tuple[str, str] | None:
    """(the path as ZenMux serves it, the API's name) when the path is one of a ZenMux API not emulated."""
    prefixes = unserved(faces)
    for candidate in _candidates(path):
        for prefix, name in prefixes:
            if _under(candidate, prefix):
                return candidate, name
    return None


def _under(path: str, prefix: str) -> bool:
    """Whether `path` is under `prefix`, or matches it when it is a pattern (`^…`, Gemini's `:action`s)."""
    if prefix.startswith("^"):
        return re.search(prefix, path) is not None
    return path.startswith(prefix) or path == prefix.rstrip("/")


def not_found_message(request: web.Request) -> str:
    """The message of the 404 for a path no route serves."""
    app = main_app(request)
    served = routes(app)
    asked = f"{request.method} {request.path}"
    registered: tuple[FaceSpec, ...] = app[REGISTERED]
    outside = not_emulated(request.path, registered)
    if outside is not None and nearest(request.path, served) is None:
        where, name = outside
        titles = [group_of(face).title for face in registered]
        return (
            f"Not Found: {where} is {name}, which this emulator does not serve; it serves "
            f"{', '.join(titles[:-1])} and {titles[-1]} (GET / lists their routes)"
        )
    meant = nearest(request.path, served)
    if meant is not None:
        return f"Not Found: no route serves {asked}; did you mean {meant}?"
    return f"Not Found: no route serves {asked}; GET / lists the routes this emulator serves"


def index_document(request: web.Request) -> dict[str, Any]:
    """What the index says, with the base URLs as this request reached the server."""
    origin = f"{request.scheme}://{request.host}"
    app = main_app(request)
    served = routes(app)
    registered = app[REGISTERED]
    faces: list[dict[str, Any]] = []
    for group in groups(registered):
        own = [str(r) for r in served if r.canonical.startswith(group.prefixes)]
        faces.append({"name": group.name, "title": group.title, "base_url": origin + group.base, "routes": own})
    return {
        "emulator": "ZenMux Emulator",
        "inspector": f"{origin}{CONTROL}/ui/",
        "faces": faces,
        "control_api": {
            "base_url": origin + CONTROL,
            "openapi": f"{origin}{CONTROL}/openapi.json",
            "routes": [str(r) for r in served if r.canonical.startswith(CONTROL + "/")],
            "access": "loopback clients, or every client sending X-Emulator-Admin-Token under --admin-token",
        },
        "not_emulated": sorted({name for _, name in unserved(registered)}),
        "catalogue": catalogue_document(request),
    }


def catalogue_document(request: web.Request) -> dict[str, Any]:
    """The served catalogue: its source, snapshot day, file, size, age by the emulator's clock, and
    the hint to refresh it when it is older than 90 days."""
    catalogue = request.config_dict[REGISTRY].faces.catalogue or PACKAGED
    today = datetime.datetime.fromtimestamp(request.config_dict[CLOCK].now(), datetime.UTC).date()
    return dict(catalogue.facts(today))


def _items(items: list[str]) -> str:
    return "<ul>" + "".join(f"<li><code>{html.escape(item)}</code></li>" for item in items) + "</ul>"


def _html(faces: list[dict[str, Any]], control: dict[str, Any], not_served: list[str], inspector: str) -> str:
    parts = [
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>ZenMux Emulator</title>",
        "<style>body{font:15px/1.5 system-ui,sans-serif;max-width:56rem;margin:2rem auto;padding:0 1rem}"
        "code{background:#f3f3f3;padding:0 .2em}</style></head><body>",
        "<h1>ZenMux Emulator</h1><p>Point a client's base URL at one of these faces; every answer comes "
        "from the scenario files this server loaded.</p>",
        f'<p>See what happened: <a href="{html.escape(inspector)}">the inspector page</a> lists the requests '
        "as they arrive, what answered each and why nothing did.</p>",
    ]
    for face in faces:
        parts.append(
            f"<h2>{html.escape(face['title'])}</h2><p>Base URL: <code>{html.escape(face['base_url'])}</code>"
            f"</p>{_items(face['routes'])}"
        )
    openapi = html.escape(control["openapi"])
    parts.append(
        f"<h2>Control API</h2><p>Base URL: <code>{html.escape(control['base_url'])}</code> "
        f'({html.escape(control["access"])}); its OpenAPI description: <a href="{openapi}">{openapi}</a></p>'
        f"{_items(control['routes'])}"
    )
    parts.append(f"<h2>Not emulated</h2>{_items(not_served)}</body></html>")
    return "".join(parts)


async def index(request: web.Request) -> web.Response:
    """The index: HTML when the client asks for it (a browser), JSON otherwise."""
    document = index_document(request)
    if "text/html" in request.headers.get("Accept", ""):
        page = _html(document["faces"], document["control_api"], document["not_emulated"], document["inspector"])
        return web.Response(text=page, content_type="text/html")
    return web.json_response(document)


def index_routes() -> list[web.RouteDef]:
    return [web.get(path, index) for path in INDEX_PATHS]
