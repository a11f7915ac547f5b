"""Quarantine: screen learned texts before they reach the playbook, queue the doubtful ones.

``screen_text`` is the deterministic screen, ``needs_review`` applies the
user's review setting on top of it, and the ``queue`` module keeps the texts
a human must approve or reject (``acecode review``).
"""
