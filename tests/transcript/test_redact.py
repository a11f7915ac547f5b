"""Secret redaction: planted secrets of every kind never survive; ordinary code is left alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from transcript_data import TRANSCRIPTS

from acecode.text.redact import find_secrets, redact
from acecode.transcript import load_transcript
from acecode.transcript.condense import condense
from acecode.transcript.text import clip
from support.worst_cases import redact_adversarial

# Planted secrets (fake, with the real shapes), each inside a realistic line.
_B64 = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw"
PRIVATE_KEY = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    + "\n".join([_B64, _B64[::-1], _B64.lower()])
    + "\n-----END RSA PRIVATE KEY-----"
)
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
CORPUS: list[tuple[str, str, str]] = [
    ("aws-access-key", "AKIA4QZ7XHJ2LMNOPQRS", "export AWS_ACCESS_KEY_ID={s}"),
    (
        "aws-secret-key",
        "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",
        "aws_secret_access_key = {s}",
    ),
    (
        "github-token",
        "ghp_" + "R3aLlyL00kingT0k3nV4lue1234567890AbCd",
        "git push https://{s}@github.com/o/r",
    ),
    ("github-token", "gho_" + "a" * 18 + "B7" * 9, "GH_TOKEN={s} gh pr list"),
    ("github-token", "ghs_" + "Zz9" * 12, "token: {s}"),
    ("github-token", "github_pat_11ABCDEFG0123456789_" + "x7Y" * 20, "Authorization: token {s}"),
    (
        "anthropic-key",
        "sk-ant-api03-" + "Q1w2E3r4T5y6" * 8 + "-AA",
        "ANTHROPIC_API_KEY={s} claude -p hi",
    ),
    ("openai-key", "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5q" * 4, 'client = OpenAI(api_key="{s}")'),
    ("openai-key", "sk-" + "T3BlbkFJ" + "a1b2c3d4e5" * 4, "OPENAI_API_KEY={s}"),
    (
        "slack-token",
        "xoxb-2187-4422-" + "k9J2mN4pQ7rS1tU3",
        "curl -H 'Authorization: Bearer {s}' slack.com",
    ),
    (
        "slack-webhook",
        "https://hooks.slack.com/services/T0123/B0456/abcDEF123ghiJKL456",
        "POST {s}",
    ),
    ("stripe-key", "sk_live_" + "51HqLyjWDarjtT1zdp7dc" + "9x" * 6, "stripe.api_key = '{s}'"),
    ("stripe-key", "rk_live_" + "Zq8Wv2Xy4Ab6Cd8Ef0Gh2Ij4", "STRIPE_RESTRICTED={s}"),
    (
        "google-api-key",
        "AIza" + "SyD3x9Kq-Lm2Np4Rs6Tu8Vw0Xy1Za3Bc5De",
        "maps.googleapis.com/?key={s}",
    ),
    ("private-key", PRIVATE_KEY, "cat ~/.ssh/id_rsa\n{s}\n"),
    ("jwt", JWT, "Cookie: session={s}"),
    ("url-password", "Sup3r-S3cret!", "DATABASE_URL=postgres://admin:{s}@db.internal:5432/app"),
    ("secret-assignment", "hunter2hunter2", "mysql -u root --password={s} mydb"),
    ("secret-assignment", "correct horse battery 42", '{{"password": "{s}", "user": "bob"}}'),
    ("secret-assignment", "n0t-a-r3al-s3cret", "DB_PASSWORD={s}"),
    ("secret-assignment", "S3cr3tV4lu3", "client_secret: {s}"),
    (
        "high-entropy-secret",
        "9f86d081884c7d659a2feaa0c55ad015",
        "the deploy token is {s}, keep it safe",
    ),
    ("bearer-token", "ya30Zx81kLmNoPqRsTuVwXyZ0123", "Authorization: Bearer {s}"),
    # Shapes added after an audit of common credential forms (docs/transcripts.md).
    ("docker-token", "dckr_pat_" + "Qm7rT2xV9kLp4Wn8Zc3Yb6Hd", "docker login -u me -p {s}"),
    (
        "pypi-token",
        "pypi-AgEIcHlwaS5vcmc" + "Ck9xT3mZ8" * 6,
        "TWINE_PASSWORD={s} twine upload dist/*",
    ),
    (
        "sendgrid-key",
        "SG.Zk3mQ9xT2vLp8WnRc4Yb6H." + "d7Fj2Ks9Lq4Mw8Nx1Pz5Rv3Tb6Yc0Ue",
        "sg = SendGrid('{s}')",
    ),
    (
        "vault-token",
        "hvs." + "CAESIK9x2mT7qLz4Wv8Nc3Rb6Yd",
        "VAULT_TOKEN={s} vault kv get secret/app",
    ),
    ("openrouter-key", "sk-or-v1-" + "9f2c" * 16, "OPENROUTER_API_KEY={s}"),
    (
        "azure-key",
        "q8YRpQ1tD1mSxk7cXAVvwwVZT5oE3uT0bP8Yh9dL2fQ3kZ0pY1s2T3u4V5w6X7y8Z9a0B1c2D3e4F5g6H7i8J==",
        "AccountName=acct;AccountKey={s};EndpointSuffix=core.windows.net",
    ),
    (
        "url-token",
        "9f86d081884c7d659a2feaa0c55ad015",
        "SENTRY_DSN=https://{s}@o4505.ingest.sentry.io/42",
    ),
    ("command-line-secret", "Tr0ub4dor&3x", "mysql -u root -p{s} shop"),
    ("command-line-secret", "Sup3rS3cret", "curl -u admin:{s} https://api.example.com/v1"),
    ("command-line-secret", "hunter2hunter2", "pg_dump --password {s} shop > dump.sql"),
    ("secret-assignment", "Sup3rS3cret", "PGPASSWORD={s} psql -h db -U app"),
    ("secret-assignment", "correct horse battery staple", "DB_PASSWORD='{s}'"),
    ("code-credential", "Sup3rS3cret", "requests.get(url, auth=('admin', '{s}'))"),
    ("netrc-password", "Sup3rS3cret", "machine api.example.com login me password {s}"),
    ("secret-in-prose", "Xy7kq2zW9", "the staging admin password is {s} until Friday"),
]


def _fragments(secret: str, size: int = 12) -> list[str]:
    """Every run of ``size`` characters of the secret's key-like material."""
    material = "".join(c for c in secret if c.isalnum())
    return [material[i : i + size] for i in range(0, max(1, len(material) - size + 1), 4)]


