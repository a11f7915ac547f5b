"""``acecode report --html FILE``: one static page about the playbook and what it did.

* :mod:`acecode.report.data`: gathers what the page shows (playbook, provenance,
  history journal, impact, review queue) into plain data;
* :mod:`acecode.report.html`: renders that data as one self-contained HTML
  file (inline CSS and SVG, no script, no network; every text escaped).
"""
