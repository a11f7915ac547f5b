"""Where the core's events (:mod:`acecode.events`) become diagnostic files and stderr lines.

Kept apart from :mod:`acecode.project.diagnostics` so that importing that module (the
injection hook does) never loads ``logging``. :mod:`acecode.events` installs the
handler and tells it which record attribute names a diagnostic, so this module
does not import the events module back.
"""

from __future__ import annotations

import logging

from acecode.project.diagnostics import diagnose, warn


class DiagnosticsHandler(logging.Handler):
    """A diagnostic event is saved (when diagnostic mode is on); a warning is printed
    as one ``acecode:`` line; ``diagnostic_attr`` is the record attribute that holds a
    diagnostic's name (:data:`acecode.events.DIAGNOSTIC_ATTR`)."""

    def __init__(self, diagnostic_attr: str) -> None:
        super().__init__()
        self.diagnostic_attr = diagnostic_attr

    def emit(self, record: logging.LogRecord) -> None:
        name = getattr(record, self.diagnostic_attr, None)
        if name is not None:
            diagnose(str(name), record.getMessage())
        elif record.levelno >= logging.WARNING:
            warn(record.getMessage())
