"""config.toml: profiles, paths, atomic private writes, one-line errors for malformed files."""

import os
import stat
from datetime import datetime

import pytest

from rankterm import config as cfg
from rankterm.wire.errors import ConfigError


@pytest.fixture
def cfg_path(tmp_path, monkeypatch):
    path = tmp_path / "conf" / "config.toml"
    monkeypatch.setenv("RANKTERM_CONFIG", str(path))
    return path


def test_missing_file_means_no_profiles(cfg_path):
    assert cfg.load_config().profiles == {}
    assert cfg.config_path() == cfg_path


def test_round_trip_private(cfg_path):
    conf = cfg.Config(
        theme="rankterm-light",
        default_profile="home",
        profiles={
            "home": cfg.Profile(base_url="http://127.0.0.1:8765", key="k1", secret="s1"),
            "club": cfg.Profile(
                base_url="https://api.example.org/public/api/1/", key="k2", secret_env="CLUB_SECRET"
            ),
        },
    )
    cfg.save_config(conf)
    assert stat.S_IMODE(cfg_path.stat().st_mode) == 0o600
    back = cfg.load_config()
    assert back.theme == "rankterm-light" and back.profile().name == "home"
    assert back.profiles["home"].base_url == "http://127.0.0.1:8765/"
    assert (
        back.profiles["club"].name == "club"
        and "secret =" not in cfg_path.read_text().split("[profiles.club]")[1]
    )


def test_secret_from_env(monkeypatch):
    p = cfg.Profile(base_url="http://x.test/", key="k", secret="inline", secret_env="MY_SECRET")
    monkeypatch.setenv("MY_SECRET", "from-env")
    assert p.resolve_secret() == "from-env"
    assert "inline" not in repr(p)


def test_only_profile_is_default():
    conf = cfg.Config(profiles={"a": cfg.Profile(base_url="http://a.test/")})
    assert conf.profile().name == "a"
    conf.profiles["b"] = cfg.Profile(base_url="http://b.test/")
    assert conf.profile() is None and conf.profile("b").base_url == "http://b.test/"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('theme = "x"\n[profiles.home\nkey = 1\n', ":2: not valid TOML"),
        ("[profiles.home]\nkey = 'k'\n", "profiles.home.base_url: is required"),
        ("[profiles.home]\nbase_url = 'ftp://x'\n", "profiles.home.base_url: must start with http://"),
        ("colour = 'red'\n", "colour: unknown setting"),
        (
            "default_profile = 'nope'\n[profiles.home]\nbase_url = 'http://h/'\n[profiles.room]\nbase_url = 'http://r/'\n",
            "default_profile: no profile is named 'nope' (profiles: home, room)",
        ),
        ("default_profile = 'nope'\n", "default_profile: no profile is named 'nope' (profiles: none)"),
        (
            "[profiles.room]\nbase_url = 'http://127.0.0.1:99999/'\n",
            'profiles.room.base_url: must have a port from 1 to 65535, not "99999"',
        ),
        (
            "[profiles.room]\nbase_url = 'http://127.0.0.1:abc/'\n",
            'profiles.room.base_url: must have a port from 1 to 65535, not "abc"',
        ),
        ("[profiles.room]\nbase_url = 'http://[::1/'\n", "profiles.room.base_url: must close the brackets"),
        ("[profiles.room]\nbase_url = 'http://:8765/'\n", "profiles.room.base_url: must name a host"),
        ("[profiles.home]\nbase_url = 'http://x/'\nverify_tls = 'maybe'\n", "profiles.home.verify_tls"),
        (
            "timezone = 'Mars/Olympus'\n",
            "timezone: 'Mars/Olympus' is not a time zone: give a zoneinfo name such as Europe/Paris",
        ),
        (
            "[profiles.home]\nbase_url = 'http://x/'\ntimezone = 'Europe/Pariss'\n",
            "profiles.home.timezone: 'Europe/Pariss' is not a time zone",
        ),
        ("timezone = 2\n", "timezone: must be a string"),
        ("timezone = '../../etc/passwd'\n", "timezone: '../../etc/passwd' is not a time zone"),
    ],
)
def test_malformed_files_one_line(cfg_path, text, expected):
    cfg_path.parent.mkdir(parents=True)
    cfg_path.write_text(text)
    with pytest.raises(ConfigError) as info:
        cfg.load_config()
    message = str(info.value)
    assert message.startswith(str(cfg_path)) and expected in message and "\n" not in message


