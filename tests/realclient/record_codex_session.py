"""Record a real Codex session file for tests/data/transcripts/codex/ (run by hand).

    python tests/realclient/record_codex_session.py HOME_DIR OUT_FILE

Runs the pinned ``codex exec`` offline against the scripted Responses server,
in ``HOME_DIR/project`` with ``HOME_DIR`` as the user's home, so the paths in
the file are the ones given (choose a neutral one such as /home/user). The
scripted agent runs a shell command that fails and one that succeeds, makes an
``apply_patch`` edit that works and one that fails, and answers; a trusted
SessionStart hook adds one line of context. The model is named ``gpt-5.5``
because Codex offers ``apply_patch`` only to models it knows. The session
file Codex wrote is copied unchanged to ``OUT_FILE``.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from codex_driver import CodexHome
from codex_scripted import CodexScript, apply_patch, exec_command
from messages_server import Reply
from responses_server import ResponsesServer

CODEX = Path(__file__).resolve().parents[1] / "clients" / "node_modules" / ".bin" / "codex"
PROMPT = "Show me the app's tests."
ADD_TEST = """*** Begin Patch
*** Add File: tests/test_app.py
+def test_app_starts():
+    assert True
*** End Patch
"""
EDIT_MISSING = """*** Begin Patch
*** Update File: app.py
@@
-print("old")
+print("new")
*** End Patch
"""
AGENT = (
    Reply("Reading the tests.", tool_calls=(exec_command("cat tests/test_app.py"),)),
    Reply(tool_calls=(exec_command("ls"),)),
    Reply("There are no tests yet; adding one.", tool_calls=(apply_patch(ADD_TEST),)),
    Reply(tool_calls=(apply_patch(EDIT_MISSING),)),
    Reply("I added tests/test_app.py. There is no app.py to update yet."),
)
RULE = "Project rule: run the tests with make check."


def main(home: Path, out: Path) -> None:
    project = home / "project"
    project.mkdir(parents=True)
    (project / "README.md").write_text("A project without tests.\n")
    server = ResponsesServer(CodexScript(agent=AGENT)).start()
    try:
        codex = CodexHome(codex_bin=CODEX, home=home, base_url=server.base_url)
        hook = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": RULE}}
        command = f"echo {json.dumps(json.dumps(hook))}"
        handler = {"type": "command", "command": command, "timeout": 10}
        codex.hooks_file.write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [handler]}]}}))
        codex.trust_hooks(codex.hooks_file)
        result = codex.run_exec(project, PROMPT, "--model", "gpt-5.5")
        if result.returncode != 0:
            raise SystemExit(result.stderr)
        (session_file,) = codex.session_files()
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(session_file, out)
        print(f"{out}: {len(session_file.read_text().splitlines())} records")
    finally:
        server.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
