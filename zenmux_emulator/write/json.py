"""Write a JSON reply (or a scripted raw body: its status, content type and bytes as they are)."""

from __future__ import annotations

from aiohttp import web

from zenmux_emulator.write.plan import ReplyPlan


def json_response(plan: ReplyPlan) -> web.Response:
    """The planned body as one response; the bytes were encoded by `render/`."""
    return web.Response(body=plan.body, status=plan.status, headers={**plan.headers, "Content-Type": plan.content_type})
