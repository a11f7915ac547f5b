"""Rules that arrive from elsewhere: playbook entries this machine never wrote or approved.

A project playbook is a file in the repository, so a clone, a pull, a checkout
of another branch or a teammate's commit brings entries that no learning cycle
of this machine screened. Before the injection hook first passes such an entry
to the model, the deterministic floor (``acecode.quarantine.screen_text``)
screens it; an entry it holds is left out of the injection and the top-up and
waits in ``acecode review`` ("arrived with the repository") until the user
approves or rejects it. See ``docs/quarantine.md`` ("Rules that arrive with
the repository") for the rules and ``docs/team.md`` for what a team sees.

The modules, each with one job:

- :mod:`~acecode.arrivals.fingerprint`: this machine's secret and the keyed hash
  of a text, so that nothing committed to the repository can pass for this
  machine's own records;
- :mod:`~acecode.arrivals.marks`: the append-only record of the texts this machine
  wrote or approved, rejected, or had the LLM review judge;
- :mod:`~acecode.arrivals.written`: what every save of the playbook on this machine
  adds to that record;
- :mod:`~acecode.arrivals.upgrade`: the record's first contents on an existing
  install, from the history journal;
- :mod:`~acecode.arrivals.verdicts`: the floor's verdicts, cached by text;
- :mod:`~acecode.arrivals.split`: which entries of a playbook arrived, and which
  of those are held;
- :mod:`~acecode.arrivals.announce`: the session-start lines;
- :mod:`~acecode.arrivals.review`: ``acecode review`` for arrivals;
- :mod:`~acecode.arrivals.safety`: the learning cycle's LLM review of arrivals.

Nothing is imported here: the injection hook imports only what it uses.
"""
