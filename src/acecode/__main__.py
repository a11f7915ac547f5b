"""``python -m acecode`` runs the CLI (used to start the background learner)."""

from acecode.cli import main

main()
