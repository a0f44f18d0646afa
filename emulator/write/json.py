"""Write a JSON reply."""

from __future__ import annotations

from aiohttp import web

from emulator.render.plan import ReplyPlan


def json_response(plan: ReplyPlan) -> web.Response:
    """The planned body as one response; the bytes were encoded by `render/`."""
    return web.Response(body=plan.body, status=plan.status, headers=plan.headers, content_type=plan.content_type)
