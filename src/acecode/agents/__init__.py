"""What is specific to each coding agent acecode serves (Claude Code, Codex CLI)."""
