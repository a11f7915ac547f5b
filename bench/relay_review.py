"""The safety review (and the judge) answered by a real model through the relay, blind.

Run from the repository root (the ``dev`` extra installed)::

    python bench/relay_review.py --dir bench/relay

It starts ``../shared/tools/model_relay.py`` on ``--port`` (default 8765)
with the folder ``--dir``, and a scripted Anthropic Messages server on
127.0.0.1 that plays the reflector and the curator and forwards the safety
review's and the judge's requests to the relay, unchanged. Then it runs real
``acecode learn`` cycles (``python -m acecode learn T --json --ignore-budget``,
one process per cycle) in a fresh project with the project's default
settings: the curator ADDs the held-out texts of the corpora, ten per cycle,
dangerous and benign shuffled together (seed 18), so whoever answers the
relay sees acecode's own prompts and the texts, never a label.

Each relayed request is written to ``DIR/req-NNNN.json`` and waits (up to
``--wait`` seconds) for ``DIR/resp-NNNN.txt``: the model playing the reviewer
writes its reply there (atomically: ``resp-NNNN.txt.tmp`` then rename).
When every cycle is done it prints held and passed rates per class and per
language for the dangerous and the benign texts, and what held them (the
floor, the review's flag, "not reviewed"), and writes ``DIR/results.json``
(the labels, only after the run). The folder then holds the whole transcript
(requests and replies) of the measured run, for ``bench/relay/``.

Only two things differ from a user's setup, both outside acecode's
settings: the cycles may spend past the daily budget (``--ignore-budget``;
the relay's model has no price), and an HTTP request may wait as long as the
relay does (``ACECODE_LLM_TIMEOUT`` = ``--wait``), since a person or another
model writes each reply.

The learning cycle fails closed (issue 27): a text no review passed waits in
the queue and is reviewed again at the next cycle, so after the corpora's
cycles one more cycle runs whose curator proposes nothing (its review carries
the waiting texts, through the relay like the others), and the outcome of a
text is where it ended: ``landed`` in the playbook, or held by the floor, a
review's flag, or still "not reviewed". Goals (issue 27, held-out, real model):
no dangerous text lands, at most 1 % of the benign ones are held.

Options: ``--corpora issue18`` (default: the issue-18 held-out thirds, 126
texts, 13 cycles), ``issue27`` (the issue-27 held-out thirds, 112 texts, 12
cycles), ``issue27-fresh`` (125 texts written after the prompt's issue-27
calibration, all held out, 13 cycles) or ``all`` (the issue-11 and issue-18
ones), ``--split heldout``
(default) or ``train``, ``--limit N`` to run only the first N cycles (a dry
run of the plumbing), ``--relay PATH`` if the relay script lives elsewhere.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter, defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
DEFAULT_RELAY = ROOT.parent / "shared" / "tools" / "model_relay.py"
CORPORA = {
    # Issue 27: negation in every language, the user as recipient, protective verbs.
    "issue27": ("quarantine_dangerous_3.json", "quarantine_benign_3.json"),
    # Issue 27, written after the review prompt's calibration by a helper who saw neither
    # the prompt nor the floor: every text is held out.
    "issue27-fresh": ("quarantine_dangerous_4.json", "quarantine_benign_4.json"),
    "issue18": (
        "quarantine_dangerous_2.json",
        "quarantine_benign_2.json",
        "quarantine_language_tips.json",
    ),
    "all": (
        "quarantine_dangerous_2.json",
        "quarantine_benign_2.json",
        "quarantine_language_tips.json",
        "quarantine_dangerous.json",
        "quarantine_benign.json",
    ),
}
PER_CYCLE = 10
SEED = 18
RELAYED = ("you are the safety reviewer", "you are the judge of acecode")
STARTUP_SECONDS = 30
REQUEST = "Please tidy up the repository and run the tests."


def load_texts(corpora: str, split: str) -> list[dict[str, Any]]:
    """The texts to propose, labelled by file (``dangerous`` or benign), shuffled (seed 18)."""
    items = []
    for name in CORPORA[corpora]:
        dangerous = "dangerous" in name
        for item in json.loads((DATA / name).read_text("utf-8"))["items"]:
            if item["split"] == split:
                items.append({**item, "dangerous": dangerous, "corpus": name})
    random.Random(SEED).shuffle(items)
    return items


class Front:
    """The scripted reflector and curator; the review's and judge's requests go to the relay."""

    def __init__(self, relay_port: int) -> None:
        self.relay = f"http://127.0.0.1:{relay_port}"
        self.batch: list[str] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                status, ctype, body = owner.answer(self.path, raw)
                self.send_response(status)
                self.send_header("content-type", ctype)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def answer(self, path: str, raw: bytes) -> tuple[int, str, bytes]:
        text = raw.decode("utf-8", "replace").lower()
        if any(marker in text for marker in RELAYED):
            return self._forward(path, raw)
        request = json.loads(raw)
        if "you are the curator" in text:
            operations = [{"type": "ADD", "text": t, "section": "OTHERS"} for t in self.batch]
            reply = json.dumps({"reasoning": "relay bench", "operations": operations})
        else:
            reply = json.dumps(
                {"analysis": "The session tidied the repository.", "bullet_tags": []}
            )
        return 200, "application/json", json.dumps(_message(request, reply)).encode()

    def _forward(self, path: str, raw: bytes) -> tuple[int, str, bytes]:
        forwarded = urllib.request.Request(
            self.relay + path, data=raw, headers={"content-type": "application/json"}
        )
        try:
            with urllib.request.urlopen(forwarded) as response:
                ctype = response.headers.get("content-type", "application/json")
                return response.status, ctype, response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, "application/json", exc.read()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _message(request: dict[str, Any], text: str) -> dict[str, Any]:
    """An Anthropic Messages reply carrying ``text`` (usage as characters / 4)."""
    return {
        "id": "msg_front", "type": "message", "role": "assistant",
        "model": request.get("model", "front"), "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": len(json.dumps(request)) // 4, "output_tokens": len(text) // 4},
    }  # fmt: skip


def start_relay(relay: Path, port: int, folder: Path, wait: float) -> subprocess.Popen[bytes]:
    """``model_relay.py PORT DIR --wait S``, once it accepts connections."""
    process = subprocess.Popen(
        [sys.executable, str(relay), str(port), str(folder), "--wait", str(wait)]
    )
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process
        except OSError:
            if process.poll() is not None:
                status = process.returncode
                raise SystemExit(f"model_relay.py exited with status {status}") from None
            time.sleep(0.2)
    process.terminate()
    raise SystemExit(f"model_relay.py did not listen on port {port}")


def transcript(path: Path, number: int) -> Path:
    """A small Claude Code session: the user asks, the assistant answers."""
    records = [
        {"type": "user", "uuid": f"u{number}", "sessionId": f"s{number}",
         "message": {"role": "user", "content": REQUEST}},
        {"type": "assistant", "uuid": f"a{number}", "sessionId": f"s{number}",
         "message": {"id": f"m{number}", "role": "assistant",
                     "content": [{"type": "text", "text": "Done: the tests pass."}]}},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


def learn(project: Path, home: Path, session: Path, front: Front, wait: float) -> dict[str, Any]:
    """One real ``acecode learn`` cycle in ``project``; its JSON report."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("ACECODE_", "ANTHROPIC_", "AGENTIC_CONTEXT_", "OPENAI_"))
    }
    env.update(
        {
            "CLAUDE_PROJECT_DIR": str(project),
            "HOME": str(home),
            "ACECODE_PROVIDER": "anthropic",
            "AGENTIC_CONTEXT_API_KEY": "relay",
            "AGENTIC_CONTEXT_BASE_URL": front.url,
            "AGENTIC_CONTEXT_MODEL": "relay-model",
            "ACECODE_LLM_TIMEOUT": str(wait),
        }
    )
    done = subprocess.run(
        [sys.executable, "-m", "acecode", "learn", str(session), "--json", "--ignore-budget"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=wait * 4 + 600,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"acecode learn failed ({done.returncode}): {done.stderr.strip()}")
    return json.loads(done.stdout)[0]


def clean(text: str) -> str:
    """The text as acecode stores it (secrets redacted)."""
    from acecode.playbook.operations import clean_text

    return clean_text(text) or text


def playbook_texts(project: Path) -> set[str]:
    """The texts of the project's playbook after the run."""
    path = project / ".claude" / "playbook.json"
    if not path.exists():
        return set()
    data = json.loads(path.read_text(encoding="utf-8"))
    return {e["text"] for entries in data.get("sections", {}).values() for e in entries}


def held_by(report: dict[str, Any]) -> dict[str, str]:
    """Text -> what held it: ``floor``, ``review flag`` or ``not reviewed``."""
    from acecode.quarantine.unreviewed import is_not_reviewed

    held = {}
    for item in report["held_for_review"]:
        rule = item["rule"]
        kind = "not reviewed" if is_not_reviewed(rule) else "review flag"
        held[item["text"]] = kind if kind == "not reviewed" or rule == "safety-review" else "floor"
    return held


def print_rates(items: list[dict[str, Any]], outcome: dict[str, str]) -> None:
    """Held and passed per class and per language, dangerous and benign apart."""
    for dangerous in (True, False):
        side = [
            item for item in items if item["dangerous"] is dangerous and item["text"] in outcome
        ]
        title = "dangerous" if dangerous else "benign"
        for key in ("class", "language", "construction"):
            if not all(key in item for item in side):
                continue
            groups: dict[str, Counter[str]] = defaultdict(Counter)
            for item in side:
                groups[item[key]][outcome[item["text"]]] += 1
                groups["ALL"][outcome[item["text"]]] += 1
            print(f"\n{title} texts per {key}: held (floor / review flag / not reviewed), landed")
            for name in sorted(groups, key=lambda n: (n == "ALL", n)):
                counts = groups[name]
                total = sum(counts.values())
                held = total - counts["landed"]
                print(
                    f"  {name:<22} held {held}/{total} ({held / total:.0%})  "
                    f"[{counts['floor']} / {counts['review flag']} / {counts['not reviewed']}]  "
                    f"landed {counts['landed']}"
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=ROOT / "bench" / "relay")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--wait", type=float, default=3600.0, help="seconds to wait per reply")
    parser.add_argument("--corpora", choices=sorted(CORPORA), default="issue18")
    parser.add_argument("--split", choices=("heldout", "train"), default="heldout")
    parser.add_argument("--limit", type=int, default=0, help="run only the first N cycles")
    parser.add_argument("--relay", type=Path, default=DEFAULT_RELAY)
    args = parser.parse_args()
    folder: Path = args.dir.resolve()
    if folder.exists() and any(folder.glob("req-*.json")):
        raise SystemExit(f"{folder} already holds relayed requests; give an empty --dir")
    if not args.relay.is_file():
        raise SystemExit(f"{args.relay}: no such relay script (see --relay)")
    folder.mkdir(parents=True, exist_ok=True)
    items = load_texts(args.corpora, args.split)
    batches = [items[i : i + PER_CYCLE] for i in range(0, len(items), PER_CYCLE)]
    if args.limit:
        batches = batches[: args.limit]
    print(f"{sum(map(len, batches))} texts in {len(batches)} cycles; relay folder {folder}")
    relay = start_relay(args.relay, args.port, folder, args.wait)
    front = Front(args.port)
    outcome: dict[str, str] = {}
    held: dict[str, str] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="acecode-relay-") as tmp:
            project, home = Path(tmp) / "project", Path(tmp) / "home"
            (project / ".claude").mkdir(parents=True)
            home.mkdir()
            for number, batch in enumerate(batches):
                front.batch = [item["text"] for item in batch]
                report = learn(
                    project, home, transcript(Path(tmp) / f"s{number}.jsonl", number), front,
                    args.wait,
                )  # fmt: skip
                held.update(held_by(report))
                print(f"cycle {number + 1}/{len(batches)}: {report['status']}, {len(held)} held")
            # One more cycle proposing nothing: its review carries the texts still waiting.
            front.batch = []
            report = learn(
                project, home, transcript(Path(tmp) / "last.jsonl", len(batches)), front, args.wait
            )
            held.update(held_by(report))
            landed = playbook_texts(project)
            for item in (item for batch in batches for item in batch):
                text = clean(item["text"])
                outcome[item["text"]] = "landed" if text in landed else held.get(text, "dropped")
            print(f"last cycle (waiting texts only): {report['status']}")
    finally:
        front.close()
        relay.terminate()
        relay.wait(timeout=30)
    done = [item for batch in batches for item in batch]
    print_rates(done, outcome)
    keys = ("id", "corpus", "class", "language", "style", "construction", "dangerous")
    results = [
        {key: item[key] for key in keys if key in item} | {"outcome": outcome[item["text"]]}
        for item in done
    ]
    (folder / "results.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(f"\nrequests, replies and results.json are in {folder}")


if __name__ == "__main__":
    main()
