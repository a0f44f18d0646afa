"""Who may use the control API (and the inspector under it).

Without `--admin-token`, loopback clients only; with it, every client (loopback too) must send the
token in `X-Emulator-Admin-Token`, or (a browser on the inspector page) in the cookie that page sets
when opened as `/_emulator/ui/?token=…`.

And whatever a web page can make a browser send is refused, with or without the token: a request
whose `Origin` is not the emulator's own (a page on another site posting a form or calling
`fetch`), and, without `--admin-token`, a request whose `Host` is not a loopback name or address,
`--host` or an `--allowed-host` (a DNS-rebinding page, whose own name points at 127.0.0.1). The
JSON routes' `Content-Type` rule is in `wire.json_object`."""

from __future__ import annotations

import hmac
from ipaddress import ip_address

from aiohttp import web
from aiohttp.typedefs import Handler
from yarl import URL

from zenmux_emulator.core.keys import SETTINGS
from zenmux_emulator.foundation.errors import RequestRejected
from zenmux_emulator.foundation.header_text import header_text
from zenmux_emulator.settings import Settings

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


def host_name(host: str) -> str:
    """The name of a `Host` value without its port, lower-cased, brackets and a final dot dropped."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host[1:]
    if host.count(":") == 1:
        host = host.partition(":")[0]
    return host.rstrip(".")


def is_local_host(name: str, settings: Settings) -> bool:
    """Whether a `Host` name is loopback (`localhost`, `*.localhost`, 127.0.0.0/8, ::1), `--host`, or an `--allowed-host`."""
    if name == "localhost" or name.endswith(".localhost") or is_loopback(name):
        return True
    return name == host_name(settings.host) or name in {host_name(h) for h in settings.allowed_hosts}


def origin_problem(request: web.Request) -> str | None:
    """Why the request's `Origin` is not the emulator's own (the scheme and the `Host` it was sent to), or None."""
    origin = header_text(request.headers, "Origin")
    if origin is None:
        return None  # not sent by a page of another origin: browsers send Origin on every cross-origin call
    host = header_text(request.headers, "Host") or ""
    try:
        url = URL(origin)
        own = url.scheme in ("http", "https") and url.raw_authority.lower() == host.strip().lower()
    except ValueError:
        own = False
    if own and not url.raw_path.strip("/") and not url.query_string:
        return None
    return f"Origin {origin[:100]!r} is not the emulator's own origin (the Host {host[:100]!r} it was sent to)"


def host_problem(request: web.Request, settings: Settings) -> str | None:
    """Why the request's `Host` is not one the control API answers under without an admin token, or None."""
    host = header_text(request.headers, "Host")
    if host is None or settings.admin_token or is_local_host(host_name(host), settings):
        return None
    return (
        f"Host {host[:100]!r} is not a loopback name or address: the control API answers "
        "localhost, 127.0.0.0/8, ::1 and --host only, unless --allowed-host names it or --admin-token is set"
    )


@web.middleware
async def control_guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    settings = request.app[SETTINGS]
    refused = origin_problem(request) or host_problem(request, settings)
    if refused is not None:
        raise RequestRejected(403, "access_denied", f"The control API refused this request: {refused}")
    token = settings.admin_token
    given = given_token(request)
    if token and hmac.compare_digest(given.encode(), token.encode()):
        return await handler(request)
    if not token and is_loopback(request.remote):
        return await handler(request)
    reason = "a valid X-Emulator-Admin-Token" if token else "a loopback client (or --admin-token)"
    raise RequestRejected(403, "access_denied", f"The control API requires {reason}")
