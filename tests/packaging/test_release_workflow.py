"""The release workflow builds, checks and publishes on a version tag with PyPI's
trusted publishing (issue 29). It cannot run here, so it is read: zizmor, a linter
for GitHub Actions workflows (installed from PyPI by the dev extra), audits it
offline, and its shape is checked against what trusted publishing needs."""

from __future__ import annotations

import re
import shutil
import subprocess

import yaml
from dist_support import REPO

from support.hang_guard import HANG_GUARD

WORKFLOW = REPO / ".github" / "workflows" / "release.yml"
PINNED = re.compile(r"^[\w.-]+/[\w.-]+@[0-9a-f]{40}$")


def test_zizmor_finds_nothing() -> None:
    zizmor = shutil.which("zizmor")
    assert zizmor, "zizmor is in the dev extra"
    done = subprocess.run(
        [zizmor, "--offline", str(WORKFLOW)], capture_output=True, text=True, timeout=HANG_GUARD
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_it_publishes_on_a_tag_with_trusted_publishing_and_no_secret() -> None:
    text = WORKFLOW.read_text(encoding="utf-8")
    workflow = yaml.safe_load(text)
    assert workflow[True] == {"push": {"tags": ["v*"]}}  # YAML 1.1 reads `on` as True
    assert workflow["permissions"] == {}
    build, publish = workflow["jobs"]["build"], workflow["jobs"]["publish"]
    assert publish["needs"] == "build"
    assert publish["permissions"] == {"id-token": "write"}
    assert publish["environment"]["name"] == "pypi"
    runs = " ".join(step.get("run", "") for step in build["steps"])
    for needed in ("python -m build", "twine check --strict dist/*", "check-wheel-contents"):
        assert needed in runs
    uses = [step["uses"] for job in (build, publish) for step in job["steps"] if "uses" in step]
    assert uses[-1].startswith("pypa/gh-action-pypi-publish@")
    assert all(PINNED.match(use) for use in uses), uses
    assert "secrets." not in text and "password" not in text
