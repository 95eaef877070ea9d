"""A play's finishing order, rebuilt from what the source gives (FORMATS.md "BG Stats export").

`sides(play)` gives the play's factions as `Side`s (seat indexes, rank, points, name, bot) or the reason it
cannot be ranked. A team is one faction, a co-operative game the players against the game; the order comes
from explicit ranks, else scores (equal scores tie, by `rankterm.wire.ties`), else winner flags. The rules in
full: docs/importing.md ("The finishing order").
"""

from __future__ import annotations

from decimal import Decimal

from rankterm.importing.plays import Seat, Side, SourcePlay, points_text, read_score
from rankterm.wire.ties import score_ranks

NO_RESULT = "no rank, score or winner to order the players by"


def sides(play: SourcePlay) -> tuple[list[Side], str]:
    """The play's factions, ranked, and "" — or no factions and the reason it cannot be ranked."""
    if play.factions is not None:
        return list(play.factions), ""
    if not play.seats:
        return [], "no players"
    groups = _factions(play)
    if play.game.cooperative:
        return _cooperative(play, groups)
    if len(groups) < 2:
        return [], "only one side: a match needs at least two"
    scores = [_team_score(play.seats, g) for g in groups]
    ranks = [min((play.seats[i].rank for i in g if play.seats[i].rank > 0), default=0) for g in groups]
    names = [play.seats[g[0]].team for g in groups]
    if all(r > 0 for r in ranks):
        order = ranks
    elif all(s is not None for s in scores):
        order = score_ranks([s for s in scores if s is not None], lowest_wins=play.game.lowest_wins)
    elif any(play.seats[i].winner for g in groups for i in g):
        order = [1 if any(play.seats[i].winner for i in g) else 2 for g in groups]
    else:
        return [], NO_RESULT
    return [
        Side(tuple(g), rank, points_text(score), name)
        for g, rank, score, name in zip(groups, order, scores, names, strict=True)
    ], ""


def _factions(play: SourcePlay) -> list[list[int]]:
    """Seat indexes grouped into factions, in the order each first appears."""
    if play.game.cooperative:
        return [list(range(len(play.seats)))]
    teams: dict[str, list[int]] = {}
    out: list[list[int]] = []
    for i, seat in enumerate(play.seats):
        team = seat.team.strip()
        if not team:
            out.append([i])
        elif team in teams:
            teams[team].append(i)
        else:
            teams[team] = [i]
            out.append(teams[team])
    return out


def _cooperative(play: SourcePlay, groups: list[list[int]]) -> tuple[list[Side], str]:
    seats = tuple(groups[0])
    won = any(play.seats[i].winner for i in seats)  # nobody marked as winner: the game won
    return [Side(seats, 1 if won else 2), Side((), 2 if won else 1, bot=True)], ""


def _team_score(seats: tuple[Seat, ...], group: list[int]) -> Decimal | None:
    values = [read_score(seats[i].score) for i in group]
    if any(v is None for v in values):
        return None
    known = [v for v in values if v is not None]
    return known[0] if len(set(known)) == 1 else sum(known, Decimal(0))
