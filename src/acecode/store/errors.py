"""Errors of the playbook store. Each message is one line naming the file."""

from __future__ import annotations

from acecode.errors import AcecodeError


class PlaybookError(AcecodeError):
    """Base class: the playbook could not be read or written as asked."""


class PlaybookFileError(PlaybookError):
    """The file exists but is not a valid playbook; it is left untouched."""


class PlaybookLockTimeout(PlaybookError):
    """Another process held the playbook lock for longer than the timeout."""


class PlaybookWriteError(PlaybookError):
    """Saving failed (disk full, read-only, permissions); the old file is intact."""
