"""The evening's figures (`figures.tonight`): who won what, the biggest ree gain, the biggest upset."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

from rankterm.stats.results import Gain, Tally, Tonight, TonightMatch, Upset, best_first
from rankterm.stats.rules import MatchLike, best_rank, bot_won, faction_result, game_key, in_played_order
from rankterm.wire.models import DATE_FORMAT
from rankterm.wire.text import fold_name


def tonight_figures(
    matches: Sequence[MatchLike],
    since: datetime,
    ree_before: Mapping[tuple[int, str], float],
    ree_after: Mapping[tuple[int, str], float],
    new: frozenset[tuple[int, str]] = frozenset(),
) -> Tonight:
    """See `figures.tonight`."""
    utc = since.astimezone(UTC).replace(tzinfo=None) if since.tzinfo is not None else since
    start = utc.strftime(DATE_FORMAT)  # the wire's dates are UTC, the service's one time zone
    evening = [m for m in in_played_order(matches) if m.date >= start and m.when is not None]
    rows: list[TonightMatch] = []
    names: dict[str, str] = {}
    played: dict[str, list[int]] = {}  # player -> numbers of their matches tonight
    wins: dict[str, int] = {}
    upset: Upset | None = None
    for m in evening:
        best = best_rank(m)
        at_best = [f for f in m.factions if f.rank == best]
        winners = [p for f in at_best if not f.bot for p in f.players]
        _, game_name = game_key(m)
        rows.append(
            TonightMatch(
                number=m.number,
                date=m.date,
                game_id=m.game.id if m.game is not None else None,
                game_name=game_name,
                winners=tuple(str(p.id) for p in winners),
                winner_names=tuple(p.label for p in winners),
                draw=len(at_best) > 1,
                bot_won=bot_won(m),
            )
        )
        for f in m.factions:
            if f.bot:
                continue
            won = faction_result(m, f) == "W"
            for p in f.players:
                q = str(p.id)
                names[q] = p.label
                numbers = played.setdefault(q, [])
                if m.number in numbers:
                    continue
                numbers.append(m.number)
                wins[q] = wins.get(q, 0) + won
                before = None if (m.number, q) in new else ree_before.get((m.number, q))
                if won and before is not None and (upset is None or before < upset.ree_before):
                    upset = Upset(m.number, game_name, q, p.label, before)
    tallies = sorted(
        (Tally(q, names[q], wins[q], len(ns)) for q, ns in played.items()),
        key=best_first,
    )
    gains = []
    for q, numbers in played.items():
        before = None if (min(numbers), q) in new else ree_before.get((min(numbers), q))
        after = ree_after.get((max(numbers), q))
        if before is not None and after is not None and after > before:
            gains.append(Gain(q, names[q], before, after))
    gain = min(gains, key=lambda g: (-g.gain, fold_name(g.name), g.player_id), default=None)
    return Tonight(
        since=since, matches=tuple(rows), tallies=tuple(tallies), biggest_gain=gain, biggest_upset=upset
    )
