"""A scriptable wire-shaped service on httpx.MockTransport, for what the real service cannot be made to do.

The `fake` and `client` fixtures that use it are in `tests/client/conftest.py`.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx
import jwt

BASE = "http://svc.test/api/1/"


def make_token(ttl: float = 3600, now: float | None = None) -> str:
    return jwt.encode({"exp": int((now or time.time()) + ttl), "sub": "c"}, "k" * 32, algorithm="HS256")


def player(i: int) -> dict:
    return {"id": f"p{i:010d}", "ghost": 0, "username": f"u{i}", "displayName": f"Player {i}", "icon": ""}


def ok(payload) -> httpx.Response:
    return httpx.Response(200, json={"success": payload})


def fail(status: int, code: str, message: str = "nope") -> httpx.Response:
    return httpx.Response(status, json={"errors": [{"code": code, "message": message}]})


@dataclass
class FakeService:
    """Answers in WIRE.md's shapes; `routes` maps 'METHOD path' to a handler(request) -> Response."""

    routes: dict[str, Callable[[httpx.Request], httpx.Response]] = field(default_factory=dict)
    requests: list[httpx.Request] = field(default_factory=list)
    token_ttl: float = 3600
    players_total: int = 60
    latency: float = 0.0
    in_flight: int = 0
    max_in_flight: int = 0

    def count(self, path: str) -> int:
        return sum(1 for r in self.requests if r.url.path.removeprefix("/api/1/") == path)

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.latency:
                await asyncio.sleep(self.latency)
            path = request.url.path.removeprefix("/api/1/")
            handler = self.routes.get(f"{request.method} {path}")
            if handler is not None:
                return handler(request)
            if path == "auth":
                return ok({"token": make_token(self.token_ttl)})
            if path.startswith("players"):
                parts = path.split("/")
                page = int(parts[1]) if len(parts) > 1 else 1
                pages = max(1, -(-self.players_total // 25))
                rows = [player(i) for i in range((page - 1) * 25, min(page * 25, self.players_total))]
                return ok(
                    {
                        "page": str(page),
                        "totalPages": pages,
                        "rowsForPage": 25,
                        "totalPlayers": self.players_total,
                        "data": rows,
                    }
                )
            if path == "games":
                return ok([{"id": 1, "name": "Catan", "bggIdGame": 13, "extra": True}])
            if path == "matches/match":
                body = json.loads(request.content)
                return ok(
                    {
                        "total": len(body),
                        "acceptedCount": len(body),
                        "rejectedCount": 0,
                        "accepted": [
                            {"index": i, "id": m.get("id", str(i)), "name": "", "errors": []}
                            for i, m in enumerate(body)
                        ],
                        "rejected": [],
                    }
                )
            return fail(404, "R002", "not found")
        finally:
            self.in_flight -= 1
