"""The `rankterm` command: the app, the demo, the embedded service, and the headless commands.

This package is the composition root: the only place that joins the app, the service layer and the embedded
service. Each command lives in a module of this package that defines `register(subparsers)`; the parser is
built from every such module. A module's `ORDER` (an int, default 50) places it in `--help`. Imports are made
where they are needed, so that the first screen comes up before the heavy parts load.

The commands and their exit codes: docs/cli.md; how to add one: docs/development.md ("Writing a command").
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from rankterm import __version__
from rankterm.cli.app import build_app, make_demo_client, make_outbox, make_profile_client
from rankterm.wire.errors import RanktermError

if TYPE_CHECKING:  # the whole command line's parser is built only for a command other than the app
    import argparse

__all__ = ["build_app", "main", "make_demo_client", "make_outbox", "make_profile_client"]

# httpx imports its own command line (`httpx._main`: click, pygments, importlib.metadata) when those are
# installed, and goes without it when they are not (a guarded import). rankterm never runs httpx's command
# line: marking the module absent before httpx is first imported spares every `rankterm` process the memory
# and start-up time of those imports (benchmarks/bench_memory.py). Without effect once httpx is imported.
if "httpx" not in sys.modules:
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]


def _command_modules() -> list:
    """Every module of this package that registers a command, in `ORDER`."""
    import importlib
    import pkgutil

    modules = []
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "register"):
            modules.append(module)
    return sorted(modules, key=lambda m: (getattr(m, "ORDER", 50), m.__name__))


def parser() -> argparse.ArgumentParser:
    """The whole command line: global options, then one subcommand a module."""
    import argparse

    top = argparse.ArgumentParser(prog="rankterm", description="Rankings for game groups, in the terminal.")
    top.add_argument("--version", action="version", version=f"rankterm {__version__}")
    top.add_argument("--profile", help="profile of config.toml to open")
    sub = top.add_subparsers(dest="command", metavar="COMMAND")
    for module in _command_modules():
        module.register(sub)
    return top


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv[:1] == ["serve"]:
            from rankterm.server.serve import main as serve_main

            return serve_main(argv[1:])
        if argv[:1] == ["seat"]:
            # A guest's seat, started by `host` or `web`: its own small parser, not every command's.
            from rankterm.cli.seat import seat_parser

            seat = seat_parser().parse_args(argv[1:])
            return int(seat.run(seat))
        profile = app_profile(argv)
        if argv in ([], ["demo"]) or profile is not None:
            # `rankterm`, `rankterm demo` and `rankterm --profile NAME` start the app at once: building the
            # whole parser (every command's module and options, CPU and memory for the app's whole life)
            # would only say so.
            from rankterm.cli.app import run_app

            return run_app(demo=argv == ["demo"], profile=profile)
        args = parser().parse_args(argv)
        run = getattr(args, "run", None)
        if run is None:
            from rankterm.cli.app import run_app

            return run_app(demo=False, profile=args.profile)
        return int(run(args))
    except RanktermError as exc:
        print(f"rankterm: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `rankterm games | head`: the reader left; nothing more to say
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - stays open: Python flushes stdout at exit
        return 0
    except OSError as exc:  # a local file or folder that cannot be written or read (read-only, full)
        print(f"rankterm: {local_file_error(exc)}", file=sys.stderr)
        return 2


def app_profile(argv: list[str]) -> str | None:
    """NAME when `argv` is only ``--profile NAME`` (or ``--profile=NAME``): the app on that profile, as the
    whole parser reads it; None for any other command line."""
    if len(argv) == 2 and argv[0] == "--profile" and not argv[1].startswith("-"):
        return argv[1]
    if len(argv) == 1 and argv[0].startswith("--profile="):
        return argv[0].removeprefix("--profile=")
    return None


def local_file_error(exc: OSError) -> str:
    """One sentence for a file or folder of ours that could not be used: what, and where."""
    where = f"{exc.filename}: " if exc.filename else ""
    return f"{where}cannot be written or read ({exc.strerror or exc})."
