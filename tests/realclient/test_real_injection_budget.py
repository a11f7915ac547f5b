"""Large playbooks in the real CLI: the model gets acecode's best entries whole, never a
``<persisted-output>`` preview, and a later prompt gets the left-out entry it is about.

Claude Code 2.1.197 passes a hook's context whole only up to 10,000 characters
and replaces a longer one by a 2 KB preview (docs/claude-code.md). Before the
budget, a 300-entry playbook reached the model as 8 entries of a preview.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from claude_driver import ClaudeHome
from messages_server import MessagesServer, Recorded
from playbooks import NEEDLE_PROMPT, PlantedPlaybook, write_planted_playbook
from scripted import PERSISTED_MARKER, PLAYBOOK_TAG, Script, is_agent_turn
from test_real_install_inject import acecode

TOPUP_TAG = "<acecode-playbook-more>"
FIRST_PROMPT = "Hello, what should I keep in mind in this project?"


def _present(request: Recorded, planted: PlantedPlaybook) -> list[str]:
    return [name for name in planted.names if f"[{name}]" in request.text]


def _agent_turn_with(server: MessagesServer, prompt: str) -> Recorded:
    return server.wait_for(lambda r: is_agent_turn(r) and prompt in r.text)[-1]


@pytest.mark.parametrize("size", [40, 300, 3000])
def test_large_playbooks_reach_the_model_best_first_and_top_up_per_prompt(
    claude: ClaudeHome, server: MessagesServer, project_dir: Path, size: int
) -> None:
    server.responder = Script()
    planted = write_planted_playbook(project_dir, size)
    acecode("install", cwd=project_dir, env=claude.env())

    session = claude.interactive(project_dir)
    try:
        session.submit(FIRST_PROMPT)
        first = _agent_turn_with(server, FIRST_PROMPT)
        session.submit(NEEDLE_PROMPT)
        second = _agent_turn_with(server, NEEDLE_PROMPT)
        session.submit("/exit", wait=False)
        assert session.wait_exit() == 0
    finally:
        session.close()

    for request in server.requests:  # no request shows acecode's context as a preview
        assert PERSISTED_MARKER not in request.text
    assert first.text.count(PLAYBOOK_TAG) == 1
    shown = _present(first, planted)
    assert set(planted.stars) <= set(shown)  # the best of every section
    if size == 40:  # everything fits: all of it, and nothing to top up
        assert shown == planted.names
        assert TOPUP_TAG not in second.text
        return
    assert 40 <= len(shown) < size
    assert not set(planted.duds) & set(shown)  # what misled most is what is left out
    left_out = size - len(shown)
    assert f"[{left_out} more of the {size} entries did not fit here." in first.text
    assert planted.needle not in shown and TOPUP_TAG not in first.text
    # The later prompt about the needle's subject gets it, and only things relevant.
    assert second.text.count(TOPUP_TAG) == 1
    topup = second.text[second.text.index(TOPUP_TAG) :]
    assert f"[{planted.needle}]" in topup
    assert second.text.count(PLAYBOOK_TAG) == 1  # the session-start text is not repeated
