"""Stale rules: playbook entries that name files, paths or symbols the project no longer has.

:mod:`names` finds what an entry names (pure), :mod:`project` lists the
project's files and searches their text within bounds, :mod:`detect` puts
the two together for ``acecode stats``, ``acecode doctor`` and the curator.
"""

from acecode.staleness.detect import StaleEntry, StaleReport, find_stale, project_root_for

__all__ = ["StaleEntry", "StaleReport", "find_stale", "project_root_for"]
