"""What a match did: each player's change of ree and of position, from the standings before and after it.

    effect = await match_effect(group, 301)              # the main subset
    effect.sentence()   # "Elena +58 (3→1) · Ada +18 · Ben +11 · Chiara -87 (1→4)" (a U+2212 minus)

"After" is the standings after match n (`rankings[/subset]/n`); "before" is the standings after the
previous match of the same subset (n - 1 in the main subset, which holds every match; in a game's subset
the previous match of that game, found among the matches the mirror holds, else n - 1, which the service
answers with the standings after the subset's latest match up to n - 1). Standings after a match that is
not the latest change only when a match played before it arrives, and the mirror keeps them (dropping those
a backdated match made stale: `mirrored`), so "before" costs one call the first time and none after;
"after" costs one call (a second page only when a player of the match is not on the first).

A match played before others already recorded (sent late from an outbox, imported, dated in the past) is
rated at its place in the played order and numbered there: its effect is what it did there, the standings
after it against those just before it, not a change of today's standings. `MatchEffect.later` says how many
held matches of the subset were played after it but recorded before it, and `heading()` says so ("Match 12,
played before 3 later matches").

The pure part (`effect_of`, `sentence`, `player_text`, `signed`) takes rows and gives text: the CLI and the
scoreboard use the same. `match_effect` is the one function that reads the two standings. A just-recorded
match's number: the answer to a send does not carry it (WIRE.md: `index`, `id`, `name`, `errors`), so an
`Outcome` from a send has none; `number_for` is the one place that finds it: the outcome's own number when it
carries one (no request), else `number_of`, which looks the match up in the matches list by the service's id
or its external id. `outcome_effect` is what an accepted outcome did: its number, then `match_effect`.
Nothing here knows Textual or Rich.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from rankterm.wire.errors import RanktermError
from rankterm.wire.models import Match, RankingRow, RankingsPage
from rankterm.wire.shown import MINUS as MINUS
from rankterm.wire.shown import signed
from rankterm.wire.standing import shown_positions
from rankterm.wire.text import fold_name

if TYPE_CHECKING:
    from rankterm.mirror import Group
    from rankterm.outbox.outcome import Outcome

ARROW = "\u2192"

SEPARATOR = " \u00b7 "
"""What stands between the players of a sentence: a middle dot, a space each side."""


class EffectUnknown(RanktermError):
    """The standings cannot tell what this match did (yet): it is not in them, or not rated yet."""


@dataclass(frozen=True, slots=True)
class PlayerEffect:
    """One player's change with a match: ree and position before and after (before None: new to the
    standings)."""

    player_id: str
    name: str
    rank: int
    """The player's faction's place in the match (1 won)."""
    ree_after: float | None
    position_after: int
    ree_before: float | None = None
    position_before: int | None = None

    @property
    def new(self) -> bool:
        """True when the player was not in the standings before this match."""
        return self.position_before is None

    @property
    def delta(self) -> float | None:
        """The change of ree (None for a player new to the standings, or a ree the service did not give)."""
        if self.ree_before is None or self.ree_after is None:
            return None
        return self.ree_after - self.ree_before

    @property
    def climbed(self) -> int:
        """Places gained (positive) or lost (negative); 0 when unchanged or new."""
        if self.position_before is None:
            return 0
        return self.position_before - self.position_after

    @property
    def moved(self) -> bool:
        """True when the position changed (a player new to the standings has moved: from nowhere)."""
        return self.position_before != self.position_after


@dataclass(frozen=True, slots=True)
class MatchEffect:
    """What match `number` did to its players in one subset (None: the main subset)."""

    number: int
    subset: str | None
    game: str
    date: str
    players: tuple[PlayerEffect, ...]
    before_number: int | None = None
    """The match whose standings were "before" (None: there were none: everyone is new)."""
    later: int = 0
    """Held matches of the subset played after this one that were recorded before it arrived: more than 0
    for a match placed in the past (its effect is what it did at its place)."""

    def heading(self) -> str:
        """The effect's title: "Match 301", or "Match 12, played before 3 later matches" when placed in the past."""
        if self.later <= 0:
            return f"Match {self.number}"
        return f"Match {self.number}, played before {self.later} later match{'es' if self.later > 1 else ''}"

    def sentence(self) -> str:
        """One line: `Elena +58 (3→1) · Ada +18 · Ben +11 · Chiara -87 (1→4)` (with U+2212 for the minus)."""
        return sentence(self.players)

    def of(self, player_id: str) -> PlayerEffect | None:
        return next((p for p in self.players if p.player_id == player_id), None)


def player_text(effect: PlayerEffect) -> str:
    """One player's part of the sentence: "Elena +58 (3→1)", "Ada +18", "Dora new (→5)".

    The position is shown only when it changed; a player new to the standings shows "new" and where they
    entered.
    """
    if effect.new:
        return f"{effect.name} new ({ARROW}{effect.position_after})"
    delta = effect.delta
    text = effect.name if delta is None else f"{effect.name} {signed(delta)}"
    if effect.moved:
        text += f" ({effect.position_before}{ARROW}{effect.position_after})"
    return text


def sentence(players: Iterable[PlayerEffect]) -> str:
    """The players' parts joined by " · "."""
    return SEPARATOR.join(player_text(p) for p in players)


def participants(match: Match) -> dict[str, tuple[str, int]]:
    """The players of a match (bots have none): id -> (name, their faction's rank)."""
    out: dict[str, tuple[str, int]] = {}
    for faction in match.factions:
        for player in faction.players:
            out.setdefault(player.id, (player.label, faction.rank))
    return out


