"""Print how many examples each fuzz property ran (also for passing runs)."""

from __future__ import annotations

import pytest
from fuzz_counts import EXAMPLES


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not EXAMPLES:
        return
    terminalreporter.section("fuzz examples run")
    for name, count in sorted(EXAMPLES.items()):
        terminalreporter.write_line(f"{count:>7}  {name}")
    terminalreporter.write_line(f"{sum(EXAMPLES.values()):>7}  total")
