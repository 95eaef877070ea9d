"""`MatchExistsDialog`: asks "does a match with external id X exist?", an `AskDialog` that stays open.

Type an external id, Enter asks the service (`client.match_exists`, in a worker) and the answer is shown under
the field, "yes" or "no", in one sentence; the dialog stays open for the next question. Escape closes it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from rankterm.tui.dialogs.ask_line import Answer, AskDialog

Ask = Callable[[str], Awaitable[bool]]


class MatchExistsDialog(AskDialog):
    """Ask whether an accepted match carries an external id; `answer` is the last one (None: none yet)."""

    def __init__(self, ask: Ask, external_id: str = "") -> None:
        self.ask = ask
        self.answer: bool | None = None
        super().__init__(
            "Does this external id exist?",
            "External id of a match (as sent with it):",
            submit=self._lookup,
            placeholder="e.g. rt-1a2b3c4d5e6f",
            ok_label="Ask",
            value=external_id,
        )

    async def _lookup(self, text: str) -> Answer:
        wanted = text.strip()
        self.answer = None
        if not wanted:
            raise ValueError("Type an external id first.")
        self.answer = await self.ask(wanted)
        if self.answer:
            return Answer(f"Yes: an accepted match has the external id {wanted!r}.", "ok")
        return Answer(f"No: no accepted match has the external id {wanted!r}.", "warning")
