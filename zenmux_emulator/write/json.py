"""Write a JSON reply (or a scripted raw body: its status, content type and bytes as they are),
or an error envelope."""

from __future__ import annotations

from collections.abc import Mapping

from aiohttp import web

from zenmux_emulator.write.plan import ReplyPlan


def json_response(plan: ReplyPlan) -> web.Response:
    """The planned body as one response; the bytes were encoded by the face. (The plan's headers
    are its own: the content type joins them in place.)"""
    headers = plan.headers
    headers["Content-Type"] = plan.content_type
    return web.Response(body=plan.body, status=plan.status, headers=headers)


def error_response(status: int, body: bytes, headers: Mapping[str, str] | None = None) -> web.Response:
    """An error envelope (the face's bytes) with its status and headers."""
    return web.Response(status=status, body=body, headers=headers, content_type="application/json")
