"""Embedding cache: a cycle embeds only new or changed texts; damage is never fatal."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from acecode.dedup import EmbeddingCache, deduplicate
from acecode.dedup.cache import CACHE_FILE, text_key
from support.embedding_backends import CountingBackend
from support.hang_guard import HANG_GUARD
from support.playbooks import entry
from support.playbooks import make_playbook as playbook

BENCH = Path(__file__).parents[2] / "bench"
sys.path.insert(0, str(BENCH))
from _corpus import coding_tips  # noqa: E402


def _playbook_of(texts: list[str]) -> dict:
    return playbook(oth=[entry(f"oth-{i:03d}", t) for i, t in enumerate(texts)])


@pytest.fixture
def cache(tmp_path: Path) -> EmbeddingCache:
    store = EmbeddingCache.for_playbook(tmp_path / ".claude" / "playbook.json")
    yield store
    store.close()


def test_cache_lives_beside_the_playbook(tmp_path: Path):
    store = EmbeddingCache.for_playbook(tmp_path / "x" / "playbook.json")
    assert store.path == tmp_path / "x" / "acecode" / CACHE_FILE


def test_cache_second_run_over_same_playbook_embeds_nothing(real_backend, cache):
    counting = CountingBackend(real_backend)
    pb = _playbook_of(coding_tips(20))
    first = deduplicate(pb, backend=counting, cache=cache)
    assert counting.embedded == 20
    second = deduplicate(pb, backend=counting, cache=cache)
    assert counting.embedded == 20 and len(counting.calls) == 1
    assert second.playbook == first.playbook


@pytest.mark.slow
def test_cache_500_entries_with_5_new_embeds_exactly_5(real_backend, cache):
    texts = coding_tips(505)
    counting = CountingBackend(real_backend)
    deduplicate(_playbook_of(texts[:500]), backend=counting, cache=cache)
    assert counting.embedded == 500
    counting.calls.clear()
    deduplicate(_playbook_of(texts), backend=counting, cache=cache)
    assert counting.calls == [texts[500:]]


def test_cache_changed_text_is_re_embedded(real_backend, cache):
    counting = CountingBackend(real_backend)
    deduplicate(_playbook_of(["Use uv.", "Pin versions."]), backend=counting, cache=cache)
    deduplicate(_playbook_of(["Use uv.", "Pin every version."]), backend=counting, cache=cache)
    assert counting.calls[-1] == ["Pin every version."]


def test_cache_is_keyed_by_model_id(real_backend, cache):
    vector = real_backend.embed(["Use uv."])[0]
    cache.put_many("model-a", [(text_key("Use uv."), vector)])
    assert set(cache.get_many("model-a", [text_key("Use uv.")])) == {text_key("Use uv.")}
    assert cache.get_many("model-b", [text_key("Use uv.")]) == {}


def test_cache_vectors_round_trip_exactly(cache):
    vector = np.linspace(-1, 1, 384, dtype=np.float32)
    cache.put_many("m", [("k", vector)])
    assert np.array_equal(cache.get_many("m", ["k"])["k"], vector)


def test_cache_uses_wal_journal(cache):
    cache.put_many("m", [("k", np.ones(3, dtype=np.float32))])
    with sqlite3.connect(cache.path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_cache_corrupt_file_is_rebuilt_not_fatal(real_backend, cache, capsys):
    cache.path.parent.mkdir(parents=True)
    cache.path.write_bytes(b"this is not a sqlite database" * 100)
    counting = CountingBackend(real_backend)
    pb = _playbook_of(["Use uv.", "Use uv to manage environments."])
    deduplicate(pb, backend=counting, cache=cache)
    assert "embedding cache" in capsys.readouterr().err
    cache.close()
    with sqlite3.connect(cache.path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT count(*) FROM embeddings").fetchone()[0] == 2
    assert list(cache.path.parent.glob(f"{CACHE_FILE}.corrupt-*"))


def test_cache_unwritable_location_degrades_to_no_cache(real_backend, tmp_path):
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("x")
    store = EmbeddingCache(blocker / "acecode" / CACHE_FILE)
    counting = CountingBackend(real_backend)
    pb = _playbook_of(["Use uv.", "Use uv to manage environments."])
    assert deduplicate(pb, backend=counting, cache=store).removed == 1
    assert deduplicate(pb, backend=counting, cache=store).removed == 1
    # Nothing could be written and nothing failed; within one process each text
    # is still embedded once (the cache keeps what it saw in memory).
    assert counting.embedded == 2
    assert not blocker.is_dir()


_WRITER = textwrap.dedent(
    """
    import sys
    import numpy as np
    from acecode.dedup.cache import EmbeddingCache
    path, worker = sys.argv[1], int(sys.argv[2])
    cache = EmbeddingCache(path)
    rng = np.random.default_rng(worker)
    for round_ in range(20):
        keys = [f"k{(worker * 7 + round_ * 3 + i) % 60}" for i in range(10)]
        cache.put_many("m", [(k, np.full(384, int(k[1:]), dtype=np.float32)) for k in keys])
        got = cache.get_many("m", keys)
        assert all(float(v[0]) == int(k[1:]) for k, v in got.items()), "torn vector"
    """
)


@pytest.mark.slow
def test_cache_concurrent_processes_do_not_corrupt_it(tmp_path: Path):
    path = tmp_path / CACHE_FILE
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(path), str(w)]) for w in range(4)]
    assert [p.wait(timeout=HANG_GUARD) for p in procs] == [0, 0, 0, 0]
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = conn.execute("SELECT text_sha256, vector FROM embeddings").fetchall()
    assert {k for k, _ in rows} == {f"k{i}" for i in range(60)}
    assert all(np.frombuffer(v, dtype=np.float32)[0] == int(k[1:]) for k, v in rows)


def test_max_removals_defers_the_groups_that_do_not_fit(real_backend):
    pb = _playbook_of(
        [
            "Run the test suite before committing any change.",
            "Always run the tests before you commit changes.",
            "Use pathlib.Path instead of os.path for file path handling.",
            "Prefer pathlib.Path over os.path when handling file paths.",
        ]
    )

    limited = deduplicate(pb, backend=real_backend, max_removals=1)
    unlimited = deduplicate(pb, backend=real_backend)

    assert limited.removed == 1 and len(limited.deferred) == 1
    assert unlimited.removed == 2 and unlimited.deferred == []
    names = [e["name"] for e in limited.playbook["sections"]["OTHERS"]]
    assert names == ["oth-000", "oth-002", "oth-003"]
