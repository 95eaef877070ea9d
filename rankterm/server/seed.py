"""The demo group, seeded into a `Store` through the service's own code paths; and a ready demo app.

`seed_demo` turns `demo.demo_plan` into a real group: the group, the demo client (``demo`` /
``demo-secret``), its players (ghosts exactly as ``POST players/player`` makes them, regulars as members),
its games (from the catalogue, as ``POST games/game`` finds them), and the season's matches sent as
``POST matches/match`` batches through `Store.add_matches`, so ratings, subsets and history are real.

`demo_app` serves an in-memory demo group. Seeding runs once per process into a template database; each
call gets an independent, writable copy of it (`Store.clone`, i.e. sqlite3's backup), which is cheap.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

from starlette.applications import Starlette

import rankterm
from rankterm.api.models import NewFaction, NewMatch, Weight
from rankterm.config import cache_dir
from rankterm.server.app import create_app
from rankterm.server.demo import demo_plan
from rankterm.server.matches import MAX_BATCH
from rankterm.server.store import Store

__all__ = ["DEMO_KEY", "DEMO_SECRET", "demo_app", "demo_store", "seed_demo"]

DEMO_KEY = "demo"
DEMO_SECRET = "demo-secret"


def seed_demo(store: Store, *, seed: int = 7, matches: int = 300) -> tuple[str, str]:
    """Create the demo group in `store` and return the demo client's (key, secret).

    Raises ValueError when the store already has the demo client, RuntimeError if the service refuses a
    planned match (a bug: the plan is meant to be valid).
    """
    if store.has_client(DEMO_KEY):
        raise ValueError("this store already holds the demo group")
    plan = demo_plan(seed=seed, matches=matches)
    group = store.create_group(plan.group_name)
    store.create_client(group, key=DEMO_KEY, secret=DEMO_SECRET)
    ids = {p.key: store.create_player(group, p.name, ghost=p.ghost, username=p.key).id for p in plan.players}
    games = {g.name: store.create_game(group, name=g.name).id for g in plan.games}
    items = [
        NewMatch(
            game=games[m.game],
            weight=Weight(m.weight),
            name=m.name,
            notes=m.notes,
            external_id=m.external_id,
            date=m.date,
            factions=[
                NewFaction(
                    players=[ids[k] for k in f.players], rank=f.rank, points=f.points, name=f.name, bot=f.bot
                )
                for f in m.factions
            ],
        ).to_wire()
        for m in plan.matches
    ]
    for start in range(0, len(items), MAX_BATCH):
        answer = store.add_matches(group, items[start : start + MAX_BATCH])
        if answer.rejected:
            first = answer.rejected[0]
            raise RuntimeError(f"demo match {start + first.index + 1} refused: {first.errors}")
    return DEMO_KEY, DEMO_SECRET


_template: Store | None = None
_template_lock = threading.Lock()


def _template_file() -> Path:
    """Where a seeded demo database is kept between runs, named by a hash of the code that made it.

    Any change to the service's code or catalogue gives a new name, so a stale demo is never served.
    """
    digest = hashlib.sha256(rankterm.__version__.encode())
    package = Path(__file__).parent
    for path in sorted([*package.glob("*.py"), package / "catalogue.json"]):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return cache_dir() / f"demo-{digest.hexdigest()[:16]}.db"


def _load_or_seed_template() -> Store:
    path: Path | None = None
    try:
        path = _template_file()
        if path.exists():
            with Store(path) as on_disk:
                if on_disk.has_client(DEMO_KEY):
                    return on_disk.clone()
    except (OSError, sqlite3.Error, ValueError):
        pass  # an unreadable cache is only a slower start: seed afresh below
    template = Store(":memory:")
    seed_demo(template)
    if path is None:
        return template
    with contextlib.suppress(OSError, sqlite3.Error):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        target = sqlite3.connect(tmp)
        try:
            template.backup_to(target)
        finally:
            target.close()
        os.replace(tmp, path)
    return template


def demo_store(*, clock: Callable[[], float] | None = None) -> Store:
    """An independent in-memory store holding the demo group (seeded once per machine and code version,
    kept in the cache dir, loaded once per process, then copied per call)."""
    global _template
    with _template_lock:
        if _template is None:
            _template = _load_or_seed_template()
        copy = _template.clone()
    if clock is not None:
        copy.clock = clock
    return copy


def demo_app(*, clock: Callable[[], float] | None = None) -> tuple[Starlette, str, str]:
    """A seeded in-memory service for ``rankterm demo`` and tests: (app, key, secret)."""
    return create_app(demo_store(clock=clock), clock=clock), DEMO_KEY, DEMO_SECRET
