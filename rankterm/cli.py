"""The `rankterm` command: the app, the demo, the embedded service, and a few headless helpers.

    rankterm [--profile NAME]     the app on a configured service
    rankterm demo                 the app on an in-process demo group (no account, no network)
    rankterm serve [...]          host the embedded service for the room (see `rankterm serve --help`)
    rankterm locate               print where config, token cache and data live
"""

from __future__ import annotations

import argparse
import sys

from rankterm import __version__
from rankterm.api.errors import RanktermError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rankterm", description="Rankings for game groups, in the terminal.")
    parser.add_argument("--version", action="version", version=f"rankterm {__version__}")
    parser.add_argument("--profile", help="profile of config.toml to open")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("demo", help="open the app on an embedded demo group, in-process")
    sub.add_parser("serve", help="run the embedded ranking service", add_help=False)
    sub.add_parser("locate", help="print the paths of config, token cache and data")
    return parser


def locate() -> int:
    from rankterm import config

    print(f"config       {config.config_path()}")
    print(f"token cache  {config.token_cache_path()}")
    print(f"data         {config.data_dir()}")
    print(f"user themes  {config.user_themes_dir()}")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["serve"]:
        from rankterm.server.serve import main as serve_main

        return serve_main(argv[1:])
    args = _parser().parse_args(argv)
    try:
        if args.command == "locate":
            return locate()
        from rankterm.tui.run import run_app

        return run_app(demo=args.command == "demo", profile=args.profile)
    except RanktermError as exc:
        print(f"rankterm: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
