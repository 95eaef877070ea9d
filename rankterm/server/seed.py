"""The demo group, seeded into a `Store` through the service's own code paths; and a ready demo app.

`seed_demo` turns `demo.demo_plan` into a real group (players, games, the season's matches sent as
batches), dated from the plan so one day always gives the same demo. `demo_app` serves an in-memory copy
of a template seeded once per process and day. See docs/design/server.md.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
import time
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import rankterm
from rankterm.paths import DEMO_GLOB, demo_path
from rankterm.server import tokens
from rankterm.server.app import create_app
from rankterm.server.db.engines import copy_errors
from rankterm.server.store import Store
from rankterm.server.wire import parse_time

if TYPE_CHECKING:  # the plan and its models are imported only when a demo is seeded (once a day)
    from starlette.applications import Starlette

    from rankterm.server.demo import DemoMatch

__all__ = [
    "DEMO_KEY",
    "DEMO_SECRET",
    "demo_app",
    "demo_seeding",
    "demo_stem",
    "demo_store",
    "demo_token",
    "seed_demo",
]

DEMO_KEY = "demo"
DEMO_SECRET = "demo-secret"
REGISTERED_AFTER = 10 * 60
"""Seconds between a night's last match and the moment the night's matches are registered."""


def build_day(now: float) -> date:
    """The day (UTC, the service's one time zone) a demo built at `now` belongs to."""
    return datetime.fromtimestamp(now, UTC).date()


def seed_demo(store: Store, *, seed: int = 7, matches: int = 300, day: date | None = None) -> tuple[str, str]:
    """Create the demo group in `store` and return the demo client's (key, secret).

    The season ends the day before `day` (by default the day of `store.clock()`).
    Raises ValueError when the store already has the demo client, RuntimeError if the service refuses a
    planned match (a bug: the plan is meant to be valid).
    """
    from rankterm.server.demo import demo_plan

    if store.has_client(DEMO_KEY):
        raise ValueError("this store already holds the demo group")
    day = day or build_day(store.clock())
    plan = demo_plan(seed=seed, matches=matches, last_day=day - timedelta(days=1))
    # The group and its people exist an hour before their first match.
    before = (parse_time(plan.matches[0].date) if plan.matches else parse_time(f"{day} 00:00:00")) - 3600
    group = store.create_group(plan.group_name, now=before)
    store.create_client(group, key=DEMO_KEY, secret=DEMO_SECRET, now=before)
    ids = {
        p.key: store.create_player(group, p.name, ghost=p.ghost, username=p.key, now=before).id
        for p in plan.players
    }
    games = {g.name: store.create_game(group, name=g.name).id for g in plan.games}
    _add_nights(store, group, plan.matches, ids, games, parse_time(f"{day} 00:00:00") - 1)
    return DEMO_KEY, DEMO_SECRET


def _add_nights(
    store: Store,
    group: int,
    planned: tuple[DemoMatch, ...],
    ids: dict[str, str],
    games: dict[str, int],
    latest: float,
) -> None:
    """Send the planned matches night by night (batches of at most `MAX_BATCH`), each registered
    `REGISTERED_AFTER` seconds after the night's last match, but never after `latest`."""
    from rankterm.server.matches import MAX_BATCH
    from rankterm.wire.models import NewFaction, NewMatch, Weight

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
        for m in planned
    ]
    start = 0
    while start < len(items):
        night = planned[start].date[:10]
        end = start + 1
        while end < len(items) and end - start < MAX_BATCH and planned[end].date[:10] == night:
            end += 1
        registered = min(parse_time(planned[end - 1].date) + REGISTERED_AFTER, latest)
        answer = store.add_matches(group, items[start:end], now=registered)
        if answer.rejected:
            first = answer.rejected[0]
            raise RuntimeError(f"demo match {start + first.index + 1} refused: {first.errors}")
        start = end


_template: tuple[date, Store] | None = None
"""The seeded demo of one day, loaded once per process (a new day seeds or loads that day's)."""
_template_lock = threading.Lock()


