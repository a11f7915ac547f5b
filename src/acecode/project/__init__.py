"""A project's state: where its files live, its settings and switches, its layers and state files.

* where things are: :mod:`~acecode.project.paths` (every file acecode reads or
  writes), :mod:`~acecode.project.project_root` (which folder is the project),
  :mod:`~acecode.project.state_folder` (``.claude/acecode`` and its
  ``.gitignore``), :mod:`~acecode.project.repository` (the repository a cycle is
  about, in one line);
* what the user chose: :mod:`~acecode.project.config` (settings and where each
  came from), :mod:`~acecode.project.config_check` (settings acecode cannot
  use), :mod:`~acecode.project.control` and :mod:`~acecode.project.session_switch`
  (is acecode active here, in this session);
* the playbook's layers: :mod:`~acecode.project.layers` (the project's and the
  user's) and :mod:`~acecode.project.pins` (entries injected first);
* the state files: :mod:`~acecode.project.outcomes` (what became of every
  session, learn.log), :mod:`~acecode.project.diagnostics` and
  :mod:`~acecode.project.diagnostics_handler` (diagnostic files).

This ``__init__`` imports nothing (tests/test_architecture.py checks it): the
hooks import the small modules above on every prompt, and would pay for
anything imported here.
"""
