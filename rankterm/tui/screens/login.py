"""Login / profiles: pick a profile or make one, test it, save it to config.toml, or open the demo group.

Left, the profiles of config.toml (the demo group first); highlighting one fills the form, enter opens it.
Right, the form: name, base URL, key, and the secret either typed (masked) or read from an environment
variable whose NAME is given. "Test connection" asks for a token and the service status through a temporary
client (`app.client_factory(profile)`); a failure is shown as one sentence under the form. A cached, unexpired
token is used without calling `auth` (the client does that).

Keys: F2 open the demo group · F3 test connection · ctrl+s save · ctrl+o open the profile · ctrl+n new ·
Escape leaves a field of the form for the profile list (then a letter is an app key again).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Checkbox, Header, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from rankterm.config import Profile, save_config
from rankterm.mirror import Group
from rankterm.tui.base import RanktermScreen, task
from rankterm.tui.session import BUILT_IN_DEMO
from rankterm.tui.text import error_sentence, plain, styled
from rankterm.tui.widgets.form_input import FormInput
from rankterm.tui.widgets.key_footer import KeyFooter
from rankterm.wire.errors import RanktermError

DEMO_OPTION = "__demo__"


class FormProblem(ValueError):
    """A field of the form that cannot make a profile: one sentence, and the id of the field to focus."""

    def __init__(self, field: str, sentence: str) -> None:
        super().__init__(sentence)
        self.field = field


class LoginScreen(RanktermScreen):
    """Profiles: choose, create, test, save; or open the demo group."""

    AUTO_FOCUS = "#login-list"
    INFO = "#login-status"

    DEFAULT_CSS = """
    LoginScreen #login-body { height: 1fr; }
    LoginScreen #login-profiles {
        width: 28; height: 1fr; border: round $primary 50%; border-title-color: $text-primary;
    }
    LoginScreen #login-profiles:focus-within { border: round $primary; }
    LoginScreen #login-profiles OptionList { height: 1fr; border: none; padding: 0; }
    LoginScreen #login-form { width: 1fr; height: 1fr; border: round $primary 50%; padding: 0 1; }
    LoginScreen #login-form:focus-within { border: round $primary; }
    LoginScreen #login-grid { grid-size: 2; grid-columns: 10 1fr; grid-rows: 1; grid-gutter: 0 1; height: auto; }
    LoginScreen #login-grid Label { color: $text-muted; }
    LoginScreen #login-grid Input { width: 1fr; }
    LoginScreen .hint { color: $text-muted; height: auto; margin-top: 1; }
    LoginScreen #login-default { border: none; padding: 0; height: 1; margin-top: 1; background: transparent; }
    LoginScreen #login-buttons { height: 1; margin-top: 1; }
    LoginScreen #login-buttons Button { margin-right: 1; min-width: 10; }
    LoginScreen #login-status { height: auto; margin-top: 1; }
    LoginScreen #login-status.-error { color: $text-error; }
    LoginScreen #login-status.-ok { color: $text-success; }
    LoginScreen Input.-invalid { background: $error 25%; }
    """

    BINDINGS = [
        Binding("f2", "open_demo", "Built-in demo"),
        Binding("f3", "test_connection", "Test"),
        Binding("ctrl+s", "save_profile", "Save"),
        Binding("ctrl+o", "open_profile", "Open"),
        Binding("ctrl+n", "new_profile", "New"),
        Binding("escape", "to_list", "Back to the profiles", show=False),  # then a letter is a screen key
    ]

    filled_from: Profile | None = None
    """The profile the form was last filled from (None for a new one): what the form does not show of it
    (verify_tls, timezone) is kept when the form is saved, tested or opened."""

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="login-body"):
            with Vertical(id="login-profiles") as profiles:
                profiles.border_title = "Profiles"
                yield OptionList(id="login-list", compact=True)
            with VerticalScroll(id="login-form") as form:
                form.border_title = "Profile"
                with Grid(id="login-grid"):
                    yield Label("Name")
                    yield FormInput(placeholder="home", id="f-name", compact=True)
                    yield Label("Base URL")
                    yield FormInput(placeholder="http://192.168.1.20:8765/", id="f-url", compact=True)
                    yield Label("Key")
                    yield FormInput(placeholder="client key", id="f-key", compact=True)
                    yield Label("Secret")
                    yield FormInput(
                        placeholder="typed here, masked", password=True, id="f-secret", compact=True
                    )
                    yield Label("or env var")
                    yield FormInput(placeholder="NAME of a variable holding it", id="f-env", compact=True)
                yield Static(
                    "The env var, when given, wins; it is read when the profile is opened.", classes="hint"
                )
                yield Checkbox("Open this profile when rankterm starts", id="login-default")
                with Horizontal(id="login-buttons"):
                    yield Button("Test F3", id="b-test", compact=True)
                    yield Button("Save ^s", id="b-save", compact=True)
                    yield Button("Open ^o", id="b-open", compact=True, variant="primary")
                    yield Button("Demo F2", id="b-demo", compact=True)
                yield Static("", id="login-status")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.fill_list()
        self.query_one("#login-list", OptionList).focus()

    def on_screen_resume(self) -> None:
        self.fill_list()

    def action_to_list(self) -> None:
        """Leave the form's field (Escape): the profile list takes the keys again."""
        self.set_focus(self.query_one("#login-list", OptionList))  # now: the next key typed goes there

    # ------------------------------------------------------------------ the list

    def fill_list(self) -> None:
        """The demo group, then every profile of the config (the default one marked)."""
        config = self.rankterm.config
        demo_open = self.rankterm.demo and self.has_client
        demo = (BUILT_IN_DEMO.capitalize(), "$text-warning")  # in a colour no profile has
        options = [Option(styled(demo, " (open)" if demo_open else ""), id=DEMO_OPTION)]
        for name in sorted(config.profiles):
            marks = []
            if name == config.default_profile:
                marks.append("default")
            if name == self.rankterm.profile_name and not self.rankterm.demo and self.has_client:
                marks.append("open")
            label = f"{name} ({', '.join(marks)})" if marks else name
            options.append(Option(plain(label), id=f"p:{name}"))
        listing = self.query_one("#login-list", OptionList)
        highlighted = listing.highlighted
        listing.set_options(options)
        if options:
            listing.highlighted = min(highlighted or 0, len(options) - 1)

    @on(OptionList.OptionHighlighted, "#login-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        option_id = event.option.id or ""
        if option_id.startswith("p:"):
            profile = self.rankterm.config.profiles.get(option_id[2:])
            if profile is not None:
                self.fill_form(profile)

    @on(OptionList.OptionSelected, "#login-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id == DEMO_OPTION:
            self.action_open_demo()
        else:
            self.action_open_profile()

    # ------------------------------------------------------------------ the form

    def fill_form(self, profile: Profile) -> None:
        self.filled_from = profile
        self.query_one("#f-name", Input).value = profile.name
        self.query_one("#f-url", Input).value = profile.base_url
        self.query_one("#f-key", Input).value = profile.key
        self.query_one("#f-secret", Input).value = profile.secret
        self.query_one("#f-env", Input).value = profile.secret_env
        self.query_one("#login-default", Checkbox).value = (
            profile.name == self.rankterm.config.default_profile
        )
        self.say("")

    def read_form(self) -> Profile:
        """The profile the form describes; raises FormProblem naming the field that is wrong."""
        for widget in self.query("#login-grid Input").results(Input):
            widget.remove_class("-invalid")
        name = self.query_one("#f-name", Input).value.strip()
        url = self.query_one("#f-url", Input).value.strip()
        env = self.query_one("#f-env", Input).value.strip()
        if not name:
            raise FormProblem("f-name", "A profile needs a name.")
        if not url:
            raise FormProblem("f-url", "A profile needs the service's base URL.")
        if env and not env.replace("_", "").isalnum():
            raise FormProblem("f-env", "An environment variable name has only letters, digits and _.")
        # what the form does not show (verify_tls, timezone, ...) is kept: from the profile saved under this
        # name, else from the one the form was filled from (saved under a new name)
        base = self.rankterm.config.profiles.get(name) or self.filled_from
        edited: dict[str, Any] = {
            "base_url": url,
            "key": self.query_one("#f-key", Input).value.strip(),
            "secret": "" if env else self.query_one("#f-secret", Input).value,
            "secret_env": env,
        }
        try:
            profile = dataclasses.replace(base, **edited) if base is not None else Profile(**edited)
        except ValueError as exc:
            raise FormProblem("f-url", f"The base URL {exc}.") from None
        profile.name = name
        return profile

    def _profile_or_say(self) -> Profile | None:
        try:
            return self.read_form()
        except FormProblem as problem:
            field = self.query_one(f"#{problem.field}", Input)
            field.add_class("-invalid")
            field.focus()
            self.say(str(problem), "error")
            return None

    def _temporary_client(self, profile: Profile) -> Group | None:
        if profile.secret_env and profile.secret_env not in os.environ:
            self.say(
                f"The environment variable {profile.secret_env} is not set: it should hold the secret.",
                "error",
            )
            return None
        factory = self.rankterm.client_factory
        if factory is None:
            self.say("Profiles cannot be opened in this session.", "error")
            return None
        try:
            return Group.of(factory(profile))
        except (RanktermError, ValueError) as exc:
            self.say(error_sentence(exc) if isinstance(exc, RanktermError) else str(exc), "error")
            return None

    # ------------------------------------------------------------------ actions

    @on(Button.Pressed, "#b-test")
    def action_test_connection(self) -> None:
        profile = self._profile_or_say()
        if profile is not None:
            self.test_connection(profile)

    @task(group="login")
    async def test_connection(self, profile: Profile) -> None:
        group = self._temporary_client(profile)
        if group is None:
            return
        status_widget = self.query_one("#login-status", Static)
        self.say("Testing the connection…")
        status_widget.loading = True
        try:
            await group.client.authenticate()
            status = await group.client.status()
        except RanktermError as exc:
            self.say(error_sentence(exc), "error")
        else:
            shown = ", ".join(f"{k} {v}" for k, v in status.items()[:3])
            self.say(f"Connected to {profile.base_url}" + (f": {shown}." if shown else "."), "ok")
        finally:
            status_widget.loading = False
            with contextlib.suppress(Exception):
                await group.client.aclose()

    @on(Button.Pressed, "#b-save")
    def action_save_profile(self) -> None:
        profile = self._profile_or_say()
        if profile is None:
            return
        config = self.rankterm.config
        config.profiles[profile.name] = profile
        if self.query_one("#login-default", Checkbox).value or len(config.profiles) == 1:
            config.default_profile = profile.name
        elif config.default_profile == profile.name:
            config.default_profile = None
        try:
            path = save_config(config)
        except (RanktermError, OSError) as exc:
            self.say(f"The profile could not be saved: {exc}", "error")
            return
        self.fill_list()
        self.say(f"Saved profile {profile.name} to {path}.", "ok")

    @on(Button.Pressed, "#b-open")
    def action_open_profile(self) -> None:
        profile = self._profile_or_say()
        if profile is not None:
            self.rankterm.ask_leaving_group(lambda: self.open_profile(profile), f"Open {profile.name}")

    @task(group="login")
    async def open_profile(self, profile: Profile) -> None:
        group = self._temporary_client(profile)
        if group is None:
            return
        self.say(f"Opening {profile.name}…")
        try:
            await group.client.authenticate()  # a cached, unexpired token makes no call
        except RanktermError as exc:
            self.say(error_sentence(exc), "error")
            await group.client.aclose()
            return
        self.say("")
        await self.rankterm.open_client(group, profile_name=profile.name)

    @on(Button.Pressed, "#b-demo")
    def action_open_demo(self) -> None:
        self.rankterm.ask_leaving_group(self.open_demo, f"Open the {BUILT_IN_DEMO}")

    @task(group="login")
    async def open_demo(self) -> None:
        await self.rankterm.open_demo()
        self.say("")

    def action_new_profile(self) -> None:
        self.filled_from = None
        for widget in self.query("#login-grid Input").results(Input):
            widget.value = ""
            widget.remove_class("-invalid")
        self.query_one("#login-default", Checkbox).value = False
        self.say("New profile: fill in the form, then test (F3) and save (ctrl+s).")
        self.query_one("#f-name", Input).focus()
