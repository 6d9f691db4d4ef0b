"""A store re-verifies its files when their size or modification time changed.

The damage here keeps the file's size and lands between the 4 KiB blocks that the sampled
checksum reads, with finite values: before stores recorded their files' stamps, such a store
opened without complaint. A ``touch`` (same bytes, new time) is accepted and the new time recorded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from geobias.store import StoreChangedError, VectorStore, load_store, save_store
from geobias.store import cache as cache_mod

ROWS, DIM = 2_000, 300  # 2.4 MB: the 65 sampled blocks cover about a tenth of it


def _store(seed: int = 0) -> VectorStore:
    rng = np.random.default_rng(seed)
    return VectorStore([f"w{i}" for i in range(ROWS)], rng.standard_normal((ROWS, DIM)).astype(np.float32))


def _unsampled_offset(path: Path) -> int:
    """A 4-byte-aligned offset of ``path`` that no block of the sampled checksum reads."""
    size = path.stat().st_size
    last = size - cache_mod._SAMPLE_BLOCK
    offsets = sorted({0, *(last * i // (cache_mod._SAMPLE_BLOCKS - 1) for i in range(cache_mod._SAMPLE_BLOCKS))})
    start = offsets[10] + cache_mod._SAMPLE_BLOCK
    assert start + 64 < offsets[11]
    return start + 32 - start % 4


def _overwrite_in_place(store_dir: Path) -> None:
    """Write other finite float32 values over 4 values of vectors.npy: same size, same samples."""
    path = store_dir / "vectors.npy"
    before = cache_mod.sample_checksum(path)
    time.sleep(0.01)  # a later modification time even on coarse clocks
    with open(path, "r+b") as fh:
        fh.seek(_unsampled_offset(path))
        fh.write(np.array([0.5, -0.25, 1.0, 2.0], dtype=np.float32).tobytes())
    assert cache_mod.sample_checksum(path) == before  # the sampled check alone cannot see it


def _touch(path: Path) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def test_save_records_sizes_times_and_the_words_checksum(tmp_path):
    save_store(_store(), tmp_path / "s")
    meta = json.loads((tmp_path / "s" / "meta.json").read_text())
    for name in ("vectors.npy", "words.txt"):
        st = (tmp_path / "s" / name).stat()
        assert meta["files"][name] == {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "ctime_ns": st.st_ctime_ns,
                                       "ino": st.st_ino}
    assert meta["sha256_words"] == cache_mod.sha256_file(tmp_path / "s" / "words.txt")


def test_a_file_changed_in_place_is_refused_naming_the_store_and_file(tmp_path):
    save_store(_store(), tmp_path / "s")
    load_store(tmp_path / "s")
    _overwrite_in_place(tmp_path / "s")
    with pytest.raises(StoreChangedError) as exc:
        load_store(tmp_path / "s")
    msg = str(exc.value)
    assert "store 's'" in msg and "vectors.npy changed since the store was saved" in msg and "\n" not in msg


def test_touch_only_is_accepted_and_the_new_time_recorded(tmp_path, monkeypatch):
    monkeypatch.setenv("GEOBIAS_HASH_AT_OPEN_MB", "0")  # a store above the threshold: the stat path
    save_store(_store(), tmp_path / "s")
    for name in ("vectors.npy", "words.txt"):
        _touch(tmp_path / "s" / name)
    calls = []
    real = cache_mod.sha256_file
    cache_mod_sha = lambda p, *a: calls.append(Path(p).name) or real(p, *a)  # noqa: E731
    try:
        cache_mod.sha256_file = cache_mod_sha
        load_store(tmp_path / "s")  # re-hashed once: same bytes
        assert sorted(calls) == ["vectors.npy", "words.txt"]
        calls.clear()
        load_store(tmp_path / "s")  # the new times are recorded: the stat-only path again
        assert calls == []
    finally:
        cache_mod.sha256_file = real
    meta = json.loads((tmp_path / "s" / "meta.json").read_text())
    assert meta["files"]["vectors.npy"]["mtime_ns"] == (tmp_path / "s" / "vectors.npy").stat().st_mtime_ns


def _restore_mtime_after(store_dir: Path, change) -> None:
    st = (store_dir / "vectors.npy").stat()
    change(store_dir)
    os.utime(store_dir / "vectors.npy", ns=(st.st_atime_ns, st.st_mtime_ns))
    recorded = json.loads((store_dir / "meta.json").read_text())["files"]["vectors.npy"]
    now = cache_mod.file_stamps(store_dir)["vectors.npy"]
    # size, modification time and inode as recorded: only the status-change time moved
    assert {k: now[k] for k in ("size", "mtime_ns", "ino")} == {k: recorded[k] for k in ("size", "mtime_ns", "ino")}
    assert now["ctime_ns"] != recorded["ctime_ns"]


def test_a_change_with_its_mtime_restored_is_refused_at_open_above_and_below_the_threshold(tmp_path, monkeypatch):
    """Size and modification time as recorded, the status-change time not (``utime`` cannot set it
    back): the open re-hashes and refuses it, whether the store is small enough to be hashed at
    every open or large enough to trust its stamps; `vectors verify` finds it too."""
    from geobias.store.verify import verify_stores

    save_store(_store(), tmp_path / "s")
    load_store(tmp_path / "s")
    _restore_mtime_after(tmp_path / "s", _overwrite_in_place)
    with pytest.raises(StoreChangedError, match="vectors.npy changed"):
        load_store(tmp_path / "s")
    monkeypatch.setenv("GEOBIAS_HASH_AT_OPEN_MB", "1")  # 2.4 MB is now above the threshold
    with pytest.raises(StoreChangedError, match="vectors.npy changed"):
        load_store(tmp_path / "s")  # the status-change time gives it away
    with pytest.raises(StoreChangedError, match="store 's': vectors.npy changed") as exc:
        verify_stores(["s"], tmp_path)
    assert "\n" not in str(exc.value)
    save_store(_store(), tmp_path / "t")
    result = verify_stores(["t"], tmp_path)
    assert result.ok and result.stores[0].changed == [] and result.stores[0].bytes > ROWS * DIM * 4


def test_vectors_verify_cli_exits_1_naming_the_changed_file(tmp_path):
    vectors = tmp_path / "vectors"
    vectors.mkdir()
    save_store(_store(), vectors / "good")
    save_store(_store(), vectors / "bad")
    env_dir = {"GEOBIAS_VECTORS_DIR": str(vectors)}
    ok = _cli("vectors", "verify", "good", "--json", cwd=tmp_path, env=env_dir)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["result"]["ok"] is True
    _restore_mtime_after(vectors / "bad", _overwrite_in_place)
    r = _cli("vectors", "verify", cwd=tmp_path, env=env_dir)  # every store
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1 and "store 'bad': vectors.npy changed" in r.stderr and "good" not in r.stderr


def test_an_older_store_without_stamps_is_verified_once_then_recorded(tmp_path):
    save_store(_store(), tmp_path / "old")
    meta_path = tmp_path / "old" / "meta.json"
    meta = json.loads(meta_path.read_text())
    for key in ("files", "sha256_words"):
        meta.pop(key)
    meta_path.write_text(json.dumps(meta))
    load_store(tmp_path / "old")  # verified against sha256_vectors, then recorded
    again = json.loads(meta_path.read_text())
    assert set(again["files"]) == {"vectors.npy", "words.txt"} and len(again["sha256_words"]) == 64
    # damaged before its first open: the one-time verification refuses it
    save_store(_store(), tmp_path / "old2")
    meta2 = tmp_path / "old2" / "meta.json"
    m = json.loads(meta2.read_text())
    m.pop("files")
    meta2.write_text(json.dumps(m))
    _overwrite_in_place(tmp_path / "old2")
    with pytest.raises(StoreChangedError, match="vectors.npy changed"):
        load_store(tmp_path / "old2")


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root can write into a read-only folder")
def test_a_read_only_store_still_opens_after_touch(tmp_path):
    save_store(_store(), tmp_path / "s")
    _touch(tmp_path / "s" / "vectors.npy")
    os.chmod(tmp_path / "s", 0o555)
    try:
        assert len(load_store(tmp_path / "s")) == ROWS  # verified; the record cannot be updated
    finally:
        os.chmod(tmp_path / "s", 0o755)


def _cli(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]), **(env or {}))
    env.pop("GEOBIAS_DEBUG", None)
    return subprocess.run([sys.executable, "-c", "from geobias.cli import main; main()", *args],
                          capture_output=True, text=True, timeout=120, env=env, cwd=cwd)


def test_cli_refuses_a_changed_store_in_one_line_and_accepts_a_touched_one(tmp_path):
    save_store(_store(), tmp_path / "bad")
    save_store(_store(), tmp_path / "ok")
    _overwrite_in_place(tmp_path / "bad")
    _touch(tmp_path / "ok" / "vectors.npy")
    r = _cli("neighbors", "w1", "--vectors", str(tmp_path / "bad"), "--k", "2", "--json", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert r.stderr.count("\n") == 1 and "vectors.npy changed since the store was saved" in r.stderr
    r = _cli("neighbors", "w1", "--vectors", str(tmp_path / "ok"), "--k", "2", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["command"] == "neighbors"


def test_service_refuses_a_store_changed_while_it_was_open(tmp_path):
    pytest.importorskip("httpx")
    pytest.importorskip("fastapi")
    pytest.importorskip("uvicorn")
    from _server import ServerProcess

    vectors = tmp_path / "vectors"
    vectors.mkdir()
    save_store(_store(), vectors / "bad")
    save_store(_store(), vectors / "ok")
    with ServerProcess(vectors, tmp_path / "data") as srv, srv.client(timeout=60) as c:
        for name in ("bad", "ok"):  # both opened (memory-mapped) by the server
            assert c.post("/neighbors", json={"store": name, "word": "w1", "k": 2}).status_code == 200
        _overwrite_in_place(vectors / "bad")
        _touch(vectors / "ok" / "vectors.npy")
        r = c.post("/neighbors", json={"store": "bad", "word": "w1", "k": 2})
        assert 400 <= r.status_code < 500, r.text
        err = r.json()["error"]
        assert err["type"] == "StoreChangedError" and "vectors.npy changed since the store was saved" in err["message"]
        assert str(tmp_path) not in err["message"]  # the server's paths are redacted
        assert c.post("/neighbors", json={"store": "ok", "word": "w1", "k": 2}).status_code == 200


def _counting_hashes(monkeypatch) -> list[str]:
    """The names of the files :func:`sha256_file` hashes from now on."""
    calls: list[str] = []
    real = cache_mod.sha256_file
    monkeypatch.setattr(cache_mod, "sha256_file", lambda p, *a: calls.append(Path(p).name) or real(p, *a))
    return calls


def test_a_small_store_verified_once_settled_opens_on_its_stamps(tmp_path, monkeypatch):
    """Below the threshold, one full hash of files that last changed SETTLE_NS before it is recorded
    (``verified_ns``) and vouches for later opens: they stat only, while the stamps stay the same."""
    monkeypatch.setattr(cache_mod, "SETTLE_NS", 0)  # the files are as old as they need to be
    save_store(_store(), tmp_path / "s")
    meta_path = tmp_path / "s" / "meta.json"
    assert "verified_ns" not in json.loads(meta_path.read_text())  # saving does not vouch for itself
    calls = _counting_hashes(monkeypatch)
    load_store(tmp_path / "s")
    assert sorted(calls) == ["vectors.npy", "words.txt"]
    meta = json.loads(meta_path.read_text())
    assert cache_mod.settled(meta["files"], meta["verified_ns"])
    calls.clear()
    assert len(load_store(tmp_path / "s")) == ROWS
    assert calls == []
    monkeypatch.setenv("GEOBIAS_HASH_EVERY_OPEN", "1")  # the opt-out: hashed at every open again
    load_store(tmp_path / "s")
    assert sorted(calls) == ["vectors.npy", "words.txt"]


def test_a_store_still_settling_is_hashed_at_every_open_and_vouches_for_nothing(tmp_path, monkeypatch):
    """Files changed less than SETTLE_NS before the hash: a write in the same clock tick as their last
    change would keep their stamps, so no verification is recorded and the next open hashes again."""
    monkeypatch.setattr(cache_mod, "SETTLE_NS", 3600 * 10**9)  # an hour: the files just written are not settled
    save_store(_store(), tmp_path / "s")
    calls = _counting_hashes(monkeypatch)
    for _ in range(2):
        load_store(tmp_path / "s")
    assert sorted(calls) == ["vectors.npy", "vectors.npy", "words.txt", "words.txt"]
    assert "verified_ns" not in json.loads((tmp_path / "s" / "meta.json").read_text())


def test_a_verified_store_changed_later_is_refused_and_a_touch_drops_the_old_proof(tmp_path, monkeypatch):
    """A verification vouches only for the stamps it saw: an in-place change with the modification time
    put back moves ctime, so the open hashes and refuses it; a touch (same bytes) is hashed, accepted,
    and its new stamps get their own verification (the old one is not carried over)."""
    monkeypatch.setattr(cache_mod, "SETTLE_NS", 0)
    save_store(_store(), tmp_path / "bad")
    save_store(_store(), tmp_path / "ok")
    for name in ("bad", "ok"):
        load_store(tmp_path / name)  # verified and recorded
    _restore_mtime_after(tmp_path / "bad", _overwrite_in_place)
    with pytest.raises(StoreChangedError, match="store 'bad'.*vectors.npy changed"):
        load_store(tmp_path / "bad")
    before = json.loads((tmp_path / "ok" / "meta.json").read_text())["verified_ns"]
    st = (tmp_path / "ok" / "vectors.npy").stat()
    os.utime(tmp_path / "ok" / "vectors.npy", ns=(st.st_atime_ns, st.st_mtime_ns - 10**9))  # a touch into the past
    # (_touch's time 1 s ahead is not settled before that second has passed)
    calls = _counting_hashes(monkeypatch)
    load_store(tmp_path / "ok")
    assert sorted(calls) == ["vectors.npy", "words.txt"]
    meta = json.loads((tmp_path / "ok" / "meta.json").read_text())
    assert meta["files"] == cache_mod.file_stamps(tmp_path / "ok") and meta["verified_ns"] > before
    monkeypatch.setattr(cache_mod, "SETTLE_NS", 3600 * 10**9)  # a stale proof never vouches for newer stamps
    _touch(tmp_path / "ok" / "words.txt")
    calls.clear()
    load_store(tmp_path / "ok")
    assert sorted(calls) == ["vectors.npy", "words.txt"]
    assert "verified_ns" not in json.loads((tmp_path / "ok" / "meta.json").read_text())