def effect_of(
    match: Match,
    before: Iterable[RankingRow],
    after: Iterable[RankingRow],
    *,
    subset: str | None = None,
    before_number: int | None = None,
) -> MatchEffect:
    """What `match` did, from the standings before and after it (rows of any pages that hold its players).

    Players are in the order of the match's result (the winners first), then by change of ree (largest
    first). A player of the match missing from `after` (the service lists no bots) is left out. Positions
    are those shown (`wire.standing`: equal ree, equal place), among the rows given.
    """
    who = participants(match)
    before, after = list(before), list(after)
    was, now = shown_positions(before), shown_positions(after)
    old = {r.player.id: r for r in before if r.player.id in who}
    effects = []
    for row in after:
        pid = row.player.id
        if pid not in who:
            continue
        name, rank = who[pid]
        prior = old.get(pid)
        effects.append(
            PlayerEffect(
                player_id=pid,
                name=row.player.label or name,
                rank=rank,
                ree_after=_number(row.ree),
                position_after=now[pid],
                ree_before=_number(prior.ree) if prior is not None else None,
                position_before=was[pid] if prior is not None else None,
            )
        )
    effects.sort(key=lambda e: (e.rank, -(e.delta if e.delta is not None else 0.0), fold_name(e.name)))
    return MatchEffect(
        number=match.number,
        subset=subset,
        game=match.game.name if match.game is not None else "",
        date=match.date,
        players=tuple(effects),
        before_number=before_number,
    )


def _number(value: object) -> float | None:
    try:
        return float(value) if value is not None else None  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


async def _rows_of(
    group: Group,
    subset: str | None,
    number: int,
    wanted: set[str],
    first: RankingsPage | None = None,
) -> tuple[RankingsPage, list[RankingRow]]:
    """Every row of page 1 of the standings after `number` (or `first`, already read), then of further pages
    only while a player of `wanted` is still missing (the others' ree tells who shares a position)."""
    page = first if first is not None else await group.rankings_page(1, subset=subset, match=number)
    rows = list(page.data)
    found = {r.player.id for r in rows} & wanted
    at = page.page or 1
    while wanted - found and at < page.total_pages:
        at += 1
        more = await group.rankings_page(at, subset=subset, match=number)
        rows += more.data
        found |= {r.player.id for r in more.data} & wanted
    return page, rows


async def match_effect(
    group: Group,
    number: int,
    subset: str | None = None,
    *,
    after: RankingsPage | None = None,
) -> MatchEffect:
    """What match `number` did in `subset` (None: the main subset), read from the two standings.

    `after`: page 1 of the standings after that match when the caller already read it (the scoreboard
    reads the latest standings anyway), so it is not asked again.

    Raises:
        EffectUnknown: the standings after `number` are not those of that match (it is not in the
            subset, or the service has not rated it yet).
        RanktermError: the service could not be read (Offline, QuotaError, ...) and the mirror did not hold
            the standings.
    """
    if after is None or after.match is None or after.match.number != number:
        after = await group.rankings_page(1, subset=subset, match=number)
    match = after.match
    if match is None or match.number != number:
        where = "this subset" if subset else "the standings"
        raise EffectUnknown(f"Match {number} is not in {where} yet.")
    who = set(participants(match))
    _, rows_after = await _rows_of(group, subset, number, who, first=after)
    # the main subset holds every match; a game's subset: its previous match, from the matches held
    held = None if subset is None else group.held_number_below(number, subset=subset)
    previous = number - 1 if held is None else held
    rows_before: list[RankingRow] = []
    before_number: int | None = None
    if previous >= 1:
        before_page, rows_before = await _rows_of(group, subset, previous, who)
        if before_page.match is not None and before_page.match.number < number:
            before_number = before_page.match.number
        else:  # no earlier match in this subset: everyone is new to it
            rows_before = []
    effect = effect_of(match, rows_before, rows_after, subset=subset, before_number=before_number)
    later = group.held_played_after(match, subset=subset) or 0
    return replace(effect, later=later) if later else effect


async def number_of(group: Group, *, match_id: str = "", external_id: str = "") -> int | None:
    """The number of a recorded match, known by the service's id or its external id: the mirror's matches
    are brought up to date (one matches call when little is new; no rankings call) and searched newest
    first. None when the service does not list it (yet)."""
    known = {match_id, external_id} - {""}
    if not known:
        return None
    await group.sync_matches()

    def named(held: Match) -> bool:
        # the send's answer names a match by the service's id or by the external id (as the public service
        # does), so either may stand in `match_id`
        return str(held.id) in known or bool(held.external_id and held.external_id in known)

    for held in group.cached_matches(limit=100):
        if named(held):
            return held.number
    found = group.held_matches_named(*known)  # played before the newest 100 (a backdated match)
    return found[0].number if found else None


async def number_for(group: Group, outcome: Outcome) -> int | None:
    """The number of an accepted match: the outcome's own when it carries one (no request), else found in the
    matches list (`number_of`: the send's answer names the match, it does not number it). None when the
    service does not list it (yet)."""
    if outcome.number is not None:
        return outcome.number
    return await number_of(group, match_id=outcome.match_id, external_id=outcome.external_id or "")


async def outcome_effect(group: Group, outcome: Outcome, subset: str | None = None) -> MatchEffect:
    """What an accepted match did in `subset` (None: the main subset): its number (`number_for`), then the
    two standings (`match_effect`).

    Raises:
        EffectUnknown: the service does not list the match yet, or has not rated it.
        RanktermError: the service could not be read now.
    """
    number = await number_for(group, outcome)
    if number is None:
        raise EffectUnknown("The service does not list the match yet.")
    return await match_effect(group, number, subset)
