"""One cache of Textual's parsed CSS for the whole test process, not one per app.

Textual parses every CSS source (each widget's DEFAULT_CSS, each screen's CSS) into rule sets and keeps them
in a cache of its Stylesheet, so each app of a test parses them all again: about a tenth of an app's start.
Parsing depends only on the source, where it was read from, its priority and scope, and the CSS variables
(the theme's colours), which make the key here; the rule sets are only read once parsed (the stylesheet
applies them to widgets and a reparse of one app already hands out the same ones again), so apps can share
them. Errors are not hidden: a source that fails to parse raises as before, and rule sets with errors are
shared as Textual's own cache shares them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from textual.cache import LRUCache
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet

TEXTUALS_PARSE_RULES = Stylesheet._parse_rules
"""Textual's own, as imported: what `own_css_parsing` puts back for a test about the app's parsing."""
PARSED: LRUCache[tuple[Any, ...], list[RuleSet]] = LRUCache(8192)
THEMES: dict[tuple[tuple[str, str], ...], int] = {}
"""Each set of CSS variables met, numbered: the number stands for the variables in `PARSED`'s keys."""


def theme_number(stylesheet: Stylesheet) -> int:
    """The number of the stylesheet's variables, worked out once for each variables dict it is given."""
    variables = stylesheet._variables
    seen = stylesheet.__dict__.get("_theme_number")
    if seen is not None and seen[0] is variables:
        return seen[1]
    number = THEMES.setdefault(tuple(variables.items()), len(THEMES))
    stylesheet.__dict__["_theme_number"] = (variables, number)
    return number


@contextmanager
def shared_css_parsing() -> Iterator[None]:
    """While inside, every Stylesheet of this process takes parsed sources from `PARSED`."""
    parse_rules = Stylesheet._parse_rules

    def shared(
        self: Stylesheet,
        css: str,
        read_from: tuple[str, str],
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[RuleSet]:
        key = (css, read_from, is_default_rules, tie_breaker, scope, theme_number(self))
        rules = PARSED.get(key)
        if rules is None:
            rules = parse_rules(self, css, read_from, is_default_rules, tie_breaker, scope)
            PARSED[key] = rules
        return rules

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Stylesheet, "_parse_rules", shared)
        yield


@pytest.fixture(scope="session", autouse=True)
def shared_css() -> Iterator[None]:
    """Autouse in the folders whose tests run the app (imported by their conftest.py): one parse of each
    CSS source for the whole worker."""
    with shared_css_parsing():
        yield


@pytest.fixture
def own_css_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    """For a test of what the app's own stylesheet parses: the shared cache is off for the test, so a source an
    earlier test of the worker parsed is parsed again here as the app alone would."""
    monkeypatch.setattr(Stylesheet, "_parse_rules", TEXTUALS_PARSE_RULES)
