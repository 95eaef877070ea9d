"""The one table of the service's endpoints, and the one function that builds their paths.

Every request rankterm makes goes through `build_path`, which applies SERVICE.md's path rules:

1. extra query parameters, headers and a body travel beside the path, never in it;
2. paginated endpoints take the page number (from 1) as a trailing `/<page>`;
3. a subset id, when given, is inserted at the subset position (matches, rankings);
4. rankings always carry the match segment: `/<number>` or the literal `/last`;
5. endpoints marked `auth` are called with the token (the client adds it, not the path).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Method(StrEnum):
    GET = "GET"
    POST = "POST"


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One row of SERVICE.md's endpoint table."""

    name: str
    method: Method
    path: str
    auth: bool
    paginated: bool
    subset_position: bool = False
    match_segment: bool = False


def _ep(name: str, method: Method, path: str, auth: bool = True, paginated: bool = False, **kw: bool):
    return Endpoint(name, method, path, auth, paginated, **kw)


AUTH = _ep("auth", Method.GET, "auth", auth=False)
GAME = _ep("game", Method.POST, "games/game")
GAMES = _ep("games", Method.GET, "games")
GAMES_POPULAR = _ep("games popular", Method.GET, "games/popular")
GAMES_SEARCH = _ep("games search", Method.GET, "games/search")
MATCH = _ep("match", Method.POST, "matches/match")
MATCH_EXISTS = _ep("match exists", Method.GET, "matches/match/exists")
MATCH_STATUS = _ep("match status", Method.GET, "matches/status")
MATCHES = _ep("matches", Method.GET, "matches", paginated=True, subset_position=True)
PLAYER = _ep("player", Method.POST, "players/player")
PLAYERS = _ep("players", Method.GET, "players", paginated=True)
QUOTA = _ep("quota", Method.GET, "quota")
RANKINGS = _ep("rankings", Method.GET, "rankings", paginated=True, subset_position=True, match_segment=True)
STATUS = _ep("status", Method.GET, "status")
SUBSETS = _ep("subsets", Method.GET, "subset")
TEST = _ep("test", Method.GET, "test", auth=False)

ENDPOINTS: dict[str, Endpoint] = {
    e.name: e
    for e in (
        AUTH,
        GAME,
        GAMES,
        GAMES_POPULAR,
        GAMES_SEARCH,
        MATCH,
        MATCH_EXISTS,
        MATCH_STATUS,
        MATCHES,
        PLAYER,
        PLAYERS,
        QUOTA,
        RANKINGS,
        STATUS,
        SUBSETS,
        TEST,
    )
}


def build_path(
    endpoint: Endpoint,
    *,
    subset: str | None = None,
    match: int | None = None,
    page: int | None = None,
) -> str:
    """The path of `endpoint`, relative to the base URL, by SERVICE.md's rules 2-4.

    Raises ValueError for an argument the endpoint cannot take, a page below 1, a match number below 1,
    or a subset id that would be read as a page number (all digits) or would split the path.
    """
    parts = [endpoint.path]
    if subset is not None:
        if not endpoint.subset_position:
            raise ValueError(f"{endpoint.name} takes no subset")
        if not subset or subset.isdigit() or "/" in subset or subset in {".", ".."}:
            raise ValueError(f"invalid subset id {subset!r}")
        parts.append(subset)
    if endpoint.match_segment:
        if match is not None and (isinstance(match, bool) or int(match) < 1):
            raise ValueError(f"invalid match number {match!r}")
        parts.append("last" if match is None else str(int(match)))
    elif match is not None:
        raise ValueError(f"{endpoint.name} takes no match number")
    if page is not None:
        if not endpoint.paginated:
            raise ValueError(f"{endpoint.name} is not paginated")
        if isinstance(page, bool) or int(page) < 1:
            raise ValueError(f"invalid page {page!r}: pages start at 1")
        parts.append(str(int(page)))
    return "/".join(parts)
