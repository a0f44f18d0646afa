"""Who may use the control API: without `--admin-token`, loopback clients only; with it, every
client (loopback too) must send the token in `X-Emulator-Admin-Token`, or (a browser on the
inspector page) in the cookie that page sets when opened as `/_emulator/ui/?token=…`."""

from __future__ import annotations

import hmac
from ipaddress import ip_address

from aiohttp import web
from aiohttp.typedefs import Handler

from zenmux_emulator.core.keys import SETTINGS
from zenmux_emulator.foundation.errors import RequestRejected
from zenmux_emulator.foundation.header_text import header_text

TOKEN_HEADER = "X-Emulator-Admin-Token"
TOKEN_COOKIE = "zenmux_emulator_admin_token"
UI_PAGE = "/_emulator/ui/"


def given_token(request: web.Request) -> str:
    """The token the caller sent: the header, else the inspector's cookie, else (opening the
    inspector's page only) `?token=`."""
    given = header_text(request.headers, TOKEN_HEADER) or request.cookies.get(TOKEN_COOKIE, "")
    if not given and request.path == UI_PAGE and request.method == "GET":
        given = request.query.get("token", "")
    return given


def is_loopback(remote: str | None) -> bool:
    try:
        return remote is not None and ip_address(remote).is_loopback
    except ValueError:
        return False


@web.middleware
async def control_guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    token = request.app[SETTINGS].admin_token
    given = given_token(request)
    if token and hmac.compare_digest(given.encode(), token.encode()):
        return await handler(request)
    if not token and is_loopback(request.remote):
        return await handler(request)
    reason = "a valid X-Emulator-Admin-Token" if token else "a loopback client (or --admin-token)"
    raise RequestRejected(403, "access_denied", f"The control API requires {reason}")
