"""Fixtures over the real transcripts in ``tests/data/transcripts``."""

from __future__ import annotations

import pytest
from transcript_data import SOURCE_ROWS, SourceRow, row_id


@pytest.fixture(params=SOURCE_ROWS, ids=row_id)
def source_row(request: pytest.FixtureRequest) -> SourceRow:
    """Each real transcript in turn."""
    return request.param
