"""Which LLM provider to use, with what model and endpoint, and why.

Selection order: ``ACECODE_PROVIDER`` when set; otherwise the first provider
of the registry (:mod:`acecode.llm.registry`) the environment enables: for
the built-ins, an Anthropic API key, then OpenAI-compatible settings, then the
``claude`` command on PATH. This module reads the built-ins' variables.
:func:`explain_provider` returns the decision together with the reason and
the variable each value came from, so ``acecode doctor`` can print it.
Secrets are never part of the explanation, only the names of their variables.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field

from acecode.llm.base import REQUEST_TIMEOUT
from acecode.llm.registry import ProviderConfigError, provider_spec, provider_specs
from acecode.project.config import load_settings, setting_source

DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-6"
# Where the SDKs send requests when no base URL is set.
ANTHROPIC_DEFAULT_URL = "https://api.anthropic.com"
OPENAI_DEFAULT_URL = "https://api.openai.com/v1"

# Each setting with its fallbacks, first set wins (the earlier system's names first).
ANTHROPIC_MODEL_VARS = (
    "AGENTIC_CONTEXT_MODEL",
    "ANTHROPIC_MODEL",
    "ANTHROPIC_DEFAULT_SONNET_MODEL",
)
ANTHROPIC_KEY_VARS = ("AGENTIC_CONTEXT_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_API_KEY")
ANTHROPIC_URL_VARS = ("AGENTIC_CONTEXT_BASE_URL", "ANTHROPIC_BASE_URL")
OPENAI_MODEL_VARS = ("ACECODE_OPENAI_MODEL", "AGENTIC_CONTEXT_MODEL", "OPENAI_MODEL")
OPENAI_KEY_VARS = ("ACECODE_OPENAI_API_KEY", "OPENAI_API_KEY")
OPENAI_URL_VARS = ("ACECODE_OPENAI_BASE_URL", "OPENAI_BASE_URL")
CLAUDE_MODEL_VARS = ("ACECODE_CLAUDE_MODEL", "AGENTIC_CONTEXT_MODEL")
CLAUDE_BIN_VAR = "ACECODE_CLAUDE_BIN"
CLAUDE_EFFORTS = ("low", "medium", "high", "xhigh", "max")
PROVIDER_VAR = "ACECODE_PROVIDER"
TIMEOUT_VAR = "ACECODE_LLM_TIMEOUT"

# Local servers (Ollama, llama.cpp, vLLM) ignore the key, but the SDKs insist on one.
PLACEHOLDER_KEY = "acecode-no-key"

HOW_TO_CONFIGURE = """\
no LLM provider is configured. Choose one:
  - Anthropic API: set AGENTIC_CONTEXT_API_KEY (or ANTHROPIC_API_KEY); optional
    AGENTIC_CONTEXT_MODEL and AGENTIC_CONTEXT_BASE_URL.
  - OpenAI-compatible server (Ollama, vLLM, llama.cpp, OpenRouter): set
    ACECODE_OPENAI_BASE_URL (e.g. http://127.0.0.1:11434/v1) and ACECODE_OPENAI_MODEL;
    ACECODE_OPENAI_API_KEY if the server needs one.
  - Claude Code subscription: install the `claude` command (or set ACECODE_CLAUDE_BIN).
Set ACECODE_PROVIDER=anthropic|openai|claude to choose explicitly."""


@dataclass(frozen=True)
class ProviderChoice:
    """The resolved provider configuration, safe to print (it holds no secret)."""

    provider: str
    reason: str
    model: str | None
    base_url: str | None = None
    api_key_var: str | None = None
    executable: str | None = None
    effort: str | None = None
    timeout: float = REQUEST_TIMEOUT
    sources: dict[str, str] = field(default_factory=dict)
    # What the calls go to and the settings that chose it, for logs: "http://127.0.0.1:8080
    # (from AGENTIC_CONTEXT_BASE_URL; key from ANTHROPIC_API_KEY)", "/usr/bin/claude (on PATH)".
    endpoint: str = ""

    def describe(self) -> str:
        """Human-readable lines for ``acecode doctor``."""
        lines = [f"provider: {self.provider} ({self.reason})"]
        lines.append(f"model: {self.model or '(provider default)'}{self._src('model')}")
        if self.base_url:
            lines.append(f"base URL: {self.base_url}{self._src('base_url')}")
        if self.provider != "claude":
            key = f"from {self.api_key_var}" if self.api_key_var else "none (placeholder sent)"
            lines.append(f"API key: {key}")
        if self.executable:
            lines.append(f"executable: {self.executable}")
        if self.effort:
            lines.append(f"effort: {self.effort}{self._src('effort')}")
        lines.append(f"timeout: {self.timeout:g} s per request{self._src('timeout')}")
        return "\n".join(lines)

    def _src(self, name: str) -> str:
        source = self.sources.get(name)
        return f" (from {source})" if source else ""


def _url_endpoint(url: str | None, url_var: str | None, default: str, key_var: str | None) -> str:
    """The URL calls go to, with the variable that set it (or "default") and the one the
    API key comes from: ``http://127.0.0.1:8080 (from AGENTIC_CONTEXT_BASE_URL; key from
    ANTHROPIC_API_KEY)``."""
    source = f"from {url_var}" if url else "default"
    key = f"key from {key_var}" if key_var else "no key"
    return f"{url or default} ({source}; {key})"


def _first(env: Mapping[str, str], names: tuple[str, ...]) -> tuple[str | None, str | None]:
    """The first non-empty variable among ``names``: (value, variable name)."""
    for name in names:
        value = env.get(name, "").strip()
        if value:
            return value, name
    return None, None


def _timeout(env: Mapping[str, str]) -> tuple[float, str | None]:
    raw = env.get(TIMEOUT_VAR, "").strip()
    if not raw:
        return REQUEST_TIMEOUT, None
    try:
        value = float(raw)
    except ValueError as exc:
        raise ProviderConfigError(
            f"{TIMEOUT_VAR} must be a number of seconds, got {raw!r}"
        ) from exc
    if value <= 0:
        raise ProviderConfigError(f"{TIMEOUT_VAR} must be positive, got {raw!r}")
    return value, TIMEOUT_VAR


def anthropic_from_env(env: Mapping[str, str], reason: str) -> ProviderChoice:
    model, model_var = _first(env, ANTHROPIC_MODEL_VARS)
    key, key_var = _first(env, ANTHROPIC_KEY_VARS)
    url, url_var = _first(env, ANTHROPIC_URL_VARS)
    if key is None and url is None:
        raise ProviderConfigError(
            "the anthropic provider needs AGENTIC_CONTEXT_API_KEY (or ANTHROPIC_AUTH_TOKEN, "
            "ANTHROPIC_API_KEY), or AGENTIC_CONTEXT_BASE_URL for a local keyless server"
        )
    timeout, timeout_var = _timeout(env)
    sources = {"model": model_var or "default", "base_url": url_var or "", "timeout": timeout_var}
    return ProviderChoice(
        provider="anthropic",
        reason=reason,
        model=model or DEFAULT_ANTHROPIC_MODEL,
        base_url=url,
        api_key_var=key_var,
        timeout=timeout,
        sources={k: v for k, v in sources.items() if v},
        endpoint=_url_endpoint(url, url_var, ANTHROPIC_DEFAULT_URL, key_var),
    )


def openai_from_env(env: Mapping[str, str], reason: str) -> ProviderChoice:
    model, model_var = _first(env, OPENAI_MODEL_VARS)
    _key, key_var = _first(env, OPENAI_KEY_VARS)
    url, url_var = _first(env, OPENAI_URL_VARS)
    if model is None:
        raise ProviderConfigError(
            "the openai provider needs a model name: set ACECODE_OPENAI_MODEL "
            "(or AGENTIC_CONTEXT_MODEL, OPENAI_MODEL)"
        )
    if url is None and key_var is None:
        raise ProviderConfigError(
            "the openai provider needs ACECODE_OPENAI_BASE_URL (or OPENAI_BASE_URL) for a "
            "compatible server, or ACECODE_OPENAI_API_KEY (or OPENAI_API_KEY) for api.openai.com"
        )
    timeout, timeout_var = _timeout(env)
    sources = {"model": model_var, "base_url": url_var or "", "timeout": timeout_var}
    return ProviderChoice(
        provider="openai",
        reason=reason,
        model=model,
        base_url=url,
        api_key_var=key_var,
        timeout=timeout,
        sources={k: v for k, v in sources.items() if v},
        endpoint=_url_endpoint(url, url_var, OPENAI_DEFAULT_URL, key_var),
    )


def _claude_executable(env: Mapping[str, str]) -> str | None:
    """The `claude` to run: ``ACECODE_CLAUDE_BIN`` (a path or a name) or `claude` on PATH.

    Only the given environment's PATH is searched, so a custom ``env`` never
    picks up this process's PATH.
    """
    name = env.get(CLAUDE_BIN_VAR, "").strip() or "claude"
    search = env.get("PATH", "")
    if not search and os.sep not in name:
        return None
    return shutil.which(name, path=search)


def claude_from_env(env: Mapping[str, str], reason: str) -> ProviderChoice:
    """Headless Claude Code: by default the `sonnet` alias at low effort, 300 s per call.

    The model comes from ``ACECODE_CLAUDE_MODEL`` or ``AGENTIC_CONTEXT_MODEL``,
    then ``claude_model`` in acecode.toml; effort and timeout from
    ``claude_effort`` and ``claude_timeout`` (or ``ACECODE_CLAUDE_EFFORT``,
    ``ACECODE_CLAUDE_TIMEOUT``). ``ACECODE_LLM_TIMEOUT`` is the API request
    timeout and does not apply here: one CLI run includes Claude Code's own retries.
    """
    executable = _claude_executable(env)
    if executable is None:
        raise ProviderConfigError(
            "the claude provider needs the `claude` command on PATH "
            f"(or {CLAUDE_BIN_VAR} pointing at it)"
        )
    settings = load_settings(env=env)
    model, model_var = _first(env, CLAUDE_MODEL_VARS)
    if model is None:
        model = settings.claude_model.strip() or None
        model_var = setting_source("claude_model", env=env) or "default"
    effort = settings.claude_effort.strip().lower() or None
    effort_source = setting_source("claude_effort", env=env) or "default"
    if effort is not None and effort not in CLAUDE_EFFORTS:
        raise ProviderConfigError(
            f"claude_effort (from {effort_source}) must be one of {', '.join(CLAUDE_EFFORTS)} "
            f"or empty for Claude Code's default, got {settings.claude_effort!r}"
        )
    timeout_source = setting_source("claude_timeout", env=env) or "default"
    if settings.claude_timeout <= 0:
        raise ProviderConfigError(
            f"claude_timeout (from {timeout_source}) must be a positive number of seconds, "
            f"got {settings.claude_timeout:g}"
        )
    sources = {"model": model_var if model else "", "effort": effort_source}
    found_by = f"from {CLAUDE_BIN_VAR}" if env.get(CLAUDE_BIN_VAR, "").strip() else "on PATH"
    return ProviderChoice(
        provider="claude",
        reason=reason,
        model=model,
        executable=executable,
        effort=effort,
        timeout=settings.claude_timeout,
        sources={**{k: v for k, v in sources.items() if v}, "timeout": timeout_source},
        endpoint=f"{executable} ({found_by})",
    )


def anthropic_enabled(env: Mapping[str, str]) -> str | None:
    """Why the environment enables the Anthropic API (a key is set), or None."""
    _key, key_var = _first(env, ANTHROPIC_KEY_VARS)
    return f"{key_var} is set" if key_var else None


def openai_enabled(env: Mapping[str, str]) -> str | None:
    """Why the environment enables an OpenAI-compatible endpoint, or None."""
    _url, openai_var = _first(env, OPENAI_URL_VARS + OPENAI_KEY_VARS)
    return f"{openai_var} is set" if openai_var else None


def claude_enabled(env: Mapping[str, str]) -> str | None:
    """Why the environment enables the `claude` command (it is on PATH), or None."""
    return "`claude` found on PATH" if _claude_executable(env) else None


def _available(env: Mapping[str, str]) -> dict[str, str]:
    """Each registered provider the environment could use, in selection order, with why."""
    found: dict[str, str] = {}
    for spec in provider_specs():
        why = spec.detect(env)
        if why:
            found[spec.name] = why
    return found


def _with_alternatives(
    reason: str, chosen: str, available: dict[str, str], *, explicit: bool = False
) -> str:
    """``reason`` plus what else was configured but not chosen, so that nobody is billed
    on an API key without knowing that their `claude` login was passed over."""
    others = [
        f"{spec.label} ({available[spec.name]})"
        for spec in provider_specs()
        if spec.name in available and spec.name != chosen
    ]
    if not others:
        return reason
    hint = "" if explicit else f"; set {PROVIDER_VAR} to choose"
    return f"{reason}, chosen over {' and '.join(others)}{hint}"


def explain_provider(env: Mapping[str, str] | None = None) -> ProviderChoice:
    """Decide which provider a call would use and say why; raise when none fits.

    The reason names the setting that decided and every other provider that was
    available but not chosen.
    """
    env = os.environ if env is None else env
    available = _available(env)
    explicit = env.get(PROVIDER_VAR, "").strip().lower()
    if explicit:
        spec = provider_spec(explicit)
        if spec is None:
            names = ", ".join(spec.name for spec in provider_specs())
            raise ProviderConfigError(f"{PROVIDER_VAR}={explicit!r} is not one of {names}")
        reason = _with_alternatives(
            f"{PROVIDER_VAR}={explicit}", explicit, available, explicit=True
        )
        return spec.configure(env, reason)
    if not available:
        raise ProviderConfigError(HOW_TO_CONFIGURE)
    chosen, why = next(iter(available.items()))
    spec = provider_spec(chosen)
    assert spec is not None  # _available only names registered providers
    return spec.configure(env, _with_alternatives(why, chosen, available))


def api_key(choice: ProviderChoice, env: Mapping[str, str] | None = None) -> str:
    """The secret for ``choice``, read only at call time so it never sits in a printable object."""
    env = os.environ if env is None else env
    if choice.api_key_var:
        return env.get(choice.api_key_var, "").strip() or PLACEHOLDER_KEY
    return PLACEHOLDER_KEY