def test_binary_file(cfg_path):
    cfg_path.parent.mkdir(parents=True)
    cfg_path.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ConfigError, match="not UTF-8"):
        cfg.load_config()


def test_world_readable_secret_warns(cfg_path):
    conf = cfg.Config(profiles={"h": cfg.Profile(base_url="http://x.test/", secret="s")})
    cfg.save_config(conf)
    assert cfg.config_warnings(conf) == []
    os.chmod(cfg_path, 0o644)
    warnings = cfg.config_warnings(conf)
    assert len(warnings) == 1 and "chmod 600" in warnings[0] and "s" not in warnings[0].split(":")[-1].split()


def test_paths_follow_env(monkeypatch, tmp_path):
    monkeypatch.setenv("RANKTERM_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.setenv("RANKTERM_DATA_DIR", str(tmp_path / "d"))
    assert cfg.token_cache_path() == tmp_path / "c" / "tokens.toml"
    assert cfg.data_dir() == tmp_path / "d"


def test_one_mirror_file_per_service_and_key_in_the_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("RANKTERM_CACHE_DIR", str(tmp_path / "c"))
    home = cfg.mirror_path("http://192.168.1.20:8765/", "k1")
    assert home.parent == tmp_path / "c" / "mirror" and home.name.startswith("192.168.1.20-")
    assert home == cfg.mirror_path("http://192.168.1.20:8765/", "k1")
    others = {
        cfg.mirror_path("http://192.168.1.20:8765/", "k2"),
        cfg.mirror_path("http://192.168.1.20:9999/", "k1"),
        cfg.mirror_path("https://api.example.org/a/", "k1"),
    }
    assert home not in others and len(others) == 3


def test_locate_prints_each_profiles_mirror(cfg_path, monkeypatch, tmp_path, capsys):
    from rankterm.cli import main

    monkeypatch.setenv("RANKTERM_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.setenv("RANKTERM_DATA_DIR", str(tmp_path / "d"))
    cfg.save_config(
        cfg.Config(
            profiles={
                "home": cfg.Profile(base_url="http://10.0.0.2:8765/", key="a"),
                "club": cfg.Profile(base_url="https://rank.example.org/", key="b"),
            }
        )
    )
    assert main(["locate"]) == 0
    out = capsys.readouterr().out
    assert f"{cfg.mirror_path('http://10.0.0.2:8765/', 'a')}  (home)" in out
    assert f"{cfg.mirror_path('https://rank.example.org/', 'b')}  (club)" in out
    lines = out.splitlines()
    assert f"outbox       {tmp_path / 'd' / 'outbox.db'}" in lines
    assert f"drafts       {tmp_path / 'd' / 'drafts'}" in lines
    assert f"service db   {tmp_path / 'd' / 'service.db'}  (rankterm serve without --db)" in lines
    assert f"host key     {tmp_path / 'd' / 'host' / 'ssh_host_ed25519_key'}  (rankterm host)" in lines
    assert f"demo cache   {tmp_path / 'c'}  (the demo group of the day, kept)" in lines
    assert main(["--profile", "club", "locate"]) == 0
    out = capsys.readouterr().out
    assert "(club)" in out and "(home)" not in out


def test_a_profile_client_keeps_its_group_in_the_profiles_mirror(monkeypatch, tmp_path):
    from rankterm.cli import make_demo_client, make_profile_client
    from rankterm.mirror import Group

    monkeypatch.setenv("RANKTERM_CACHE_DIR", str(tmp_path / "c"))
    profile = cfg.Profile(base_url="http://10.0.0.2:8765/", key="a")
    group = make_profile_client(profile)
    assert group.mirror.path == cfg.mirror_path(profile.base_url, profile.key)
    assert stat.S_IMODE(group.mirror.path.stat().st_mode) == 0o600
    group.mirror.close()
    demo = Group.of(make_demo_client())
    assert demo.mirror.path is None  # the demo's group dies with the process
    assert {p.name.split("-")[0] for p in (tmp_path / "c" / "mirror").iterdir()} == {"10.0.0.2"}


def test_timezone_kept_and_the_profiles_own_comes_first(cfg_path):
    conf = cfg.Config(
        timezone="Europe/Paris",
        profiles={
            "home": cfg.Profile(base_url="http://x.test/", timezone="Pacific/Auckland"),
            "club": cfg.Profile(base_url="http://y.test/"),
        },
    )
    cfg.save_config(conf)
    back = cfg.load_config()
    assert back.timezone == "Europe/Paris" and back.profiles["home"].timezone == "Pacific/Auckland"
    assert back.zone("home").name == "Pacific/Auckland" and back.zone("home").label == "Auckland"
    assert back.zone("club").name == "Europe/Paris"
    assert back.zone(None).name == "Europe/Paris"  # the demo group: no profile, the top-level setting
    assert "timezone" not in cfg_path.read_text().split("[profiles.club]")[1]


def test_without_a_setting_the_machines_zone(monkeypatch):
    monkeypatch.setenv("TZ", "America/New_York")
    zone = cfg.Config().zone()
    assert (zone.name, zone.label, zone.note) == ("America/New_York", "New York", "")
    assert zone.show("2026-05-28 20:26:40") == "2026-05-28 16:26"  # EDT, UTC-4
    assert zone.typed_to_wire("2026-01-10 19:30") == "2026-01-11 00:30:00"  # EST, UTC-5


@pytest.fixture
def no_zone_database(monkeypatch):
    """A machine without tzdata: neither the system's zoneinfo tree nor the tzdata package."""
    import sys
    import zoneinfo

    monkeypatch.setitem(sys.modules, "tzdata", None)
    zoneinfo.reset_tzpath(to=[])
    zoneinfo.ZoneInfo.clear_cache()
    try:
        yield
    finally:
        zoneinfo.reset_tzpath()
        zoneinfo.ZoneInfo.clear_cache()


def test_no_zone_database_shows_utc_and_says_so(cfg_path, monkeypatch, no_zone_database):
    monkeypatch.setenv("TZ", "UTC")
    cfg_path.parent.mkdir(parents=True)
    cfg_path.write_text("timezone = 'Europe/Paris'\n")
    conf = cfg.load_config()  # the file is not at fault: the setting is kept
    zone = conf.zone()
    assert zone.label == "UTC" and zone.show("2026-05-28 20:26:40") == "2026-05-28 20:26"
    assert zone.note == (
        "This machine has no time zone database (install tzdata): times are shown in UTC, not Europe/Paris."
    )
    assert cfg.config_warnings(conf) == [zone.note]
    monkeypatch.setenv("TZ", "Europe/Paris")  # no setting, and the machine names a zone it cannot read
    assert cfg.Config().zone().label == "UTC" and "not Europe/Paris" in cfg.Config().zone().note


def test_saving_keeps_what_a_person_wrote_around_the_settings(cfg_path):
    cfg_path.parent.mkdir(parents=True)
    cfg_path.write_text(
        "# the club's settings: ask Ada before changing\n"
        'theme = "rankterm-dark"  # readable on the projector\n'
        'default_profile = "home"\n'
        "\n"
        "# the laptop by the shelf\n"
        "[profiles.home]\n"
        'base_url = "http://192.168.1.20:8765/"  # fixed lease\n'
        'key = "k1"\n'
    )
    conf = cfg.load_config()
    conf.theme = "rankterm-light"
    conf.profiles["club"] = cfg.Profile(base_url="http://127.0.0.1:9000", key="k2")
    cfg.save_config(conf)
    text = cfg_path.read_text()
    for kept in ("# the club's settings: ask Ada", "# the laptop by the shelf", "# fixed lease"):
        assert kept in text
    assert 'theme = "rankterm-light"  # readable on the projector' in text
    back = cfg.load_config()
    assert back.theme == "rankterm-light" and set(back.profiles) == {"home", "club"}
    assert back.profiles["club"].base_url == "http://127.0.0.1:9000/"

    del conf.profiles["club"]
    conf.default_profile = None
    cfg.save_config(conf)
    back = cfg.load_config()
    assert back.default_profile is None and set(back.profiles) == {"home"}
    assert "# the laptop by the shelf" in cfg_path.read_text()


def test_saving_over_a_file_that_is_not_toml_writes_it_anew(cfg_path):
    cfg_path.parent.mkdir(parents=True)
    cfg_path.write_text("theme = = broken\n")
    cfg.save_config(cfg.Config(theme="rankterm-light"))
    assert cfg.load_config().theme == "rankterm-light"


SEASONS = """\
[[seasons]]
name = "Summer"
since = 2026-06-01
until = 2026-09-01

[profiles.club]
base_url = "http://127.0.0.1:8765/"
key = "k1"

[[profiles.club.seasons]]
name = "Autumn league"
since = 2026-09-01
until = 2026-12-01

[[profiles.club.seasons]]
name = "Backwards"  # a person's note, kept
since = 2026-12-01
until = 2026-11-01

[[profiles.club.seasons]]
name = "Winter cup"
since = "2026-12-01T18:00:00"
until = 2027-03-01

[profiles.home]
base_url = "http://127.0.0.1:8766/"
key = "k2"
"""


def test_named_seasons_of_a_profile_else_the_config(cfg_path):
    cfg_path.parent.mkdir(parents=True)
    cfg_path.write_text(SEASONS)
    conf = cfg.load_config()
    club = conf.named_seasons("club")
    assert [(s.name, s.start, s.end) for s in club] == [
        ("Autumn league", datetime(2026, 9, 1), datetime(2026, 12, 1)),
        ("Winter cup", datetime(2026, 12, 1, 18), datetime(2027, 3, 1)),
    ]
    assert (
        [s.name for s in conf.named_seasons("home")]
        == [s.name for s in conf.named_seasons(None)]
        == ["Summer"]
    )


def test_a_bad_season_is_one_sentence_and_the_rest_is_read_and_kept(cfg_path):
    cfg_path.parent.mkdir(parents=True)
    cfg_path.write_text(SEASONS)
    conf = cfg.load_config()
    assert conf.problems == [
        "profiles.club.seasons[2] ('Backwards'): until (not included) must come after since; it is left out"
    ]
    assert cfg.config_warnings(conf)[0] == conf.problems[0]
    assert set(conf.profiles) == {"club", "home"} and conf.profiles["club"].base_url.endswith(":8765/")
    conf.theme = "rankterm-light"  # the app saves the config: nothing of the seasons is lost
    cfg.save_config(conf)
    written = cfg_path.read_text()
    assert written.replace('theme = "rankterm-light"\n', "") == SEASONS
    assert cfg.load_config().named_seasons("club") == conf.named_seasons("club")


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        ('name = "A"\nsince = 2026-01-01', "('A'): needs since and until as dates"),
        ("since = 2026-01-01\nuntil = 2026-02-01", "[1]: needs a name"),
        ('name = "2026-Q1"\nsince = 2026-01-01\nuntil = 2026-04-01', "reads as a calendar period"),
        ('name = "A"\nsince = 2026-01-01\nuntil = 2026-02-01\ncolour = "red"', "'colour' is not a season's"),
        ('name = "A"\nsince = "soon"\nuntil = 2026-02-01', "needs since and until as dates"),
    ],
)
def test_each_bad_season_says_why(cfg_path, entry, said):
    cfg_path.parent.mkdir(parents=True)
    cfg_path.write_text(f'[profiles.club]\nbase_url = "http://x.test/"\n[[profiles.club.seasons]]\n{entry}\n')
    conf = cfg.load_config()
    assert len(conf.problems) == 1 and said in conf.problems[0]
    assert conf.problems[0].startswith("profiles.club.seasons[1]") and conf.problems[0].endswith("left out")
    assert conf.named_seasons("club") == () and conf.profiles["club"].base_url == "http://x.test/"


def test_seasons_not_a_list_and_a_repeated_name(cfg_path):
    cfg_path.parent.mkdir(parents=True)
    cfg_path.write_text(
        'seasons = "all"\n[profiles.c]\nbase_url = "http://x.test/"\n'
        '[[profiles.c.seasons]]\nname = "A"\nsince = 2026-01-01\nuntil = 2026-02-01\n'
        '[[profiles.c.seasons]]\nname = "a"\nsince = 2026-03-01\nuntil = 2026-04-01\n'
    )
    conf = cfg.load_config()
    assert conf.problems == [
        "seasons: must be a list of seasons ([[seasons]] tables); it is left out",
        "profiles.c.seasons[2] ('a'): another season above has that name; it is left out",
    ]
    assert [s.name for s in conf.named_seasons("c")] == ["A"]


def test_a_named_season_goes_to_a_seat_and_back():
    season = cfg.NamedSeason("Autumn league", datetime(2026, 9, 1), datetime(2026, 12, 1, 18))
    assert cfg.read_seasons([season.to_seat()], "the host's seasons") == ((season,), [])
