"""``acecode doctor``: everything a user needs to know when something seems off.

Each check prints one line (or a few) and never raises: a broken piece of the
setup must not hide the others.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from acecode.cli.common import console, playbook_option
from acecode.cli.doctor_files import interrupted_saves, prompt_templates
from acecode.project import paths
from acecode.recall.status import summary_lines as recall_lines
from acecode.text.wording import counted

if TYPE_CHECKING:
    from acecode.project.layer import Layer

# Share of a budget from which doctor warns.
NEAR_BUDGET = 0.8


def _provider(layer: Layer) -> list[str]:
    """This shell's provider, then the one the hooks' last cycle here used: a shell without
    one is a note when the hooks have one (they have Claude Code's environment)."""
    from acecode.cli.hooks_provider import hooks_have_a_provider, hooks_line, last_hook_choice
    from acecode.llm import ProviderConfigError, explain_provider

    hooks = last_hook_choice(layer)
    try:
        choice = explain_provider()
    except ProviderConfigError as exc:
        first, *rest = str(exc).splitlines()
        if hooks_have_a_provider(hooks):
            first = f"[note] {first.removesuffix(' Choose one:').rstrip('.')} in this shell"
            return [first, hooks_line(hooks, None)]
        return [f"[problem] {first}", *rest, hooks_line(hooks, None)]
    return [*choice.describe().splitlines(), hooks_line(hooks, choice.provider), *_role_models()]


def _role_models() -> list[str]:
    """The judge's and the safety review's own models, where set (priced as such)."""
    from acecode.project.config import load_settings, setting_source

    settings = load_settings()
    lines = []
    for role, key in (("judge", "judge_model"), ("safety review", "safety_review_model")):
        model = getattr(settings, key).strip()
        if model:
            lines.append(f"{role} model: {model} (from {setting_source(key)})")
    return lines or ["judge and safety review: the same model (judge_model, safety_review_model)"]


def _triage(layer: Layer) -> list[str]:
    """How many recent sessions the triage skipped as having nothing to learn: learning
    that did not happen must be seen (README, Cost and budgets)."""
    from acecode.project import outcomes
    from acecode.project.config import load_settings

    if not load_settings().triage:
        return ["off (triage = false): every session big enough is sent to the LLM"]
    records = outcomes.read_outcomes(layer)[-30:]
    skipped = [r for r in records if str(r.get("reason", "")).startswith("nothing to learn")]
    line = (
        f"on: {len(skipped)} of the last {len(records)} cycles had no learning signal and made "
        "no LLM call ($0); `acecode learn --relearn FILE` learns one anyway, triage = false "
        "turns it off"
    )
    return [line] + (
        [f"last skipped: {Path(str(skipped[-1].get('transcript'))).name}"] if skipped else []
    )


def _claude_flags() -> list[str]:
    """When the provider is `claude`: which lean-run flags its version lacks, and the cost."""
    from acecode.llm import ProviderConfigError, explain_provider
    from acecode.llm.claude_flags import detect_flags

    try:
        choice = explain_provider()
    except ProviderConfigError:
        return ["not used (no provider)"]
    if choice.provider != "claude" or not choice.executable:
        return [f"not used (the provider is {choice.provider})"]
    return detect_flags(choice.executable).describe()


def _hooks() -> list[str]:
    """Claude Code's hooks; none is a problem only when Codex has none either (a Codex
    user need not install them for Claude Code)."""
    from acecode.agents.claude_code.install import installations, plugin_enabled
    from acecode.agents.codex.install import installations as codex_installations

    found = installations()
    lines = _unreadable_settings()
    lines += [f"{i.scope}: {i.path} ({', '.join(i.events)})" for i in found]
    lines += [f"plugin enabled in {scope} settings" for scope in plugin_enabled()]
    if lines:
        return lines + _several_places()
    if codex_installations():
        return ["none (`acecode install` adds them, if you use Claude Code)"]
    return [
        "[problem] not installed: run `acecode install` (Claude Code) or "
        "`acecode install --agent codex` (Codex CLI)"
    ]


def _codex_hooks() -> list[str]:
    """Codex's ``hooks.json`` files that hold acecode's hooks (``_hooks`` says when neither
    agent has them)."""
    from acecode.agents.codex.install import installations

    found = installations()
    return [f"{i.scope}: {i.path} ({', '.join(i.events)})" for i in found] or [
        "none (`acecode install --agent codex` adds them, if you use Codex)"
    ]


def _several_places() -> list[str]:
    """A warning naming every place acecode's hooks are in, when there is more than one."""
    from acecode.agents.claude_code.install import install_places, several_places_note

    first, *rest = several_places_note(install_places()) or [""]
    return [f"[warning] {first}", *rest] if first else []


def _unreadable_settings() -> list[str]:
    """Claude Code settings files that are not valid JSON: named with the line, since
    ``acecode install`` refuses to touch them (and hooks in them are not found)."""
    from acecode.agents.claude_code.install import unreadable_settings

    lines = []
    for path, problem in unreadable_settings():
        backup = path.with_name(path.name + ".bak")
        kept = (
            f"; {backup} holds its version before acecode last wrote it" if backup.exists() else ""
        )
        lines.append(
            f"[problem] {problem}: fix the file, then run `acecode install` if acecode's hooks "
            f"are not listed here (it will not touch the file until then){kept}"
        )
    return lines


def _configuration() -> list[str]:
    """Every settings file acecode reads, and each setting it ignores, by file and key."""
    from acecode.project.config_check import project_problems, user_problems
    from acecode.project.control import switch_files

    problems = [*project_problems(), *user_problems()]
    lines = [
        f"[problem] {problem.text}" if problem.unreadable else f"[warning] {problem.text}"
        for problem in problems
    ]
    read = [str(path) for path in switch_files() if path.exists()]
    return lines or [f"read: {', '.join(read)}" if read else "defaults (no acecode.toml)"]


class _Playbook:
    """The playbook, loaded once for every check that needs it: a file that cannot be
    read is one problem, reported by the ``playbook`` check alone."""

    def __init__(self, path: Path | None) -> None:
        from acecode.project.layer import Layer
        from acecode.store import PlaybookError, load_playbook

        self.option = path
        self.layer = Layer.of(path)
        self.path = self.layer.playbook_file
        self.data: dict[str, Any] | None = None
        self.error = ""
        try:
            self.data = load_playbook(self.layer)
        except PlaybookError as exc:
            self.error = str(exc)

    def check(self, check: Callable[[Path, dict[str, Any]], list[str]]) -> list[str]:
        """``check(file, playbook)``, or a pointer to the problem when it cannot be read."""
        if self.data is None:
            return [SEE_PLAYBOOK]
        return check(self.path, self.data)


SEE_PLAYBOOK = "not checked: the playbook cannot be read (see playbook above)"


def _playbook_check(playbook: _Playbook) -> list[str]:
    return [f"[problem] {playbook.error}"] if playbook.error else playbook.check(_playbook)


def _on_playbook(
    path: Path | None, check: Callable[[Path, dict[str, Any]], list[str]]
) -> list[str]:
    """``check(file, playbook)`` on the loaded playbook at ``path`` (the user layer), or
    the problem loading it."""
    loaded = _Playbook(path)
    return [f"[problem] {loaded.error}"] if loaded.error else loaded.check(check)


def _playbook(target: Path, data: dict[str, Any]) -> list[str]:
    from acecode.playbook.health import compute_health, size_in_words

    health = compute_health(data)
    ratio = health["effectiveness_ratio"]
    total = health["total_entries"]
    return [
        f"{target}: {counted(total, 'entry')} ({size_in_words(total)})",
        f"effectiveness: {'n/a' if ratio is None else f'{ratio:.2f}'}, "
        f"untested entries: {health['untested_entries']}",
        *_pending_removals(target),
    ]


def _pending_removals(target: Path) -> list[str]:
    """The removals the budget deferred, which the next cycles apply as it allows."""
    from acecode.pipeline.deferred_step import load_pending
    from acecode.project.layer import Layer

    problems: list[str] = []
    pending = load_pending(Layer(target), problems)
    lines = [f"[warning] {problem}" for problem in problems]
    if pending:
        shown = ", ".join(f"{r.describe()} (cycle {r.cycle_id})" for r in pending)
        lines.append(
            f"{counted(len(pending), 'removal')} deferred by the removal budget "
            f"(max_removal_ratio), applied by the next cycles as it allows: {shown}"
        )
    return lines


def _user_layer() -> list[str]:
    """The user layer (``acecode.project.layers``), checked like the project's playbook."""
    from acecode.project.layers import user_playbook_file

    path = Path(user_playbook_file())
    if not path.exists():
        return [f"none yet ({path}); rules the curator scopes to you will go there"]
    return _on_playbook(path, _playbook)


def _stale(target: Path, data: dict[str, Any]) -> list[str]:
    """Entries naming files, paths or symbols the project no longer has (a warning)."""
    from acecode.cli.stale_report import stale_lines, stale_report

    return stale_lines(stale_report(target, data))


def _injection(playbook: _Playbook) -> list[str]:
    """How many entries reach the model at session start, and what is left out; read
    through the injection cache but never written (doctor writes nothing)."""
    from acecode.cli.injection_report import describe, injection_state

    if playbook.error:
        return [SEE_PLAYBOOK]
    state = injection_state(playbook.option, write=False)
    lines = describe(state, playbook.option)
    if state.get("user_layer_error"):
        lines.append("your user layer is left out (see user layer above)")
    return lines


def _claude_memory(playbook: _Playbook) -> list[str]:
    """CLAUDE.md, rules and auto memory: what applies, and which entries repeat or
    contradict them (:mod:`acecode.cli.memory_report`)."""
    from acecode.cli.memory_report import memory_lines

    return memory_lines(paths.project_dir(), playbook.data)


def _experiments(layer: Layer) -> list[str]:
    """Whether the randomised hold-back runs, and what it concluded so far."""
    from acecode.experiments.status import summary_lines

    return summary_lines(layer)


def _embeddings() -> list[str]:
    """The embedding backend; without the optional ``embed`` extra, a note with the command
    that adds it to this install (a choice, not a problem); a backend that was configured
    or installed and cannot run is a problem."""
    from acecode.cli.install_source import add_extra_command
    from acecode.dedup import BackendUnavailable, load_backend
    from acecode.dedup.backends import ExtraMissing

    try:
        backend = load_backend()
    except ExtraMissing as exc:
        return [
            f"[note] semantic de-duplication is off: {exc.package} is not installed (acecode "
            f"was installed without its optional `{exc.extra}` extra); add it with: "
            f"{add_extra_command(exc.extra)}"
        ]
    except BackendUnavailable as exc:
        return [f"[problem] semantic de-duplication disabled: {exc}"]
    return [f"backend: {backend.model_id}"]


def _outcome_lines(record: dict[str, Any]) -> list[str]:
    """A cycle's status, reason and provider, as ``acecode.project.outcomes`` recorded them."""
    from acecode.project import outcomes

    status = record.get("status")
    transcript = Path(str(record.get("transcript") or "?")).name
    head = (
        f"{record.get('cycle_id')} at {record.get('finished_at')} "
        f"({record.get('source')}, {transcript}): {status}"
    )
    if record.get("reason"):
        head += f": {record['reason']}"
    elif status in outcomes.LEARNED:
        head += (
            f": {counted(record.get('tags_applied', 0), 'tag')}, "
            f"{counted(record.get('operations_applied', 0), 'operation')} applied, "
            f"{record.get('held_for_review', 0)} held for review, "
            f"entries {record.get('entries_before')} -> {record.get('entries_after')}"
        )
    lines = [f"[problem] {head}" if status == outcomes.FAILED else head]
    provider = outcomes.describe_provider(record)
    if provider:
        lines.append(provider)
    return lines


def _report_lines(report_file: Path) -> list[str]:
    report = json.loads(report_file.read_text(encoding="utf-8"))
    summary = report.get("processing_summary", {})
    lines = [
        f"report {report_file}: "
        f"{counted(summary.get('operations_applied', 0), 'operation')} applied, "
        f"{summary.get('operations_rejected', 0)} rejected, "
        f"entries {summary.get('entries_before')} -> {summary.get('entries_after')}"
    ]
    return lines + [f"[warning] {w}" for w in report.get("warnings", [])]


def _last_cycle(state: Layer) -> list[str]:
    from acecode.project import outcomes

    records = outcomes.read_outcomes(state)
    lines = []
    if records:
        last = records[-1]
        lines += _outcome_lines(last)
        attempt = outcomes.last_attempt(state)
        if attempt is not None and attempt.get("cycle_id") != last.get("cycle_id"):
            lines += ["last cycle that was not skipped:", *_outcome_lines(attempt)]
        report_file = (attempt or last).get("report_file")
        if report_file and Path(report_file).is_file():
            lines += _report_lines(Path(report_file))
    else:
        from acecode.store.reports import REPORTS_FOLDER

        reports = sorted(state.file(REPORTS_FOLDER).glob("*/curation_*.json"))
        lines += _report_lines(reports[-1]) if reports else ["no learning cycle has run yet"]
    log = Path(outcomes.log_file(state))
    if log.is_file():
        tail = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
        if tail:
            lines.append(f"last line of {log}: {tail[-1]}")
    return lines


def _writable(layer: Layer) -> list[str]:
    """Whether learning can write where it writes: the state folder, the playbook's
    folder, the cost ledger. A cycle that cannot does not start (no LLM call)."""
    import os

    from acecode.cost.ledger import ledger_path
    from acecode.project.writable import looks_unwritable

    ledger = str(ledger_path())
    checks = (
        (layer.state_folder, True, "the state folder"),
        (os.path.dirname(layer.playbook), True, "the playbook's folder"),
        (ledger, False, "the cost ledger"),
        (os.path.dirname(ledger), True, "the cost ledger's folder"),
    )
    lines = []
    for path, folder, what in checks:
        problem = looks_unwritable(path, folder=folder)
        if problem:
            lines.append(
                f"[problem] {what} cannot be written ({problem}): learning is stopped "
                "before any LLM call until it can; fix its permissions"
            )
    return lines or ["the state folder, the playbook's folder and the cost ledger are writable"]


def _cost() -> list[str]:
    """Spend today and this month against the budgets; a warning near (80%) or at a limit,
    and while the last cycle's refusal holds."""
    from acecode.cli.cost_cmd import budget_lines
    from acecode.cost.budget import Limits, last_refusal, view
    from acecode.cost.ledger import Ledger, LedgerError
    from acecode.project.config import load_settings

    ledger = Ledger()
    try:
        records = ledger.records()
        current = view(records, Limits.from_settings(load_settings()))
    except LedgerError as exc:
        return [f"[problem] {exc}"]
    lines = [f"ledger: {ledger.path}", *budget_lines(current), *_per_session(ledger)]
    limits = current.limits
    for label, used, limit in (
        ("daily", current.today.total_usd, limits.daily_usd),
        ("monthly", current.month.total_usd, limits.monthly_usd),
        ("daily token", current.today.total_tokens, limits.daily_tokens),
        ("monthly token", current.month.total_tokens, limits.monthly_tokens),
    ):
        if limit <= 0 or used < NEAR_BUDGET * limit:
            continue
        state = (
            "reached: cycles are skipped until it resets"
            if used >= limit
            else f"{100 * used / limit:.0f}% used: a cycle that could cross it is skipped"
        )
        lines.append(f"[warning] {label} budget {state} (`acecode cost`)")
    refused = last_refusal(records)
    if refused:
        lines.append(f"[warning] {refused}")
    return lines


def _per_session(ledger: Any) -> list[str]:
    from acecode.cli.cost_cmd import per_session_lines
    from acecode.cost.summary import per_session

    return per_session_lines(per_session(ledger.records()))


def _diagnostics() -> list[str]:
    from acecode.project.diagnostics import is_diagnostic_mode

    return ["on (writing to .claude/diagnostic/)" if is_diagnostic_mode() else "off"]


def doctor(playbook: playbook_option = None) -> None:
    """Check the provider, hooks, settings, playbook, templates, embeddings, last cycle and
    spend.

    Exits with status 1 when a check found a problem, 0 when all is good
    (warnings alone do not fail), so scripts and CI can rely on it. One broken
    file is one problem, however many checks it stops. Nothing is written in
    the project.
    """
    loaded = _Playbook(playbook)
    checks: list[tuple[str, Callable[[], list[str]]]] = [
        ("LLM provider", lambda: _provider(loaded.layer)),
        ("nested claude runs", _claude_flags),
        ("Claude Code hooks", _hooks),
        ("Codex hooks", _codex_hooks),
        ("configuration", _configuration),
        ("playbook", lambda: _playbook_check(loaded)),
        ("user layer", _user_layer),
        ("interrupted saves", lambda: interrupted_saves(loaded.layer)),
        ("injection", lambda: _injection(loaded)),
        ("Claude Code's memory", lambda: _claude_memory(loaded)),
        ("experiments", lambda: _experiments(loaded.layer)),
        ("recall at the tool call", lambda: recall_lines(loaded.layer, str(paths.project_dir()))),
        ("stale rules", lambda: loaded.check(_stale)),
        ("prompt templates", prompt_templates),
        ("semantic de-duplication", _embeddings),
        ("last learning cycle", lambda: _last_cycle(loaded.layer)),
        ("where learning writes", lambda: _writable(loaded.layer)),
        ("triage", lambda: _triage(loaded.layer)),
        ("cost and budget", _cost),
        ("diagnostic mode", _diagnostics),
    ]
    problems = 0
    for title, check in checks:
        try:
            lines: list[Any] = check()
        except Exception as exc:
            lines = [f"[problem] check failed: {type(exc).__name__}: {exc}"]
        problems += sum(1 for line in lines if str(line).startswith("[problem]"))
        console.print(f"[bold]{title}[/bold]")
        for line in lines:
            console.print(f"  {line}", markup=False, highlight=False, soft_wrap=True)
    console.print(f"{counted(problems, 'problem')} found" if problems else "all good")
    if problems:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command()(doctor)
