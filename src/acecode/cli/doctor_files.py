"""``acecode doctor``'s checks of files acecode keeps or reads beside the playbook: the
prompt template overrides (:mod:`acecode.prompts.templates`) and a save a killed process
left half done (:mod:`acecode.store.commit`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acecode.project.layer import Layer


def prompt_templates() -> list[str]:
    """Each override in use, and each that cannot be (the packaged template runs instead)."""
    from acecode.prompts.templates import (
        TEMPLATES,
        override_problem,
        template_override,
        user_template_dir,
    )

    lines = []
    for name in TEMPLATES:
        override = template_override(name)
        if override is not None:
            problem = override_problem(name)
            lines.append(f"[warning] {problem}" if problem else f"override: {override}")
    return lines or [f"packaged (no overrides in {user_template_dir()})"]


def interrupted_saves(layer: Layer) -> list[str]:
    """A save of either layer that a killed process left half done: the next acecode
    command that reads its history, or the next session start, finishes it (doctor
    writes nothing)."""
    from acecode.project.layer import Layer
    from acecode.store.commit import commit_file

    lines = [
        f"[warning] a save of {each.playbook_file} was cut by a kill; `acecode history` "
        "(or the next session start) finishes it"
        for each in (layer, Layer.user())
        if commit_file(each).exists()
    ]
    return lines or ["none"]
