"""The record's first contents: what an existing install already wrote (the upgrade rule).

An install that learned for months before the arrival screen existed has no
record of the texts it wrote, but its history journal (``history.sqlite``,
:mod:`acecode.store.journal`) has: every saved change, with the entry's text
before and after. So when the record is created, every text that a change in
the journal *gave* an entry counts as known: the text of an entry the change
created, or a text it changed to. Left out:

- texts the same cycle had before, in any entry: a learning cycle that credited
  an entry that arrived with a pull changed its counters, not its text, and one
  that renamed it shows in the journal as a removal and an addition of the same
  text;
- cycles of kind ``merge`` (the merge driver brings in a teammate's texts: they
  are arrivals like those of a fast-forward pull), ``undo`` and ``restore``
  (they bring back texts that were in the file before; whether those were
  known is decided by the cycles that wrote them);
- a journal that git tracks: it came with the repository, so it is no record of
  this machine's.

A playbook with no local history at all (a fresh clone, or an install older
than the journal) starts with an empty record: all of its entries are
arrivals, screened once, and the benign ones are injected as before.
"""

from __future__ import annotations

import os

from acecode.arrivals.fingerprint import fingerprint

JOURNAL_NAME = "history.sqlite"  # acecode.store.journal.JOURNAL_NAME (a test keeps them equal)
NOT_WRITTEN_HERE = ("merge", "undo", "restore")

_QUERY = (
    "SELECT json_extract(made.after_entry, '$.text') FROM changes AS made "
    "JOIN cycles ON cycles.seq = made.seq "
    f"WHERE cycles.kind NOT IN ({', '.join('?' * len(NOT_WRITTEN_HERE))}) "
    "AND made.after_entry IS NOT NULL "
    "AND NOT EXISTS (SELECT 1 FROM changes AS had WHERE had.seq = made.seq "
    "AND json_extract(had.before_entry, '$.text') = json_extract(made.after_entry, '$.text'))"
)


def tracked_by_git(path: str) -> bool:
    """True when git tracks ``path`` (it came with the repository); False outside a
    repository or without git."""
    import subprocess

    try:
        done = subprocess.run(
            ["git", "ls-files", "--error-unmatch", "--", os.path.basename(path)],
            cwd=os.path.dirname(path),
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def journal_texts(journal: str) -> list[str]:
    """The texts the journal's own changes wrote (see the module docstring); ``[]`` when
    there is no journal, git tracks it, or it cannot be read."""
    if not os.path.isfile(journal) or tracked_by_git(journal):
        return []
    import sqlite3
    from contextlib import closing
    from urllib.parse import quote

    uri = f"file:{quote(os.path.abspath(journal))}?mode=ro"
    try:
        with closing(sqlite3.connect(uri, uri=True, timeout=10.0)) as conn:
            rows = conn.execute(_QUERY, NOT_WRITTEN_HERE).fetchall()
    except sqlite3.Error as exc:
        from acecode.project.diagnostics import diagnose

        diagnose("arrivals_upgrade", f"history journal {journal} not read: {exc}")
        return []
    return [text for (text,) in rows if isinstance(text, str)]


def first_known(state_dir: str, key: bytes) -> list[str]:
    """The fingerprints the record starts with: the journal's own texts."""
    texts = journal_texts(os.path.join(state_dir, JOURNAL_NAME))
    return sorted({fingerprint(key, text) for text in texts})
