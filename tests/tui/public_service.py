"""A stand-in for the public ranking service, answering in the shapes WIRE.md says to be lenient about.

Numbers come as strings ("page": "2" style), booleans as 0/1 strings, every object carries keys rankterm does
not know, belts, titles and statuses come as codes with their labels beside them, and the names are the
hostile ones the test hands over. The embedded service cannot be made to answer like this, so this is an
`httpx.MockTransport` handler; `public_client(names)` is a `RankingClient` on it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any
from urllib.parse import parse_qs

import httpx

from rankterm.client.client import RankingClient

BASE_URL = "http://public.example/"
EXTRA = {"unknownKey": "[b]x[/b]", "anotherOne": 1}


def _game(n: int, name: str) -> dict[str, Any]:
    return {
        "id": str(100 + n),
        "name": name,
        "weight": "normal",
        "weightLabel": "",
        "thumbnail": "",
        "mediumImage": "",
        "bggIdGame": "",
        **EXTRA,
    }


def _player(n: int, name: str, ghost: bool) -> dict[str, Any]:
    return {
        "id": f"p{n:010d}",
        "ghost": "1" if ghost else "0",
        "username": "" if ghost else name,
        "displayName": ("*" + name) if ghost else name,
        "icon": "",
        **EXTRA,
    }


class PublicService:
    """The answers of a small group whose players and games bear `names`."""

    def __init__(self, names: Sequence[str]) -> None:
        self.games = [_game(n, name) for n, name in enumerate(names)]
        self.players = [_player(n, name, ghost=n % 2 == 1) for n, name in enumerate(names)]
        self.matches = [self._match(n) for n in range(len(names))]

    def _match(self, n: int) -> dict[str, Any]:
        first, second = self.players[n], self.players[(n + 1) % len(self.players)]
        factions = [
            {
                "rank": str(rank),
                "name": "",
                "points": str(10 - rank),
                "players": [p],
                "countPlayers": "1",
                "winner": "1" if rank == 1 else "0",
                "bot": "0",
                **EXTRA,
            }
            for rank, p in ((1, first), (2, second))
        ]
        return {
            "id": f"m{n:010d}",
            "externalId": f"ext-{n}",
            "date": f"2026-05-{n + 1:02d} 20:00:00",
            "registrationDate": f"2026-05-{n + 1:02d} 20:05:00",
            "number": str(n + 1),
            "summary": f"{first['displayName']}\n{second['displayName']}",
            "type": "player_vs_player",
            "draw": "0",
            "weight": "heavy",
            "weightLabel": "",
            "game": self.games[n],
            "notes": self.games[n]["name"],
            "factions": factions,
            **EXTRA,
        }

    def _subsets(self) -> list[dict[str, Any]]:
        main = {
            "id": "mainSubset1",
            "name": "Main",
            "type": "main",
            "creationDate": "2026-01-01 00:00:00",
            "isMain": "1",
            "isCustom": "0",
            "icon": "",
            "game": None,
            "countMatches": str(len(self.matches)),
            "firstMatch": None,
            "lastMatch": None,
            **EXTRA,
        }
        per_game = [
            {**main, "id": f"gameSubset{n}", "name": g["name"], "type": "game", "isMain": "0", "game": g}
            for n, g in enumerate(self.games[:3])
        ]
        return [main, *per_game]

    def _rankings(self) -> dict[str, Any]:
        rows = [
            {
                "player": p,
                "ree": str(2100 - 10 * n),
                "deltaRee": "3.5",
                "position": str(n + 1),
                "deltaPosition": "0",
                "belt": "0" if n else "2",
                "beltLabel": "White belt" if n else "",
                "title": "4" if n == 0 else "",
                "titleLabel": "Emperor" if n == 0 else "",
                "status": "3",
                "statusLabel": "Very active",
                **EXTRA,
            }
            for n, p in enumerate(self.players)
        ]
        return {
            "page": "1",
            "totalPages": "1",
            "rowsForPage": "25",
            "data": rows,
            "subset": self._subsets()[0],
            "match": self.matches[-1],
            **EXTRA,
        }

    def answer(self, request: httpx.Request) -> Any:
        path = request.url.path.strip("/").split("/")
        query = {k: v[0] for k, v in parse_qs(request.url.query.decode()).items()}
        head = path[0]
        if head == "auth":
            return {"token": "not-a-jwt"}
        if head == "games":
            if path[1:] == ["game"]:
                return [_game(99, query.get("name") or f"BGG {query.get('bggId')}")]
            return self.games
        if head == "players":
            if path[1:] == ["player"]:
                return [_player(99, query.get("name", ""), ghost=True)]
            return {
                "page": "1",
                "totalPages": "1",
                "rowsForPage": "25",
                "totalPlayers": str(len(self.players)),
                "data": self.players,
                **EXTRA,
            }
        if head == "matches":
            if path[1:] == ["status"]:
                return {"queued": "0", "waiting": "1", "added": "2", "processed": "3", "total": "6", **EXTRA}
            if path[1:3] == ["match", "exists"]:
                return 1 if query.get("id", "").startswith("ext-") else 0
            return {
                "page": "1",
                "totalPages": "1",
                "rowsForPage": "25",
                "totalMatches": str(len(self.matches)),
                "data": list(reversed(self.matches)),
                **EXTRA,
            }
        if head == "rankings":
            return self._rankings()
        if head in ("subset", "subsets"):
            return self._subsets()
        if head == "quota":
            return {"callsPerYear": "12%", "callsPerHour": "3%", "odd [/b] key\x1b[2J": "5%", **EXTRA}
        if head == "status":
            return {"status": "ok", "motd": self.games[1]["name"], "banner": self.games[6]["name"], **EXTRA}
        raise LookupError(request.url.path)

    def handle(self, request: httpx.Request) -> httpx.Response:
        try:
            payload = {"success": self.answer(request)}
        except LookupError:
            return httpx.Response(404, json={"errors": [{"code": "R002", "message": "not found"}]})
        return httpx.Response(
            200, content=json.dumps(payload).encode(), headers={"content-type": "application/json"}
        )


def public_client(names: Sequence[str]) -> RankingClient:
    """A client on a `PublicService` of `names` (no network)."""
    service = PublicService(names)
    http = httpx.AsyncClient(transport=httpx.MockTransport(service.handle), base_url=BASE_URL)
    client = RankingClient(BASE_URL, key="key", secret="secret", http=http)
    client._own_http = True
    return client
