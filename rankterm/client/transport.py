"""The sentences for what a client cannot send: `offline` (httpx's transport error as `Offline`, or
`NeverSent` when no connection was made) and `address_problem` (why a base URL cannot be connected to at all).

Every client needs these, an in-process one too; the connection pool of a client on a URL, which needs
httpcore and h11, is `rankterm.client.pool`, imported only where a socket is to be opened. See
docs/design/local-files.md.
"""

from __future__ import annotations

import ipaddress
import re

import httpx

from rankterm.wire.errors import NeverSent, Offline, clean_text

__all__ = ["address_problem", "offline"]

_NOT_IN_A_HOST = re.compile(r"[\s\x00-\x1f\x7f<>\"{}|\\^`\[\]]")


def address_problem(url: str) -> str | None:
    """Why `url` cannot be a service's base URL, as the rest of a sentence that starts "The base URL …"
    ("must have a port from 1 to 65535, not \"99999\""); None when it can be connected to.

    Checked by hand rather than with urllib (whose errors name no value, and which lets an empty host or a
    port of 0 through) or httpx (which lets a port of 99999 through to the socket layer's OverflowError)."""
    scheme, sep, rest = url.strip().partition("://")
    if not sep or scheme.lower() not in ("http", "https"):
        return "must start with http:// or https:// and name a host"
    host_port = re.split(r"[/?#]", rest, maxsplit=1)[0].rpartition("@")[2]
    if host_port.startswith("["):
        host, closed, after = host_port[1:].partition("]")
        if not closed:
            return f'must close the brackets of its IPv6 host, as in http://[::1]:8765/ (not "{clean_text(host_port, 60)}")'
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            return f'must have an IPv6 address in its brackets, not "{clean_text(host, 60)}"'
        if after and not after.startswith(":"):
            return f'must have only ":" and a port after its IPv6 host, not "{clean_text(after, 60)}"'
        port = after[1:] if after else ""
    elif host_port.count(":") > 1:
        return "must write an IPv6 host in brackets, as in http://[::1]:8765/"
    else:
        host, _, port = host_port.partition(":")
        if not host:
            return "must name a host"
        if _NOT_IN_A_HOST.search(host):
            return f'must name a host without spaces or symbols, not "{clean_text(host, 60)}"'
    if port and not (port.isascii() and port.isdigit() and 1 <= int(port) <= 65535):
        return f'must have a port from 1 to 65535, not "{clean_text(port, 20)}"'
    return None


def offline(endpoint: str, exc: httpx.TransportError) -> Offline:
    """`exc`, met calling `endpoint`, as the client raises it: `NeverSent` when no connection could be made
    (refused, unreachable, or not made in time), else `Offline` (the request may have reached the service)."""
    reason = str(exc) or type(exc).__name__
    if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
        return NeverSent(endpoint, reason)
    return Offline(endpoint, reason)
