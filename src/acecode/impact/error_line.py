"""The one line of a failed call's output that says what went wrong.

Every reader of failures uses this function (provenance when a cycle links a
rule to the failure it was learned from, ``acecode impact``, the experiments,
recall), so the error a rule was learned from and the error the same failure
produces later are the same line, and so the same signature.

Each line is put in a class, and the first line of the best class wins:

4. a *specific* error: an exception with its message (``KeyError: 'port'``,
   ``** (RuntimeError) ...``, pytest's ``E   ...`` lines), a compiler's or
   linter's finding (``main.c:3:20: error: ...``, ``app.ts(1,7): error TS2322:``,
   ``F401 [*] `os` imported but unused``, ``./main.go:6:14: undefined: x``), a
   program's own ``error:``/``fatal:``/``ERROR:``/``npm error`` line, a panic,
   ``--- FAIL: TestX``; a ``fatal`` line beats the ``error`` lines around it;
3. any other line with an error word (``No such file``, ``failed``, ``denied``);
2. a *wrapper* that only says something failed: ``make: *** [...] Error 1``,
   ``collect2: error: ld returned 1 exit status``, ``error: could not compile``,
   test summaries (``1 failed in 0.5s``, ``Found 3 errors``), progress lines
   (``test_x.py::test_a FAILED [ 50%]``), ``Error: Job 'test' failed``;
1. any other line that is not noise (a diff, a message without an error word);
0. noise, never chosen while anything else is there: ``Exit code N``, banners
   without words, warnings, notes and hints, traceback frames, code excerpts,
   stack frames, progress and set-up lines.

After a Python ``Traceback (most recent call last)`` the last exception line
wins instead (the exception that propagated). The output is read as the
transcript reader keeps it (at most its first 2,300 and last 1,500 characters
when it is longer than 3,800): a transcript holds long outputs clipped
(:func:`acecode.transcript.text.clip`, 4,000 characters) while a hook sees them
whole, and both must pick the same line.

The line is returned with its colours and surrounding blanks removed and a
banner's decoration (``==== 2 failed ====``) dropped, so a line given alone
comes back unchanged: provenance stores the line, and a reader that computes
the signature from it gets the signature of the whole output.
"""

from __future__ import annotations

import re

# A long output is read in the two parts a clipped transcript keeps of it.
_WHOLE_CHARS = 3_800
_HEAD_CHARS = 2_300
_TAIL_CHARS = 1_500

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
# ``==== 2 failed in 0.5s ====``: its words are what counts.
_BANNER = re.compile(r"^[=_\-!*]{3,} ?(.*?) ?[=_\-!*]{3,}$")
# What tools put before a line: CI job tags, box drawing, status symbols, klog headers.
_PREFIX = re.compile(
    r"^(?:\[(?!(?:error|fatal|err)\])[\w/.:@-]{1,40}\]\s+(?:\|\s*)?|[│┃|]\s?|[✘✗✖❌×●⨯▶►»]\s*"
    r"|[EWIF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ \S+:\d+\]\s)+"
)

# --- class 0: noise ----------------------------------------------------------------------------

