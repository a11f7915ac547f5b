"""Read one settings file (TOML) whatever it holds, in one line when it cannot be used.

A project's ``.claude/acecode.toml`` arrives with a clone, so it may be anything: 10 MB
(``learn`` took 75 s and 590 MB), binary, nested thousands deep (a traceback), or a
settings file whose comment an editor wrote in Latin-1 (a ``UnicodeDecodeError`` that
stopped injection). Here it is read within :data:`~acecode.project.bounds.MAX_SETTINGS_BYTES`,
bytes that are not UTF-8 are replaced (and said once, so the settings still apply), and
every way of failing is a :class:`SettingsFileError` naming the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acecode.errors import AcecodeError
from acecode.project.bounds import MAX_SETTINGS_BYTES, FileLimitError, read_bounded


class SettingsFileError(AcecodeError, ValueError):
    """A settings file that cannot be read or parsed; one line naming it and why."""


def read_toml(path: Path) -> tuple[dict[str, Any], str | None]:
    """The values in ``path`` ({} when there is no such file, or no folder to hold one),
    and a line about bytes that were not UTF-8 (None when all were). Raises
    :class:`SettingsFileError` when the file cannot be used at all."""
    import tomllib

    try:
        raw = read_bounded(path, MAX_SETTINGS_BYTES, "settings file")
    except (FileNotFoundError, NotADirectoryError):
        return {}, None
    except FileLimitError as exc:
        raise SettingsFileError(str(exc)) from None
    except OSError as exc:
        raise SettingsFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    note = None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        text = raw.decode("utf-8-sig", "replace")
        note = (
            f"{path}: byte {exc.start} is not UTF-8 (Latin-1?); read with such bytes "
            "replaced; save the file as UTF-8"
        )
    try:
        return tomllib.loads(text), note
    except tomllib.TOMLDecodeError as exc:
        raise SettingsFileError(f"cannot read {path}: invalid TOML ({exc})") from None
    except RecursionError:
        raise SettingsFileError(f"cannot read {path}: nested too deeply to be settings") from None
