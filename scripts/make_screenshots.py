"""Make an SVG of every screen of the real app on the demo group, into screenshots/.

    python scripts/make_screenshots.py [--size 100x30] [--out screenshots]

Each shot is the app as `rankterm demo` builds it (a fresh in-process demo group, time frozen so the figures
are the same on every run), driven by a pilot to a state worth showing, saved with `App.export_screenshot`.
Nothing in the SVGs is edited by hand.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FROZEN_NOW = 1_780_000_000.0

Steps = Callable[..., Awaitable[None]]


async def settle(pilot, delay: float = 0.0) -> None:
    await pilot.pause(delay or None)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def to_login(pilot) -> None:
    await pilot.press("l")
    await settle(pilot)
    await pilot.press("down")  # a saved profile: the form fills in
    await settle(pilot)


async def to_home(pilot) -> None:
    await settle(pilot, 0.5)  # the first screen: the standings, the last match, tonight's story


async def to_service(pilot) -> None:
    await pilot.press("d")
    await settle(pilot)


async def to_games(pilot) -> None:
    await pilot.press("g")
    await settle(pilot)
    await pilot.press("slash", *"ca")
    await settle(pilot, 0.5)


async def to_players(pilot) -> None:
    await pilot.press("p")
    await settle(pilot)


async def _fill_form(pilot, game: str, rows: list[tuple[list[str], int, str]], external_id: str = "") -> None:
    """Fill the match form from code: `rows` are (player labels, rank, points)."""
    await pilot.press("escape", "n")
    await settle(pilot)
    await pilot.press("ctrl+n")  # a blank form
    await settle(pilot)
    form = pilot.app.screen.form
    form.game_picker.choose(next(g for g in form.game_picker.games if g.name == game))
    by_label = {p.label: p for p in form.players}
    while len(form.rows) < len(rows):
        await form.add_row()
    for row, (labels, rank, points) in zip(form.rows, rows, strict=False):
        row.fill(players=[by_label[label] for label in labels], rank=rank, points=points)
    if external_id:
        form.field("external-id").value = external_id
    await settle(pilot)


async def to_match(pilot) -> None:
    await _fill_form(pilot, "Tichu", [(["Ada", "Ben"], 1, "650"), (["Chiara", "*Hugo"], 2, "350")])
    await pilot.press("ctrl+f")
    await settle(pilot)


async def to_outbox(pilot) -> None:
    await _fill_form(pilot, "Catan", [(["Ada"], 1, "10"), (["Elena"], 2, "8"), (["Dev"], 3, "6")])
    await pilot.press("ctrl+s")
    await settle(pilot)
    await _fill_form(pilot, "Catan", [(["Ben"], 1, "10"), (["Farid"], 2, "7")], external_id="demo-0001")
    await pilot.press("ctrl+s")
    await settle(pilot)
    await pilot.press("escape", "o")
    await settle(pilot)


async def to_rankings(pilot) -> None:
    await pilot.press("r")
    await settle(pilot)


async def to_matches(pilot) -> None:
    await pilot.press("m")
    await settle(pilot)


async def to_player_page(pilot) -> None:
    await pilot.press("escape", "r")
    await settle(pilot)
    pilot.app.screen.query_one("#rank-table").focus()
    await pilot.press("enter")  # Ada's page: her ree over her matches
    await settle(pilot, 0.5)


async def to_head_to_head(pilot) -> None:
    await pilot.press("escape", "s")
    await settle(pilot)
    await pilot.press("2")
    await settle(pilot, 0.5)


async def to_board(pilot) -> None:
    await pilot.press("escape", "b")  # the scoreboard, as `rankterm board` shows it (that one read-only)
    await settle(pilot)


SHOTS: list[tuple[str, str, Steps]] = [
    ("home", "home", to_home),
    ("service", "service", to_service),
    ("login", "login", to_login),
    ("games", "games", to_games),
    ("players", "players", to_players),
    ("match", "match_entry", to_match),
    ("rankings", "rankings", to_rankings),
    ("matches", "matches", to_matches),
    ("outbox", "outbox", to_outbox),
    ("board", "board", to_board),
    ("player", "stats", to_player_page),
    ("stats", "stats", to_head_to_head),
]


def screen_exists(module: str) -> bool:
    return importlib.util.find_spec(f"rankterm.tui.screens.{module}") is not None


async def shoot(name: str, steps: Steps, size: tuple[int, int], out: Path) -> Path:
    from rankterm.client.client import RankingClient
    from rankterm.config import Config, Profile
    from rankterm.server.seed import demo_app
    from rankterm.tui.app import RanktermApp

    def clock() -> float:
        return FROZEN_NOW

    def demo_client() -> RankingClient:
        asgi, key, secret = demo_app(clock=clock)
        return RankingClient.in_process(
            asgi, key=key, secret=secret, base_url="http://demo.rankterm/", clock=clock
        )

    config = Config(
        default_profile="club",
        profiles={
            "club": Profile(base_url="http://192.168.1.20:8765/", key="k_club", secret_env="CLUB_SECRET")
        },
    )
    ids = iter(f"rt-shot-{n:04d}" for n in range(1, 10_000))
    app = RanktermApp(
        config=config,
        client=demo_client(),
        demo=True,
        demo_factory=demo_client,
        client_factory=None,
        id_factory=lambda: next(ids),
    )
    path = out / f"{name}.svg"
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await steps(pilot)
        path.write_text(app.export_screenshot(title=f"rankterm · {name}"), encoding="utf-8")
    return path


async def main_async(size: tuple[int, int], out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    for name, module, steps in SHOTS:
        if not screen_exists(module):
            print(f"skipped  {name}: rankterm/tui/screens/{module}.py does not exist yet")
            continue
        path = await shoot(name, steps, size, out)
        print(f"wrote    {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="100x30", help="columns x rows (default 100x30)")
    parser.add_argument("--out", type=Path, default=ROOT / "screenshots")
    args = parser.parse_args()
    columns, rows = (int(n) for n in args.size.lower().split("x"))
    with tempfile.TemporaryDirectory() as tmp:  # never the user's config, token cache or themes
        os.environ["RANKTERM_CONFIG"] = f"{tmp}/config.toml"
        os.environ["RANKTERM_CACHE_DIR"] = f"{tmp}/cache"
        os.environ["RANKTERM_DATA_DIR"] = f"{tmp}/data"
        os.environ.pop("NO_COLOR", None)
        return asyncio.run(main_async((columns, rows), args.out.resolve()))


if __name__ == "__main__":
    raise SystemExit(main())
