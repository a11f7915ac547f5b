"""Claude Code: its transcripts, sessions, tools, hooks and settings."""
