"""The collector paused while `rankterm demo` starts (rankterm/cli/startup.py) is always given back."""

from __future__ import annotations

import gc
import threading

import pytest

from rankterm.cli import startup


@pytest.fixture
def collector():
    """The collector enabled for the test, and as it was afterwards."""
    was = gc.isenabled()
    gc.enable()
    yield
    (gc.enable if was else gc.disable)()


def test_pause_then_resume_gives_the_collector_back_once(collector):
    pause = startup.pause_gc()
    assert not gc.isenabled() and pause.paused
    pause.resume()
    assert gc.isenabled() and not pause.paused
    gc.disable()  # someone else's choice afterwards is not undone by a late timer
    pause.resume()
    assert not gc.isenabled()


def test_a_collector_the_process_disabled_stays_disabled(collector):
    gc.disable()
    pause = startup.pause_gc()
    assert not pause.paused
    pause.resume()
    assert not gc.isenabled()


def test_the_timer_gives_it_back_without_holding_the_exit(collector, monkeypatch):
    started: list[threading.Timer] = []
    real = threading.Timer

    def recording(*args, **kwargs):
        timer = real(*args, **kwargs)
        started.append(timer)
        return timer

    monkeypatch.setattr(startup.threading, "Timer", recording)
    pause = startup.pause_gc()  # arms the longest pause
    pause.resume_in(0.01)
    assert [t.daemon for t in started] == [True, True]
    started[1].join(5)
    assert gc.isenabled() and not pause.paused
    started[0].cancel()


def test_a_failed_build_gives_the_collector_back(collector, monkeypatch, tmp_path):
    from rankterm.cli import app

    monkeypatch.setenv("RANKTERM_CONFIG", str(tmp_path / "config.toml"))

    def broken(**kwargs):
        raise RuntimeError("the app could not be built")

    monkeypatch.setattr(app, "_build_app", broken)
    with pytest.raises(RuntimeError):
        app.build_app(demo=True, profile=None)
    assert gc.isenabled()


def test_a_demo_group_that_could_not_be_built_gives_the_collector_back(collector, monkeypatch):
    from rankterm.cli import app
    from rankterm.wire.errors import RanktermError

    def broken(clock=None):
        raise RanktermError("The demo group could not be built.")

    monkeypatch.setattr(app, "make_demo_client", broken)
    pause = startup.pause_gc()
    factory = app._demo_factory(pause)
    with pytest.raises(RanktermError):
        factory()  # what the app's `open_demo` calls (in a thread) and says in one sentence
    assert gc.isenabled() and not pause.paused
