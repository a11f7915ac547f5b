"""The root of every error acecode raises: ``except acecode.AcecodeError`` catches them all.

Each error keeps the standard base its callers relied on before (a
``ValueError`` for bad input, a ``RuntimeError`` for a failed call, ...) as its
second base, so existing ``except ValueError`` handlers still work. This module
imports nothing: the per-prompt hook path imports it through its own errors.
"""

from __future__ import annotations


class AcecodeError(Exception):
    """Base class of every exception defined by acecode."""


class LearnInputError(AcecodeError, ValueError):
    """An argument of :func:`acecode.learn` cannot be used: a missing transcript or
    project folder, or a message that is not a message; one line naming it."""


class ProviderInterfaceError(AcecodeError, TypeError):
    """The ``provider`` passed to :func:`acecode.learn` is not a provider: it lacks
    ``name``, ``model``, ``timeout`` or an async ``complete``; one line naming what."""