_NOISE = re.compile(
    r"^(?:exit code:? -?\d+$|process exited with code -?\d+$"
    r"|(?:test session starts|failures|errors|short test summary info|warnings summary"
    r"|captured \w+ \w+|slowest \d+ durations)$"
    r"|platform \w+ -- python|(?:cachedir|rootdir|configfile|testpaths|plugins|asyncio)\b"
    r"|collect(?:ing|ed)\b|=== run\b|--- pass\b|--- skip\b|ok\s+\S+\s+[\d.]+s$"
    r"|npm (?:warn|notice)\b|yarn warn|npm error$|\[?error\]?$"
    r"|time=\"[^\"]*\" level=(?:info|debug|warn)"
    r"|(?:compiling|finished|running|generated|building|checking|downloading|downloaded"
    r"|installing|resolved|prepared|installed|audited|updating|fetching|locking|creating"
    r"|getting extensions|running setup|running exunit)\b"
    r"|==> \S+$|-- |#\s|> "
    r"|(?:\S+:\d+(?::\d+)?: )?\w*warning\b|note:|help:|hint:|info:|tip:"
    r"|traceback\b|during handling of the above|the above exception was the direct cause"
    r"|file \".*\", line \d+|at \S|\^|~+\^?|\|\s|-->|\d+ \|"
    r"|in (?:function|file included from|member function)\b|.*: in function [`'‘]"
    r"|stack backtrace:|stacktrace:|goroutine \d+|created by |require stack:"
    r"|for more information about this error|see also \"|to see the full stack trace"
    r"|re-run maven using|for more information about the errors|node\.js v\d"
    r"|\[help \d+\]|\{$|\}$|\[$|\]$|https?://\S+$"
    r"|\S+ (?:passed|skipped|xfail|xpass)\s+\[\s*\d+%\]|test \S+ \.\.\. ok$"
    r")",
)

# --- class 2: wrappers -------------------------------------------------------------------------

_WRAPPER = re.compile(
    r"^(?:make(?:\[\d+\])?: \*\*\* \[.*\] error \d+"
    r"|collect2: error: ld returned \d+ exit status|compilation terminated"
    r"|error: could not compile\b|error: test failed, to rerun|test result: failed"
    r"|error: build failed with \d+ errors?|error: job \S+ failed|job failed"
    r"|exitcode '?\d+'?: failure|failed to execute goal .* -> \[help"
    r"|\d+ (?:errors?|problems?)\b.*|found \d+ errors?\b.*|total errors: \d+"
    r"|(?:\d+ (?:failed|passed|errors?|skipped|deselected|xfailed|warnings?)(?:, )?)+"
    r"(?: in [\d.]+s)?.*"
    r"|\d+ tests?, \d+ failures?.*|\d+ doctests?, .*failures?.*"
    r"|no tests (?:ran|collected)\b.*|interrupted: .*"
    r"|\S+ (?:failed|passed|error)\s+\[\s*\d+%\]|test \S+ \.\.\. failed"
    r"|fail$|fail\s+\S+\s+[\d.]+s$|failed$|error: \d+ errors?"
    r"|\S+:\d+: \w+(?:error|exception)$"
    r"|oops! something went wrong|cmake generate step failed|-- configuring incomplete"
    r"|npm error (?:code \S+|errno|a complete log|\d+$)"
    r"|there are some problems with the cli configuration"
    r")",
)

# --- class 4: specific errors ------------------------------------------------------------------

# An exception with its message: Python, Java, JS, Elixir, in a pytest E line or in brackets.
_EXCEPTION = re.compile(
    r"^(?:E\s+|\*\* \(|\[|exception in thread \"[^\"]*\" |uncaught )?"
    r"(?:[A-Za-z_][\w$]*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Failure|Fault)\)?"
    r"(?::\s*\S| \S)"
)
_SPECIFIC = re.compile(
    # path:line[:col]: [fatal ]error: message (gcc, clang, mypy, javac, ruff's old format)
    r"^\S+?:\d+(?::\d+)?:\s+(?:fatal\s+)?(?:error|\w*Error)\b"
    # a location and a message (go build and vet, go test's t.Error lines, ruff's old format)
    r"|^(?:vet: )?\.{0,2}/?[\w./-]+\.\w{1,5}:\d+(?::\d+)?: [^\s(]"
    # tsc: file(line,col): error TS2322: ...; pyright: path:l:c - error: ...
    r"|^\S+\(\d+,\d+\): error\b|^\S+:\d+:\d+ - error:"
    # eslint: 1:7  error  message  rule
    r"|^\d+:\d+\s+error\s+\S"
    # a linter's rule code first: F401 [*] ..., SIM115 Use a context manager ...
    r"|^[A-Z]{1,4}\d{2,4}(?: \[\*\])? \S"
    # rustc: error[E0425]: ...
    r"|^error\[\w+\]:"
    # a program's own error line: fatal: ..., error: ..., cli.py: error: ..., jq: error (...):
    r"|^(?:[\w.-]+: )?(?:fatal|error|fatal error|parse error)(?: \([^)]*\))?:\s*\S"
    r"|^(?:\[?(?:error|fatal)\]|error!?|npm err!|npm error)\s+\S"
    r"|^e\d{3,4}\s"
    # panics and test failures: panic: ..., thread 'x' panicked at, --- FAIL: TestX
    r"|^panic:|^thread '.*' (?:\(\d+\) )?panicked at|^--- fail:"
    r"|^failed \S+ - \S|^cmake error\b|^error: \S",
    re.IGNORECASE,
)
# A log level in brackets: ``[ERROR] ...`` is an error line, ``[INFO] ...`` noise.
_LEVEL = re.compile(r"^\[(error|err|fatal|info|warn|warning|debug)\]\s*", re.IGNORECASE)
_FATAL = re.compile(r"^(?:\[fatal\]|fatal\b|\S+: fatal\b)", re.IGNORECASE)

