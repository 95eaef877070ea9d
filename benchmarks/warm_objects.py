"""What lies on the warm parent's pages that a seat copies, and what a seat allocates of its own.

`bench_host.py --objects` and `--traced` put a `sitecustomize` on the servers' PYTHONPATH (`sitecustomize_dir`)
that acts in a warm parent only. With `MAP_VARIABLE` set, it writes a map of the warm parent's Python objects
(address, size, type) as it calls `gc.freeze()`, the moment before it forks seats; `bytes_by_type` then
tells, for the pages a seat copied, which objects they hold. With `REHEARSE_VARIABLE` set, the warm parent
first rehearses a seat (`rehearse`: the app, headless, through Home, the rankings, the players, the matches and
the match form, on an in-process demo group), so that its code is specialised and its caches filled before the
seats are forked: the trial of bench_host.py's `rehearsed` mode. With `TRACE_VARIABLE` set, each process it forks
traces its own allocations (tracemalloc, from the fork on) and, on SIGUSR1, writes where its live blocks were
allocated (`write_traces`): by the file of the allocating line, and by the first line of rankterm's on the way;
and the modules it imported itself.

The map is every object the collector tracks and every object they refer to (strings, numbers, code objects,
whose bytecode and adaptive caches are inline in CPython 3.11, found through functions and constants). Sizes
are the objects' own blocks: a list's or dict's separate item array is not counted with it.
"""

from __future__ import annotations

import bisect
import collections
import contextlib
import struct
from pathlib import Path
from typing import Any

MAP_VARIABLE = "RANKTERM_BENCH_OBJECT_MAP"
"""The folder the warm parents write their maps in (`<pid>.map`)."""
TRACE_VARIABLE = "RANKTERM_BENCH_TRACES"
"""The folder the seats write what they allocated in (`<pid>.json`), on SIGUSR1."""
REHEARSE_VARIABLE = "RANKTERM_BENCH_REHEARSE"
"""Set: the warm parent runs the app once, headless, on a throwaway demo group before it freezes (a trial)."""

SITECUSTOMIZE = """
import os, sys
if "--warm-fd" in sys.argv:
    sys.path.insert(0, {folder!r})
    import warm_objects
    del sys.path[0]
    if os.environ.get("{variable}"):
        warm_objects.map_at_freeze(os.environ["{variable}"])
    if os.environ.get("{traces}"):
        warm_objects.trace_each_fork(os.environ["{traces}"])
    if os.environ.get("{rehearse}"):
        warm_objects.rehearse_before_freeze()
"""
RECORD = struct.Struct("QIH")
ADDRESSES = 2**40
"""Integers above this are taken for the ids the map's own walk makes, and left out of it."""


def sitecustomize_dir(folder: Path) -> Path:
    """A folder holding the `sitecustomize` that maps a warm parent's objects (put it first on PYTHONPATH)."""
    folder.mkdir(parents=True, exist_ok=True)
    here = str(Path(__file__).resolve().parent)
    (folder / "sitecustomize.py").write_text(
        SITECUSTOMIZE.format(
            variable=MAP_VARIABLE, traces=TRACE_VARIABLE, rehearse=REHEARSE_VARIABLE, folder=here
        )
    )
    return folder


def map_at_freeze(folder: str) -> None:
    """In the warm parent: as it freezes its objects (`gc.freeze()`), write their map to `folder` (just before:
    once frozen, the collector no longer lists them)."""
    import gc
    import os

    freeze = gc.freeze

    def freeze_and_map() -> None:
        write_map(os.path.join(folder, f"{os.getpid()}.map"))
        gc.collect()
        freeze()

    gc.freeze = freeze_and_map


def _own_size(obj: object) -> int:
    import sys

    kind = type(obj)
    try:
        if kind.__itemsize__:  # variable-size: str, bytes, tuple, int, code (bytecode inline)
            return sys.getsizeof(obj)
    except TypeError:
        pass
    return kind.__basicsize__