@pytest.mark.parametrize(("kind", "secret", "line"), CORPUS, ids=[c[0] for c in CORPUS])
def test_each_planted_secret_is_redacted(kind: str, secret: str, line: str) -> None:
    text = line.format(s=secret)
    result = redact(text)
    assert secret not in result
    assert f"[REDACTED:{kind}]" in result, result
    assert redact(result) == result  # idempotent: markers are not re-redacted


def _corpus_session(path: Path) -> Path:
    """A session whose prompts, commands, outputs, errors and answers carry every secret."""
    records: list[dict] = []
    for number, (_, secret, line) in enumerate(CORPUS):
        text = line.format(s=secret)
        tool_id = f"toolu_{number}"
        records += [
            {"type": "user", "message": {"role": "user", "content": f"please run this: {text}"}},
            {
                "type": "assistant",
                "message": {
                    "id": f"msg_{number}",
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": f"The user gave {text}"},
                        {"type": "text", "text": f"Running it now.\n{text}"},
                        {
                            "type": "tool_use",
                            "id": tool_id,
                            "name": "Bash",
                            "input": {"command": text},
                        },
                    ],
                },
            },
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": tool_id,
                            "is_error": number % 2 == 0,
                            "content": f"Exit code 1\nerror: bad value in {text}\n" + "x\n" * 400,
                        }
                    ],
                },
            },
        ]
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("budget", [20_000, 3_000, 600])
def test_no_planted_secret_survives_condensation(tmp_path: Path, budget: int) -> None:
    """Whatever the budget cuts, no secret and no fragment of one reaches the LLM input."""
    output = condense(load_transcript(_corpus_session(tmp_path / "s.jsonl")), budget)
    for _, secret, _ in CORPUS:
        assert secret not in output
        for fragment in _fragments(secret):
            assert fragment not in output, (fragment, secret)
    if budget == 20_000:
        assert output.count("[REDACTED:") >= len(CORPUS)


