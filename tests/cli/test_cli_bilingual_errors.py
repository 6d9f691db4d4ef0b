"""Bad input through the real CLI for the bilingual commands (align, translate-eval, mitigate,
hard-debias, evaluate, correlate) and cda/finetune: each case must print exactly one
``geobias: error:`` line on stderr, exit 1, show no traceback, and write nothing (neither in the
input folder nor at --out)."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from test_cli_bilingual import cli, files  # noqa: F401  (module fixture: small FR/EN vector files)

pytest.importorskip("geobias.sources")


@pytest.fixture(scope="module")
def bad(files, tmp_path_factory):  # noqa: F811
    """The fixture vectors plus malformed inputs and two tiny models, in one folder."""
    d = tmp_path_factory.mktemp("bad")
    for name in ("fr.txt", "en.txt", "dico.txt", "test.txt"):
        shutil.copy(files / name, d / name)
    lines = (files / "en.txt").read_text(encoding="utf-8").splitlines()
    # the same English words as 8-d vectors: a dimension mismatch with the 16-d French file
    body = [ln.split()[0] + " " + " ".join(["0.5"] * 8) for ln in lines[1:]]
    (d / "en8.txt").write_text(f"{len(body)} 8\n" + "\n".join(body) + "\n", encoding="utf-8")
    (d / "bad_dico.txt").write_text("frmot0 enword0\nthis line has four\n", encoding="utf-8")
    (d / "oov_dico.txt").write_text("zzz yyy\nqqq ppp\n", encoding="utf-8")
    # dico.txt in the other language order (en fr), as MUSE's en-fr file given where fr-en belongs
    (d / "reversed_dico.txt").write_text("".join(f"{t} {s}\n" for s, t in (ln.split() for ln in (
        files / "dico.txt").read_text(encoding="utf-8").splitlines() if ln.strip())), encoding="utf-8")
    (d / "empty.txt").write_text("", encoding="utf-8")
    (d / "latin1.txt").write_bytes(b"\xe9t\xe9 summer\n")
    (d / "oov_words.txt").write_text("zzz\nqqq\n", encoding="utf-8")
    (d / "sim_bad.txt").write_text("a b\n", encoding="utf-8")
    (d / "sim_nan.txt").write_text("frmot0 frmot1 x\n", encoding="utf-8")
    (d / "sim_inf.txt").write_text("frmot0 frmot1 inf\n", encoding="utf-8")
    (d / "sim_oov.txt").write_text("zz yy 1\nqq pp 2\nrr ss 3\n", encoding="utf-8")
    (d / "corpus.txt").write_text("he is here\nshe went home\n", encoding="utf-8")
    (d / "corpus.tsv").write_text("Text\tOther\nhe is here\tx\n", encoding="utf-8")
    (d / "adir").mkdir()
    from _tiny_models import make_random_bert, vocabulary_for

    vocab = vocabulary_for(["he is here she went home his her him the a"])
    make_random_bert(d / "mlm", vocab, hidden_size=16, num_hidden_layers=1, intermediate_size=32)
    make_random_bert(d / "encoder", vocab, hidden_size=16, num_hidden_layers=1, intermediate_size=32, mlm_head=False)
    return d


V = ["--src-vectors", "{d}/fr.txt", "--tgt-vectors", "{d}/en.txt"]
ALIGN = ["align", "--src", "fr", "--tgt", "en", *V]
TE = ["translate-eval", "--src", "fr", "--tgt", "en", *V]
MIT = ["mitigate", "--method", "hybrid-ori", "--lang", "fr", "--vectors", "{d}/fr.txt", "--en-vectors", "{d}/en.txt"]
EV = ["evaluate", "--lang", "fr", "--vectors", "{d}/fr.txt", "--en-vectors", "{d}/en.txt", "--permutations", "50"]
EVD = [*EV, "--dictionary", "{d}/dico.txt", "--test-dictionary", "{d}/test.txt"]
HD = ["hard-debias", "--vectors", "{d}/en.txt"]
FT = ["finetune", "--model", "{d}/mlm", "--corpus", "{d}/corpus.txt", "--device", "cpu"]

# (id, arguments, a substring of the one error line)
CASES = [
    # align
    ("align-malformed-dictionary", [*ALIGN, "--dictionary", "{d}/bad_dico.txt", "--out", "{o}/a"], "line 2: expected 2 fields"),
    ("align-reversed-dictionary", [*ALIGN, "--dictionary", "{d}/reversed_dico.txt", "--out", "{o}/a"],
     "reversed_dico.txt looks reversed: 0 of its 202 pairs"),
    ("align-oov-dictionary", [*ALIGN, "--dictionary", "{d}/oov_dico.txt", "--out", "{o}/a"], "none of the 2 dictionary pairs"),
    ("align-empty-dictionary", [*ALIGN, "--dictionary", "{d}/empty.txt", "--out", "{o}/a"], "holds no pairs"),
    ("align-missing-dictionary", [*ALIGN, "--dictionary", "{d}/nope.txt", "--out", "{o}/a"], "dictionary file not found"),
    ("align-dictionary-is-directory", [*ALIGN, "--dictionary", "{d}/adir", "--out", "{o}/a"], "is a directory"),
    ("align-dictionary-not-utf8", [*ALIGN, "--dictionary", "{d}/latin1.txt", "--out", "{o}/a"], "not UTF-8"),
    ("align-unknown-language", ["align", "--src", "xx", "--tgt", "en", *V, "--dictionary", "{d}/dico.txt", "--out", "{o}/a"],
     "unknown language 'xx'"),
    ("align-negative-refine", [*ALIGN, "--dictionary", "{d}/dico.txt", "--refine", "-1", "--out", "{o}/a"], "refine must be"),
    ("align-refine-not-integer", [*ALIGN, "--dictionary", "{d}/dico.txt", "--refine", "abc", "--out", "{o}/a"],
     "Invalid value for '--refine'"),
    ("align-missing-required-option", ["align", "--src", "fr", "--dictionary", "{d}/dico.txt", "--out", "{o}/a"],
     "Missing option '--tgt'"),
    ("align-dimension-mismatch", ["align", "--src", "fr", "--tgt", "en", "--src-vectors", "{d}/fr.txt", "--tgt-vectors",
                                  "{d}/en8.txt", "--dictionary", "{d}/dico.txt", "--out", "{o}/a"], "dimension 16 differs"),
    ("align-out-exists", [*ALIGN, "--dictionary", "{d}/dico.txt", "--out", "{o}"], "already exists"),
    ("align-out-missing-directory", [*ALIGN, "--dictionary", "{d}/dico.txt", "--out", "{o}/x/y"], "does not exist"),
    ("align-out-is-input", [*ALIGN, "--dictionary", "{d}/dico.txt", "--out", "{d}/fr.txt"],
     "--out {d}/fr.txt is an input of this command (--src-vectors)"),
    ("align-vectors-missing", ["align", "--src", "fr", "--tgt", "en", "--src-vectors", "{d}/nope.txt", "--tgt-vectors",
                               "{d}/en.txt", "--dictionary", "{d}/dico.txt", "--out", "{o}/a"], "--src-vectors {d}/nope.txt: no such file"),
    # translate-eval
    ("te-malformed-dictionary", [*TE, "--dictionary", "{d}/bad_dico.txt"], "line 2: expected 2 fields"),
    ("te-reversed-dictionary", [*TE, "--dictionary", "{d}/reversed_dico.txt"], "give the fr→en pairs"),
    ("te-oov-dictionary", [*TE, "--dictionary", "{d}/oov_dico.txt"], "none of the 2 dictionary pairs"),
    ("te-empty-dictionary", [*TE, "--dictionary", "{d}/empty.txt"], "holds no pairs"),
    ("te-dictionary-is-directory", [*TE, "--dictionary", "{d}/adir"], "is a directory"),
    ("te-csls-k-zero", [*TE, "--dictionary", "{d}/test.txt", "--csls-k", "0"], "--csls-k must be positive"),
    ("te-csls-k-negative", [*TE, "--dictionary", "{d}/test.txt", "--csls-k", "-2"], "--csls-k must be positive"),
    ("te-dimension-mismatch", ["translate-eval", "--src", "fr", "--tgt", "en", "--src-vectors", "{d}/fr.txt",
                               "--tgt-vectors", "{d}/en8.txt", "--dictionary", "{d}/test.txt"], "dimension 16 differs"),
    ("te-train-oov-dictionary", [*TE, "--dictionary", "{d}/test.txt", "--train-dictionary", "{d}/oov_dico.txt"],
     "none of the 2 dictionary pairs"),
    # mitigate
    ("mitigate-unknown-method", ["mitigate", "--method", "foo", "--lang", "fr", "--vectors", "{d}/fr.txt", "--out", "{o}/m"],
     "Invalid value for '--method': 'foo' is not one of 'shift-ori'"),
    ("mitigate-unknown-format", [*MIT, "--dictionary", "{d}/dico.txt", "--out", "{o}/m", "--format", "xml"],
     "Invalid value for '--format': 'xml' is not one of 'w2v-text'"),
    ("mitigate-unknown-language", ["mitigate", "--method", "hybrid-ori", "--lang", "xx", "--vectors", "{d}/fr.txt",
                                   "--out", "{o}/m"], "unknown language 'xx'"),
    ("mitigate-negative-refine", [*MIT, "--dictionary", "{d}/dico.txt", "--refine", "-1", "--out", "{o}/m"], "refine must be"),
    ("mitigate-malformed-dictionary", [*MIT, "--dictionary", "{d}/bad_dico.txt", "--out", "{o}/m"], "line 2"),
    ("mitigate-oov-dictionary", [*MIT, "--dictionary", "{d}/oov_dico.txt", "--out", "{o}/m"], "none of the 2 dictionary pairs"),
    ("mitigate-empty-dictionary", [*MIT, "--dictionary", "{d}/empty.txt", "--out", "{o}/m"], "holds no pairs"),
    ("mitigate-dictionary-is-directory", [*MIT, "--dictionary", "{d}/adir", "--out", "{o}/m"], "is a directory"),
    ("mitigate-dimension-mismatch", ["mitigate", "--method", "shift-en", "--lang", "fr", "--vectors", "{d}/fr.txt",
                                     "--en-vectors", "{d}/en8.txt", "--out", "{o}/m"], "dimensions differ"),
    ("mitigate-english-not-installed", ["mitigate", "--method", "hybrid-ori", "--lang", "fr", "--vectors", "{d}/fr.txt",
                                        "--dictionary", "{d}/dico.txt", "--out", "{o}/m"], "pass --en-vectors PATH"),
    ("mitigate-out-not-empty", [*MIT, "--dictionary", "{d}/dico.txt", "--out", "{d}/encoder"], "not an empty directory"),
    ("mitigate-out-holds-input", [*MIT, "--dictionary", "{d}/dico.txt", "--out", "{d}"],
     "--out {d} holds {d}/fr.txt, the --vectors input of this command"),
    ("mitigate-out-missing-directory", [*MIT, "--dictionary", "{d}/dico.txt", "--out", "{o}/x/y"], "does not exist"),
    ("mitigate-out-is-input", [*MIT, "--dictionary", "{d}/dico.txt", "--out", "{d}/fr.txt"],
     "--out {d}/fr.txt is an input of this command (--vectors)"),
    ("mitigate-hard-debias-french", ["mitigate", "--method", "hard-debias", "--lang", "fr", "--vectors", "{d}/fr.txt",
                                     "--out", "{o}/m"], "English only"),
    ("mitigate-shift-english", ["mitigate", "--method", "shift-ori", "--lang", "en", "--vectors", "{d}/en.txt",
                                "--out", "{o}/m"], "use hard-debias"),
    # hard-debias
    ("hd-unknown-format", [*HD, "--out", "{o}/h.txt", "--format", "xml"],
     "Invalid value for '--format': 'xml' is not one of 'w2v-text'"),
    ("hd-out-exists", [*HD, "--out", "{d}/fr.txt"], "already exists"),
    ("hd-out-is-input", [*HD, "--out", "{d}/en.txt", "--overwrite"], "--out {d}/en.txt is an input of this command (--vectors)"),
    ("hd-out-missing-directory", [*HD, "--out", "{o}/x/h.txt"], "does not exist"),
    ("hd-out-is-directory", [*HD, "--out", "{o}"], "is a directory"),
    ("hd-neutral-missing", [*HD, "--neutral", "{d}/nope.txt"], "file not found"),
    ("hd-neutral-all-oov", [*HD, "--neutral", "{d}/oov_words.txt"], "none of the neutral words"),
    ("hd-french", ["hard-debias", "--vectors", "{d}/fr.txt", "--lang", "fr"], "English only"),
    # evaluate
    ("ev-malformed-dictionary", [*EV, "--dictionary", "{d}/bad_dico.txt", "--test-dictionary", "{d}/test.txt"], "line 2"),
    ("ev-oov-dictionary", [*EV, "--dictionary", "{d}/oov_dico.txt", "--test-dictionary", "{d}/test.txt"], "none of the 2"),
    ("ev-oov-test-dictionary", [*EV, "--dictionary", "{d}/dico.txt", "--test-dictionary", "{d}/oov_dico.txt"], "none of the 2"),
    ("ev-empty-dictionary", [*EV, "--dictionary", "{d}/empty.txt", "--test-dictionary", "{d}/test.txt"], "holds no pairs"),
    ("ev-dictionary-is-directory", [*EV, "--dictionary", "{d}/adir", "--test-dictionary", "{d}/test.txt"], "is a directory"),
    ("ev-unknown-method", [*EVD, "--methods", "foo"], "--methods: unknown method(s) foo; choose 'all' or from original"),
    ("ev-permutations-zero", [*EVD[:7], "--permutations", "0", *EVD[9:]], "--permutations must be positive"),
    ("ev-dimension-mismatch", ["evaluate", "--lang", "fr", "--vectors", "{d}/fr.txt", "--en-vectors", "{d}/en8.txt",
                               "--dictionary", "{d}/dico.txt", "--test-dictionary", "{d}/test.txt"], "dimensions differ"),
    ("ev-similarity-malformed", [*EVD, "--wordsim", "{d}/sim_bad.txt"], "line 1: expected 'word1 word2 score'"),
    ("ev-similarity-not-a-number", [*EVD, "--wordsim", "{d}/sim_nan.txt"], "is not a number"),
    ("ev-similarity-infinite", [*EVD, "--wordsim", "{d}/sim_inf.txt"], "not a finite number"),
    ("ev-similarity-all-oov", [*EVD, "--wordsim", "{d}/sim_oov.txt"], "only 0 of 3 similarity pairs"),
    ("ev-similarity-is-directory", [*EVD, "--wordsim", "{d}/adir"], "is a directory"),
    ("ev-english", ["evaluate", "--lang", "en", "--vectors", "{d}/en.txt", "--en-vectors", "{d}/en.txt",
                    "--dictionary", "{d}/dico.txt", "--test-dictionary", "{d}/test.txt"], "gendered language"),
    # correlate
    ("correlate-english", ["correlate", "--lang", "en", "--vectors", "{d}/en.txt", "--en-vectors", "{d}/en.txt"],
     "not en"),
    ("correlate-unknown-language", ["correlate", "--lang", "xx", "--vectors", "{d}/fr.txt"], "unknown language"),
    # cda
    ("cda-column-not-in-header", ["cda", "--input", "{d}/corpus.tsv", "--out", "{o}/c.tsv", "--column", "Nope"],
     "no column 'Nope'"),
    ("cda-input-missing", ["cda", "--input", "{d}/nope.txt", "--out", "{o}/c.txt"], "corpus file not found"),
    ("cda-input-is-directory", ["cda", "--input", "{d}/adir", "--out", "{o}/c.txt"], "is a directory"),
    ("cda-out-exists", ["cda", "--input", "{d}/corpus.txt", "--out", "{d}/fr.txt"], "already exists"),
    ("cda-out-is-input", ["cda", "--input", "{d}/corpus.txt", "--out", "{d}/corpus.txt", "--overwrite"],
     "is an input of this command (--input)"),
    ("cda-out-missing-directory", ["cda", "--input", "{d}/corpus.txt", "--out", "{o}/x/c.txt"], "does not exist"),
    ("cda-unknown-mode", ["cda", "--input", "{d}/corpus.txt", "--out", "{o}/c.txt", "--mode", "foo"],
     "Invalid value for '--mode': 'foo' is not one of 'cda', 'cds'"),
    ("cda-empty-corpus", ["cda", "--input", "{d}/empty.txt", "--out", "{o}/c.txt"], "no documents"),
    # finetune
    ("ft-empty-corpus", [*FT[:3], "--corpus", "{d}/empty.txt", "--out", "{o}/f"], "no documents"),
    ("ft-no-mlm-head", ["finetune", "--model", "{d}/encoder", "--corpus", "{d}/corpus.txt", "--out", "{o}/f",
                        "--device", "cpu"], "no masked-LM head"),
    ("ft-out-exists", [*FT, "--out", "{d}"], "already exists"),
    ("ft-out-is-model", [*FT, "--out", "{d}/mlm", "--overwrite"], "--out {d}/mlm is an input of this command (--model)"),
    ("ft-out-missing-directory", [*FT, "--out", "{o}/x/f"], "does not exist"),
    ("ft-column-not-in-header", [*FT[:3], "--corpus", "{d}/corpus.tsv", "--column", "Nope", "--out", "{o}/f"],
     "no column 'Nope'"),
    ("ft-unknown-cda", [*FT, "--out", "{o}/f", "--cda", "foo"],
     "Invalid value for '--cda': 'foo' is not one of 'cds', 'cda', 'none'"),
]


def _snapshot(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
            for p in sorted(folder.rglob("*"))}


@pytest.mark.parametrize(("args", "expected"), [pytest.param(a, e, id=i) for i, a, e in CASES])
def test_bad_input_one_line_nothing_written(bad, tmp_path, capsys, monkeypatch, args, expected):
    monkeypatch.setenv("GEOBIAS_VECTORS_DIR", str(tmp_path / "vectors"))  # no saved store found by accident
    out = tmp_path / "out"
    out.mkdir()
    argv = [a.format(d=bad, o=out) for a in args]
    before_in, before_out = _snapshot(bad), _snapshot(out)
    code, _, err = cli(capsys, *argv)
    lines = [line for line in err.splitlines() if line.strip()]
    # out of range, or a value the parameter model refuses by its option's name: usage errors
    usage = expected.startswith(("Invalid value", "Missing option", "--methods:")) or "must be" in expected
    assert code == (2 if usage else 1), err  # usage errors exit 2, as click does
    assert len(lines) == 1, err
    assert lines[0].startswith("geobias: error: ") and "internal error" not in lines[0], lines[0]
    assert "Traceback" not in err
    assert expected.format(d=bad, o=out) in lines[0], lines[0]
    assert _snapshot(bad) == before_in, "the command wrote into the input folder"
    assert _snapshot(out) == before_out, "the command wrote an output"
