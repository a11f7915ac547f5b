"""How this acecode was installed, for the one command that adds an optional extra to it.

``doctor`` names that command when an extra is missing (a plain ``pip install``
without ``[embed]``): it must run as written for the install at hand, so it is
worked out from what the installers leave behind rather than guessed:

* the requirement: ``acecode[embed]``, or the folder it was installed from
  (pip's ``direct_url.json``, PEP 610) for an install from a clone, which is
  what ``install.py``, ``uv tool install .`` and ``pipx install .`` make;
* the tool: ``uv tool`` (its ``uv-receipt.toml`` in the environment) and
  ``pipx`` (``pipx_metadata.json``) reinstall the whole tool with the extra;
  anything else gets this interpreter's ``pip``.
"""

from __future__ import annotations

import json
import shlex
import sys
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

DISTRIBUTION = "acecode"


def _installed_from() -> tuple[str | None, bool]:
    """The local folder acecode was installed from (None for an index) and whether the
    install is editable."""
    try:
        raw = metadata.distribution(DISTRIBUTION).read_text("direct_url.json")
        data = json.loads(raw) if raw else {}
    except (metadata.PackageNotFoundError, ValueError):
        return None, False
    url = data.get("url") if isinstance(data, dict) else None
    if not isinstance(url, str) or not url.startswith("file://"):
        return None, False
    editable = bool((data.get("dir_info") or {}).get("editable"))
    return unquote(urlparse(url).path), editable


def add_extra_command(extra: str, prefix: Path | None = None) -> str:
    """The shell command that adds ``extra`` to this install (``prefix``: its environment,
    default this interpreter's)."""
    environment = Path(prefix or sys.prefix)
    folder, editable = _installed_from()
    requirement = shlex.quote(f"{folder or DISTRIBUTION}[{extra}]")
    if (environment / "uv-receipt.toml").is_file():
        return f"uv tool install --reinstall {requirement}"
    if (environment / "pipx_metadata.json").is_file():
        return f"pipx install --force {requirement}"
    python = shlex.quote(sys.executable)
    return f"{python} -m pip install {'-e ' if editable else ''}{requirement}"