def write_map(path: str) -> None:
    """Write (address, size, type index) of every object reachable here, then the type names, to `path`."""
    import gc
    import sys
    import types

    seen: set[int] = set()
    names: dict[str, int] = {}
    out = bytearray()
    stack = [*gc.get_objects(), sys.modules]
    while stack:
        obj = stack.pop()
        key = id(obj)
        if key in seen:
            continue
        seen.add(key)
        if type(obj) is int and obj > ADDRESSES:  # most likely one of the ids this walk made
            continue
        name = type(obj).__name__
        index = names.setdefault(name, len(names))
        out += RECORD.pack(key, _own_size(obj), index)
        if isinstance(obj, types.CodeType):
            refs = [
                *obj.co_consts,
                *obj.co_names,
                *obj.co_varnames,
                obj.co_filename,
                obj.co_name,
                obj.co_qualname,
                obj.co_linetable,
                obj.co_exceptiontable,
            ]
        else:
            refs = gc.get_referents(obj)
        stack.extend(r for r in refs if id(r) not in seen)
    with open(path, "wb") as f:
        f.write(struct.pack("I", len(out) // RECORD.size))
        f.write(out)
        f.write("\n".join(sorted(names, key=names.__getitem__)).encode())


def read_map(path: Path) -> tuple[list[int], list[int], list[str]]:
    """Addresses (sorted), sizes and type names of a map written by `write_map`."""
    data = path.read_bytes()
    (count,) = struct.unpack_from("I", data)
    end = 4 + count * RECORD.size
    names = data[end:].decode().split("\n")
    rows = sorted(RECORD.iter_unpack(data[4:end]))
    return [r[0] for r in rows], [r[1] for r in rows], [names[r[2]] for r in rows]


def bytes_by_type(
    pages: set[int], page_size: int, starts: list[int], sizes: list[int], kinds: list[str]
) -> collections.Counter:
    """Bytes of each type of object that lie on `pages` (page addresses)."""
    found: collections.Counter = collections.Counter()
    for page in pages:
        i = bisect.bisect_left(starts, page) - 1
        i = max(i, 0)
        end = page + page_size
        while i < len(starts) and starts[i] < end:
            lo, hi = max(starts[i], page), min(starts[i] + sizes[i], end)
            if hi > lo:
                found[kinds[i]] += hi - lo
            i += 1
    return found


def trace_each_fork(folder: str) -> None:
    """In the warm parent: each process forked from here traces its allocations from the fork on, and writes
    them to `folder` on SIGUSR1."""
    import os
    import signal
    import sys
    import tracemalloc

    def start() -> None:
        tracemalloc.start(12)
        had = set(sys.modules)
        signal.signal(
            signal.SIGUSR1, lambda *_: write_traces(os.path.join(folder, f"{os.getpid()}.json"), had)
        )

    os.register_at_fork(after_in_child=start)


def _package(filename: str) -> str:
    parts = filename.replace("\\", "/").split("/")
    for marker in ("site-packages", "rankterm", "python3.11"):
        if marker in parts:
            i = parts.index(marker)
            rest = parts[i + 1 :] if marker != "rankterm" else parts[i:]
            if marker == "python3.11":
                return "stdlib " + (rest[0].removesuffix(".py") if rest else "")
            if marker == "rankterm":
                return "/".join(rest)
            return "/".join(rest[:2]) if rest else filename
    return filename


PLUMBING = ("/threading.py", "/asyncio/", "/concurrent/futures/", "/contextvars")
"""Frames that only carry a call to another thread or task: an allocation is put on the frame they called."""


def write_traces(path: str, had: set[str]) -> None:
    """Where this process's live blocks were allocated (since tracing started), in bytes, to `path` (JSON):
    by the package (or rankterm's module) of the allocating line, and by the first rankterm line on the way;
    and the modules imported since the fork (`had`: those imported before)."""
    import json
    import sys
    import tracemalloc

    snapshot = tracemalloc.take_snapshot()
    tracemalloc.stop()
    by_file: collections.Counter = collections.Counter()
    by_ours: collections.Counter = collections.Counter()
    for trace in snapshot.traces:
        frames = list(trace.traceback)  # the innermost first
        working = [f for f in frames if not any(p in f.filename for p in PLUMBING)] or frames
        by_file[_package(working[0].filename)] += trace.size
        ours = next((f for f in frames if "/rankterm/" in f.filename), None)
        by_ours[f"{_package(ours.filename)}:{ours.lineno}" if ours else "(no rankterm line)"] += trace.size
    with open(path, "w") as f:
        imported = sorted(set(sys.modules) - had)
        json.dump({"by_file": dict(by_file), "by_ours": dict(by_ours), "imported": imported}, f)


def rehearse_before_freeze() -> None:
    """In the warm parent: run `rehearse` just before it freezes its objects (`gc.freeze()`)."""
    import gc

    freeze = gc.freeze

    def rehearse_and_freeze() -> None:
        rehearse()
        freeze()

    gc.freeze = rehearse_and_freeze


def rehearse() -> None:
    """The app once, headless (80x24), as a guest: Home, the rankings, the players, the matches, the match form
    and Home again, on a fresh in-process demo group; then its loop closed, its threads ended, its objects
    collected."""
    import asyncio
    import gc
    import threading

    from rankterm.cli.app import make_demo_client, make_outbox
    from rankterm.config import Config, Profile
    from rankterm.tui.app import RanktermApp

    async def settled(pilot: Any) -> None:
        async def idle() -> None:
            while any(not w.is_finished for w in pilot.app.workers):
                await asyncio.sleep(0.01)
            await pilot.pause()

        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(idle(), 10)

    async def session() -> None:
        client = make_demo_client()
        name = "rehearsal"
        config = Config(
            default_profile=name, profiles={name: Profile(base_url=client.base_url, key=client.key)}
        )
        app = RanktermApp(
            config=config, client=client, outbox_factory=lambda c, _demo: make_outbox(c, True), guest=True
        )
        async with app.run_test(headless=True, size=(80, 24)) as pilot:
            await settled(pilot)
            for key in ("r", "p", "m", "n", "escape", "h"):
                await pilot.press(key)
                await settled(pilot)
            app.exit()

    asyncio.run(session())
    for thread in threading.enumerate():
        if thread is not threading.main_thread():
            thread.join(10)
    gc.collect()