# --- class 3: error words ----------------------------------------------------------------------

_ERRORISH = re.compile(
    r"(error|fatal|fail|not found|no such|cannot|can't|could not|couldn't|unable|denied|"
    r"refused|invalid|unknown|missing|exceeds|not allowed|requires approval|blocked|"
    r"undefined|not defined|unresolved|has not been|haven't granted|no \w+ found|"
    r"does not exist|not recognized|unrecognized|would reformat|would be reformatted|"
    r"conflict|panic|abort|timed out|timeout|✘|✗)",
)

_TRACEBACK = "Traceback (most recent call last)"


def error_line(text: str) -> str:
    """The line of a failed call's output that says what went wrong (see the module)."""
    lines = [_clean(line) for line in _readable_lines(text)]
    lines = [line for line in lines if line]
    if not lines:
        return ""
    if any(line.startswith(_TRACEBACK) for line in lines):
        after = lines[max(i for i, line in enumerate(lines) if line.startswith(_TRACEBACK)) :]
        raised = [line for line in after if _EXCEPTION.match(_core(line))]
        if raised:
            return raised[-1]
    best, best_rank = lines[0], (-1, 0)
    for line in lines:
        rank = _rank(line)
        if rank > best_rank:
            best, best_rank = line, rank
    return best


def _readable_lines(text: str) -> list[str]:
    """The lines of ``text`` a clipped transcript keeps whole (see the module)."""
    text = _ANSI.sub("", text)
    if len(text) <= _WHOLE_CHARS:
        return text.splitlines()
    head = text[:_HEAD_CHARS].splitlines()[:-1]
    tail = text[-_TAIL_CHARS:].splitlines()[1:]
    return head + tail


def _clean(line: str) -> str:
    line = line.strip()
    banner = _BANNER.match(line)
    return banner.group(1).strip() if banner else line


def _core(line: str) -> str:
    """The line without the prefixes tools put before it."""
    return _PREFIX.sub("", line).strip()


def _rank(line: str) -> tuple[int, int]:
    """(class, fatal) of one line: higher is more informative (see the module).

    The noise, wrapper and error-word patterns are written in lower case and matched
    against the lower-cased line: compiling them case-insensitive costs a hook that
    computes a signature several milliseconds more."""
    core = _core(line)
    level = _LEVEL.match(core)
    if level:
        core = _core(core[level.end() :])
    lower = core.lower()
    if not core or _NOISE.match(lower):
        return (0, 0)
    if _WRAPPER.match(lower):
        return (2, 0)
    if level:
        if level.group(1).lower() in ("info", "warn", "warning", "debug"):
            return (0, 0)
        return (4, 1 if level.group(1).lower() == "fatal" else 0)
    if _EXCEPTION.match(core) or _SPECIFIC.match(core):
        return (4, 1 if _FATAL.match(core) else 0)
    if _ERRORISH.search(lower):
        return (3, 0)
    return (1, 0)
