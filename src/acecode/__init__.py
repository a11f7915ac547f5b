"""acecode: Agentic Context Engineering for Claude Code.

``acecode.learn(source, project=..., provider=...)`` runs one learning cycle
from Python; the specification's names (playbook, roles, transcript,
diagnostics) and the provider classes are importable from here too, and every
error acecode raises derives from :class:`AcecodeError`. ``__all__`` lists the
public names. They are resolved lazily (PEP 562) so that ``import acecode``
stays cheap on the per-prompt hook path: nothing heavy is imported until it
is used.
"""

from __future__ import annotations

from acecode._lazy import lazy_exports

__version__ = "0.3.0"

# The specification's names (../shared/DESIGN.md "Public API").
_SPEC_EXPORTS: dict[str, str] = {
    "SECTION_SLUGS": "acecode.playbook.schema",
    "generate_keypoint_name": "acecode.playbook.schema",
    "format_playbook": "acecode.playbook.formatting",
    "update_playbook_data": "acecode.playbook.scoring",
    "prune_harmful": "acecode.playbook.scoring",
    "apply_bullet_tags": "acecode.playbook.scoring",
    "apply_structured_operations": "acecode.playbook.operations",
    "extract_cited_ids": "acecode.playbook.citations",
    "load_playbook": "acecode.store",
    "save_playbook": "acecode.store",
    "is_diagnostic_mode": "acecode.project.diagnostics",
    "save_diagnostic": "acecode.project.diagnostics",
    "load_template": "acecode.prompts.templates",
    "extract_keypoints": "acecode.roles.extractor",
    "run_reflector": "acecode.roles.reflector",
    "run_curator": "acecode.roles.curator",
    "run_deduplication": "acecode.dedup",
    "load_transcript": "acecode.transcript",
}
# The library API beyond the specification.
_LIBRARY_EXPORTS: dict[str, str] = {
    "learn": "acecode.api",
    "alearn": "acecode.api",
    "CycleReport": "acecode.pipeline.cycle_report",
    "update_playbook": "acecode.store",
    "extract_json": "acecode.llm.jsonx",
    "Provider": "acecode.llm.base",
    "AnthropicProvider": "acecode.llm.anthropic_provider",
    "OpenAIProvider": "acecode.llm.openai_provider",
    "ClaudeCLIProvider": "acecode.llm.claude_cli",
    "ProviderSpec": "acecode.llm.registry",
    "register_provider": "acecode.llm.registry",
    "AcecodeError": "acecode.errors",
    "LearnInputError": "acecode.errors",
    "ProviderInterfaceError": "acecode.errors",
    "PlaybookError": "acecode.store.errors",
}
# Private helpers the specification names; reachable as attributes, not part of __all__.
_PRIVATE_EXPORTS: dict[str, str] = {
    "_resolve_section": "acecode.playbook.schema",
    "_apply_curator_operations": "acecode.playbook.operations",
}

__all__ = sorted(_SPEC_EXPORTS | _LIBRARY_EXPORTS)

_EXPORTS = _SPEC_EXPORTS | _LIBRARY_EXPORTS | _PRIVATE_EXPORTS
__getattr__, __dir__ = lazy_exports("acecode", globals(), _EXPORTS)
