"""Name folding for look-ups is one rule (`wire.text.fold_name`): accents and case ignored, ends stripped.

The service stores this form of each game's name (`norm_name`), so the forms below are pinned; the import,
the command line's look-up and the players screen all fold with it.
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
from tests.support.examples import examples

# Names of every script, with the marks, spaces and compatibility forms where the copies could part ways.
NAMES = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
TRICKY = st.text(
    st.sampled_from("aAeE \u00b4\u0301\u00a0\u2003\u3000ßẞİ\u0131ﬀÅÅ한ᄒ\u1161ୋୈ\u0b3e\t*Zoë"), max_size=10
)
SOME_NAME = st.one_of(NAMES, TRICKY)


STORED = [
    ("Café ", "cafe"),
    ("Straße", "strasse"),
    ("ẞ", "ss"),
    ("İstanbul", "istanbul"),
    ("ﬀ", "ff"),
    ("ÅÅ", "aa"),  # a precomposed and a decomposed ring
    ("Ñandú", "nandu"),
    ("  Zoë  Keller ", "zoe  keller"),
    ("a\u00a0b", "a b"),  # a no-break space is a space
    ("\u00b4", ""),  # a spacing acute: a space and a mark, so nothing
    ("한", "\u1112\u1161\u11ab"),  # Hangul as its jamo
    ("\u0b4b", "\u0b47\u0b3e"),  # Oriya's vowel sign O as its two parts (they are no combining marks)
]


def test_the_service_stores_the_names_it_always_stored() -> None:
    assert [fold_name(name) for name, _ in STORED] == [stored for _, stored in STORED]
    assert all(games.normalise(name) == stored for name, stored in STORED)


@settings(max_examples=examples(400))
@given(SOME_NAME)
@example("Café ")
@example("한")
@example("\u0b47\u0b3e")
@example("İstanbul")
@example("Straße")
def test_a_folded_name_is_decomposed_without_marks_or_ends(name: str) -> None:
    folded = fold_name(name)
    assert unicodedata.is_normalized("NFKD", folded)  # stored forms compare by code point
    assert folded == folded.strip()
    assert (
        fold_name(unicodedata.normalize("NFC", name))
        == folded
        == fold_name(unicodedata.normalize("NFD", name))
    )
    assert fold_name(folded) == folded


@settings(max_examples=examples(400))
@given(SOME_NAME, SOME_NAME)
@example("Zoë", "ZOE")
@example("한", "\u1112\u1161\u11ab")
def test_the_import_finds_a_name_equal_whatever_form_or_spacing_it_was_typed_in(a: str, b: str) -> None:
    for form in ("NFC", "NFD", "NFKC", "NFKD"):
        assert fold_name(unicodedata.normalize(form, a), squeeze_spaces=True) == fold_name(
            a, squeeze_spaces=True
        )
    spaced = f"  {a}  {b} "
    assert fold_name(spaced, squeeze_spaces=True) == " ".join(f"{fold_name(a)} {fold_name(b)}".split())


@settings(max_examples=examples(400))
@given(SOME_NAME)
def test_squeezing_is_only_about_inner_spaces(name: str) -> None:
    assert fold_name(name, squeeze_spaces=True) == " ".join(fold_name(name).split())


@settings(max_examples=examples(300))
@given(SOME_NAME, SOME_NAME, SOME_NAME)
@example("Zoë Keller", "zoekel", "OE K")
@example("Ann", "", "\u00b4")
@example("Ni\nna", "", "nina")
@example("", "0", "0\u00b4")
def test_the_players_filter_finds_a_name_by_any_part_of_it(display: str, username: str, typed: str) -> None:
    """A name is found by itself and by any part of its folded form; a filter that folds to nothing (spaces, a
    lone acute accent) shows everyone; a name that breaks its line is also read without its breaks."""
    player = Player(id="1", display_name=display, username=username)
    needle = fold_name(typed.strip().lstrip("*"))
    assert players.matches_filter(player, typed) == (
        not needle or any(needle in reading for reading in _readings(display) + _readings(username))
    )
    for name in (display, username):
        folded = fold_name(name)
        assert players.matches_filter(player, folded) and players.matches_filter(player, folded[1:-1])


def _readings(name: str) -> list[str]:
    folded = fold_name(name)
    breaks = str.maketrans(dict.fromkeys("\n\r\x85\u2028\u2029", ""))
    spaces = str.maketrans(dict.fromkeys("\n\r\x85\u2028\u2029", " "))
    return [folded, folded.translate(breaks), folded.translate(spaces)]


def test_the_players_filter_by_example() -> None:
    zoe = Player(id="1", display_name="Zoë Keller", username="zoekel")
    assert players.matches_filter(zoe, "OE K") and players.matches_filter(zoe, "*zoe")
    assert players.matches_filter(zoe, " \u00b4 ")  # folds to nothing: everyone
    assert not players.matches_filter(zoe, "ann")
    assert players.matches_filter(Player(id="2", display_name="Ni\nna", username=""), "nina")
    assert players.matches_filter(Player(id="2", display_name="Ni\nna", username=""), "ni na")
    assert players.matches_filter(Player(id="3", display_name="", username="0"), "0\u00b4")


@settings(max_examples=examples(300))
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
