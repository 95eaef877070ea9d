"""How many examples a property test tries, scaled by the Hypothesis profile the run loaded.

tests/conftest.py registers two profiles: ``suite`` (the default: each property test a few seconds at most)
and ``loop`` (``HYPOTHESIS_PROFILE=loop``: ten times the examples, for a long run). A test that names its
own count writes ``@settings(max_examples=examples(25))``: 25 in the suite, 250 in the loop.
"""

from __future__ import annotations

from hypothesis import settings

SUITE_EXAMPLES = 100
"""The suite profile's count (Hypothesis's own default): a test's own count is given relative to it."""


def examples(count: int) -> int:
    """`count` examples in the suite profile, as many times more as the loaded profile tries."""
    loaded = settings.default
    return count if loaded is None else max(1, count * loaded.max_examples // SUITE_EXAMPLES)
