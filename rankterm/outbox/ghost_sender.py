"""Sending the outbox's ghost players: `GhostSender`, the part of `OutboxSender` that settles a ghost in doubt,
sends one, and settles one as made (its id in the place of the local one, in the outbox and in the mirror).

What a ghost entry is and the rules it is sent by: rankterm/outbox/ghosts.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rankterm.outbox.ghost_names import made_since, new_since, same_named
from rankterm.outbox.ghosts import GhostEntry
from rankterm.outbox.queue import SendQueue
from rankterm.outbox.report import SendReport
from rankterm.wire.errors import (
    ApiError,
    AuthError,
    ErrorItem,
    NeverSent,
    QuotaError,
    RanktermError,
    ServiceError,
    UnexpectedResponse,
)
from rankterm.wire.models import Player

if TYPE_CHECKING:
    from rankterm.mirror import Group


def refused(exc: ApiError) -> bool:
    """True when the service clearly refused to make the ghost (R003, R002…): sending again will not help."""
    return not isinstance(exc, AuthError | QuotaError | ServiceError | UnexpectedResponse)


class GhostSender:
    """The outbox sender's part for ghost entries: settling one in doubt, sending one, and settling one as
    made (its id in the place of the local one, in the outbox and in the mirror)."""

    def __init__(self, outbox: SendQueue, group: Group) -> None:
        self.outbox = outbox
        self.group = group

    async def settle(
        self, entry: GhostEntry, report: SendReport, players: list[Player] | None
    ) -> tuple[bool, list[Player]]:
        """Whether the service already has this ghost in doubt (then settle it as sent); the players read
        (`players`, when the caller read them already for another ghost).

        A ghost of a kind (`seen` known) found among several made since is the smallest id, as every seat
        takes; it is marked taken when this seat cannot tell it made it (more than one is new)."""
        if players is None:
            players = await self.group.players_now(refresh=True)
        found = made_since(players, entry.name, entry.known_before)
        if found is not None:
            several = entry.seen is not None and len(new_since(players, entry.name, entry.seen or ())) > 1
            self._made(entry, found, report, taken=several)
        return found is not None, players

    async def send(self, entry: GhostEntry, report: SendReport) -> None:
        """POST one ghost (written in doubt first) and settle it from the answer; a ghost of a kind that
        another seat has made since is taken instead, before or after the POST."""
        known = entry.known_before
        if entry.attempts == 0 or not entry.in_doubt:
            players = await self.group.players_now(refresh=entry.seen is not None)
            if entry.seen is not None:
                made_elsewhere = made_since(players, entry.name, entry.seen)
                if made_elsewhere is not None:
                    self._made(entry, made_elsewhere, report, taken=True)
                    return
            known = same_named(players, entry.name)
        if not self.outbox.mark_ghost_in_doubt(entry.local_id, known, name=entry.name):
            return  # renamed or discarded since it was read: the next send makes it as it is now, if at all
        try:
            player = await self.group.create_player(entry.name)
        except (AuthError, QuotaError):
            self.outbox.mark_ghost_pending(entry.local_id)  # refused before anything was made
            raise
        except NeverSent:  # no connection: nothing can have been made (and it can be discarded)
            self.outbox.mark_ghost_pending(entry.local_id)
            raise
        except UnexpectedResponse as exc:  # an answer not understood: it may have been made; stays in doubt
            report.failures += 1
            report.stopped = exc
            return
        except ApiError as exc:
            if not refused(exc):  # R001 / 5xx: it may have been made before the failure; stays in doubt
                raise
            self.outbox.mark_ghost_rejected(
                entry.local_id, exc.errors or (ErrorItem(exc.code or "", str(exc)),)
            )
            report.ghost_refusals[entry.local_id] = exc
            return
        if entry.seen is None:
            self._made(entry, player, report)
            return
        kept = await self._one_of_a_kind(entry, player)
        if kept is player:
            self._made(entry, player, report)
        else:
            self._made(entry, kept, report, taken=True, spare_id=str(player.id))

    async def _one_of_a_kind(self, entry: GhostEntry, made: Player) -> Player:
        """After this seat made `made`: the ghost of the name every seat takes, read again from the service
        (another seat may have made one at the same moment): the smallest id among those made since `seen`.
        `made` when the service cannot be read now (it was made; the matches go to it)."""
        try:
            players = await self.group.players_now(refresh=True)
        except RanktermError:
            return made
        chosen = made_since([*players, made], entry.name, entry.seen or ())
        return made if chosen is None or str(chosen.id) == str(made.id) else chosen

    def _made(
        self,
        entry: GhostEntry,
        player: Player,
        report: SendReport,
        *,
        taken: bool = False,
        spare_id: str = "",
    ) -> None:
        """Settle a ghost as made: its id replaces the local one in the outbox (first) and in the mirror."""
        self.outbox.mark_ghost_sent(entry.local_id, str(player.id), taken=taken, spare_id=spare_id)
        self.group.drop_player(entry.local_id)
        if not any(str(p.id) == str(player.id) for p in self.group.cached_players()):
            self.group.hold_player(player)
        report.ghosts[entry.local_id] = player
