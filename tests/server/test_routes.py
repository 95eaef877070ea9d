"""The service's routes and the wire's one endpoint table: one route per endpoint, no route of its own.

The client builds every path from `rankterm.wire.endpoints` (`build_path`); the service's routes are built
from the same table (`routes.Router`). Read from the app itself: each endpoint has exactly one route, each
route is an endpoint's but for the documented `EXTRAS`, and the path the client builds for an endpoint
(with every trailing argument it can take) reaches that endpoint's route.
"""

from __future__ import annotations

from collections import Counter

import pytest

from rankterm.server.app import create_app
from rankterm.server.routes import EXTRAS, Router
from rankterm.server.store import Store
from rankterm.server.wire import Fault
from rankterm.wire.endpoints import ENDPOINTS, Endpoint, build_path


@pytest.fixture(scope="module")
def router() -> Router:
    with Store() as store:
        return create_app(store).state.service.router


def _paths(endpoint: Endpoint) -> list[str]:
    """Every shape of path the client builds for `endpoint`."""
    subsets = [None, "g7"] if endpoint.subset_position else [None]
    matches = [None, 3] if endpoint.match_segment else [None]
    pages = [None, 2] if endpoint.paginated else [None]
    return [build_path(endpoint, subset=s, match=m, page=p) for s in subsets for m in matches for p in pages]


def test_every_endpoint_has_exactly_one_route_and_every_route_an_endpoint(router: Router) -> None:
    own = [r for r in router.routes if r.path not in EXTRAS]
    assert Counter(r.endpoint.name for r in own) == dict.fromkeys(ENDPOINTS, 1)
    assert all(r.endpoint is ENDPOINTS[r.endpoint.name] and r.path == r.endpoint.path for r in own)
    extras = {r.path: r.endpoint.name for r in router.routes if r.path in EXTRAS}
    assert extras == dict(EXTRAS)
    assert len({(r.endpoint.method, r.path) for r in router.routes}) == len(router.routes)


@pytest.mark.parametrize("name", sorted(ENDPOINTS))
def test_the_path_the_client_builds_reaches_its_endpoints_route(router: Router, name: str) -> None:
    endpoint = ENDPOINTS[name]
    for path in _paths(endpoint):
        route, _ = router.find(endpoint.method, path)
        assert route.endpoint is endpoint, path
    other = "POST" if endpoint.method == "GET" else "GET"
    with pytest.raises(Fault) as refused:
        router.find(other, build_path(endpoint, match=1 if endpoint.match_segment else None))
    assert refused.value.code == "R002"


def test_the_extras_answer_as_their_endpoint(router: Router) -> None:
    for path, name in EXTRAS.items():
        route, args = router.find(ENDPOINTS[name].method, path)
        assert (
            route.endpoint is ENDPOINTS[name]
            and route.handler == router.find("GET", ENDPOINTS[name].path)[0].handler
        )
        assert args == []


def test_handlers_must_name_exactly_the_tables_endpoints() -> None:
    handlers = {name: name for name in ENDPOINTS}
    Router(handlers)
    with pytest.raises(ValueError, match="rankings"):
        Router({k: v for k, v in handlers.items() if k != "rankings"})
    with pytest.raises(ValueError, match="teams"):
        Router({**handlers, "teams": "teams"})
