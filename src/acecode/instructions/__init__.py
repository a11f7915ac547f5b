"""Claude Code's own memory, read so that acecode does not repeat or contradict it.

Claude Code loads instructions into every session: CLAUDE.md files, the
``.claude/rules/*.md`` files (some only once a matching file is read: ``paths:``
front matter) and the first lines of its auto memory (``MEMORY.md``). What it
loads, and when, was measured with the pinned CLI (docs/claude-code.md,
"Claude Code's own memory"); :mod:`.files` finds the same files for a project.

The rest of acecode uses them in three places: the reflector and the curator get
a digest (:mod:`.digest`), the learning cycle keeps proposed texts that repeat
or contradict them out of the playbook (:mod:`.relations`), and the injection
leaves out entries that repeat an instruction already in the same context
(:mod:`.overlap`). ``acecode graduate`` writes proven entries into them
(:mod:`acecode.edits.graduate`).

Text from these files reaches a model as data: a CLAUDE.md that came with a
clone is untrusted input.
"""
