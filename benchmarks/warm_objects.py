"""What lies on the warm parent's pages that a seat copies: `bench_host.py --objects` puts a `sitecustomize` on
the servers' PYTHONPATH (`sitecustomize_dir`) that, in a warm parent only, writes a map of its Python objects
(address, size, type) right after its `gc.freeze()`, the moment before it forks seats; `copied_by_type` then
tells, for the pages a seat copied, which objects they hold.

The map is every object the collector tracks and every object they refer to (strings, numbers, code objects,
whose bytecode and adaptive caches are inline in CPython 3.11, found through functions and constants). Sizes
are the objects' own blocks: a list's or dict's separate item array is not counted with it.
"""

from __future__ import annotations

import bisect
import collections
import struct
from pathlib import Path

MAP_VARIABLE = "RANKTERM_BENCH_OBJECT_MAP"
"""The folder the warm parents write their maps in (`<pid>.map`)."""

SITECUSTOMIZE = """
import os, sys
if "--warm-fd" in sys.argv and os.environ.get("{variable}"):
    import gc
    _freeze = gc.freeze

    def _freeze_and_map():
        _freeze()
        sys.path.insert(0, {folder!r})
        from warm_objects import write_map
        write_map(os.path.join(os.environ["{variable}"], f"{{os.getpid()}}.map"))
        del sys.path[0]

    gc.freeze = _freeze_and_map
"""
RECORD = struct.Struct("QIH")


def sitecustomize_dir(folder: Path) -> Path:
    """A folder holding the `sitecustomize` that maps a warm parent's objects (put it first on PYTHONPATH)."""
    folder.mkdir(parents=True, exist_ok=True)
    here = str(Path(__file__).resolve().parent)
    (folder / "sitecustomize.py").write_text(SITECUSTOMIZE.format(variable=MAP_VARIABLE, folder=here))
    return folder


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
    import types

    seen: set[int] = set()
    names: dict[str, int] = {}
    out = bytearray()
    stack = gc.get_objects()
    while stack:
        obj = stack.pop()
        key = id(obj)
        if key in seen:
            continue
        seen.add(key)
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