ORDINARY_CODE = [
    "token = get_token()",
    "max_tokens=4096",
    "def login(username: str, password: str) -> Token:",
    "password = request.form['password']",
    "if not api_key:\n    raise ValueError('missing api key')",
    "tokens = text.split()\ntoken_count = len(tokens)",
    'secret_name = "prod/db"',
    "export PATH=/usr/local/bin:$PATH",
    'API_KEY = os.environ["ANTHROPIC_API_KEY"]',
    "self.token = token",
    "commit 3f2a9c1b8e7d6f5a4b3c2d1e0f9a8b7c6d5e4f3a",
    "id: 550e8400-e29b-41d4-a716-446655440000",
    "curl http://localhost:8080/api/v1/items?page=2",
    "git clone git@github.com:org/repo.git",
    "mail me at someone@example.com",
    "ghp_xxx, your-api-key, $GITHUB_TOKEN, sk-...",
    "password: ${DB_PASSWORD}",
    "PWD=/home/user/project OLDPWD=/home/user",
    "Phoenix.Token.get_endpoint_key_base/1",
    "token = Base.url_encode64(:crypto.strong_rand_bytes(32))",
    "secret_key_base: ...",
    "image: data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk",
    "Bearer token authentication is configured in settings.py",
    "sk-learn is not a package, scikit-learn is",
    "mysql -u root -p shop",
    "echo $TOKEN | docker login --password-stdin ghcr.io",
    "curl -u $USER:$PASS https://api.example.com",
    "the password is stored in Vault, ask ops for access",
    "PWD=/home/user/project mkdir -p build",
    'password: "Enter it twice"',
    "ssh://git@github.com/org/repo.git",
]


@pytest.mark.parametrize("text", ORDINARY_CODE)
def test_ordinary_code_is_left_alone(text: str) -> None:
    assert redact(text) == text


def test_real_transcripts_hold_no_secrets_to_redact() -> None:
    """The real files hold only placeholders (SOURCES.md): any redaction is a false positive."""
    hits = []
    for path in sorted(TRANSCRIPTS.rglob("*.jsonl")):
        raw = path.read_text(encoding="utf-8")
        hits += [(path.name, raw[s.start - 40 : s.end + 10]) for s in find_secrets(raw)]
        output = condense(load_transcript(path))
        assert "[REDACTED:" not in output, path
    assert hits == []


def test_adversarial_input_is_redacted() -> None:
    """Text built to make a backtracking pattern explode is still redacted right.

    How its cost grows with its size is measured by ``bench/worst_case_bench.py``.
    """
    output = redact(redact_adversarial(4))

    assert "[REDACTED:private-key]" in output
    assert "A" * 200 not in output and "a1" * 100 not in output


@settings(max_examples=200, deadline=None)
@given(
    prefix=st.text(alphabet="abc def\n=:", max_size=80),
    suffix=st.text(alphabet="abc def\n=:", max_size=80),
    limit=st.integers(min_value=10, max_value=200),
    share=st.floats(min_value=0.0, max_value=1.0),
    choice=st.integers(min_value=0, max_value=len(CORPUS) - 1),
)
def test_clipping_never_leaves_a_secret_fragment(
    prefix: str, suffix: str, limit: int, share: float, choice: int
) -> None:
    """Cutting a text anywhere, then redacting, never exposes part of a key."""
    _, secret, line = CORPUS[choice]
    text = prefix + " " + line.format(s=secret) + " " + suffix
    output = redact(clip(text, limit, share))
    for fragment in _fragments(secret):
        assert fragment not in output


def test_redact_data_reaches_every_string_of_a_structure() -> None:
    from acecode.text.redact import redact_data

    token = "ghp_" + "Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8"
    ops = [{"type": "ADD", "text": f"use {token}", "tags": [token, 3, None], token: True}]

    cleaned = redact_data(ops)

    assert token not in repr(cleaned)
    assert cleaned[0]["type"] == "ADD" and cleaned[0]["tags"][1:] == [3, None]
    assert ops[0]["text"] == f"use {token}"  # the input is left alone
