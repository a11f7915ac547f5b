"""Every exception class acecode defines derives from ``acecode.AcecodeError``.

The test imports every module of the package and inspects what each defines,
so an error class added later without the root fails here.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import acecode
from acecode.errors import AcecodeError


def _acecode_modules() -> list[str]:
    names = ["acecode"]
    for info in pkgutil.walk_packages(acecode.__path__, prefix="acecode."):
        if not info.name.endswith("__main__"):
            names.append(info.name)
    return names


def _defined_exceptions() -> list[type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for name in _acecode_modules():
        module = importlib.import_module(name)
        for value in vars(module).values():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == name
            ):
                found[f"{name}.{value.__qualname__}"] = value
    return list(found.values())


def test_every_acecode_exception_derives_from_acecode_error() -> None:
    exceptions = _defined_exceptions()
    # The walk must really find the package's errors (a broken walk would pass vacuously).
    found = {cls.__name__ for cls in exceptions}
    assert {"PlaybookError", "ProviderError", "HookInputError", "QueueError"} <= found
    outside = sorted(
        f"{cls.__module__}.{cls.__qualname__}"
        for cls in exceptions
        if cls is not AcecodeError and not issubclass(cls, AcecodeError)
    )
    assert outside == []


@pytest.mark.parametrize(
    ("dotted", "second_base"),
    [
        ("acecode.hooks.HookInputError", ValueError),
        ("acecode.project.pins.PinsFileError", ValueError),
        ("acecode.playbook.merge3.DuplicateNameError", ValueError),
        ("acecode.roles.ask.NoJSONError", ValueError),
        ("acecode.llm.settings.ProviderConfigError", RuntimeError),
        ("acecode.llm.retry.LLMCallError", RuntimeError),
        ("acecode.project.control.ControlFileError", RuntimeError),
        ("acecode.dedup.backends.BackendUnavailable", RuntimeError),
        ("acecode.prompts.templates.TemplateNotFoundError", FileNotFoundError),
    ],
)
def test_errors_keep_the_standard_base_callers_catch(
    dotted: str, second_base: type[Exception]
) -> None:
    module, _, name = dotted.rpartition(".")
    cls = getattr(importlib.import_module(module), name)
    assert issubclass(cls, AcecodeError) and issubclass(cls, second_base)


def test_acecode_error_is_exported_from_the_package() -> None:
    assert acecode.AcecodeError is AcecodeError
    assert "AcecodeError" in acecode.__all__
