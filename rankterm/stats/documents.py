"""The figures as JSON documents: what `rankterm stats ... --format json` prints (README lists the keys).

Rates are fractions 0..1 rounded to 4 places (null when nothing to divide by); ree to 2 places; dates the
wire's "YYYY-MM-DD HH:MM:SS" (UTC); a player is {"id", "name"}, a game {"id", "name"}.
"""

from __future__ import annotations

from typing import Any

from rankterm.stats.results import (
    GameFigures,
    GameRecord,
    HeadToHead,
    PlayerFigures,
    Rival,
    Tally,
    Tonight,
)


def _rate(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _player(player_id: str, name: str) -> dict[str, Any]:
    return {"id": player_id, "name": name}


def _game(game_id: int | None, name: str) -> dict[str, Any]:
    return {"id": game_id, "name": name}


def game_record(record: GameRecord) -> dict[str, Any]:
    return {
        "game": _game(record.game_id, record.game_name),
        "played": record.played,
        "wins": record.wins,
        "draws": record.draws,
        "losses": record.losses,
        "win_rate": _rate(record.win_rate),
    }


def _rival(rival: Rival | None) -> dict[str, Any] | None:
    if rival is None:
        return None
    return {
        "player": _player(rival.player_id, rival.name),
        "meetings": rival.meetings,
        "ahead": rival.ahead,
        "behind": rival.behind,
        "ties": rival.ties,
    }


def _tally(tally: Tally | None) -> dict[str, Any] | None:
    if tally is None:
        return None
    return {
        "player": _player(tally.player_id, tally.name),
        "wins": tally.wins,
        "played": tally.played,
        "win_rate": _rate(tally.win_rate),
    }


def player_document(f: PlayerFigures) -> dict[str, Any]:
    return {
        "player": _player(f.player_id, f.name),
        "played": f.played,
        "wins": f.wins,
        "draws": f.draws,
        "losses": f.losses,
        "win_rate": _rate(f.win_rate),
        "current_streak": f.current_streak,
        "longest_streak": f.longest_streak,
        "form": list(f.form),
        "best_game": game_record(f.best_game) if f.best_game else None,
        "nemesis": _rival(f.nemesis),
        "favourite_victim": _rival(f.victim),
        "per_game": [game_record(g) for g in f.per_game],
        "first_date": f.first_date,
        "last_date": f.last_date,
    }


def h2h_document(h: HeadToHead) -> dict[str, Any]:
    counts = ("meetings", "a_ahead", "b_ahead", "ties", "together", "together_wins")
    return {
        "a": _player(h.a_id, h.a_name),
        "b": None if h.b_id is None else _player(h.b_id, h.b_name),
        **{key: getattr(h, key) for key in counts},
        "per_game": [
            {"game": _game(g.game_id, g.game_name), **{key: getattr(g, key) for key in counts}}
            for g in h.per_game
        ],
        "last": [
            {
                "match": m.match_number,
                "date": m.date,
                "game": _game(m.game_id, m.game_name),
                "other": _player(m.other_id, m.other_name),
                "a_rank": m.a_rank,
                "b_rank": m.b_rank,
                "ahead": m.outcome,
            }
            for m in h.last
        ],
    }


def game_document(g: GameFigures) -> dict[str, Any]:
    streak = g.longest_streak
    return {
        "game": _game(g.game_id, g.name),
        "played": g.played,
        "players": g.players,
        "average_factions": None if g.average_factions is None else round(g.average_factions, 2),
        "bot_matches": g.bot_matches,
        "bot_wins": g.bot_wins,
        "bot_win_rate": _rate(g.bot_win_rate),
        "top_winner": _tally(g.top_winner),
        "longest_streak": None
        if streak is None
        else {
            "player": _player(streak.player_id, streak.name),
            "length": streak.length,
            "first_match": streak.first,
            "last_match": streak.last,
        },
        "first_date": g.first_date,
        "last_date": g.last_date,
    }


def tonight_document(t: Tonight, *, ree_loaded: int = 0, ree_wanted: int = 0) -> dict[str, Any]:
    gain, upset = t.biggest_gain, t.biggest_upset
    return {
        "since": t.since.isoformat(timespec="seconds"),
        "matches": [
            {
                "match": m.number,
                "date": m.date,
                "game": _game(m.game_id, m.game_name),
                "winners": [_player(i, n) for i, n in zip(m.winners, m.winner_names, strict=True)],
                "draw": m.draw,
                "bot_won": m.bot_won,
            }
            for m in t.matches
        ],
        "players": [_tally(x) for x in t.tallies],
        "biggest_gain": None
        if gain is None
        else {
            "player": _player(gain.player_id, gain.name),
            "before": round(gain.before, 2),
            "after": round(gain.after, 2),
            "gain": round(gain.gain, 2),
        },
        "biggest_upset": None
        if upset is None
        else {
            "match": upset.match_number,
            "game": upset.game_name,
            "player": _player(upset.player_id, upset.name),
            "ree_before": round(upset.ree_before, 2),
        },
        "ree_loaded": ree_loaded,
        "ree_wanted": ree_wanted,
    }
