"""The one table of LLM providers acecode can choose from the environment.

The built-in providers (Anthropic API, OpenAI-compatible endpoint, the
``claude`` command) are entries of this table like any other
(:mod:`acecode.llm.builtin_providers` registers them), so
``ACECODE_PROVIDER``, the automatic selection, ``acecode doctor`` and the
provider a cycle builds all read the same rows. A program can add its own row
with :func:`register_provider`; a provider object passed to
:func:`acecode.learn` needs no row at all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from acecode.errors import AcecodeError

if TYPE_CHECKING:
    from acecode.llm.base import Provider
    from acecode.llm.settings import ProviderChoice


class ProviderConfigError(AcecodeError, RuntimeError):
    """No usable provider, or an explicit choice that lacks a required setting.

    Defined here, below :mod:`acecode.llm.settings` (which re-exports it), because
    the table raises it too."""


@dataclass(frozen=True)
class ProviderSpec:
    """How to find, configure and build one provider from environment variables.

    ``detect(env)`` says why the environment enables the provider (``"ANTHROPIC_API_KEY
    is set"``) or returns None; the first enabled row in table order is chosen
    when ``ACECODE_PROVIDER`` is unset. ``configure(env, reason)`` reads its
    settings (raising :class:`ProviderConfigError` when one
    is missing) and ``build(choice, env)`` makes the provider object. ``label``
    names it in the reason a choice gives ("chosen over the `claude` login").
    """

    name: str
    label: str
    detect: Callable[[Mapping[str, str]], str | None]
    configure: Callable[[Mapping[str, str], str], ProviderChoice]
    build: Callable[[ProviderChoice, Mapping[str, str]], Provider]


_TABLE: dict[str, ProviderSpec] = {}


def register_provider(spec: ProviderSpec, *, replace: bool = False) -> None:
    """Add ``spec`` at the end of the selection order (or, with ``replace``, in its old place)."""
    if spec.name in _TABLE and not replace:
        raise ProviderConfigError(f"a provider named {spec.name!r} is already registered")
    _TABLE[spec.name] = spec


def unregister_provider(name: str) -> None:
    """Remove the row ``name``; unknown names are ignored."""
    _TABLE.pop(name, None)


def provider_specs() -> tuple[ProviderSpec, ...]:
    """Every registered provider, in selection order."""
    return tuple(_TABLE.values())


def provider_spec(name: str) -> ProviderSpec | None:
    """The row named ``name``, or None."""
    return _TABLE.get(name)