def _code_digest() -> str:
    """A hash of the service's code and catalogue (and the wire's)."""
    digest = hashlib.sha256(rankterm.__version__.encode())
    package = Path(__file__).parent
    wire = package.parent / "wire"  # the rating rules and the match judge live there
    for path in sorted([*package.glob("*.py"), *wire.glob("*.py"), package / "catalogue.json"]):
        digest.update(f"{path.parent.name}/{path.name}".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def demo_stem(day: date) -> str:
    """The name of the demo seeded for `day`: the day and a hash of the service's code.

    Any change to the service's code or catalogue gives a new name, so a stale demo is never served; the
    day in the name keeps tomorrow's run from serving yesterday's dates. What is kept beside the demo and
    made from it (the app's copy of the demo's matches) carries this name in its own.
    """
    return f"{day.isoformat()}-{_code_digest()}"


def _template_file(day: date) -> Path:
    """Where the demo seeded for `day` is kept between runs (`demo_stem`)."""
    return demo_path(demo_stem(day))


def _load_or_seed_template(day: date) -> Store:
    path: Path | None = None
    unreadable = copy_errors()
    try:
        path = _template_file(day)
        if path.exists():
            if path.stat().st_mode & 0o077:  # a cache written by an older rankterm
                path.chmod(0o600)
            # Read as it was written, not opened as a service's database (`Store.copy_of`).
            template = Store.copy_of(path)
            if template.has_client(DEMO_KEY):
                return template
            template.close()
    except unreadable:
        pass  # an unreadable cache is only a slower start: seed afresh below
    template = Store(":memory:")
    seed_demo(template, day=day)
    if path is None:
        return template
    with contextlib.suppress(*unreadable):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        template.backup_to(tmp)
        os.replace(tmp, path)
        for old in path.parent.glob(DEMO_GLOB):  # other days' and other code's demos are never read again
            if old != path:
                old.unlink(missing_ok=True)
    return template


def _template_of(day: date) -> Store:
    """The demo seeded for `day` as this process serves it (loaded or seeded once per process and day)."""
    global _template
    with _template_lock:
        if _template is None or _template[0] != day:
            _template = (day, _load_or_seed_template(day))
        return _template[1]


def demo_store(*, clock: Callable[[], float] | None = None) -> Store:
    """An independent in-memory store holding the demo group as built on the day of `clock` (the real
    clock by default): seeded once per machine, day and code version, kept in the cache dir, loaded once
    per process and day, then copied per call."""
    day = build_day((clock or time.time)())
    template = _template_of(day)
    with _template_lock:
        copy = template.clone()
    if clock is not None:
        copy.clock = clock
    return copy


def demo_seeding(now: float) -> str:
    """The name of the one seeding of the demo that this process serves on the day of `now`: its stem
    (`demo_stem`) and a hash of its signing key, which every seeding draws afresh (its ids are drawn afresh
    too). What is made from one seeding and kept beside it carries this name, so it is never read for another."""
    day = build_day(now)
    key = hashlib.sha256(_template_of(day).signing_key).hexdigest()[:12]
    return f"{demo_stem(day)}-{key}"


def demo_app(*, clock: Callable[[], float] | None = None) -> tuple[Starlette, str, str]:
    """A seeded in-memory service for ``rankterm demo`` and tests: (app, key, secret)."""
    return create_app(demo_store(clock=clock), clock=clock, counted=False), DEMO_KEY, DEMO_SECRET


def demo_token(app: Starlette, now: float) -> str | None:
    """A token for the demo client of a `demo_app`, signed as ``GET auth`` would sign it at `now`; None when
    the app holds no demo client.

    The demo's client opens with it, which spares its first request a check of the secret (scrypt, ~0.1 s
    on the critical path of `rankterm demo`'s first data). The secret stays valid for the renewals.
    """
    store: Store = app.state.store
    for client_id in range(1, store.client_count() + 1):
        client = store.client(client_id)
        if client is not None and client.key == DEMO_KEY and not client.disabled:
            return tokens.mint(
                store.signing_key,
                client.id,
                client.group_id,
                now,
                app.state.service.token_ttl,
                client.tokens_from,
                client.key,
            )
    return None
