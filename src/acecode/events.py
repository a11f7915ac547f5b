"""How the pure core reports what it did: diagnostic events and warnings, through logging.

The playbook core (``playbook/``, ``dedup/``, ``consolidation/``) computes and
returns; it never opens a file and never prints. What it has to say goes to
the ``acecode.events`` logger:

* a *diagnostic* (the spec's OBS-* events): level DEBUG, the record's
  ``acecode_diagnostic`` attribute is its name (``curator_ops_summary``), the
  message its content;
* a *warning* for the user: level WARNING, one line.

Whoever listens decides what happens. Unless a program has put its own
handlers on the logger before, the first event installs acecode's
(:class:`acecode.project.diagnostics_handler.DiagnosticsHandler`), which writes each
diagnostic to ``.claude/diagnostic/`` while diagnostic mode is on and prints
each warning as one ``acecode:`` line on stderr. ``logging`` is imported on
the first event, so the per-prompt hook path does not load it.
"""

from __future__ import annotations

import _thread
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import logging

EVENTS_LOGGER = "acecode.events"
DIAGNOSTIC_ATTR = "acecode_diagnostic"

_ready = False
# Two threads reporting their first event at once must not install two handlers
# (every line would print twice); ``_thread`` is built in, unlike ``threading``.
_install_lock = _thread.allocate_lock()


def diagnostic(name: str, content: str) -> None:
    """Report the diagnostic event ``name`` (an OBS-* event of the spec) with ``content``."""
    import logging

    _events_logger().log(logging.DEBUG, "%s", content, extra={DIAGNOSTIC_ATTR: name})


def warning(message: str) -> None:
    """Report something the user should see, in one line."""
    import logging

    _events_logger().log(logging.WARNING, "%s", message)


def _events_logger() -> logging.Logger:
    """The events logger, with acecode's handler unless a program configured its own."""
    global _ready
    import logging

    logger = logging.getLogger(EVENTS_LOGGER)
    if not _ready:
        with _install_lock:
            if not _ready and not logger.handlers:
                from acecode.project.diagnostics_handler import DiagnosticsHandler

                logger.addHandler(DiagnosticsHandler(DIAGNOSTIC_ATTR))
                logger.setLevel(logging.DEBUG)
                logger.propagate = False
            _ready = True
    return logger
