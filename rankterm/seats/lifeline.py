"""A child of `rankterm host` or `rankterm web` (a seat, the table's demo service) ends when its parent does,
however the parent ends, SIGKILL included: nothing is left running with nobody to end it.

`die_with_parent(parent)` runs in the child between fork and exec: Linux's PR_SET_PDEATHSIG has the kernel
send the child `SIGNAL` when the parent goes. The kernel watches the *thread* that forked, not the process,
so children must be started from a thread that lives as long as the parent does (the main thread, which runs
the host's and the web server's loop). A parent already gone before the call is caught by comparing the
parent's pid. Elsewhere than Linux it does nothing (the pty's hangup still ends an SSH seat there).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1
SIGNAL = signal.SIGTERM
"""What a child gets when its parent dies: a seat ends as when its host stops (its outbox and draft on disk)."""

_prctl = ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None
"""Looked up here, in the parent: the child, between fork and exec, only calls it."""


def die_with_parent(parent: int) -> None:  # pragma: no cover - runs in the child, between fork and exec
    """Have the kernel end this process with `SIGNAL` when process `parent` (its parent) ends."""
    if _prctl is None:
        return
    _prctl(PR_SET_PDEATHSIG, int(SIGNAL), 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the call: nobody would send the signal
        os.kill(os.getpid(), SIGNAL)


PR_SET_CHILD_SUBREAPER = 36


def adopt_orphans() -> bool:
    """Make this process the child subreaper of its descendants (Linux): a grandchild whose parent ends becomes
    this process's child, which it can wait for and which ends with it (`die_with_parent`). False where it
    cannot be had."""
    if _prctl is None:
        return False
    return bool(_prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
