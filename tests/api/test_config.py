"""config.toml: profiles, paths, atomic private writes, one-line errors for malformed files."""

import os
import stat

import pytest

from rankterm import config as cfg
from rankterm.api.errors import ConfigError


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
        ("[profiles.home]\nbase_url = 'http://x/'\nverify_tls = 'maybe'\n", "profiles.home.verify_tls"),
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
