"""Pure text helpers every level uses; they import no other acecode module.

* :mod:`~acecode.text.redact`: secret redaction for every text that leaves the
  machine or is written to disk;
* :mod:`~acecode.text.wording`: a count with its noun ("1 entry", "2 entries").
"""
