"""The request path's seams stay narrow (issue 43, item 1): a request is one value, its `Exchange`,
so no step of the endpoint is handed a long list of its parts, no face keeps a request's data on its
own long-lived object (what its `preload` fetched travels in the request's `FaceContext`), and only
the endpoint and the middleware write the journal entry (the recorder hands its facts back)."""

from __future__ import annotations

import ast
import inspect
from collections.abc import Iterator, MutableMapping, MutableSequence, MutableSet
from pathlib import Path
from typing import Any

from zenmux_emulator.core.deferred import real_handler
from zenmux_emulator.core.endpoint import Endpoint
from zenmux_emulator.record.recorder import Recorder
from zenmux_emulator.server.app import create_app
from zenmux_emulator.settings import Settings

PACKAGE = Path(__file__).parents[3] / "zenmux_emulator"
MOST = 4
"""The most parameters a step of the request path takes, `self` not counted."""


def endpoint_of(handler: Any) -> Endpoint[Any] | None:
    """The endpoint a route's handler is, or wraps (Vertex's takes `?key=` first); a face's
    handlers are loaded if they were not (`core/deferred.py`)."""
    handler = real_handler(handler)
    bound = getattr(handler, "__self__", None)
    if isinstance(bound, Endpoint):
        return bound
    for cell in getattr(handler, "__closure__", None) or ():
        found = endpoint_of(cell.cell_contents) if callable(cell.cell_contents) else None
        if found is not None:
            return found
    return None


def endpoints() -> Iterator[Endpoint[Any]]:
    """The POST endpoint of every shipped face, as an app registers them."""
    seen: set[int] = set()
    for route in create_app(Settings()).router.routes():
        endpoint = endpoint_of(route.handler) if route.method == "POST" else None
        if endpoint is not None and id(endpoint) not in seen:
            seen.add(id(endpoint))
            yield endpoint


def width(function: Any) -> int:
    """The parameters a function takes, `self` not counted (a bound method's is not listed)."""
    return len(inspect.signature(function).parameters)


def wide(owner: type) -> list[str]:
    """The methods `owner` defines or inherits from the package that take more than `MOST` parameters."""
    found = []
    for klass in owner.__mro__:
        if not klass.__module__.startswith("zenmux_emulator."):
            continue
        for name, function in vars(klass).items():
            if inspect.isfunction(function) and width(function) - 1 > MOST:
                found.append(f"{klass.__qualname__}.{name}: {width(function) - 1}")
    return found


def test_no_step_of_the_endpoint_takes_more_than_four_parameters() -> None:
    classes = {type(endpoint) for endpoint in endpoints()} | {Endpoint, Recorder}
    assert len(classes) >= 3  # Endpoint, the media faces' MediaEndpoint, the recorder's forward
    found = sorted({line for klass in classes for line in wide(klass)})
    assert not found, f"steps handed more than {MOST} parameters (hand them the request's Exchange): {found}"


def test_every_face_renders_from_the_draft_and_the_exchange() -> None:
    faces = {endpoint.face.name: endpoint.face for endpoint in endpoints()}
    assert {"chat", "anthropic", "responses", "vertex", "objectiveai", "embeddings", "rerank"} <= faces.keys()
    for name, face in faces.items():
        rendered = list(inspect.signature(face.render).parameters)
        assert rendered == ["draft", "exchange"], f"{name}: render{tuple(rendered)}"
        for method in (face.parse, getattr(face, "preload", None)):
            if method is not None:
                assert width(method) <= MOST, f"{name}: {method.__name__} takes {width(method)} parameters"


def test_no_face_keeps_a_container_of_requests_on_itself() -> None:
    kept = []
    for endpoint in endpoints():
        face = endpoint.face
        fields = vars(face) if hasattr(face, "__dict__") else {}
        for attribute, value in fields.items():
            if isinstance(value, MutableMapping | MutableSequence | MutableSet):
                kept.append(f"{endpoint.face.name}.{attribute}: {type(value).__name__}")
    assert not kept, f"faces holding per-request data on their long-lived object (use the FaceContext): {kept}"


def journal_writes(path: Path) -> list[str]:
    """Where a module sets a field of a journal entry, or warns on one (`entry.x = ...`, `request[ENTRY].x =
    ...`, `entry.warn(...)`)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "warn":
            targets = [node.func]
        for target in targets:
            for part in ast.walk(target):
                owner = part.value if isinstance(part, ast.Attribute) else None
                named = (
                    owner.id if isinstance(owner, ast.Name) else owner.attr if isinstance(owner, ast.Attribute) else ""
                )
                held = isinstance(owner, ast.Subscript) and ast.unparse(owner.slice) == "ENTRY"  # request[ENTRY].x
                if named == "entry" or held:
                    found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
    return found


def test_the_recorder_and_the_faces_hand_facts_back_and_write_no_journal_entry() -> None:
    modules = [*(PACKAGE / "record").rglob("*.py"), *(PACKAGE / "faces").rglob("*.py")]
    endpoints_own = {PACKAGE / "faces" / "media" / "endpoint.py"}  # an `Endpoint`, which writes it
    assert len(modules) > 50
    found = sorted({line for path in modules if path not in endpoints_own for line in journal_writes(path)})
    assert not found, f"journal entries written outside the endpoint and the middleware: {found}"
