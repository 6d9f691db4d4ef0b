"""The polars fast path of text parsing: same words and bit-identical rows as the careful parser on
well-formed files, and on every malformed file it declines (returns None) so that the careful
parser's message, with its line number, is what the user sees."""

from __future__ import annotations

import numpy as np
import pytest

from geobias.errors import VectorFormatError
from geobias.sources import read_vectors
from geobias.store import formats
from geobias.store.fastparse import read_text_fast

pytest.importorskip("polars")


def _rows(n=300, dim=7, seed=0, fmt="%.4f"):
    rng = np.random.default_rng(seed)
    m = rng.normal(0, 0.3, size=(n, dim)).astype(np.float32)
    lines = [f"w{i}é " + " ".join(fmt % v for v in row) for i, row in enumerate(m.tolist())]
    return lines, dim


def _write(tmp_path, text, name="v.vec"):
    p = tmp_path / name
    p.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return p


@pytest.mark.parametrize("fmt", ["%.4f", "%.9g"])
@pytest.mark.parametrize("with_header", [True, False])
@pytest.mark.parametrize("trailing", ["", " "])
def test_fast_equals_careful(tmp_path, fmt, with_header, trailing):
    lines, dim = _rows(fmt=fmt)
    body = "".join(line + trailing + "\n" for line in lines)
    p = _write(tmp_path, (f"{len(lines)} {dim}\n" if with_header else "") + body)
    fast = read_text_fast(p, None, "utf-8", None, block=1000)  # many blocks
    careful = formats._read_text(p, None, "utf-8", None)
    assert fast is not None
    assert fast[0] == careful[0] and fast[0][1] == "w1é"
    assert fast[1].dtype == np.float32 and fast[1].shape == (300, dim)
    assert np.array_equal(fast[1], careful[1])
    assert fast[2] == careful[2]


@pytest.mark.parametrize("limit", [1, 57, 300, 1000])
def test_fast_limit(tmp_path, limit):
    lines, dim = _rows()
    p = _write(tmp_path, f"{len(lines)} {dim}\n" + "\n".join(lines) + "\n")
    fast = read_text_fast(p, limit, "utf-8", None, block=512)
    careful = formats._read_text(p, limit, "utf-8", None)
    assert fast[0] == careful[0] and len(fast[0]) == min(limit, 300)
    assert np.array_equal(fast[1], careful[1])


def _bad_files():
    lines, dim = _rows(n=50, dim=4)
    ok = lines[:]

    def with_(i, line):
        out = ok[:]
        out[i] = line
        return out

    head = f"{len(ok)} {dim}\n"
    return {
        "wrong dimension": head + "\n".join(with_(20, "bad 0.1 0.2 0.3")) + "\n",
        "too many values": head + "\n".join(with_(20, "bad 0.1 0.2 0.3 0.4 0.5")) + "\n",
        "non-numeric": head + "\n".join(with_(31, "bad 0.1 zz 0.3 0.4")) + "\n",
        "NaN": head + "\n".join(with_(40, "bad 0.1 nan 0.3 0.4")) + "\n",
        "inf": head + "\n".join(with_(40, "bad 0.1 inf 0.3 0.4")) + "\n",
        "float32 overflow": head + "\n".join(with_(40, "bad 0.1 1e39 0.3 0.4")) + "\n",
        # non-finite values in the last block and in the first
        "NaN in the last row": head + "\n".join(with_(49, "bad 0.1 0.2 nan 0.4")) + "\n",
        "inf in the first row": head + "\n".join(with_(0, "bad -inf 0.2 0.3 0.4")) + "\n",
        "duplicate": head + "\n".join(with_(45, ok[3])) + "\n",
        "header too small": f"{len(ok) - 5} {dim}\n" + "\n".join(ok) + "\n",
        "header too large": f"{len(ok) + 5} {dim}\n" + "\n".join(ok) + "\n",
        "header dim": f"{len(ok)} {dim + 1}\n" + "\n".join(ok) + "\n",
        "blank inside": head + "\n".join(ok[:10] + [""] + ok[10:]) + "\n",
        "empty word": head + "\n".join(with_(7, " 0.1 0.2 0.3 0.4")) + "\n",
        "invalid utf-8": (head + "\n".join(ok[:5])).encode() + b"\n\xff\xfe 0.1 0.2 0.3 0.4\n"
        + ("\n".join(ok[6:]) + "\n").encode(),
    }


