"""The earlier code trees a benchmark runs beside this checkout (`--before`, `--code`): a tree of today's shape,
the group's reads in `rankterm.mirror.Group`. A tree from before the mirror left the client (86a2e04) is refused
with one sentence rather than failing in a child process."""

from __future__ import annotations

from pathlib import Path


def group_tree(tree: Path, option: str = "--before") -> Path:
    """`tree`, resolved, when it holds rankterm with `rankterm.mirror.Group`; else exits saying why."""
    if not (tree / "rankterm").is_dir():
        raise SystemExit(f"{option} {tree}: no code tree there (git worktree add {tree} <commit>).")
    if not (tree / "rankterm" / "mirror" / "group.py").is_file():
        raise SystemExit(
            f"{option} {tree}: its rankterm has no rankterm.mirror.Group (a tree older than commit 86a2e04); "
            "compare with a tree of today's shape."
        )
    return tree.resolve()
