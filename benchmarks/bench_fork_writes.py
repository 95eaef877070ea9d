"""Does a forked child copy the page of a code object it merely calls, when the parent has already run (and so
specialised) that code? The question behind warming a seat's code up in the warm parent (docs/design/seats.md).

    python benchmarks/bench_fork_writes.py [--functions 4000]      (as root: page frame numbers)

The parent compiles `--functions` small functions, each alone on its code object, runs half of them 100 times
(the adaptive interpreter quickens and specialises them: `_co_code_adaptive` differs from `co_code`), freezes
its objects for the collector (`gc.freeze()`, as the warm parent does) and forks. The child calls every
tenth function of each half once and counts the code objects that lie on pages it owns (copied on write)
before and after the calls, from /proc/self/pagemap (bit 56: exclusively mapped). CPython 3.11's frame takes a
reference to the code object it runs, so a call writes the code object's reference count, specialised or not.
It also refers once to every tenth of `--functions` interned strings and as many other strings: whether
taking a reference copies their pages (Python 3.12 makes interned strings immortal: their counts are never
written). The script needs only the standard library: run it with any Python to compare.
"""

from __future__ import annotations

import argparse
import gc
import os
import struct
import sys
import types

PAGE = os.sysconf("SC_PAGE_SIZE")


def owned(address: int) -> bool:
    """The page of `address` is this process's alone (written since the fork: copied)."""
    with open("/proc/self/pagemap", "rb") as pagemap:
        pagemap.seek(address // PAGE * 8)
        (entry,) = struct.unpack("Q", pagemap.read(8))
    return bool(entry >> 56 & 1)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--functions", type=int, default=4000)
    count = parser.parse_args().functions
    source = "\n".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(count))
    names: dict[str, object] = {}
    exec(compile(source, "<functions>", "exec"), names)
    functions = [f for i in range(count) if isinstance(f := names[f"f{i}"], types.FunctionType)]
    warm, cold = functions[: count // 2], functions[count // 2 :]
    for function in warm:
        for x in range(100):
            function(x)
    # CPython's quickened bytecode (3.11 on), not in the code object's typed attributes
    quickened = sum(
        getattr(f.__code__, "_co_code_adaptive", f.__code__.co_code) != f.__code__.co_code for f in warm
    )
    halves = {"run in the parent": warm[::10], "never run in the parent": cold[::10]}
    addresses = {name: [id(f.__code__) for f in called] for name, called in halves.items()}
    interned = [sys.intern(f"name_{i}_" + "x" * 40) for i in range(count)]  # as attribute names are
    strings = [f"text {i} " + "y" * 40 for i in range(count)]
    words = {"interned strings": (interned[::10], [id(w) for w in interned[::10]])}
    words["other strings"] = (strings[::10], [id(w) for w in strings[::10]])
    gc.freeze()
    read, write = os.pipe()
    child = os.fork()
    if child == 0:
        lines = []
        for name, called in halves.items():
            before = sum(owned(a) for a in addresses[name])
            for function in called:
                function(1)
            after = sum(owned(a) for a in addresses[name])
            lines.append(
                f"functions {name}: {len(called)} called once in the child; their code objects on pages the "
                f"child owns: {before} before the calls, {after} after"
            )
        for name, (read_here, where) in words.items():
            before = sum(owned(a) for a in where)
            kept = list(read_here)  # a reference to each: its count written (unless the object is immortal)
            after = sum(owned(a) for a in where)
            del kept
            lines.append(
                f"{name}: {len(where)} referred to once in the child; on pages the child owns: {before} before, "
                f"{after} after"
            )
        os.write(write, "\n".join(lines).encode())
        os._exit(0)
    os.close(write)
    os.waitpid(child, 0)
    with os.fdopen(read) as said:
        report = said.read()
    print(f"quickened in the parent: {quickened} of the {len(warm)} run there")
    print(report)


if __name__ == "__main__":
    main()
