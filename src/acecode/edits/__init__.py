"""Edits to a playbook made outside the learning cycle.

* :mod:`~acecode.edits.rule_edits`: one rule by hand (``acecode add``, ``edit``,
  ``forget``);
* :mod:`~acecode.edits.layer_move`: move an entry between the project layer and
  the user layer, and undo the move;
* :mod:`~acecode.edits.merge_driver`: what git's merge driver does when a merge
  touches the playbook (``acecode merge-driver``);
* :mod:`~acecode.edits.gitsetup`: register that merge driver in a repository,
  or take it out.
"""
