"""Per-rule effect, measured with a randomised hold-back (opt-in: ``experiments = true``).

Which entry reached which session, which were held back at random, whether
each entry's failure (or correction) recurred, and what that says about the
entry. The hook side is kept light (the injection hooks import only
:mod:`~acecode.experiments.files`, :mod:`~acecode.experiments.draw` and
:mod:`~acecode.experiments.serve`); the rest runs in the CLI and the
background learner.

* :mod:`~acecode.experiments.files`: where everything lives in the state folder;
* :mod:`~acecode.experiments.draw`: the hold-back draw of one session;
* :mod:`~acecode.experiments.serve`: what a hook injects once the draw is made,
  and the exposure record it appends;
* :mod:`~acecode.experiments.plan`: at render time, which entries are
  eligible for the draw and the exact lines to drop;
* :mod:`~acecode.experiments.exposure`: reading and pruning the exposure log;
* :mod:`~acecode.experiments.signatures`: each entry's failure and correction
  signatures, from its provenance;
* :mod:`~acecode.experiments.outcomes`: what recurred in each experiment
  session (one scan per transcript, cached);
* :mod:`~acecode.experiments.estimate`: the statistics (any-time-valid 90%
  interval, the classes);
* :mod:`~acecode.experiments.effects`: the per-entry figures from all of the above;
* :mod:`~acecode.experiments.status`: the concluded classes the hooks, the
  ranking, the review notice and the retire candidates read, refreshed after
  every session.

No module here is imported by this package's ``__init__``: the hook pays only
for what it uses.
"""
