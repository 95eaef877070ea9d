"""`rankterm board`: the app started straight on the scoreboard, read-only, for a TV or a spare laptop.

    rankterm board                  the default profile's group
    rankterm board --profile club   another profile's
    rankterm board --demo           an in-process demo group (no account, no network)
    rankterm board --season 2026-Q3 that quarter's standings alone (or YYYY, YYYY-MM, a season the host names)

Kiosk: the scoreboard is the only screen (the app's screen keys do nothing, there is no form), it updates
itself when another seat records a match (the live probe keeps its active pace even when nobody touches
this seat), and q quits (with nothing that can be entered here, there is nothing to ask about, unless an
earlier run of this profile left matches pending in the outbox, which this seat still sends).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from rankterm.cli.common import UsageError, add_source_arguments, profile_name
from rankterm.wire.errors import RanktermError

if TYPE_CHECKING:
    from rankterm.tui.app import RanktermApp

ORDER = 12


def register(sub: argparse._SubParsersAction) -> None:
    board = sub.add_parser(
        "board",
        help="a read-only, full-screen scoreboard for a TV or a spare laptop",
        description="The scoreboard, read-only: standings in big type, the last match and what it did, "
        "the last five matches; it follows the matches other seats record.",
    )
    add_source_arguments(board)
    board.add_argument(
        "--season",
        metavar="P",
        help="one period's standings alone, everyone starting even: YYYY, YYYY-Qn, YYYY-MM or the name of a "
        "season the config names (t on the board changes it)",
    )
    board.set_defaults(run=run_board)


def build_board(*, demo: bool, profile: str | None, season: str | None = None) -> RanktermApp:
    """The app as `rankterm board` starts it: kiosk mode, on the scoreboard (of `season` alone when given:
    a `UsageError` in one sentence when it names no period)."""
    from rankterm.cli.app import load_config_warned, make_demo_client, make_outbox, make_profile_client
    from rankterm.tui.app import RanktermApp

    config = load_config_warned()
    group = None
    chosen = None
    if demo:
        if profile:
            raise RanktermError("Give --demo or --profile, not both.")
    else:
        chosen = config.chosen_profile(profile)
        group = make_profile_client(chosen)
    period = None
    if season is not None:
        from rankterm.stats.seasons import PeriodError, find_period

        try:
            period = find_period(season, config.named_seasons(chosen.name if chosen else None))
        except PeriodError as exc:
            raise UsageError(str(exc)) from None
    app = RanktermApp(
        config=config,
        client=group,
        demo=demo,
        demo_factory=make_demo_client,
        client_factory=make_profile_client,
        outbox_factory=make_outbox,
        home="board",
        kiosk=True,
    )
    app.board_period = period  # type: ignore[attr-defined]  # read by the board screen when it mounts
    return app


def run_board(args: argparse.Namespace) -> int:
    app = build_board(
        demo=bool(getattr(args, "demo", False)),
        profile=profile_name(args),
        season=getattr(args, "season", None),
    )
    from rankterm.seats import run_on_terminal

    return run_on_terminal(app)
