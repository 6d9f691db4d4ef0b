"""A vector file's header is a claim: every reader weighs it before allocating anything.

The hostile corpus (``tests/_hostile.py``: 22 bytes declaring 2 × 10⁹ values, a billion-row
.vec, an .npz member of shape (4, 5·10¹⁰), a word2vec .bin declaring 10¹¹ rows, a zip member
lying about its size, a fastText header with 2·10⁹ buckets, ...) is refused by the library and the
command line with one line, and the peak of memory traced while reading stays far below what the
header declares. Refusal times are measured in ``benchmarks/bench_abuse.py``.
"""

from __future__ import annotations

import tracemalloc
import zipfile

import numpy as np
import pytest
from _hostile import BOMB_CAP, bomb, bomb_npz, corpus, npy_bytes, npz_bytes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geobias.cli import main
from geobias.errors import VectorFormatError
from geobias.io import sizes
from geobias.io.sizes import MAX_DIMS, CountingReader, check_declared
from geobias.store.formats import read_vectors

CASES = corpus()
#: Peak traced memory allowed while refusing a file: a few MiB of parser state, nothing sized by
#: the header (the smallest declared matrix in the corpus is 4 × 65,536 floats, 1 MiB, so the
#: bound is set on the bytes actually in play rather than on what is declared).
PEAK = 16 << 20


