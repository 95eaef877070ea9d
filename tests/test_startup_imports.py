"""What `rankterm demo` loads before its first screen, and what a fresh walk of the held matches parses.

The first screen of the demo comes up before the demo group is opened (in a thread, once Home is painted):
until then nothing of the service layer is needed, so none of it is imported (benchmarks/bench_startup.py
times it). A module-level import in the wrong place brings one back silently, so a fresh process builds the
app as `rankterm demo` does and lists what was imported by the time the demo group starts to open.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

from rankterm.client.client import RankingClient
from rankterm.mirror import Group, Mirror
from rankterm.mirror.file import dumps
from rankterm.stats import kept, source
from rankterm.wire.models import Faction, Game, Match, Player
from tests.support.terminal import home_env

ROOT = Path(__file__).resolve().parent.parent

NOT_BEFORE_THE_FIRST_SCREEN = (
    "httpx",  # the client and everything under it: opened with the demo group, in its thread
    "httpcore",
    "pydantic",
    "rankterm.client",
    "rankterm.mirror",
    "rankterm.outbox",
    "rankterm.stats",
    "rankterm.server",
    "rankterm.importing",
    "rankterm.tui.screens.board",
    "tomli_w",  # a config write only
    "starlette",
    "openskill",
)

CHILD = """
import json, sys, threading
from rankterm.cli import build_app

app = build_app(demo=True, profile=None)  # as `rankterm demo`
factory, seen, go = app.demo_factory, {}, threading.Event()

def held():  # the app calls this in a thread once the first screen is painted
    seen["modules"] = sorted(m for m, v in sys.modules.items() if v is not None)
    go.wait(10)
    return factory()

app.demo_factory = held

async def drive(pilot):
    seen["screen"] = type(app.screen).__name__
    go.set()
    for _ in range(400):  # the demo group opens in a thread: up to 20 s on a busy machine
        if app.client is not None:
            break
        await pilot.pause(0.05)
    seen["opened"] = app.client is not None
    print(json.dumps(seen))
    app.exit()

app.run(headless=True, size=(80, 24), auto_pilot=drive)
"""


def _loaded(modules: list[str], names: tuple[str, ...]) -> list[str]:
    return sorted({n for n in names for m in modules if m == n or m.startswith(n + ".")})


def test_the_demo_shows_its_first_screen_before_loading_the_service_layer(tmp_path):
    env = home_env(tmp_path)  # no config: no profile, as on a fresh machine
    done = subprocess.run(
        [sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=120, check=True
    )
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["screen"] == "HomeScreen" and seen["opened"]  # Home first, then the demo group was opened
    assert "rankterm.tui.screens.home" in seen["modules"]  # the check below can see what was imported
    assert _loaded(seen["modules"], NOT_BEFORE_THE_FIRST_SCREEN) == []


def test_walking_the_story_does_not_load_the_figures_modules():
    code = (
        "import json, sys, rankterm.stats.kept\n"
        "print(json.dumps(sorted(m for m, v in sys.modules.items() if v is not None)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True
    )
    modules = json.loads(done.stdout)
    assert "rankterm.stats.changes" in modules
    assert _loaded(modules, ("rankterm.stats.figures", "rankterm.stats.evening")) == []
    from rankterm.stats import Tonight, player_figures  # the face still gives them, on first use
    from rankterm.stats.figures import player_figures as home
    from rankterm.stats.results import Tonight as home_type

    assert player_figures is home and Tonight is home_type


def _history(count: int) -> list[Match]:
    rng = random.Random(3)
    people = [Player(id=f"p{i}", display_name=f"Player {i}") for i in range(6)]
    games = [Game(id=g, name=f"Game {g}") for g in (1, 2)]
    return [
        Match(
            id=f"m{n}",
            number=n,
            date=f"2026-05-{1 + n // 10:02d} 20:{n % 60:02d}:00",
            weight="normal",
            game=rng.choice(games),
            factions=[Faction(rank=i + 1, players=[p]) for i, p in enumerate(rng.sample(people, 3))],
        )
        for n in range(1, count + 1)
    ]


def test_the_held_matches_and_a_fresh_walk_of_them_parse_each_match_once(monkeypatch):
    """Home reads the held matches, then the story of every one of them: one parse serves both."""
    group = Group(RankingClient("http://walk.rankterm/", key="k", secret="s"), Mirror(None, "scope"))
    matches = _history(120)
    group.mirror.held.put_matches(
        [(m.number, str(m.game.id) if m.game else None, dumps(m.to_wire())) for m in matches], dumped=True
    )
    parsed: list[int] = []
    real = source.matches_numbered

    def counted(group: Group, numbers) -> list[Match]:
        out = real(group, numbers)
        parsed.append(len(out))
        return out

    monkeypatch.setattr(kept, "matches_numbered", counted)
    assert [m.number for m in source.held_matches(group)] == list(range(1, 121))
    assert kept.held_changes(group)  # the walk of all 120 takes the parsed history, not a second parse
    assert parsed == []
    group.mirror.held.put_matches(
        [(121, "1", dumps(_history(121)[-1].to_wire()))], dumped=True
    )  # one appended: only it is parsed (by number)
    kept.held_changes(group)
    assert parsed == [1]
