"""The figures of the stats pages, computed from a sequence of matches (pure: no I/O, no clock).

Rules, written once here:

- A player **plays** a match when they are in one of its non-bot factions.
- **Result** of a player in a match (`result_of`): W when their faction is alone at the best (lowest) rank,
  D when it shares the best rank with another faction (a bot faction included), L otherwise. A bot alone at
  the best rank is a loss for every player (co-op games). A match of one faction only is a W for its players.
- **Order**: a player's matches in the order played: date, then match number (numbers count acceptance, and a
  match may be recorded late). Streaks, form and "last" lists follow this order.
- **Streak**: consecutive W; a D or an L ends it. The current streak is the run that ends with the player's
  latest match (0 when that was not a W).
- **Meeting**: a match where both players played, in different factions. Ahead = better (lower) rank; same
  rank = tie. Team-mates (one faction) are not a meeting: they count as "together".
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from datetime import datetime

from rankterm.stats.evening import tonight_figures
from rankterm.stats.results import (
    FORM_LENGTH,
    LAST_MEETINGS,
    MIN_MATCHES_BEST_GAME,
    MIN_MEETINGS_RIVAL,
    GameFigures,
    GameH2H,
    GameRecord,
    HeadToHead,
    Meeting,
    PlayerFigures,
    Result,
    Rival,
    Streak,
    Tally,
    Tonight,
    best_first,
)
from rankterm.stats.rules import (
    MatchLike,
    bot_won,
    current_run,
    faction_of,
    faction_result,
    game_key,
    in_played_order,
    longest_run,
    player_ids,
)
from rankterm.wire.text import fold_name

EVERYONE = "everyone"
"""`HeadToHead.b_name` against everyone."""


def player_figures(matches: Sequence[MatchLike], player_id: str) -> PlayerFigures:
    """A player's page from the group's matches (any order). A player with no match gets zeros."""
    mine = [(m, f) for m in in_played_order(matches) if (f := faction_of(m, player_id)) is not None]
    results: list[Result] = [faction_result(m, f) for m, f in mine]
    name = player_id
    games: dict[int | None, list[int]] = {}  # game -> [played, wins, draws, losses]
    game_name: dict[int | None, str] = {}
    met: dict[str, list[int]] = {}  # other -> [meetings, ahead, behind, ties]
    other_name: dict[str, str] = {}
    latest = -1
    for (m, mine_f), result in zip(mine, results, strict=True):
        if m.number > latest:
            latest = m.number
            name = next(p.label for p in mine_f.players if str(p.id) == player_id)
        gid, gname = game_key(m)
        counts = games.setdefault(gid, [0, 0, 0, 0])
        counts[0] += 1
        counts[1 + "WDL".index(result)] += 1
        game_name[gid] = gname if gid not in game_name or gname else game_name[gid]
        for other in m.factions:
            if other is mine_f or other.bot:
                continue
            for p in other.players:
                q = str(p.id)
                if q == player_id:
                    continue
                other_name[q] = p.label
                tally = met.setdefault(q, [0, 0, 0, 0])
                tally[0] += 1
                tally[1 if mine_f.rank < other.rank else 2 if other.rank < mine_f.rank else 3] += 1
    per_game = tuple(
        sorted(
            (GameRecord(gid, game_name[gid], *c) for gid, c in games.items()),
            key=lambda g: (-g.played, fold_name(g.game_name), g.game_id or 0),
        )
    )
    eligible = [g for g in per_game if g.played >= MIN_MATCHES_BEST_GAME]
    best_game = min(
        eligible,
        key=lambda g: (-(g.win_rate or 0.0), -g.played, fold_name(g.game_name), g.game_id or 0),
        default=None,
    )
    rivals = [Rival(q, other_name[q], *t) for q, t in met.items() if t[0] >= MIN_MEETINGS_RIVAL]
    nemesis = min(
        (r for r in rivals if r.behind > 0),
        key=lambda r: (-r.behind / r.meetings, -r.behind, fold_name(r.name), r.player_id),
        default=None,
    )
    victim = min(
        (r for r in rivals if r.ahead > 0),
        key=lambda r: (-r.ahead / r.meetings, -r.ahead, fold_name(r.name), r.player_id),
        default=None,
    )
    return PlayerFigures(
        player_id=player_id,
        name=name,
        played=len(results),
        wins=results.count("W"),
        draws=results.count("D"),
        losses=results.count("L"),
        per_game=per_game,
        current_streak=current_run(results),
        longest_streak=longest_run(results)[0],
        best_game=best_game,
        nemesis=nemesis,
        victim=victim,
        form=tuple(results[-FORM_LENGTH:]),
        match_numbers=tuple(m.number for m, _ in mine),
        first_date=mine[0][0].date if mine else None,
        last_date=mine[-1][0].date if mine else None,
    )


def game_records(matches: Sequence[MatchLike], game_id: int) -> dict[str, GameRecord]:
    """Every player's results in one game, in one pass over the matches (any order; other games' ignored):
    for each player, the record `player_figures(matches, player).per_game` has for this game (the same
    rules: their first faction that is not a bot's, its result; the name the latest non-empty one)."""
    counts: dict[str, list[int]] = {}  # player -> [played, wins, draws, losses]
    names: dict[str, str] = {}
    for m in in_played_order(matches):
        if m.game is None or m.game.id != game_id:
            continue
        gname = m.game.name
        seen: set[str] = set()
        for f in m.factions:
            if f.bot:
                continue
            result: Result | None = None
            for p in f.players:
                q = str(p.id)
                if q in seen:
                    continue  # one player in two factions: their first counts
                seen.add(q)
                result = result or faction_result(m, f)
                tally = counts.setdefault(q, [0, 0, 0, 0])
                tally[0] += 1
                tally[1 + "WDL".index(result)] += 1
                names[q] = gname if q not in names or gname else names[q]
    return {q: GameRecord(game_id, names[q], *c) for q, c in counts.items()}


def head_to_head(
    matches: Sequence[MatchLike], a_id: str, b_id: str | None, names: Mapping[str, str] | None = None
) -> HeadToHead:
    """A against B; `b_id` None: A against everyone (sums over the other players). `names`: the players'
    names as known elsewhere (the roster), for the one of the two that A's matches do not name (never met);
    the id stands in only when nobody names them."""
    known = names or {}
    named = {pid: known.get(pid, pid) for pid in (a_id, b_id) if pid is not None}
    per_game: dict[int | None, list[int]] = {}  # meetings, a_ahead, b_ahead, ties, together, together_wins
    game_name: dict[int | None, str] = {}
    meetings: list[Meeting] = []
    for m in in_played_order(matches):
        fa = faction_of(m, a_id)
        if fa is None:
            continue
        gid, gname = game_key(m)
        for p in fa.players:
            named[str(p.id)] = p.label
        others = [(f, p) for f in m.factions if not f.bot for p in f.players if str(p.id) != a_id]
        if b_id is not None:
            others = [(f, p) for f, p in others if str(p.id) == b_id][:1]
        if not others:
            continue
        counts = per_game.setdefault(gid, [0, 0, 0, 0, 0, 0])
        game_name[gid] = gname
        won = faction_result(m, fa) == "W"
        for f, p in others:
            q = str(p.id)
            named[q] = p.label
            if f is fa:
                counts[4] += 1
                counts[5] += won
                continue
            counts[0] += 1
            counts[1 if fa.rank < f.rank else 2 if f.rank < fa.rank else 3] += 1
            meetings.append(Meeting(m.number, m.date, gid, gname, q, p.label, fa.rank, f.rank))
    games = tuple(
        sorted(
            (GameH2H(gid, game_name[gid], *c) for gid, c in per_game.items()),
            key=lambda g: (-g.meetings, -g.together, fold_name(g.game_name), g.game_id or 0),
        )
    )
    total = [sum(g[i] for g in per_game.values()) for i in range(6)]
    return HeadToHead(
        a_id=a_id,
        a_name=named[a_id],
        b_id=b_id,
        b_name=EVERYONE if b_id is None else named[b_id],
        meetings=total[0],
        a_ahead=total[1],
        b_ahead=total[2],
        ties=total[3],
        together=total[4],
        together_wins=total[5],
        per_game=games,
        last=tuple(reversed(meetings[-LAST_MEETINGS:])),
    )


def game_figures(matches: Sequence[MatchLike], game_id: int) -> GameFigures:
    """A game's page from the group's matches (the matches of other games are ignored).

    The longest streak: the first to reach the longest run (the record set first)."""
    ours = [m for m in in_played_order(matches) if m.game is not None and m.game.id == game_id]
    name = max(ours, key=lambda m: m.number).game.name if ours else ""  # type: ignore[union-attr]
    results: dict[str, list[tuple[MatchLike, Result]]] = defaultdict(list)
    names: dict[str, str] = {}
    bot_matches = bot_wins = factions = 0
    for m in ours:
        factions += len(m.factions)
        if any(f.bot for f in m.factions):
            bot_matches += 1
            bot_wins += bot_won(m)
        for f in m.factions:
            result = None if f.bot else faction_result(m, f)
            for q in player_ids(f):
                if results[q] and results[q][-1][0] is m:
                    continue  # one player in two factions: counted once
                results[q].append((m, result))  # type: ignore[arg-type]
        for f in m.factions:
            for p in [] if f.bot else f.players:
                names[str(p.id)] = p.label
    tallies = [Tally(q, names[q], sum(1 for _, r in rs if r == "W"), len(rs)) for q, rs in results.items()]
    top = min(
        (t for t in tallies if t.wins > 0),
        key=best_first,
        default=None,
    )
    at = {m.number: i for i, m in enumerate(ours)}
    streaks = []
    for q, rs in results.items():
        length, start = longest_run([r for _, r in rs])
        if length:
            streaks.append(Streak(q, names[q], length, rs[start][0].number, rs[start + length - 1][0].number))
    streak = min(streaks, key=lambda s: (-s.length, at[s.last], s.player_id), default=None)
    return GameFigures(
        game_id=game_id,
        name=name,
        played=len(ours),
        players=len(results),
        average_factions=factions / len(ours) if ours else None,
        bot_matches=bot_matches,
        bot_wins=bot_wins,
        top_winner=top,
        longest_streak=streak,
        first_date=ours[0].date if ours else None,
        last_date=ours[-1].date if ours else None,
    )


def tonight(
    matches: Sequence[MatchLike],
    since: datetime,
    ree_before: Mapping[tuple[int, str], float] | None = None,
    ree_after: Mapping[tuple[int, str], float] | None = None,
    new: Collection[tuple[int, str]] = frozenset(),
) -> Tonight:
    """The evening: matches dated at or after `since`, in the order played. The wire's dates are UTC (the
    service's time zone): an aware `since` is converted, a naive one is taken as UTC.

    `ree_before[(match number, player id)]` is the player's ree before that match, `ree_after[...]` after it
    (`history.ree_around` reads both). Biggest gain: ree after a player's last match of the evening minus
    before their first, by match number, the order ree is computed in (only players with both known, and a
    gain above 0). Biggest upset: the W winner with the lowest ree before their winning match (the earlier
    match on a tie). `new` (`history.ree_around`): the (match number, player id) of a player's first ranked
    match; measured from the ree every newcomer starts at, it is neither a gain nor an upset, so a player
    whose evening starts there has no gain and that match no upset.
    """
    return tonight_figures(matches, since, ree_before or {}, ree_after or {}, frozenset(new))
