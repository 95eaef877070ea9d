"""The `rankterm` command: the app, the demo, the embedded service, and a few headless helpers.

    rankterm [--profile NAME]     the app on a configured service
    rankterm demo                 the app on an in-process demo group (no account, no network)
    rankterm serve [...]          host the embedded service for the room (see `rankterm serve --help`)
    rankterm locate               print where config, token cache, data and the group's mirror live

This is the composition root: the only place that joins the app, the service layer and the embedded service.
Imports are made where they are needed, so that the first screen comes up before the heavy parts load.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from rankterm import __version__
from rankterm.api.errors import RanktermError

if TYPE_CHECKING:
    from rankterm.api.client import RankingClient
    from rankterm.api.outbox import Outbox
    from rankterm.config import Profile
    from rankterm.tui.app import RanktermApp


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rankterm", description="Rankings for game groups, in the terminal."
    )
    parser.add_argument("--version", action="version", version=f"rankterm {__version__}")
    parser.add_argument("--profile", help="profile of config.toml to open")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("demo", help="open the app on an embedded demo group, in-process")
    sub.add_parser("serve", help="run the embedded ranking service", add_help=False)
    sub.add_parser("locate", help="print the paths of config, token cache, data and mirrors")
    return parser


def locate(profile: str | None = None) -> int:
    """Print where rankterm keeps its files; the mirror of each profile (or only of `profile`)."""
    from rankterm import config

    print(f"config       {config.config_path()}")
    print(f"token cache  {config.token_cache_path()}")
    print(f"outbox       {config.outbox_path()}")
    print(f"user themes  {config.user_themes_dir()}")
    try:
        loaded = config.load_config()
    except RanktermError as exc:
        print(f"mirror       {config.cache_dir() / 'mirror'} (profiles unknown: {exc})")
        return 0
    chosen = loaded.profile(profile)
    profiles = [chosen] if profile and chosen is not None else list(loaded.profiles.values())
    if profile and chosen is None:
        raise RanktermError(f"No profile named {profile!r} in the config (see `rankterm locate`).")
    if not profiles:
        print(f"mirror       {config.cache_dir() / 'mirror'} (no profile yet)")
    for p in profiles:
        print(f"mirror       {config.mirror_path(p.base_url, p.key)}  ({p.name})")
    return 0


def make_demo_client(clock=None) -> RankingClient:
    """A client on a fresh in-process copy of the demo group, with a mirror in memory (the group dies with
    the process, so nothing of it is written to disk)."""
    from rankterm.api.client import RankingClient
    from rankterm.server.seed import demo_app

    app, key, secret = demo_app(clock=clock)
    kw = {"clock": clock} if clock is not None else {}
    return RankingClient.in_process(app, key=key, secret=secret, base_url="http://demo.rankterm/", **kw)


def make_profile_client(profile: Profile) -> RankingClient:
    """A client for a configured profile, with the on-disk token cache and the profile's mirror.

    A mirror file that could not be used is replaced (or kept in memory); `client.mirror.problem` says so in
    one sentence, which is also logged.
    """
    from rankterm.api.auth import TokenCache
    from rankterm.api.client import RankingClient
    from rankterm.api.ids import service_scope
    from rankterm.api.mirror import Mirror
    from rankterm.config import mirror_path, token_cache_path

    return RankingClient(
        profile.base_url,
        key=profile.key,
        secret=profile.resolve_secret(),
        token_cache=TokenCache(token_cache_path()),
        verify_tls=profile.verify_tls,
        mirror=Mirror(
            mirror_path(profile.base_url, profile.key), service_scope(profile.base_url, profile.key)
        ),
    )


def make_outbox(client: RankingClient, demo: bool) -> Outbox:
    """The outbox for a client: on disk under the data dir for a real service, in memory for the demo."""
    from rankterm.api.outbox import Outbox
    from rankterm.config import outbox_path

    path = None if demo else outbox_path()
    return Outbox(path, scope=client.scope)


def build_app(*, demo: bool, profile: str | None) -> RanktermApp:
    """The app as `rankterm` / `rankterm demo` start it. The demo group is built after the first screen."""
    from rankterm.config import config_warnings, load_config
    from rankterm.tui.app import RanktermApp

    config = load_config()
    for warning in config_warnings(config):
        print(f"rankterm: warning: {warning}", file=sys.stderr)
    client = None
    if not demo:
        chosen = config.profile(profile)
        if profile and chosen is None:
            raise RanktermError(f"No profile named {profile!r} in the config (see `rankterm locate`).")
        if chosen is not None:
            client = make_profile_client(chosen)  # the app says once if its mirror had a problem
    return RanktermApp(
        config=config,
        client=client,
        demo=demo,
        demo_factory=make_demo_client,
        client_factory=make_profile_client,
        outbox_factory=make_outbox,
    )


def run_app(*, demo: bool, profile: str | None) -> int:
    app = build_app(demo=demo, profile=profile)
    app.run()
    return app.return_code or 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["serve"]:
        from rankterm.server.serve import main as serve_main

        return serve_main(argv[1:])
    args = _parser().parse_args(argv)
    try:
        if args.command == "locate":
            return locate(args.profile)
        return run_app(demo=args.command == "demo", profile=args.profile)
    except RanktermError as exc:
        print(f"rankterm: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
