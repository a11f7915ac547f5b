"""The package as a package index shows it (issue 29): complete metadata, a long
description written for the index page (absolute links, no placeholders, short), a
typed package, and an sdist without the repository's tests."""

from __future__ import annotations

import re
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

import typer
from dist_support import REPO, Dist

import acecode
from acecode.cli.app import build_app

LINK = re.compile(r"\]\(([^)]+)\)|<a\s+href=\"([^\"]+)\"")
PLACEHOLDER = re.compile(r"<owner>|<org>|\bTODO\b|\bTBD\b|not on PyPI|example\.com", re.I)


def _metadata(dist: Dist):
    with zipfile.ZipFile(dist.wheel) as archive:
        text = archive.read(f"acecode-{acecode.__version__}.dist-info/METADATA").decode()
    return Parser().parsestr(text)


def test_the_metadata_is_complete(dist: Dist) -> None:
    metadata = _metadata(dist)
    classifiers = metadata.get_all("Classifier")
    assert (
        "Typing :: Typed" in classifiers and "Programming Language :: Python :: 3.11" in classifiers
    )
    assert any(c.startswith("Development Status ::") for c in classifiers)
    assert metadata["Author"] and metadata["Keywords"] and metadata["License-Expression"] == "MIT"
    assert metadata.get_all("Project-URL")
    assert metadata["Description-Content-Type"] == "text/markdown"


def test_the_long_description_is_written_for_the_index_page(dist: Dist) -> None:
    description = _metadata(dist).get_payload()
    assert description.strip() == (REPO / "docs" / "pypi.md").read_text(encoding="utf-8").strip()
    assert len(description.encode()) < 16_000  # not the 65 KB README
    links = [a or b for a, b in LINK.findall(description)]
    assert links and all(link.startswith("https://") for link in links), links
    assert not PLACEHOLDER.search(description)
    # Every command it tells the user to run is one acecode has.
    commands = set(typer.main.get_command(build_app()).commands)
    shown = re.findall(r"^\| `acecode ([a-z-]+)|^acecode ([a-z-]+)", description, re.MULTILINE)
    assert len(shown) > 8
    assert {a or b for a, b in shown} <= commands


def test_the_wheel_is_typed_and_the_sdist_holds_no_tests(dist: Dist) -> None:
    with zipfile.ZipFile(dist.wheel) as archive:
        names = archive.namelist()
    assert "acecode/py.typed" in names
    assert not any(name.startswith("tests/") for name in names)
    with tarfile.open(dist.sdist) as archive:
        members = [Path(name).relative_to(Path(name).parts[0]) for name in archive.getnames()]
    assert not any(path.parts[:1] == ("tests",) for path in members), members
    assert Path("docs/pypi.md") in members and Path("README.md") in members
