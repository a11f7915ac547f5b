"""The prompt templates (``*.txt`` beside this file) and :mod:`~acecode.prompts.templates`,
which loads them (a user's copy in ``~/.claude/prompts/`` wins)."""
