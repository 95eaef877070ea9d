"""The TLS context a `RankingClient` on a URL gives httpx (memory of a seat on a remote service).

A service on plain http:// gets a context with no CA certificate loaded (certifi's bundle is ~2 MB of C heap)
that still requires a certificate and checks the host name: a TLS connection through it can only fail. An
https:// service is verified exactly as httpx does by default: certifi's CAs, certificate required, host
name checked. `verify_tls=False` (a profile's choice) is left as it was.
"""

from __future__ import annotations

import asyncio
import ssl

import httpx

from rankterm.client.client import RankingClient


def _context(client: RankingClient) -> ssl.SSLContext:
    """The SSL context of the pool the client's requests go through."""
    transport = client.http._transport
    return transport._pool._ssl_context  # type: ignore[attr-defined]


def _close(client: RankingClient) -> None:
    asyncio.run(client.aclose())


def test_http_service_loads_no_ca_but_verifies_strictly() -> None:
    client = RankingClient("http://127.0.0.1:8765/", key="k", secret="s")
    try:
        ctx = _context(client)
        assert ctx.cert_store_stats()["x509_ca"] == 0
        assert ctx.verify_mode == ssl.CERT_REQUIRED
        assert ctx.check_hostname is True
    finally:
        _close(client)


def test_https_service_is_verified_as_httpx_does() -> None:
    client = RankingClient("https://ranking.example/", key="k", secret="s")
    try:
        ctx = _context(client)
        default = httpx.create_ssl_context()
        assert ctx.cert_store_stats()["x509_ca"] == default.cert_store_stats()["x509_ca"] > 50
        assert ctx.verify_mode == ssl.CERT_REQUIRED
        assert ctx.check_hostname is True
        assert ctx.minimum_version == default.minimum_version
    finally:
        _close(client)


def test_https_with_verification_off_is_left_off() -> None:
    client = RankingClient("https://ranking.example/", key="k", secret="s", verify_tls=False)
    try:
        assert _context(client).verify_mode == ssl.CERT_NONE
    finally:
        _close(client)
