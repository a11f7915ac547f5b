"""Impact from the user's own history, with no LLM call.

``acecode impact`` streams the project's Claude Code transcripts once and
answers "does any of it help?": which failures recur (as normalised
signatures, :mod:`acecode.impact.signature`), whether a failure became rarer
after the entry learned from it (linked through provenance), how often the
agent cites each entry, and which entries nobody cited or tagged lately.

* :mod:`acecode.impact.signature`: failure signatures (tool, command head,
  normalised error line);
* :mod:`acecode.impact.scan`: one pass over the transcripts, one small
  summary per session;
* :mod:`acecode.store.provenance` (not here): the entries' origins, through
  which an entry is linked to the failure it was learned from;
* :mod:`acecode.impact.analysis`: the report built from those summaries.
"""
