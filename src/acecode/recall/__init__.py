"""Recall: a learned entry put in front of the agent at the tool call it is about.

``pattern`` (input patterns and their matching) and ``quality`` (which
patterns may be used) are the first parts; the hooks and the trigger index
build on them. Imports nothing: the hook path loads only what it uses.
"""
