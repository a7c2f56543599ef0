"""REPL configuration: a commented TOML file copied to ``$XDG_CONFIG_HOME`` on first run.

The packaged ``default_config.toml`` is both the documentation and the defaults: values are
read from it first and the user's file is laid over it, so a key deleted by the user falls back
to the packaged value (the litecli ``liteclirc`` pattern).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

FORMATS = ("table", "vertical", "csv", "json")
TERMINATORS = ("go", "semicolon")
WIDE_LAYOUTS = ("vertical", "pager", "squeeze")
# Whether this process hosts the store's activation, timers and transmission (the command
# line's --activation; interpreter/broker_runtime.py).
ACTIVATION_MODES = ("auto", "on", "off")


class ConfigError(Exception):
    """A config file that cannot be read or holds a value of the wrong kind."""


def default_config_text() -> str:
    """The packaged, commented default configuration."""
    return resources.files("tsqlbroker.repl").joinpath("default_config.toml").read_text("utf-8")


def config_path() -> Path:
    """``$XDG_CONFIG_HOME/tsqlbroker/config.toml`` (``~/.config`` when the variable is unset)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "tsqlbroker" / "config.toml"


def ensure_config(path: Path | None = None) -> tuple[Path, bool]:
    """Copy the default config to ``path`` unless a file is there; (path, created)."""
    path = path or config_path()
    if path.exists():
        return path, False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(default_config_text(), encoding="utf-8")
    return path, True


@dataclass
class Config:
    """The settings the REPL uses (flattened from the TOML sections)."""

    url: str | None = None
    database: str = "master"
    batch_terminator: str = "go"
    history_file: Path | None = None
    timing: bool = False
    shell_commands: bool = True
    activation: str = "auto"
    format: str = "table"
    wide_results: str = "vertical"
    pager: str = "auto"
    max_column_width: int = 60
    null_text: str = "NULL"
    log_show: bool = True
    log_info: bool = False
    syntax_style: str = "default"
    colors: dict[str, str] = field(default_factory=dict)

    def pager_command(self) -> str | None:
        """The shell command of the pager, or None when paging is off."""
        if not self.pager:
            return None
        if self.pager == "auto":
            return os.environ.get("PAGER") or "less -SRXF"
        return self.pager


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _get(data: dict[str, Any], section: str, key: str, kind: type) -> Any:
    value = data.get(section, {}).get(key)
    if kind is int and isinstance(value, bool) or not isinstance(value, kind):
        raise ConfigError(f"[{section}] {key} must be a {kind.__name__}, not {value!r}")
    return value


def _choice(data: dict[str, Any], section: str, key: str, choices: tuple[str, ...]) -> str:
    value = str(_get(data, section, key, str)).lower()
    if value not in choices:
        raise ConfigError(f"[{section}] {key} must be one of {', '.join(choices)}, "
                          f"not {value!r}")
    return value


def _history_path(setting: str) -> Path | None:
    if not setting:
        return None
    if setting == "auto":
        base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        return Path(base) / "tsqlbroker" / "history"
    return Path(os.path.expandvars(os.path.expanduser(setting)))


def parse_config(text: str) -> Config:
    """A :class:`Config` from the user's TOML text laid over the packaged defaults."""
    try:
        data = _merge(tomllib.loads(default_config_text()), tomllib.loads(text))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"invalid TOML: {exc}") from None
    history = _get(data, "main", "history_file", str)
    colors = data.get("colors", {})
    return Config(
        url=_get(data, "main", "url", str) or None,
        database=_get(data, "main", "database", str) or "master",
        batch_terminator=_choice(data, "main", "batch_terminator", TERMINATORS),
        history_file=_history_path(history),
        timing=_get(data, "main", "timing", bool),
        shell_commands=_get(data, "main", "shell_commands", bool),
        activation=_choice(data, "main", "activation", ACTIVATION_MODES),
        format=_choice(data, "output", "format", FORMATS),
        wide_results=_choice(data, "output", "wide_results", WIDE_LAYOUTS),
        pager=_get(data, "output", "pager", str),
        max_column_width=_get(data, "output", "max_column_width", int),
        null_text=_get(data, "output", "null_text", str),
        log_show=_get(data, "log", "show", bool),
        log_info=_get(data, "log", "info", bool),
        syntax_style=str(colors.get("syntax_style", "default")),
        colors={k: str(v) for k, v in colors.items() if k != "syntax_style"},
    )


def load_config(path: Path | None = None) -> tuple[Config, Path, bool]:
    """Create the user's config if missing, then read it: (config, path, created)."""
    path, created = ensure_config(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    try:
        return parse_config(text), path, created
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None
