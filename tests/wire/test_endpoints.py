"""The endpoint table matches SERVICE.md row by row, and build_path follows its path rules."""

import pytest

from rankterm.wire import endpoints as ep

# name -> (method, path shape, auth, paginated), straight from SERVICE.md's table
SERVICE_TABLE = {
    "auth": ("GET", "auth", False, False),
    "game": ("POST", "games/game", True, False),
    "games": ("GET", "games", True, False),
    "games popular": ("GET", "games/popular", True, False),
    "games search": ("GET", "games/search", True, False),
    "match": ("POST", "matches/match", True, False),
    "match exists": ("GET", "matches/match/exists", True, False),
    "match status": ("GET", "matches/status", True, False),
    "matches": ("GET", "matches", True, True),
    "player": ("POST", "players/player", True, False),
    "players": ("GET", "players", True, True),
    "quota": ("GET", "quota", True, False),
    "rankings": ("GET", "rankings", True, True),
    "status": ("GET", "status", True, False),
    "subsets": ("GET", "subset", True, False),
    "test": ("GET", "test", False, False),
}


def test_table_has_all_sixteen_endpoints():
    assert set(ep.ENDPOINTS) == set(SERVICE_TABLE)
    assert len(ep.ENDPOINTS) == 16


@pytest.mark.parametrize("name", sorted(SERVICE_TABLE))
def test_each_row(name):
    method, path, auth, paginated = SERVICE_TABLE[name]
    e = ep.ENDPOINTS[name]
    assert (e.method.value, e.path, e.auth, e.paginated) == (method, path, auth, paginated)
    assert ep.build_path(e) == (path + "/last" if name == "rankings" else path)


@pytest.mark.parametrize(
    ("endpoint", "kwargs", "expected"),
    [
        (ep.MATCHES, {}, "matches"),
        (ep.MATCHES, {"page": 3}, "matches/3"),
        (ep.MATCHES, {"subset": "g12"}, "matches/g12"),
        (ep.MATCHES, {"subset": "g12", "page": 2}, "matches/g12/2"),
        (ep.PLAYERS, {"page": 1}, "players/1"),
        (ep.PLAYERS, {}, "players"),
        (ep.RANKINGS, {}, "rankings/last"),
        (ep.RANKINGS, {"page": 2}, "rankings/last/2"),
        (ep.RANKINGS, {"match": 17}, "rankings/17"),
        (ep.RANKINGS, {"subset": "main", "match": 5, "page": 4}, "rankings/main/5/4"),
        (ep.RANKINGS, {"subset": "abc"}, "rankings/abc/last"),
    ],
)
def test_path_rules(endpoint, kwargs, expected):
    assert ep.build_path(endpoint, **kwargs) == expected


@pytest.mark.parametrize(
    ("endpoint", "kwargs"),
    [
        (ep.MATCHES, {"page": 0}),
        (ep.MATCHES, {"page": -1}),
        (ep.PLAYERS, {"subset": "main"}),
        (ep.GAMES, {"page": 2}),
        (ep.STATUS, {"match": 3}),
        (ep.RANKINGS, {"match": 0}),
        (ep.RANKINGS, {"subset": "123"}),
        (ep.MATCHES, {"subset": "a/b"}),
        (ep.MATCHES, {"subset": ""}),
        (ep.MATCHES, {"page": True}),
    ],
)
def test_bad_arguments_are_refused(endpoint, kwargs):
    with pytest.raises(ValueError):
        ep.build_path(endpoint, **kwargs)
