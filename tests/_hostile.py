"""A corpus of hostile vector files: headers that declare far more than the file holds.

Each entry is ``name -> (filename, bytes)``; every one must be refused by every reader with one
line, before the declared matrix is allocated. Shared by the library/CLI tests
(``tests/store/test_hostile_files.py``), the service tests and ``benchmarks/bench_abuse.py``.
"""

from __future__ import annotations

import io
import struct
import zipfile

import numpy as np


def npy_bytes(shape: tuple, descr: str = "<f4", payload: bytes = b"", fortran: bool = False) -> bytes:
    """An ``.npy`` header declaring ``shape`` of ``descr``, followed by ``payload`` (which need not match)."""
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": descr, "fortran_order": fortran, "shape": shape})
    return buf.getvalue() + payload


def npz_bytes(words_npy: bytes, vectors_npy: bytes, compression: int = zipfile.ZIP_STORED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=compression) as z:
        z.writestr("words.npy", words_npy)
        z.writestr("vectors.npy", vectors_npy)
    return buf.getvalue()


def bomb_npz(rows: int, dims: int, declared_rows: int | None = None) -> bytes:
    """A deflated ``.npz`` of ``rows × dims`` zeros: about 1000:1 (a valid file, only large).
    ``declared_rows``: what the arrays' headers declare instead (then the file is not valid)."""
    n = rows if declared_rows is None else declared_rows
    words = np.array([f"w{i}" for i in range(n)])
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("words.npy", npy_bytes(words.shape, words.dtype.str, words.tobytes()))
        with z.open("vectors.npy", "w", force_zip64=True) as fh:
            fh.write(npy_bytes((n, dims)))
            row = np.zeros(dims, np.float32).tobytes()
            for _ in range(rows):
                fh.write(row)
    return buf.getvalue()


def lying_npz(rows: int, dims: int) -> bytes:
    """A deflated ``.npz`` whose ``vectors.npy`` declares a size (zip header) far below what it
    inflates to (its array header declaring the small size too): the zip's size fields are
    rewritten after the fact."""
    data = bomb_npz(rows, dims, declared_rows=1)
    real = len(npy_bytes((1, dims))) + rows * dims * 4
    # the member's uncompressed size appears in its local header and central directory entry
    # (and the zip64 extra field); replace each little-endian occurrence by a small size
    small = len(npy_bytes((1, dims))) + dims * 4
    for fmt in ("<I", "<Q"):
        data = data.replace(struct.pack(fmt, real), struct.pack(fmt, small))
    return data


def fasttext_header(dim: int, bucket: int, size: int) -> bytes:
    """The start of a fastText ``.bin``: magic, version, 12 int32 arguments and a float64, the
    dictionary's word count; nothing else."""
    args = [dim, 5, 5, 5, 5, 1, 1, 1, bucket, 3, 6, 100]
    return (struct.pack("<ii", 793712314, 12) + struct.pack("<12i", *args) + struct.pack("<d", 1e-4)
            + struct.pack("<i", size) + b"\x00" * 16)


def corpus() -> dict[str, tuple[str, bytes]]:
    """Every hostile file, by case name."""
    words4 = np.array(["roi", "reine", "homme", "femme"])
    return {
        # the cases
        "text-22-bytes": ("a.vec", b"2 1000000000\nroi 0.1\n"),
        "text-30-bytes": ("a.vec", b"2 3000000\nroi 0.1\nreine 0.2\n"),
        "text-billion-rows": ("a.vec", b"1000000000 300\nroi " + b"0.1 " * 299 + b"0.1\n"),
        "npz-huge-shape": ("a.npz", npz_bytes(npy_bytes((4,), words4.dtype.str, words4.tobytes()),
                                              npy_bytes((4, 50_000_000_000)))),
        "bin-huge-header": ("a.bin", b"100000000000 300\nroi " + b"\x00" * 1200),
        # more of the same kind
        "text-wide-within-cap": ("a.vec", b"3 60000\nroi 0.1\n"),  # within the dimension cap, not the file
        "bin-wide": ("a.bin", b"2 1000000000\nroi \x00\x00\x00\x00"),
        "bin-rows-beyond-file": ("a.bin", b"1000 300\nroi " + b"\x00" * 1200),
        "npz-rows-beyond-member": ("a.npz", npz_bytes(npy_bytes((4,), words4.dtype.str, words4.tobytes()),
                                                      npy_bytes((4, 300), payload=b"\x00" * 16))),
        "npz-huge-words": ("a.npz", npz_bytes(npy_bytes((4,), "<U1000000000"), npy_bytes((4, 3)))),
        "npz-huge-header-length": ("a.npz", npz_bytes(b"\x93NUMPY\x02\x00" + struct.pack("<I", 1 << 31),
                                                      npy_bytes((4, 3)))),
        "npz-lying-size": ("a.npz", lying_npz(64, 1024)),
        "fasttext-huge-buckets": ("a.bin", fasttext_header(300, 2_000_000_000, 10)),
    }


#: Cases whose file size a cap of this many bytes refuses (a 1000:1 .npz, a valid file).
BOMB_CAP = 1 << 20


def bomb() -> tuple[str, bytes]:
    """A 1000:1 ``.npz`` of 4 MB float32 (about 4 KB on disk) for a service capped at :data:`BOMB_CAP`."""
    return "bomb.npz", bomb_npz(1000, 1000)
