"""Template loader, diagnostics, and the lazy public API of ``import acecode``."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import acecode
from acecode.project import diagnostics
from acecode.prompts.templates import TemplateNotFoundError, load_template
from support.hang_guard import HANG_GUARD

# ../shared/DESIGN.md "Public API".
SPEC_NAMES = (
    "SECTION_SLUGS",
    "generate_keypoint_name",
    "load_playbook",
    "save_playbook",
    "format_playbook",
    "update_playbook_data",
    "apply_structured_operations",
    "prune_harmful",
    "apply_bullet_tags",
    "extract_cited_ids",
    "extract_keypoints",
    "run_reflector",
    "run_curator",
    "run_deduplication",
    "load_transcript",
    "is_diagnostic_mode",
    "save_diagnostic",
    "load_template",
)
# Names whose modules this issue delivers: they must always resolve.
CORE_NAMES = (
    "SECTION_SLUGS",
    "generate_keypoint_name",
    "_resolve_section",
    "_apply_curator_operations",
    "load_playbook",
    "save_playbook",
    "update_playbook",
    "format_playbook",
    "update_playbook_data",
    "apply_structured_operations",
    "prune_harmful",
    "apply_bullet_tags",
    "extract_cited_ids",
    "is_diagnostic_mode",
    "save_diagnostic",
    "load_template",
)
HEAVY_MODULES = ("anthropic", "openai", "numpy", "typer", "rich", "httpx", "onnxruntime")


# --- templates ------------------------------------------------------------------------------------


def test_packaged_template_found() -> None:
    text = load_template("playbook.txt")
    assert "{key_points}" in text


def test_user_override_wins(home_dir: Path) -> None:
    prompts = home_dir / ".claude" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "playbook.txt").write_text("mine: {key_points}\n", encoding="utf-8")
    assert load_template("playbook.txt") == "mine: {key_points}\n"


def test_user_override_for_a_name_not_packaged(home_dir: Path) -> None:
    prompts = home_dir / ".claude" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "extra.txt").write_text("extra", encoding="utf-8")
    assert load_template("extra.txt") == "extra"


def test_override_folder_without_that_file_falls_back_to_package(home_dir: Path) -> None:
    (home_dir / ".claude" / "prompts").mkdir(parents=True)
    assert "{key_points}" in load_template("playbook.txt")


def test_unknown_template_raises() -> None:
    with pytest.raises(TemplateNotFoundError, match=r"no-such-template\.txt"):
        load_template("no-such-template.txt")
    assert issubclass(TemplateNotFoundError, FileNotFoundError)


# --- diagnostics ----------------------------------------------------------------------------------


def test_is_diagnostic_mode_follows_flag_file(project_dir: Path) -> None:
    flag = project_dir / ".claude" / "diagnostic_mode"
    assert diagnostics.is_diagnostic_mode() is False
    flag.parent.mkdir()
    flag.touch()
    assert diagnostics.is_diagnostic_mode() is True
    flag.unlink()
    assert diagnostics.is_diagnostic_mode() is False


def test_save_diagnostic_writes_timestamped_redacted_file(project_dir: Path) -> None:
    secret = "sk-ant-api03-" + "A1b2C3d4E5f6" * 8
    path = diagnostics.save_diagnostic(f"calling with key {secret}\nsecond line", "curator call")
    assert path is not None and path.parent == project_dir / ".claude" / "diagnostic"
    assert re.fullmatch(r"\d{8}_\d{6}_\d{6}_curator_call\.txt", path.name)
    content = path.read_text(encoding="utf-8")
    assert secret not in content and "REDACTED" in content and "second line" in content


def test_save_diagnostic_names_stay_inside_the_folder(project_dir: Path) -> None:
    path = diagnostics.save_diagnostic("x", "../../escape/../name")
    assert path is not None and path.parent == project_dir / ".claude" / "diagnostic"


def test_save_diagnostic_never_raises(
    project_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project_dir / ".claude").mkdir()
    (project_dir / ".claude" / "diagnostic").write_text("a file, not a folder")
    assert diagnostics.save_diagnostic("x", "name") is None
    assert capsys.readouterr().err.startswith("acecode: could not write diagnostic")


def test_diagnose_writes_only_in_diagnostic_mode(diagnostic_mode: Path, project_dir: Path) -> None:
    (project_dir / ".claude" / "diagnostic_mode").unlink()
    diagnostics.diagnose("probe", "off")
    assert not diagnostic_mode.exists()
    (project_dir / ".claude" / "diagnostic_mode").touch()
    diagnostics.diagnose("probe", "on")
    (written,) = diagnostic_mode.iterdir()
    assert written.read_text(encoding="utf-8") == "on"


def test_warn_is_one_prefixed_stderr_line(capsys: pytest.CaptureFixture[str]) -> None:
    diagnostics.warn("something happened")
    assert capsys.readouterr() == ("", "acecode: something happened\n")


# --- public API -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", CORE_NAMES)
def test_core_names_importable_from_acecode(name: str) -> None:
    value = getattr(acecode, name)
    assert value is not None
    assert name in dir(acecode)


def test_every_spec_name_whose_module_exists_is_exported() -> None:
    exported = set(acecode.__all__)
    for name in SPEC_NAMES:
        assert name in exported, name
        module = acecode._EXPORTS[name]
        if importlib.util.find_spec(module) is not None:
            assert callable(getattr(acecode, name)) or name == "SECTION_SLUGS", name


def test_unknown_attribute_raises_attribute_error() -> None:
    with pytest.raises(AttributeError):
        _ = acecode.no_such_name  # type: ignore[attr-defined]


def test_import_acecode_imports_nothing_heavy() -> None:
    probe = (
        "import sys, json, acecode\n"
        "acecode.SECTION_SLUGS; acecode.format_playbook; acecode.load_playbook\n"
        f"heavy = {HEAVY_MODULES!r}\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in heavy)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        timeout=HANG_GUARD,
    )
    assert json.loads(out.stdout) == []
