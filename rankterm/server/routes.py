"""Which endpoint a request's method and path name: the service's routes, built from the wire's one table.

Each endpoint of `rankterm.wire.endpoints.ENDPOINTS` has exactly one route, and the one extra route the
service takes is `EXTRAS`. A paginated endpoint takes its trailing arguments (subset, match, page: WIRE.md
"Paths") after its path; the handler reads them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from rankterm.server.wire import Fault
from rankterm.wire.endpoints import ENDPOINTS, Endpoint, Method

__all__ = ["EXTRAS", "Route", "Router"]

H = TypeVar("H")

EXTRAS: Mapping[str, str] = {"subsets": "subsets"}
"""Paths the service takes beside the table's, each with the name of the endpoint it answers as: ``subsets``
is the spelling one public client uses for ``subset``."""


@dataclass(frozen=True, slots=True)
class Route(Generic[H]):
    """One path the service answers, the endpoint it answers as, and the handler that answers it."""

    endpoint: Endpoint
    path: str
    """As a request spells it, without the leading ``/`` (the endpoint's path, or one of `EXTRAS`)."""
    handler: H
    least: int = 0
    """Trailing path arguments, fewest (rankings: the match segment is never left out)."""
    most: int = 0
    """Trailing path arguments, most."""

    @property
    def reads_body(self) -> bool:
        """Whether the request's body is read (a POST)."""
        return self.endpoint.method is Method.POST


def _route(endpoint: Endpoint, path: str, handler: H) -> Route[H]:
    if not endpoint.paginated:
        return Route(endpoint, path, handler)
    most = 1 + endpoint.subset_position + endpoint.match_segment
    return Route(endpoint, path, handler, least=int(endpoint.match_segment), most=most)


class Router(Generic[H]):
    """The routes of every endpoint of the table and of `EXTRAS`, each to the handler of its endpoint's name."""

    def __init__(self, handlers: Mapping[str, H]) -> None:
        """Raises ValueError when `handlers` does not name exactly the table's endpoints."""
        if set(handlers) != set(ENDPOINTS):
            missing, unknown = sorted(set(ENDPOINTS) - set(handlers)), sorted(set(handlers) - set(ENDPOINTS))
            raise ValueError(f"handlers missing for {missing}, handlers of no endpoint {unknown}")
        self.routes: tuple[Route[H], ...] = (
            *(_route(e, e.path, handlers[e.name]) for e in ENDPOINTS.values()),
            *(_route(ENDPOINTS[name], path, handlers[name]) for path, name in EXTRAS.items()),
        )
        self._exact: dict[tuple[str, ...], Route[H]] = {}
        self._prefixed: dict[str, Route[H]] = {}
        for route in self.routes:
            if route.least == 0:
                self._exact[tuple(route.path.split("/"))] = route
            if route.most > 0:
                self._prefixed[route.path] = route

    def find(self, method: str, path: str) -> tuple[Route[H], list[str]]:
        """(the route, its trailing arguments) of a request; `Fault` R002 when no route takes it.

        A path that is a route's own is that route's whatever the method (a wrong one is R002), never
        another's trailing arguments: ``GET matches/match`` is no subset called "match".
        """
        segments = path.strip("/").split("/")
        exact = self._exact.get(tuple(segments))
        if exact is not None:
            if method == exact.endpoint.method:
                return exact, []
        elif (prefixed := self._prefixed.get(segments[0])) is not None and method == prefixed.endpoint.method:
            args = segments[1:]
            if prefixed.least <= len(args) <= prefixed.most and all(args):
                return prefixed, args
        raise Fault("R002", f"No endpoint {method} {path.strip('/')[:100]!r}.")
