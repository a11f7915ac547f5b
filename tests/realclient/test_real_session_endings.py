"""Every way a real interactive Claude Code session ends teaches the next session, and a
failed learning cycle is announced on the user's screen when the next one starts.

The sessions run the real CLI in a pseudo-terminal; the coding agent's Bash calls
really run and fail; acecode's background learner is started by the real SessionEnd
hook and talks to the same scripted server. A finished ``claude -p`` (SessionEnd
reason ``other``) is proven by ``test_real_learning.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from claude_driver import ClaudeHome, PtySession
from messages_server import MessagesServer, Recorded, Reply
from scripted import Script, acecode_role, bash, is_agent_turn
from test_real_learning import (
    MAIN_RULE,
    MISSING_DIR,
    MISSING_MODULE,
    curation_for,
    install,
    reflection_for,
    reflector_inputs,
    wait_for_rule,
)

from support.hang_guard import wait_until

PROMPT = "List the reports folder and import the module."
AGAIN = "again to exit"  # "Press Ctrl-C again to exit", while the first press is pending


def failing_agent(**roles: object) -> Script:
    """The agent runs two Bash commands that fail, then answers."""
    return Script(
        agent=(
            Reply(tool_calls=(bash(MISSING_DIR),)),
            Reply(tool_calls=(bash(MISSING_MODULE),)),
            Reply("The reports folder does not exist here."),
        ),
        roles={"reflector": reflection_for, "curator": curation_for(MAIN_RULE), **roles},
    )


def end_with_exit(session: PtySession) -> None:
    session.submit("/exit", wait=False)


def end_with_ctrl(letter: str) -> Callable[[PtySession], None]:
    def end(session: PtySession) -> None:
        """Press twice. The second press must come within the CLI's double-press window;
        when a loaded machine let the window pass, the CLI asks again: press once more."""
        session.mark()
        session.ctrl(letter)
        session.wait_screen(AGAIN, since_mark=True)
        for _ in range(5):
            session.mark()
            session.ctrl(letter)
            wait_until(
                lambda: session.poll() is not None or session.shows(AGAIN, since_mark=True),
                "the CLI to exit, or to ask for the second press again",
            )
            if session.poll() is not None:
                return
        raise AssertionError(f"the CLI kept asking for a second {letter!r}")

    return end


def end_with_clear(session: PtySession) -> None:
    session.submit("/clear")  # ends the first session (reason clear) and starts a new one
    session.submit("/exit", wait=False)


def end_by_closing_the_terminal(session: PtySession) -> None:
    session.hang_up()


# ending -> (how, SessionEnd reason measured with Claude Code 2.1.197)
ENDINGS: dict[str, tuple[Callable[[PtySession], None], str]] = {
    "/exit": (end_with_exit, "prompt_input_exit"),
    "Ctrl-D twice": (end_with_ctrl("d"), "prompt_input_exit"),
    "Ctrl-C twice": (end_with_ctrl("c"), "prompt_input_exit"),
    "/clear": (end_with_clear, "clear"),
    "closed terminal": (end_by_closing_the_terminal, "other"),
}


def learn_log(project: Path) -> str:
    path = project / ".claude" / "acecode" / "logs" / "learn.log"
    return path.read_text() if path.exists() else ""


def wait_for_log(project: Path, text: str) -> str:
    wait_until(
        lambda: text in learn_log(project),
        lambda: f"{text!r} in learn.log:\n{learn_log(project)}",
    )
    return learn_log(project)


@pytest.mark.parametrize("ending", list(ENDINGS))
def test_an_interactive_session_is_learned_however_it_ends(
    claude: ClaudeHome, server: MessagesServer, project_dir: Path, ending: str
) -> None:
    end, reason = ENDINGS[ending]
    server.responder = failing_agent()
    install(claude, project_dir)

    session = claude.interactive(project_dir)
    try:
        session.submit(PROMPT)
        session.wait_screen("The reports folder does not exist here.")
        end(session)
        session.wait_exit()
    finally:
        session.close()
    wait_for_rule(project_dir, MAIN_RULE)

    log = wait_for_log(project_dir, "[ok]")  # the cycle's status line comes after the save
    transcripts = claude.sessions_dir(project_dir)
    assert f"session-end: learning from {transcripts}" in log
    assert f"(reason {reason})" in log
    assert "[ok]" in log and "| provider anthropic" in log
    (learned,) = [text for text in reflector_inputs(server) if MISSING_DIR in text]
    assert "No such file or directory" in learned  # the failed calls reached the reflector
    assert MISSING_MODULE in learned and "ModuleNotFoundError" in learned

    server.requests.clear()
    after = claude.run_print(project_dir, "Where are the reports?")
    assert after.returncode == 0, after.stderr
    assert MAIN_RULE in server.matching(is_agent_turn)[0].text


def test_a_failed_cycle_is_announced_when_the_next_session_starts(
    claude: ClaudeHome, server: MessagesServer, project_dir: Path
) -> None:
    script = failing_agent()

    def reflector_down(request: Recorded) -> Reply:
        if acecode_role(request) == "reflector":
            return Reply("scripted outage", status=500)
        return script(request)

    server.responder = reflector_down
    install(claude, project_dir)
    first = claude.run_print(project_dir, PROMPT)
    assert first.returncode == 0, first.stderr
    log = wait_for_log(project_dir, "[failed]")
    assert f"reflector: anthropic call to {server.url} failed (3 attempts used): HTTP 500" in log
    assert "scripted outage" in log

    session = claude.interactive(project_dir)
    try:
        session.wait_screen(
            "SessionStart:startup says: acecode: the last learning cycle failed: "
            "reflector: anthropic call to"
        )
        session.wait_screen("(see .claude/acecode/logs/learn.log or `acecode doctor`)")
        agent = server.matching(is_agent_turn)
        session.submit("Hello.")
        (greeting,) = server.matching(is_agent_turn)[len(agent) :][:1]
        assert "the last learning cycle failed" not in greeting.text  # shown, not sent
        session.submit("/exit", wait=False)
        session.wait_exit()
    finally:
        session.close()
    # that session failed to be learned from too (the reflector is still down): wait for
    # its learner, so that nothing of this test is left running
    wait_until(
        lambda: learn_log(project_dir).count("[failed]") >= 2,
        lambda: f"the second failed cycle in learn.log:\n{learn_log(project_dir)}",
    )
    assert learn_log(project_dir).count("[failed]") == 2, learn_log(project_dir)
