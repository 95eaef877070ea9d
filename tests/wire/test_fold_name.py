"""Name folding for look-ups is one rule (`wire.text.fold_name`) that keeps what each caller's own copy did.

The four functions below are the copies the callers had before they used `fold_name`, kept here as the
oracles: the service's stored `norm_name` must not change, and the other callers must find the same names
equal (or contained) as before.
"""

from __future__ import annotations

import unicodedata

from hypothesis import example, given, settings
from hypothesis import strategies as st

from rankterm.importing import plays
from rankterm.server import games
from rankterm.stats import lookup
from rankterm.tui.screens import players
from rankterm.wire.models import Player
from rankterm.wire.text import fold_name


def old_server_normalise(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return unicodedata.normalize("NFKD", stripped.casefold()).strip()


def old_lookup_fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold().strip()


def old_players_fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def old_import_fold(name: str) -> str:
    decomposed = unicodedata.normalize("NFKD", name)
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(unicodedata.normalize("NFKC", stripped.casefold()).split())


def old_matches_filter(player: Player, text: str) -> bool:
    needle = old_players_fold(text.strip().lstrip("*"))
    return (
        not needle
        or needle in old_players_fold(player.display_name)
        or needle in old_players_fold(player.username)
    )


# Names of every script, with the marks, spaces and compatibility forms where the copies could part ways.
NAMES = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
TRICKY = st.text(
    st.sampled_from("aAeE \u00b4\u0301\u00a0\u2003\u3000ßẞİ\u0131ﬀÅÅ한ᄒ\u1161ୋୈ\u0b3e\t*Zoë"), max_size=10
)
SOME_NAME = st.one_of(NAMES, TRICKY)


@settings(max_examples=400)
@given(SOME_NAME)
@example("Café ")
@example("한")
@example("\u0b47\u0b3e")
@example("İstanbul")
@example("Straße")
def test_the_service_stores_the_same_norm_name(name: str) -> None:
    assert fold_name(name) == old_server_normalise(name)


@settings(max_examples=400)
@given(SOME_NAME)
def test_the_command_line_lookup_folds_as_before(name: str) -> None:
    assert fold_name(name) == old_lookup_fold(name)


@settings(max_examples=400)
@given(SOME_NAME)
def test_the_players_screen_fold_differs_only_by_its_ends(name: str) -> None:
    assert fold_name(name) == old_players_fold(name).strip()


@settings(max_examples=400)
@given(SOME_NAME, SOME_NAME)
@example("Zoë", "ZOE")
@example("한", "\u1112\u1161\u11ab")
def test_the_import_finds_the_same_names_equal(a: str, b: str) -> None:
    # The import kept NFKC, the one rule NFKD: one form of the other, so the same names compare equal.
    new_a, new_b = fold_name(a, squeeze_spaces=True), fold_name(b, squeeze_spaces=True)
    assert unicodedata.normalize("NFKC", new_a) == old_import_fold(a)
    assert unicodedata.normalize("NFKD", old_import_fold(a)) == new_a
    assert (new_a == new_b) == (old_import_fold(a) == old_import_fold(b))


@settings(max_examples=400)
@given(SOME_NAME)
def test_squeezing_is_only_about_inner_spaces(name: str) -> None:
    assert fold_name(name, squeeze_spaces=True) == " ".join(fold_name(name).split())


@settings(max_examples=300)
@given(SOME_NAME, SOME_NAME, SOME_NAME)
@example("Zoë Keller", "zoekel", "OE K")
@example("Ann", "", "\u00b4")
@example("Ni\nna", "", "nina")
@example("", "0", "0\u00b4")
def test_the_players_filter_finds_what_it_found(display: str, username: str, typed: str) -> None:
    """Same answers, except a filter that folds to nothing but spaces (a lone acute accent): it now shows everyone,
    as a filter of typed spaces always did; a filter whose spacing accent folds to a space at its end ("0" and an acute accent),
    which now finds what "0" finds; and a name that breaks its line, which the filter now also reads
    without its breaks (tests/tui/test_players_filter_breaks.py)."""
    player = Player(id="1", display_name=display, username=username)
    new = players.matches_filter(player, typed)
    old_needle = old_players_fold(typed.strip().lstrip("*"))
    if any(c in display + username for c in "\n\r\x85\u2028\u2029\u23ce") or old_needle != old_needle.strip():
        assert new or not old_matches_filter(player, typed)  # finds what it found, and more
    elif old_needle.strip():
        assert new == old_matches_filter(player, typed)
    else:
        assert new


@settings(max_examples=300)
@given(SOME_NAME)
@example("한")
def test_the_import_asks_the_catalogue_when_the_service_would_search(name: str) -> None:
    # The import's "at least 2 characters" gate and the service's search refusal count the same folded name.
    typed = name.strip()
    assert (len(plays.fold(typed)) >= 2) == (len(games.normalise(typed)) >= 2)


def test_every_caller_uses_the_one_rule() -> None:
    for name in ("  Zoë  Keller ", "ﬀ", "Straße"):
        assert games.normalise(name) == lookup.fold(name) == players.fold(name) == fold_name(name)
        assert plays.fold(name) == fold_name(name, squeeze_spaces=True)
