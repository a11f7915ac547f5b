"""Where a long-running command's words go while it works.

* :mod:`~acecode.output.waiting`: progress lines while a slow step runs, to
  whatever sink the command opened;
* :mod:`~acecode.output.log_stream`: the background learner's stderr as stamped
  learn.log lines.
"""
