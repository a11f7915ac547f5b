"""The pure playbook core: schema, IDs, operations, scoring, formatting.

Plain dicts in, plain dicts out, no file I/O (diagnostics aside), so every
rule of the specification can be tested directly.
"""