@pytest.mark.parametrize("kind", sorted(_bad_files()))
def test_fast_declines_and_careful_message_is_kept(tmp_path, kind):
    p = _write(tmp_path, _bad_files()[kind])
    assert read_text_fast(p, None, "utf-8", None, block=256) is None
    with pytest.raises(VectorFormatError) as careful:
        formats._read_text(p, None, "utf-8", None)
    with pytest.raises(VectorFormatError) as public:
        read_vectors(p)
    assert str(public.value) == str(careful.value)
    assert ", line " in str(public.value)


def test_tolerated_oddities_still_load(tmp_path):
    """Doubled spaces and tabs are accepted by the careful parser: the fast path declines, the
    careful parser reads them, and the result is the same rows."""
    lines, dim = _rows(n=20, dim=4)
    odd = lines[:]
    odd[5] = odd[5].replace(" ", "  ", 2)
    w, rest = odd[9].split(" ", 1)
    odd[9] = w + " " + rest.replace(" ", "\t")
    odd[11] += " "  # one line with fastText's trailing space, the others without
    p = _write(tmp_path, f"{len(odd)} {dim}\n" + "\n".join(odd) + "\n")
    q = _write(tmp_path, f"{len(lines)} {dim}\n" + "\n".join(lines) + "\n", "ok.vec")
    assert read_text_fast(p, None, "utf-8", None) is None
    a, b = read_vectors(p), read_vectors(q)
    assert a.words == b.words and np.array_equal(a.vectors, b.vectors)


def test_non_utf8_encoding_uses_careful_parser(tmp_path):
    p = _write(tmp_path, "2 2\nçà 0.5 1\nb 2 3\n".encode("latin-1"))
    assert read_text_fast(p, None, "latin-1", None) is None
    store = read_vectors(p, format="w2v-text", encoding="latin-1")
    assert store.words == ["çà", "b"] and store.vectors[1].tolist() == [2.0, 3.0]


@pytest.mark.parametrize("block", [16, 4096, None])
def test_any_block_size_gives_the_same_rows(tmp_path, block):
    """Blocks smaller than a line (each block then holds the line it starts), blocks ending inside a
    line (extended to that line's end), and the default size all give the careful parser's words
    and bit-identical rows."""
    lines, dim = _rows(n=120, dim=9, fmt="%.9g")
    p = _write(tmp_path, f"{len(lines)} {dim}\n" + "\n".join(lines) + "\n")
    fast = read_text_fast(p, None, "utf-8", None, block=block)
    careful = formats._read_text(p, None, "utf-8", None)
    assert fast is not None and fast[0] == careful[0]
    assert np.array_equal(fast[1], careful[1]) and fast[1].flags.c_contiguous


def test_crlf_lines_read_as_the_careful_parser_reads_them(tmp_path):
    lines, dim = _rows(n=40, dim=5)
    p = _write(tmp_path, f"{len(lines)} {dim}\r\n" + "".join(line + "\r\n" for line in lines))
    fast = read_text_fast(p, None, "utf-8", None, block=300)
    careful = formats._read_text(p, None, "utf-8", None)
    assert fast is not None and fast[0] == careful[0] and np.array_equal(fast[1], careful[1])


BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize("with_header", [True, False])
@pytest.mark.parametrize("trailing", ["", " "])
@pytest.mark.parametrize("limit", [None, 4])
def test_a_leading_byte_order_mark_is_skipped_on_both_paths(tmp_path, with_header, trailing, limit):
    """A UTF-8 BOM as the file's first bytes (Notepad writes one) is no part of the header or of
    the first word: both parsers, and read_vectors, read the file exactly as without it (same
    words, bit-identical rows, same header info). Before, the header went unrecognised ("line 2:
    expected 1 values") and without one the first word came out as '\ufeffw0é'."""
    lines, dim = _rows(n=10, dim=3)
    text = (f"{len(lines)} {dim}\n" if with_header else "") + "".join(line + trailing + "\n" for line in lines)
    plain = _write(tmp_path, text, "plain.vec")
    bom = _write(tmp_path, BOM + text.encode("utf-8"), "bom.vec")
    want = formats._read_text(plain, limit, "utf-8", None)
    assert want[0][0] == "w0é" and want[2]["header"] is with_header
    for block in (None, 40):  # one block, and several
        fast = read_text_fast(bom, limit, "utf-8", None, block=block)
        assert fast is not None  # a BOM file keeps the fast path
        assert fast[0] == want[0] and np.array_equal(fast[1], want[1]) and fast[2] == want[2]
    careful = formats._read_text(bom, limit, "utf-8", None)
    assert careful[0] == want[0] and np.array_equal(careful[1], want[1]) and careful[2] == want[2]
    for encoding in ("utf-8", "UTF8", "utf-8-sig"):
        store = read_vectors(bom, limit=limit, encoding=encoding)
        assert store.words == want[0] and np.array_equal(store.vectors, want[1])
        assert "w0é" in store and store.provenance["header"] is with_header


def test_header_forced_or_refused_after_a_byte_order_mark(tmp_path):
    lines, dim = _rows(n=5, dim=3)
    p = _write(tmp_path, BOM + (f"5 {dim}\n" + "\n".join(lines) + "\n").encode("utf-8"))
    assert read_vectors(p, header=True).words == [f"w{i}é" for i in range(5)]
    # the header read as a row (word '5', one value): line 2 has the wrong dimension, as without the mark
    with pytest.raises(VectorFormatError, match=r"v\.vec, line 2: expected 1 values, found 3 \(wrong dimension\)$"):
        read_vectors(p, header=False)
    q = _write(tmp_path, BOM + ("\n".join(lines) + "\n").encode("utf-8"), "rows.vec")
    with pytest.raises(VectorFormatError, match=r", line 1: expected a header line 'n_words dim', found 'w0é"):
        read_vectors(q, header=True)


@pytest.mark.parametrize("body, message", [
    ("3 2\na 1 2\nb 3 4 5\nc 1 1\n", ", line 3: expected 2 values, found 3 (wrong dimension)"),
    ("2 2\na 1 2\nb 3 zz\n", ", line 3: non-numeric value 'zz'"),
    ("2 2\na 1 2\na 3 4\n", ", line 3: duplicate word 'a' (first seen as vector 1)"),
    ("3 2\na 1 2\nb 3 4\n", ", line 3: truncated file: the header says 3 vectors but the file ends after 2"),
    ("a 1 2\nb nan 4\n", ", line 2: vector of 'b' contains NaN or inf"),
    ("", ": empty file (no vectors)"),
    ("\n", ": empty file (no vectors)"),
    ("\na 1 2\n", ", line 1: empty line at the start of the file"),
])
def test_malformed_files_with_a_byte_order_mark_keep_their_one_line_errors(tmp_path, body, message):
    """The mark does not shift the line numbers: the messages are the ones the same file without
    it gives, each on one line."""
    plain = _write(tmp_path, body, "plain.vec")
    bom = _write(tmp_path, BOM + body.encode("utf-8"), "bom.vec")
    with pytest.raises(VectorFormatError) as want:
        read_vectors(plain, format="w2v-text")
    with pytest.raises(VectorFormatError) as got:
        read_vectors(bom, format="w2v-text")
    assert str(want.value).endswith(message) and str(got.value) == str(want.value).replace("plain.vec", "bom.vec")
    assert "\n" not in str(got.value)


def test_a_byte_order_mark_with_another_encoding_is_refused(tmp_path):
    p = _write(tmp_path, BOM + b"2 2\na 1 2\nb 3 4\n")
    with pytest.raises(VectorFormatError) as err:
        read_vectors(p, encoding="latin-1")
    assert str(err.value) == (f"{p}, line 1: starts with a UTF-8 byte-order mark but the encoding given is "
                              "'latin-1'; read it as UTF-8")


