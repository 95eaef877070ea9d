"""What a host (`rankterm host`, `rankterm web`) serves its seats: the profile it serves, or the table's one
demo group; the desk its seats ask on it; and each seat's command line.

The secret stays in the host's process: a seat is told the service's address and asks the desk for tokens.
See docs/design/seats.md.
"""

from __future__ import annotations

import contextlib
import signal
import sys
from typing import TYPE_CHECKING

from rankterm.wire.errors import RanktermError

if TYPE_CHECKING:
    from rankterm.client.client import RankingClient
    from rankterm.seats.desk import Desk

MAX_SEAT_SIDE = 1000
"""The most columns, and the most rows, a guest's terminal may give a seat: more than any screen shows. A seat
asked for 20000x20000 grew by about 10 MB a second drawing it, for as long as the guest stayed."""


def seat_side(asked: int, least: int = 1) -> int:
    """A terminal side (columns or rows) a guest asked for, within `least`..`MAX_SEAT_SIDE`."""
    return min(max(asked, least), MAX_SEAT_SIDE)


TABLE_DEMO = "table demo, not saved"
"""What the seats of `host --demo` and `web --demo` call their group: one demo for the table, gone at the end."""


def stop_signals() -> tuple[signal.Signals, ...]:
    """The signals that stop a host cleanly (its seats ended, the table demo's folder removed): Ctrl+C, SIGTERM,
    and SIGHUP (the terminal it was started from closed) unless it is ignored (`nohup`): then it keeps serving."""
    signals = [signal.SIGINT, signal.SIGTERM]
    if signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:
        signals.append(signal.SIGHUP)
    return tuple(signals)


def served_profile(*, demo: bool, profile: str | None) -> str | None:
    """The name of the profile a host serves (None for the table's demo), or one sentence saying why none."""
    if demo:
        if profile:
            raise RanktermError("Give --demo or --profile, not both.")
        return None
    from rankterm.config import load_config

    return load_config().chosen_profile(profile).name


def seat_argvs() -> tuple[list[str], list[str]]:
    """The command of a guest's seat and of the scoreboard's, before the host adds `--desk-fd N`: this Python,
    this rankterm."""
    app = [sys.executable, "-m", "rankterm", "seat"]
    return app, [*app, "--board"]


def table_desk(stack: contextlib.ExitStack, *, demo: bool, profile: str | None) -> tuple[Desk, str | None]:
    """The desk of `host` or `web`: on the table's one demo service (started now, ended with `stack`) or on
    `profile`; and, for the demo, the sentence saying where it lives."""
    if not demo:
        return host_desk(profile=profile), None
    from rankterm.seats.table_demo import table_demo

    url, folder = stack.enter_context(table_demo())
    lives = (
        f"the demo group: one for every seat, served by this process on {url} ({folder}), gone when it stops"
    )
    return host_desk(profile=None, demo_url=url), lives


def host_desk(*, profile: str | None, demo_url: str | None = None) -> Desk:
    """The desk a host's seats ask: the profile's service (or the table's demo service at `demo_url`), a token
    got here with the secret, which stays in this process."""
    from rankterm.client.client import RankingClient
    from rankterm.config import load_config
    from rankterm.seats.desk import Desk

    config = load_config()
    if demo_url is not None:
        from rankterm.server.seed import DEMO_KEY, DEMO_SECRET

        name, base_url, key, secret, verify = TABLE_DEMO, demo_url, DEMO_KEY, DEMO_SECRET, True
        zone = config.zone_setting(None)
        cache = None
    else:
        from rankterm.client.auth import TokenCache
        from rankterm.config import token_cache_path

        chosen = config.chosen_profile(profile)
        name, base_url, key, verify = chosen.name, chosen.base_url, chosen.key, chosen.verify_tls
        secret = chosen.resolve_secret()
        zone = config.zone_setting(chosen.name)
        cache = TokenCache(token_cache_path())
    clients: list[RankingClient] = []

    def client() -> RankingClient:
        if not clients:  # made on the host's loop, at the first question
            clients.append(
                RankingClient(base_url, key=key, secret=secret, token_cache=cache, verify_tls=verify)
            )
        return clients[0]

    async def token(stale: str | None) -> str:
        from rankterm.seats.desk import DeskError
        from rankterm.wire.errors import AuthError, Offline

        try:
            held = await client().authenticate()
            if stale is not None and held.value == stale:  # the seat's token was refused: renew ours
                held = await client().authenticate(force=True)
            return held.value
        except Offline as exc:
            raise DeskError("offline", "the host cannot reach it either") from exc
        except AuthError as exc:
            raise DeskError("refused", "the service refused the host's profile; tell the host") from exc
        except RanktermError as exc:
            raise DeskError("failed", "the host could not get a token from the service") from exc

    seat = {
        "name": name,
        "base_url": base_url,
        "key": key,
        "verify_tls": verify,
        "timezone": zone,
        "seasons": [season.to_seat() for season in config.named_seasons(name)],
        "theme": config.theme,
        "demo": demo_url is not None,
    }
    return Desk(seat, token)
