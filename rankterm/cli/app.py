"""The app as `rankterm`, `rankterm demo` start it, `rankterm locate`, and the clients, mirrors and outboxes
every command opens (`make_profile_client`, `make_demo_client`, `make_outbox`).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from rankterm.wire.errors import RanktermError

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from rankterm.cli.startup import GcPause
    from rankterm.client.client import RankingClient
    from rankterm.config import Config, Profile
    from rankterm.mirror import Group
    from rankterm.outbox.outbox import Outbox
    from rankterm.tui.app import RanktermApp


ORDER = 10


def register(sub: argparse._SubParsersAction) -> None:
    """`rankterm demo`, `rankterm serve` (parsed by the service itself) and `rankterm locate`."""
    demo = sub.add_parser("demo", help="open the app on an embedded demo group, in-process")
    demo.set_defaults(run=lambda args: run_app(demo=True, profile=None))
    sub.add_parser("serve", help="run the embedded ranking service", add_help=False)
    where = sub.add_parser("locate", help="print the paths of config, token cache, data and mirrors")
    where.set_defaults(run=lambda args: locate(args.profile))


def locate(profile: str | None = None) -> int:
    """Print where rankterm keeps its files; the mirror of each profile (or only of `profile`)."""
    from rankterm import config, paths

    print(f"config       {config.config_path()}")
    print(f"token cache  {config.token_cache_path()}")
    print(f"outbox       {config.outbox_path()}")
    print(f"drafts       {paths.drafts_dir()}")
    print(f"user themes  {config.user_themes_dir()}")
    print(f"service db   {paths.service_db_path()}  (rankterm serve without --db)")
    print(f"host key     {paths.host_key_path()}  (rankterm host)")
    print(f"demo cache   {paths.cache_dir()}  (the demo group of the day, kept)")
    try:
        loaded = config.load_config()
    except RanktermError as exc:
        print(f"mirror       {config.mirror_dir()} (profiles unknown: {exc})")
        return 0
    profiles = [loaded.chosen_profile(profile)] if profile else list(loaded.profiles.values())
    if not profiles:
        print(f"mirror       {config.mirror_dir()} (no profile yet)")
    for p in profiles:
        print(f"mirror       {config.mirror_path(p.base_url, p.key)}  ({p.name})")
    return 0


def make_demo_client(clock=None) -> RankingClient:
    """A client on a fresh in-process copy of the demo group, with a mirror in memory (the group dies with
    the process, so nothing of it is written to disk). It holds a token from the start (`demo_token`): its
    first read does not wait for the service to check the secret."""
    import time

    from rankterm.client.auth import HeldToken, Token
    from rankterm.client.client import RankingClient
    from rankterm.server.seed import demo_app, demo_token

    app, key, secret = demo_app(clock=clock)
    now = (clock or time.time)()
    token = demo_token(app, now)
    kw = {"clock": clock} if clock is not None else {}
    return RankingClient.in_process(
        app,
        key=key,
        secret=secret,
        base_url="http://demo.rankterm/",
        token_cache=HeldToken(Token.parse(token)) if token else None,
        **kw,
    )


def make_profile_client(profile: Profile) -> Group:
    """The group of a configured profile: a client with the on-disk token cache, and the profile's mirror.

    A mirror file that could not be used is replaced (or kept in memory); `group.problem` says so in one
    sentence, which is also logged.
    """
    from rankterm.client.auth import TokenCache
    from rankterm.client.client import RankingClient
    from rankterm.config import mirror_path, token_cache_path
    from rankterm.mirror import Group, Mirror

    client = RankingClient(
        profile.base_url,
        key=profile.key,
        secret=profile.resolve_secret(),
        token_cache=TokenCache(token_cache_path()),
        verify_tls=profile.verify_tls,
    )
    return Group(client, Mirror(mirror_path(profile.base_url, profile.key), client.scope))


def make_outbox(client: RankingClient, demo: bool, seat: str = "") -> Outbox:
    """The outbox for a client: on disk under the data dir for a real service, in memory for the demo; `seat`
    names a guest seat (its entries are marked, and only those it may discard)."""
    from rankterm.config import outbox_path
    from rankterm.outbox.outbox import Outbox

    path = None if demo else outbox_path()
    return Outbox(path, scope=client.scope, seat=seat)


def build_app(*, demo: bool, profile: str | None) -> RanktermApp:
    """The app as `rankterm` / `rankterm demo` start it: the demo group is built in a thread once the first
    screen is painted, the cyclic garbage collector is paused until the first service is open (`startup`)."""
    from rankterm.cli.startup import AFTER_OPEN, pause_gc

    gc_pause = pause_gc()
    try:
        app = _build_app(demo=demo, profile=profile, gc_pause=gc_pause)
    except BaseException:
        gc_pause.resume()
        raise
    if not demo:
        gc_pause.resume_in(AFTER_OPEN)  # a profile's client is made above; the demo's when it is built
    return app


def load_config_warned() -> Config:
    """The config, its warnings printed first: a full-screen app would cover them."""
    from rankterm.config import config_warnings, load_config

    config = load_config()
    for warning in config_warnings(config):
        print(f"rankterm: warning: {warning}", file=sys.stderr)
    return config


def _build_app(*, demo: bool, profile: str | None, gc_pause: GcPause) -> RanktermApp:
    from rankterm.tui.app import RanktermApp

    config = load_config_warned()
    client = None
    if not demo:
        chosen = config.chosen_profile(profile) if profile else config.profile()
        if chosen is not None:
            client = make_profile_client(chosen)  # the app says once if its mirror had a problem
    return RanktermApp(
        config=config,
        client=client,
        demo=demo,
        demo_factory=_demo_factory(gc_pause) if demo else make_demo_client,
        client_factory=make_profile_client,
        outbox_factory=make_outbox,
    )


def _demo_factory(gc_pause: GcPause) -> Callable[[], Group]:
    """The demo factory of `rankterm demo`: the app calls it (in a thread) once its first screen is painted.
    Its group's mirror starts from the one kept for the day's demo (`demo_mirror`): the held matches and
    the story of what changed are not read and walked again at every start.

    Its first client gives the paused collector back (`startup.AFTER_OPEN` after it is built, at once if it
    could not be). The group is not built ahead in a thread started with the app: such a thread takes the CPU
    from the first paint (the GIL: one core for both) and brings the data no sooner, since nothing animates
    while the group is opened (bench_startup.py).
    """
    from rankterm.cli.startup import AFTER_OPEN

    first = True

    def factory() -> Group:
        from rankterm.cli.demo_mirror import demo_group

        nonlocal first
        if not first:
            return demo_group(make_demo_client)
        first = False
        try:
            group = demo_group(make_demo_client)
        except BaseException:
            gc_pause.resume()
            raise
        gc_pause.resume_in(AFTER_OPEN)
        return group

    return factory


def run_app(*, demo: bool, profile: str | None) -> int:
    app = build_app(demo=demo, profile=profile)
    from rankterm.seats import app_ends_with_terminal

    app_ends_with_terminal(app)
    app.run()
    return app.return_code or 0
