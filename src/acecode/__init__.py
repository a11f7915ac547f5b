"""acecode: Agentic Context Engineering for Claude Code.

The public names of the specification are importable from here. They are
resolved lazily (PEP 562) so that ``import acecode`` stays cheap on the
per-prompt hook path: nothing heavy is imported until it is used.
"""

from __future__ import annotations

from acecode._lazy import lazy_exports

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "SECTION_SLUGS": "acecode.playbook.schema",
    "generate_keypoint_name": "acecode.playbook.schema",
    "_resolve_section": "acecode.playbook.schema",
    "format_playbook": "acecode.playbook.formatting",
    "update_playbook_data": "acecode.playbook.scoring",
    "prune_harmful": "acecode.playbook.scoring",
    "apply_bullet_tags": "acecode.playbook.scoring",
    "_apply_curator_operations": "acecode.playbook.operations",
    "apply_structured_operations": "acecode.playbook.operations",
    "extract_cited_ids": "acecode.playbook.citations",
    "load_playbook": "acecode.store",
    "save_playbook": "acecode.store",
    "update_playbook": "acecode.store",
    "is_diagnostic_mode": "acecode.diagnostics",
    "save_diagnostic": "acecode.diagnostics",
    "load_template": "acecode.templates",
    "extract_json": "acecode.llm.jsonx",
    "extract_keypoints": "acecode.roles.extractor",
    "run_reflector": "acecode.roles.reflector",
    "run_curator": "acecode.roles.curator",
    "run_deduplication": "acecode.dedup",
    "load_transcript": "acecode.transcript",
    "AcecodeError": "acecode.errors",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports("acecode", globals(), _EXPORTS)