def _write(tmp_path, case):
    filename, content = CASES[case]
    path = tmp_path / filename
    path.write_bytes(content)
    return path


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_hostile_file_is_refused_before_allocation(tmp_path, case):
    path = _write(tmp_path, case)
    tracemalloc.start()
    try:
        with pytest.raises(VectorFormatError) as info:
            read_vectors(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    message = str(info.value)
    assert "\n" not in message and str(path) in message, message
    assert peak < PEAK, (case, peak)


@pytest.mark.parametrize("case", ["text-22-bytes", "text-30-bytes", "text-billion-rows", "npz-huge-shape",
                                  "bin-huge-header", "npz-lying-size"])
def test_the_command_line_refuses_with_one_line_and_exit_1(tmp_path, case, capsys):
    path = _write(tmp_path, case)
    with pytest.raises(SystemExit) as exc:
        main(["neighbors", "roi", "--vectors", str(path)])
    err = capsys.readouterr().err
    assert exc.value.code == 1, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err and str(path) in lines[0], err


def test_the_messages_say_what_was_declared(tmp_path):
    msg = str(pytest.raises(VectorFormatError, read_vectors, _write(tmp_path, "text-22-bytes")).value)
    assert "2 × 1,000,000,000" in msg and f"{MAX_DIMS:,}" in msg
    msg = str(pytest.raises(VectorFormatError, read_vectors, _write(tmp_path, "text-billion-rows")).value)
    assert "1,000,000,000 × 300" in msg and "wrong header or a truncated file" in msg
    msg = str(pytest.raises(VectorFormatError, read_vectors, _write(tmp_path, "npz-lying-size")).value)
    assert "vectors.npy" in msg


def test_a_compressed_member_is_held_to_the_stored_size_cap(tmp_path):
    """A valid 1000:1 .npz reads without a cap and is refused, from its declared size, with one."""
    filename, content = bomb()
    path = tmp_path / filename
    path.write_bytes(content)
    stored = 1000 * 1000 * 4
    assert path.stat().st_size * 500 < stored  # it does inflate by more than 500:1
    assert read_vectors(path).vectors.shape == (1000, 1000)
    tracemalloc.start()
    try:
        with pytest.raises(VectorFormatError, match="cap on a stored matrix"):
            read_vectors(path, max_bytes=BOMB_CAP)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < stored / 4


def test_a_matrix_beyond_the_memory_available_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "ok.vec"
    path.write_text("2 3\nroi 0.1 0.2 0.3\nreine 0.3 0.2 0.1\n")
    assert len(read_vectors(path)) == 2
    monkeypatch.setattr(sizes, "available_memory", lambda: 16)
    with pytest.raises(VectorFormatError, match="memory available"):
        read_vectors(path)


def test_valid_files_of_every_format_still_read(tmp_path):
    """The bounds refuse nothing real: stored, deflated and Fortran-ordered .npz, float64, text, binary."""
    from geobias.store import VectorStore
    from geobias.store.formats import write_vectors

    rng = np.random.default_rng(0)
    words = ["roi", "reine", "homme", "femme"]
    vecs = rng.standard_normal((4, 5)).astype(np.float32)
    store = VectorStore(words, vecs)
    for fmt, name in (("w2v-text", "a.txt"), ("vec", "a.vec"), ("w2v-bin", "a.bin"), ("npz", "a.npz")):
        back = read_vectors(write_vectors(store, tmp_path / name, format=fmt))
        assert back.words == words and np.array_equal(back.vectors, vecs), fmt
    np.savez_compressed(tmp_path / "c.npz", words=np.array(words), vectors=vecs.astype(np.float64))
    assert np.array_equal(read_vectors(tmp_path / "c.npz").vectors, vecs)
    np.savez(tmp_path / "f.npz", words=np.array(words), vectors=np.asfortranarray(vecs))
    assert np.array_equal(read_vectors(tmp_path / "f.npz").vectors, vecs)
    assert read_vectors(tmp_path / "c.npz", limit=2).words == words[:2]


def test_a_member_larger_than_its_shape_is_refused(tmp_path):
    words = np.array(["a", "b"])
    path = tmp_path / "x.npz"
    path.write_bytes(npz_bytes(npy_bytes(words.shape, words.dtype.str, words.tobytes()),
                               npy_bytes((2, 3), payload=b"\x00" * 64), zipfile.ZIP_DEFLATED))
    with pytest.raises(VectorFormatError, match="needs"):
        read_vectors(path)


def test_a_spacy_table_is_weighed_before_numpy_allocates_it(tmp_path):
    from geobias.io.spacy_vectors import _load_table

    path = tmp_path / "vectors"
    path.write_bytes(npy_bytes((20_000_000, 300), payload=b"\x00" * 1200))
    with pytest.raises(VectorFormatError, match="20,000,000 × 300"):
        _load_table(path)
    ok = tmp_path / "ok"
    with open(ok, "wb") as fh:
        np.save(fh, np.ones((3, 4), np.float32))
    assert _load_table(ok).shape == (3, 4)


def test_the_counting_reader_stops_at_its_cap():
    import io

    reader = CountingReader(io.BytesIO(b"x" * 100), cap=64, name="m")
    buf = bytearray(64)
    assert reader.readinto(buf) == 64
    with pytest.raises(VectorFormatError, match="beyond its declared 64 bytes"):
        reader.read(1)
    assert bomb_npz(2, 3)  # the builder makes a readable archive (used above at scale)


# ----------------------------------------------------------------------------- property
@st.composite
def headers(draw):
    """Any header a file might declare, and the bytes that actually follow it."""
    rows = draw(st.integers(1, 10**12))
    dims = draw(st.integers(1, 10**10))
    body = draw(st.binary(max_size=64) | st.text("0123456789. -\n", max_size=200).map(str.encode))
    kind = draw(st.sampled_from(["text", "bin"]))
    return rows, dims, body, kind


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=headers())
def test_any_declared_shape_is_refused_or_read_without_exceeding_the_file(tmp_path, case):
    """Whatever a header declares, the reader either refuses it with one line or returns at most
    as many values as the file's bytes can hold; it never allocates what the file cannot back."""
    rows, dims, body, kind = case
    path = tmp_path / ("h.vec" if kind == "text" else "h.bin")
    path.write_bytes(f"{rows} {dims}\n".encode() + (b"w " if kind == "text" else b"w ") + body)
    try:
        store = read_vectors(path, format="w2v-text" if kind == "text" else "w2v-bin")
    except VectorFormatError as exc:
        assert "\n" not in str(exc)
    else:
        assert store.vectors.size * (2 if kind == "text" else 4) <= path.stat().st_size
    # the check itself: a shape it accepts always fits the bytes given
    left = len(body)
    try:
        read = check_declared("h", rows, dims, bytes_left=left, row_bytes=2 * dims)
    except VectorFormatError:
        pass
    else:
        assert read * 2 * dims <= left and dims <= MAX_DIMS
