"""Read ``acecode show``'s rich table by its header, so a new column breaks no test."""

from __future__ import annotations


def table_rows(table: str) -> list[dict[str, str]]:
    """Every body row of ``table`` as ``{column header: cell}`` (cells stripped)."""
    header = next(line for line in table.splitlines() if line.startswith("┃"))
    columns = [cell.strip() for cell in header.split("┃")[1:-1]]
    rows = ([cell.strip() for cell in line.split("│")[1:-1]] for line in table.splitlines())
    return [dict(zip(columns, row, strict=True)) for row in rows if len(row) == len(columns)]
