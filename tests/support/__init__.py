"""Helpers shared by the test folders, imported as ``support.<module>``.

* :mod:`support.playbooks`: entry and playbook builders and readers;
* :mod:`support.embedding_backends`: embedding backends for the de-duplication tests;
* :mod:`support.llm_env`: the environment variables the LLM layer reads;
* :mod:`support.wire`: a scripted Anthropic + OpenAI server on 127.0.0.1 and its fixtures;
* :mod:`support.pipeline`: a content-routed Anthropic server and a small transcript;
* :mod:`support.hang_guard`: the one generous limit for subprocesses and polling waits;
* :mod:`support.lock_holder`: another process holding a lock file until the test ends.

``tests`` is on ``sys.path`` (``pythonpath`` in pyproject.toml), so every test
folder imports these by name instead of loading files by path.
"""
