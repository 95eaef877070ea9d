"""Import (mode "import", "Import plays…" in the command palette): plays from BG Stats, BoardGameGeek, a CSV
file or a rankterm export, checked first and sent through the outbox, as `rankterm import` does.

Type the file's path (and, optionally, a map file: names of the file to the group's players, co-op and
lowest-wins games; its shape is in rankterm/importing/mapping.py) and press Enter (or ctrl+y): the dry
run reads the whole file and shows what it would do — the sentences of `report.summary` and, in tabs, the
people, the games, the plays skipped and why, the first matches to record. Nothing is sent until ctrl+s: then
the new games are made and the ghosts and matches go into the outbox and out to the service a chunk at a
time, with a progress bar; what cannot be sent now stays in the outbox (the status line and `o` show it) and
goes out when the service answers again. Importing the same file twice records nothing new.

Everything read from the file or the service reaches the screen as plain text (TextTable, `plain()`).
"""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Header, ProgressBar, Static, TabbedContent, TabPane

from rankterm.importing import Plan, load_map, open_source, plan_import, send_plan
from rankterm.importing.report import nothing_recorded, outcome, sections, summary
from rankterm.tui.base import RanktermScreen, task
from rankterm.tui.text import plain
from rankterm.tui.widgets.form_input import FormInput
from rankterm.tui.widgets.key_footer import KeyFooter
from rankterm.tui.widgets.text_table import TextTable, fill_table
from rankterm.wire.errors import RanktermError

TABS = ("Players", "Games", "Skipped", "Matches to record")
HINT = "Type the file's path and press Enter to check it; nothing is sent before ctrl+s."


class ImportScreen(RanktermScreen):
    """Pick a file, see its dry run, then send it through the outbox."""

    INFO = "#import-info"
    AUTO_FOCUS = "#import-path"

    DEFAULT_CSS = """
    ImportScreen #import-files { height: auto; margin: 1 1 0 1; }
    ImportScreen #import-path { width: 2fr; }
    ImportScreen #import-map { width: 1fr; }
    ImportScreen #import-info { height: auto; padding: 0 1; color: $text-muted; }
    ImportScreen #import-info.-ok { color: $text-success; }
    ImportScreen #import-info.-warning { color: $text-warning; }
    ImportScreen #import-info.-error { color: $text-error; }
    ImportScreen #import-summary { height: auto; max-height: 8; padding: 0 1; }
    ImportScreen #import-progress { margin: 0 1; display: none; }
    ImportScreen #import-progress.-sending { display: block; }
    ImportScreen TabbedContent { height: 1fr; }
    ImportScreen TextTable { height: 1fr; }
    """

    BINDINGS = [
        Binding("ctrl+y", "check", "Check (dry run)"),
        Binding("ctrl+s", "send", "Send"),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.plan: Plan | None = None
        self.sending = False

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="import-files"):
            yield FormInput(placeholder="file: a BG Stats, BGG, CSV or rankterm export", id="import-path")
            yield FormInput(placeholder="map file (optional)", id="import-map")
        yield Static(plain(HINT), id="import-info", markup=False)
        yield Static("", id="import-summary", markup=False)
        yield ProgressBar(id="import-progress", show_eta=False)
        with TabbedContent(*TABS, id="import-tabs"):
            for n, _title in enumerate(TABS):
                with TabPane(_title, id=f"import-tab-{n}"):
                    yield TextTable(id=f"import-table-{n}", cursor_type="row", zebra_stripes=True)
        yield KeyFooter()

    def on_unmount(self) -> None:
        self._drop_plan()

    def _drop_plan(self) -> None:
        if self.plan is not None:
            self.plan.close()
            self.plan = None

    def has_unsent_input(self) -> bool:
        """Quitting in the middle of an import asks first (what is queued is kept in the outbox)."""
        return self.sending

    # ------------------------------------------------------------------ checking

    @on(FormInput.Submitted)
    def _submitted(self) -> None:
        self.action_check()

    def action_check(self) -> None:
        if self.sending:
            self.say("An import is being sent; wait for it to finish.", "warning")
            return
        path = self.query_one("#import-path", FormInput).value.strip()
        if not path:
            self.say(HINT, "warning")
            return
        self.check(path, self.query_one("#import-map", FormInput).value.strip())

    @task(group="import")
    async def check(self, path: str, map_path: str) -> None:
        self._drop_plan()
        self._show(None)
        self.say("Reading the file…")
        try:
            source = open_source(Path(path).expanduser())
            map_file = load_map(Path(map_path).expanduser()) if map_path else None
            plan = await plan_import(
                self.group,
                source,
                map_file=map_file,
                outbox=self.session.outbox.outbox,
                progress=lambda n: self.say(f"Reading the file… {n} plays"),
            )
        except RanktermError as exc:
            self.show_error(exc)
            return
        if not self.is_attached:
            plan.close()
            return
        self.plan = plan
        self._show(plan)
        why_nothing = nothing_recorded(plan)
        if plan.to_record or plan.queued:
            self.say(f"Checked: ctrl+s sends {plan.to_record} matches through the outbox.", "ok")
        elif why_nothing is not None:  # every play of the file skipped: say why, not "nothing new"
            self.say(why_nothing, "error")
        else:
            self.say("Nothing new to record in this file.", "warning")

    def _show(self, plan: Plan | None) -> None:
        self.query_one("#import-summary", Static).update(plain("\n".join(summary(plan))) if plan else "")
        tables = {s.title.split(" (")[0]: s for s in sections(plan)} if plan else {}
        for n, title in enumerate(TABS):
            table = self.query_one(f"#import-table-{n}", TextTable)
            section = tables.get(title)
            if section is None:
                table.clear(columns=True)
                continue
            # each column as wide as its widest cell at once (str cells: plain text, measured in cells)
            fill_table(table, section.columns, section.rows)

    # ------------------------------------------------------------------ sending

    def action_send(self) -> None:
        plan = self.plan
        if self.sending:
            return
        if plan is None:
            self.say("Check a file first (Enter in its path, or ctrl+y).", "warning")
            return
        if not (plan.to_record or plan.queued):
            self.say("Nothing new to record in this file.", "warning")
            return
        self.send(plan)

    @task(group="import")
    async def send(self, plan: Plan) -> None:
        if not self.has_client:
            self.say("No service is open.", "error")
            return
        runner = self.session.outbox
        bar = self.query_one("#import-progress", ProgressBar)
        bar.update(total=max(1, plan.to_record), progress=0)
        bar.add_class("-sending")
        self.sending = True
        self.say(f"Sending {plan.to_record} matches…")
        try:
            report = await send_plan(
                plan,
                self.group,
                runner.outbox,
                lambda: runner.send(force=True),
                progress=lambda done, _total: bar.update(progress=done),
            )
        except RanktermError as exc:
            self.show_error(exc)
            return
        finally:
            self.sending = False
            bar.remove_class("-sending")
            runner.refresh_counts()
            self.rankterm.group_changed()
        self._drop_plan()
        if report.rejected or report.waiting or report.left_out:
            self.say(outcome(report), "warning", to="both")
        else:
            self.say(outcome(report), "ok", to="both")