@pytest.mark.parametrize("with_header", [True, False])
def test_u_feff_past_the_first_bytes_is_part_of_the_word(tmp_path, with_header):
    """Past the file's first three bytes U+FEFF is a character (zero-width no-break space), kept in
    the word as given, on both paths and whatever the block size: polars drops one that starts the
    text it is handed, so the fast path declines a block starting with one. A second mark right
    after the file's own is such a character too."""
    lines, dim = _rows(n=6, dim=3)
    lines[3] = "\ufeff" + lines[3]
    lines[0] = "\ufeff" + lines[0]
    text = (f"{len(lines)} {dim}\n" if with_header else "") + "\n".join(lines) + "\n"
    p = _write(tmp_path, BOM + text.encode("utf-8"))
    want = ["\ufeffw0é", "w1é", "w2é", "\ufeffw3é", "w4é", "w5é"]
    careful = formats._read_text(p, None, "utf-8", None)
    assert careful[0] == want
    assert read_vectors(p).words == want and read_vectors(p, encoding="utf-8-sig").words == want
    row = len(lines[0].encode()) + 1
    for block in range(1, 4 * row):
        fast = read_text_fast(p, None, "utf-8", None, block=block)
        assert fast is None or (fast[0] == want and np.array_equal(fast[1], careful[1]))
    # a block starting on the fourth row: the fast path steps aside rather than drop its U+FEFF
    assert read_text_fast(p, None, "utf-8", None, block=3 * row - 1 if not with_header else 3 * row) is None


def test_detect_format_reads_a_byte_order_mark_as_text(tmp_path):
    """A BOM says UTF-8 text: even named like a pickle (.model) the file is word2vec text."""
    body = BOM + b"2 2\na 1 2\nb 3 4\n"
    for name in ("v.vec", "v.model", "v.bin"):
        p = _write(tmp_path, body, name)
        assert formats.detect_format(p) == "w2v-text"
        assert read_vectors(p).words == ["a", "b"]


def test_every_block_boundary_gives_the_same_rows(tmp_path):
    """A block ends at the end of the line that crosses its size, wherever that falls: inside a
    line, on its newline, or on the first byte of the next one (where the whole next line joins the
    block). Every block size up to three lines reads the careful parser's rows, with and without
    fastText's trailing space."""
    lines, dim = _rows(n=9, dim=3)
    for trailing in ("", " "):
        p = _write(tmp_path, f"{len(lines)} {dim}\n" + "".join(line + trailing + "\n" for line in lines))
        careful = formats._read_text(p, None, "utf-8", None)
        three = sum(len(line.encode()) + len(trailing) + 1 for line in lines[:3])
        for block in range(1, three + 2):
            fast = read_text_fast(p, None, "utf-8", None, block=block)
            assert fast is not None and fast[0] == careful[0], block
            assert np.array_equal(fast[1], careful[1]) and fast[1].flags.c_contiguous, block


@pytest.mark.parametrize("block", [8, None])
def test_a_last_line_without_newline_is_left_to_the_careful_parser(tmp_path, block):
    lines, dim = _rows(n=30, dim=4)
    p = _write(tmp_path, f"{len(lines)} {dim}\n" + "\n".join(lines))
    assert read_text_fast(p, None, "utf-8", None, block=block) is None
    store = read_vectors(p)
    assert store.words == [line.split(" ", 1)[0] for line in lines] and len(store.vectors) == 30


def test_a_limit_stops_reading_and_keeps_the_careful_rows(tmp_path):
    """With a limit the fast path stops at the block holding the last row wanted; rows past the
    header's count further on are then never looked at, as the careful parser does not look."""
    lines, dim = _rows(n=200, dim=5)
    p = _write(tmp_path, f"{len(lines)} {dim}\n" + "\n".join(lines + lines[:3]) + "\n")
    assert read_text_fast(p, None, "utf-8", None, block=200) is None  # 203 rows, 200 declared
    fast = read_text_fast(p, 40, "utf-8", None, block=200)
    careful = formats._read_text(p, 40, "utf-8", None)
    assert fast is not None and fast[0] == careful[0] and np.array_equal(fast[1], careful[1])
