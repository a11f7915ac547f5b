"""Consolidation around a learning cycle: context-collapse guards and curation reports.

``guards`` (pure) decides which removals a cycle may make; ``report`` records
what the cycle did as a JSON file beside the playbook.
"""
