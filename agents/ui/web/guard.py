"""The web table's safety rules, as ASGI middleware (docs/web.md, "Safety").

- **Host allow-list** (Starlette's ``TrustedHostMiddleware``): only the loopback names
  (``127.0.0.1``, ``localhost``, ``[::1]``), the address the server is bound to and the
  names given with ``--allow-host``; anything else gets 400. This stops DNS rebinding: a
  page of ``evil.example.com`` whose name is made to point at 127.0.0.1 sends
  ``Host: evil.example.com`` and is refused.
- **State-changing requests** (POST, PUT, PATCH, DELETE) only from the page's own origin
  and only as JSON: an ``Origin`` header other than the server's own, a ``Sec-Fetch-Site``
  other than ``same-origin`` (or ``none``), or a ``Content-Type`` other than
  ``application/json`` is refused (403 for a foreign origin, 400 for the content type)
  before any handler runs. A form or a "simple" ``fetch`` of another site cannot send
  JSON without a CORS preflight, and the server answers no preflight (no CORS headers at
  all), so the browser never sends the request. Scripts (curl, httpx) send no
  ``Origin``: they only need ``Content-Type: application/json``.
- **Security headers on every response**: a strict Content-Security-Policy (scripts,
  styles and connections from the server itself only, no inline script or style, no
  framing), ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer``,
  ``X-Frame-Options: DENY``, ``Cross-Origin-Opener-Policy`` and
  ``Cross-Origin-Resource-Policy: same-origin``.
"""

from __future__ import annotations

import ipaddress
import json

from starlette.datastructures import Headers
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
JSON_TYPE = "application/json"
SAME_ORIGIN_FETCH = frozenset({"same-origin", "none"})

CSP = "; ".join([
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]


def host_name(host: str) -> str:
    """``host`` as it appears in a Host header (an IPv6 address in brackets)."""
    host = host.strip().lower()
    try:
        if ipaddress.ip_address(host).version == 6:
            return f"[{host}]"
    except ValueError:
        pass
    return host


def allowed_hosts(bind_host: str | None = None, extra=()) -> list[str]:
    """The Host names served: the loopback names, the bound address, the ``--allow-host`` names."""
    out = list(LOOPBACK_HOSTS)
    for h in [bind_host, *extra]:
        if h and host_name(h) not in out and h not in ("0.0.0.0", "::"):
            out.append(host_name(h))
    return out


def middleware(hosts: list[str]) -> list[Middleware]:
    """The app's middleware, outermost first: headers on every answer, then the Host, then the origin."""
    return [Middleware(SecurityHeaders), Middleware(TrustedHostMiddleware, allowed_hosts=hosts, www_redirect=False),
            Middleware(SameOriginJson)]


class SecurityHeaders:
    """Adds :data:`SECURITY_HEADERS` to every HTTP response (errors included)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in SECURITY_HEADERS if k not in names]
                message = dict(message, headers=list(message.get("headers", [])) + extra)
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def _refuse(send, status: int, field: str, message: str, allowed) -> None:
    body = json.dumps({"error": message, "field": field, "allowed": allowed}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def check_state_change(method: str, headers: Headers) -> tuple[int, str, str, object] | None:
    """Why a request may not change anything (status, field, message, allowed), or None when it may."""
    if method not in STATE_CHANGING:
        return None
    host = headers.get("host", "").lower()
    origin = headers.get("origin")
    if origin is not None:
        scheme, sep, netloc = origin.lower().partition("://")
        if not sep or scheme not in ("http", "https") or netloc != host:
            return (403, "origin", f"a {method} from origin {origin!r} is refused: only the page of this server "
                                   f"({host}) may change games", [f"http://{host}"])
    site = headers.get("sec-fetch-site")
    if site is not None and site.lower() not in SAME_ORIGIN_FETCH:
        return (403, "origin", f"a {method} with Sec-Fetch-Site: {site} is refused: only the page of this server "
                               "may change games", sorted(SAME_ORIGIN_FETCH))
    ctype = headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype != JSON_TYPE:
        return (400, "content-type", f"a {method} needs Content-Type: {JSON_TYPE} (got {ctype or 'none'!r})",
                [JSON_TYPE])
    return None


class SameOriginJson:
    """Refuses state-changing requests from another origin or not sent as JSON (:func:`check_state_change`)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            why = check_state_change(scope["method"], Headers(scope=scope))
            if why is not None:
                await _refuse(send, *why)
                return
        await self.app(scope, receive, send)
