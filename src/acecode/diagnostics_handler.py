"""Where the core's events (:mod:`acecode.events`) become diagnostic files and stderr lines.

Kept apart from :mod:`acecode.diagnostics` so that importing that module (the
injection hook does) never loads ``logging``.
"""

from __future__ import annotations

import logging

from acecode.diagnostics import diagnose, warn
from acecode.events import DIAGNOSTIC_ATTR


class DiagnosticsHandler(logging.Handler):
    """A diagnostic event is saved (when diagnostic mode is on); a warning is printed
    as one ``acecode:`` line."""

    def emit(self, record: logging.LogRecord) -> None:
        name = getattr(record, DIAGNOSTIC_ATTR, None)
        if name is not None:
            diagnose(str(name), record.getMessage())
        elif record.levelno >= logging.WARNING:
            warn(record.getMessage())
