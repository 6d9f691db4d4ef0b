"""Issue 9: a careless user and a busy machine. Every bad-input case goes through
``geobias.cli.main``: one ``geobias: error:`` line, exit 1 (2 for usage), nothing written, the
input untouched. Races and ``kill -9`` are real: separate processes, a real SIGKILL."""

from __future__ import annotations

import hashlib
import json
import multiprocessing as mp
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from _envelope import result_of

from geobias import wordlists
from geobias.cli import main
from geobias.errors import InputError
from geobias.io.atomic import atomic_directory, clean_stale_temporaries
from geobias.store import VectorStore, save_store

BOM = "\ufeff"


def cli(capsys, *args):
    """Run through geobias.cli.main; return (exit code, stdout, stderr)."""
    with pytest.raises(SystemExit) as exc:
        main([str(a) for a in args])
    out = capsys.readouterr()
    return exc.value.code, out.out, out.err


def one_line(code, err, expected_code=1):
    lines = err.strip().splitlines()
    assert code == expected_code, err
    assert len(lines) == 1 and lines[0].startswith("geobias: error: "), err
    assert "Traceback" not in err
    return lines[0]


def digest(path: Path) -> str:
    if path.is_dir():
        return "|".join(f"{p.relative_to(path)}:{digest(p)}" for p in sorted(path.rglob("*")) if p.is_file())
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def store_npz(tmp_path_factory):
    """A synthetic French+English .npz store over the project's word lists, with a planted bias."""
    rng = np.random.default_rng(0)
    words = []
    for o in wordlists.occupations("fr"):
        words += [o.feminine, o.masculine]
    male, female = wordlists.attribute_words("fr")
    words += male + female
    t = wordlists.weat_test("en", "career-family-terms")
    words += t.X + t.Y + t.A + t.B
    words = list(dict.fromkeys(words)) + [f"filler{i}" for i in range(50)]
    vecs = rng.standard_normal((len(words), 12)).astype(np.float32)
    for i, w in enumerate(words):
        if w in set(male) | set(t.X) | set(t.A):
            vecs[i, 0] += 1.0
    d = tmp_path_factory.mktemp("robust")
    np.savez(d / "v.npz", words=np.array(words), vectors=vecs)
    return d / "v.npz"


# ------------------------------------------------------------------ (2) byte-order mark
def test_bom_is_stripped_from_user_lists(store_npz, tmp_path, capsys):
    occ = wordlists.occupations("fr")
    body = "".join(f"{o.feminine}\t{o.masculine}\n" for o in occ)
    plain, bom = tmp_path / "plain.tsv", tmp_path / "bom.tsv"
    plain.write_text(body, encoding="utf-8")
    bom.write_bytes((BOM + body).encode("utf-8"))
    results = []
    for f in (plain, bom):
        code, out, err = cli(capsys, "mweat", "--vectors", store_npz, "--lang", "fr", "--targets", f,
                             "-n", "2000", "--json")
        assert code == 0, err
        results.append(result_of(out))
    assert results[0]["statistic"] == results[1]["statistic"]
    assert results[1]["missing"] == results[0]["missing"]
    assert occ[0].feminine not in json.dumps(results[1]["missing"])
    # the same for a WEAT set file
    t = wordlists.weat_test("en", "career-family-terms")
    x = tmp_path / "x.txt"
    x.write_bytes((BOM + "\n".join(t.X) + "\n").encode("utf-8"))
    code, out, err = cli(capsys, "weat", "--vectors", store_npz, "--targets-x", x, "--targets-y", ",".join(t.Y),
                         "--attributes-a", ",".join(t.A), "--attributes-b", ",".join(t.B), "-n", "2000", "--json")
    assert code == 0, err
    assert result_of(out)["missing"] == []


# ------------------------------------------------------------------ custom WEAT sets
def test_weat_own_sets_equal_the_builtin_test(store_npz, tmp_path, capsys):
    t = wordlists.weat_test("en", "career-family-terms")
    code, out, err = cli(capsys, "weat", "--lang", "en", "--vectors", store_npz, "--test", "career-family-terms",
                         "-n", "5000", "--json")
    assert code == 0, err
    builtin = result_of(out)
    (tmp_path / "a.txt").write_text("# career\n" + "\n".join(t.A) + "\n", encoding="utf-8")
    code, out, err = cli(capsys, "weat", "--vectors", store_npz, "--targets-x", ",".join(t.X),
                         "--targets-y", ", ".join(t.Y), "--attributes-a", tmp_path / "a.txt",
                         "--attributes-b", ",".join(t.B), "-n", "5000", "--json")
    assert code == 0, err
    own = result_of(out)
    assert own["statistic"] == pytest.approx(builtin["statistic"], abs=1e-9)
    assert own["effect_size"] == pytest.approx(builtin["effect_size"], abs=1e-9)
    assert own["p_value"] == builtin["p_value"] and own["effect_size"] > 0.2  # the planted bias


@pytest.mark.parametrize("args, code, needle", [
    (["--targets-x", "a,b"], 2, "missing --targets-y"),
    (["--test", "math-arts", "--targets-x", "a", "--targets-y", "b", "--attributes-a", "c", "--attributes-b", "d"],
     2, "not both"),
    (["--targets-x", "nosuch/x.txt", "--targets-y", "b", "--attributes-a", "c", "--attributes-b", "d"], 1,
     "no such file"),
    (["--targets-x", "a,a", "--targets-y", "b", "--attributes-a", "c", "--attributes-b", "d"], 1, "twice"),
])
def test_weat_own_sets_errors(store_npz, capsys, args, code, needle):
    rc, out, err = cli(capsys, "weat", "--vectors", store_npz, *args)
    assert needle in one_line(rc, err, code) and out == ""


def test_mweat_inline_pairs_equal_the_file(store_npz, tmp_path, capsys):
    occ = wordlists.occupations("fr")
    male, female = wordlists.attribute_words("fr")
    code, out, err = cli(capsys, "mweat", "--lang", "fr", "--vectors", store_npz, "-n", "3000", "--json")
    assert code == 0, err
    code, out2, err = cli(capsys, "mweat", "--vectors", store_npz, "-n", "3000", "--json",
                          "--targets-x", ",".join(o.masculine for o in occ),
                          "--targets-y", ",".join(o.feminine for o in occ),
                          "--attributes-a", ",".join(male), "--attributes-b", ",".join(female))
    assert code == 0, err
    assert result_of(out)["statistic"] == pytest.approx(result_of(out2)["statistic"], abs=1e-12)
    rc, _, err = cli(capsys, "mweat", "--vectors", store_npz, "--targets-x", "a,b", "--targets-y", "c",
                     "--attributes-a", "x", "--attributes-b", "y")
    assert "pair masculine and feminine forms by position" in one_line(rc, err)


# ------------------------------------------------------------------ (4) permutation budget
@pytest.mark.parametrize("command", ["mweat", "weat"])
def test_huge_permutation_count_refused_with_an_estimate(store_npz, capsys, command):
    lang = "fr" if command == "mweat" else "en"
    rc, out, err = cli(capsys, command, "--lang", lang, "--vectors", store_npz, "-n", str(10**12),
                       "--permutation-method", "monte-carlo")
    line = one_line(rc, err)
    # the default bootstrap's resamples are counted beside the partitions, each pass the run makes
    passes = {"mweat": 9, "weat": 3}[command]
    assert f"permutations (1,000,000,000,000 partitions + {passes} passes × 1,000 bootstrap resamples" in line
    assert "would take about" in line and "--force" in line and out == ""
    assert any(unit in line for unit in ("days", "hours"))


def test_method_option(store_npz, capsys):
    rc, out, err = cli(capsys, "mweat", "--lang", "fr", "--vectors", store_npz, "--permutation-method", "exact")
    assert "--permutation-method exact:" in one_line(rc, err, 2) and "use monte-carlo" in err  # usage error
    rc, out, err = cli(capsys, "mweat", "--lang", "fr", "--vectors", store_npz, "--permutation-method", "bogus")
    assert "'--permutation-method': 'bogus' is not one of 'auto', 'exact', 'monte-carlo'" in one_line(rc, err, 2)
    # the old spelling still works, with one deprecation line before the result
    rc, out, err = cli(capsys, "mweat", "--lang", "fr", "--vectors", store_npz, "--method", "monte-carlo", "-n", "200",
                       "--json")
    assert rc == 0 and err.strip() == "geobias: --method is deprecated; use --permutation-method"
    assert result_of(out)["n_permutations"] == 200
    small = ["--targets-x", "acteur,infirmier,directeur", "--targets-y", "actrice,infirmière,directrice"]
    results = {}
    for method in ("exact", "monte-carlo", "auto"):
        rc, out, err = cli(capsys, "mweat", "--lang", "fr", "--vectors", store_npz, *small, "--permutation-method", method,
                           "-n", "500", "--json")
        assert rc == 0, err
        results[method] = result_of(out)
    assert results["exact"]["exact"] and results["exact"]["n_permutations"] == 20  # C(6, 3)
    assert not results["monte-carlo"]["exact"] and results["monte-carlo"]["n_permutations"] == 500
    assert results["auto"]["exact"]  # 20 partitions ≤ 500


def test_progress_on_stderr_only_when_asked(store_npz, capsys, monkeypatch):
    args = ["mweat", "--lang", "fr", "--vectors", store_npz, "-n", "1000"]
    rc, out, err = cli(capsys, *args)
    assert rc == 0 and err == ""  # not a terminal: silent
    monkeypatch.setenv("GEOBIAS_PROGRESS", "1")
    rc, out, err = cli(capsys, *args)
    assert rc == 0 and "loading vectors" in err and "loading" not in out
    rc, out, err = cli(capsys, *args, "--quiet")
    assert rc == 0 and err == ""


def test_permutation_progress_counts_every_partition(rng):
    from contextlib import contextmanager

    from geobias._progress import Progress
    from geobias.metrics import permutation_test

    seen, totals = [], []

    class Seen(Progress):
        @contextmanager
        def bar(self, description, total):
            totals.append(total)
            yield seen.append

    res = permutation_test(rng.standard_normal(40), 20, n_permutations=25_000, chunk_size=10_000,
                           progress=Seen())
    assert sum(seen) == res.n_permutations == 25_000 and seen == [10_000, 10_000, 5_000] and totals == [25_000]


# ------------------------------------------------------------------ (3) racing writers
def _racer(dest: str, tag: str, barrier, queue) -> None:
    try:
        with atomic_directory(dest, what="output directory") as tmp:
            (tmp / "who.txt").write_text(tag, encoding="utf-8")
            barrier.wait(timeout=60)  # both have checked that dest is absent and done their work
        queue.put((tag, "ok"))
    except InputError as exc:
        queue.put((tag, str(exc)))


def test_two_writers_one_destination_the_loser_fails(tmp_path):
    ctx = mp.get_context("fork")
    for round_ in range(5):
        dest = tmp_path / f"out{round_}"
        barrier, queue = ctx.Barrier(2), ctx.Queue()
        procs = [ctx.Process(target=_racer, args=(str(dest), tag, barrier, queue)) for tag in ("A", "B")]
        for p in procs:
            p.start()
        for p in procs:
            p.join(60)
        outcome = dict(queue.get(timeout=5) for _ in procs)
        winners = [t for t, r in outcome.items() if r == "ok"]
        assert len(winners) == 1, outcome
        loser = ({"A", "B"} - set(winners)).pop()
        assert "another process wrote it" in outcome[loser] and "\n" not in outcome[loser]
        assert (dest / "who.txt").read_text(encoding="utf-8") == winners[0]  # the winner's result is kept
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(f".out{round_}.")) == []


def test_atomic_write_never_replaces_a_file_written_meanwhile(tmp_path):
    from geobias.io.atomic import atomic_write

    dest = tmp_path / "out.txt"
    with pytest.raises(InputError, match="another process wrote it"):
        with atomic_write(dest, mode="w", overwrite=False) as fh:
            fh.write("mine")
            dest.write_text("theirs", encoding="utf-8")  # appears while we work
    assert dest.read_text(encoding="utf-8") == "theirs"
    # overwrite=True replaces the file seen at the start, but not one put there meanwhile
    with atomic_write(dest, mode="w") as fh:
        fh.write("v2")
    assert dest.read_text(encoding="utf-8") == "v2"
    with pytest.raises(InputError, match="another process wrote it"):
        with atomic_write(dest, mode="w") as fh:
            fh.write("mine")
            other = tmp_path / "other"
            other.write_text("theirs", encoding="utf-8")
            os.replace(other, dest)
    assert dest.read_text(encoding="utf-8") == "theirs"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_two_mitigate_runs_same_out(tmp_path):
    """Two real `geobias mitigate` processes on one --out: exactly one writes, the other fails
    with one line; the output is complete (whichever interleaving the scheduler picks)."""
    rng = np.random.default_rng(1)
    words = [w for p in wordlists.definitional_pairs("en") for w in p] + [f"w{i}" for i in range(300)]
    np.savez(tmp_path / "en.npz", words=np.array(words), vectors=rng.standard_normal((len(words), 16)).astype(np.float32))
    before = digest(tmp_path / "en.npz")
    out = tmp_path / "debiased"
    cmd = [sys.executable, "-c", "from geobias.cli import main; main()", "mitigate", "--method", "hard-debias",
           "--lang", "en", "--vectors", str(tmp_path / "en.npz"), "--out", str(out), "--format", "npz"]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env.pop("GEOBIAS_DEBUG", None)
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) for _ in range(2)]
    results = [(p.wait(300), *p.communicate()) for p in procs]
    codes = sorted(r[0] for r in results)
    assert codes == [0, 1], results
    loser_err = next(r[2] for r in results if r[0] == 1)
    assert len(loser_err.strip().splitlines()) == 1 and loser_err.startswith("geobias: error: ")
    assert sorted(p.name for p in out.iterdir()) == ["en.npz", "mitigation.json"]
    assert digest(tmp_path / "en.npz") == before
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


# ------------------------------------------------------------------ (5) kill -9 leftovers
WRITER = textwrap.dedent("""
    import sys, time
    from geobias.io.atomic import atomic_directory
    with atomic_directory(sys.argv[1], what="store") as tmp:
        (tmp / "vectors.npy").write_bytes(b"partial" * 1000)
        print(tmp, flush=True)
        time.sleep(600)
""")


def test_kill_9_leftovers_are_cleaned_by_the_next_run(tmp_path):
    dest = tmp_path / "store"
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(dest)], stdout=subprocess.PIPE, text=True)
    leftover = Path(proc.stdout.readline().strip())
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(30)
    assert leftover.is_dir() and (leftover / "vectors.npy").exists() and not dest.exists()
    assert f"-{proc.pid}." in leftover.name  # the writer's pid is in the name
    # not ours: left alone; ours but alive (this very process's parent): left alone
    foreign = tmp_path / ".store.notours.tmp"
    foreign.mkdir()
    alive = tmp_path / f".store.{leftover.name.split('.')[2].split('-')[0]}-{os.getppid()}.abcd1234.tmp"
    alive.mkdir()
    unrelated = tmp_path / ".other.x-1.y.tmp"
    unrelated.mkdir()
    save_store(VectorStore(["a", "b"], np.eye(2, dtype=np.float32)), dest)
    assert not leftover.exists()
    assert foreign.exists() and alive.exists() and unrelated.exists()
    assert clean_stale_temporaries(dest) == []


def test_old_style_leftover_removed_only_when_old(tmp_path):
    dest = tmp_path / "out.txt"
    young = tmp_path / ".out.txt.ab12cd34.tmp"
    old = tmp_path / ".out.txt.zz99yy88.tmp"
    young.write_text("x")
    old.write_text("x")
    os.utime(old, (1, 1))
    assert clean_stale_temporaries(dest) == [old]
    assert young.exists()


# ------------------------------------------------------------------ (6) damaged store
def test_store_damaged_in_place_is_refused(tmp_path, capsys):
    rng = np.random.default_rng(0)
    cache = save_store(VectorStore([f"w{i}" for i in range(200)], rng.standard_normal((200, 8)).astype(np.float32)),
                       tmp_path / "s")
    rc, out, err = cli(capsys, "neighbors", "w1", "--vectors", cache, "-k", "3")
    assert rc == 0, err
    size = (cache / "vectors.npy").stat().st_size
    arr = np.load(cache / "vectors.npy", mmap_mode="r+")
    arr[150] = np.nan  # same size, bytes overwritten
    arr.flush()
    del arr
    assert (cache / "vectors.npy").stat().st_size == size
    before = digest(cache)
    rc, out, err = cli(capsys, "neighbors", "w1", "--vectors", cache, "-k", "3")
    line = one_line(rc, err)
    assert "damaged on disk" in line and "rebuild it" in line and out == ""
    assert digest(cache) == before
    # finite garbage: the file's recorded size and time no longer match, its sha256 is recomputed
    arr = np.load(cache / "vectors.npy", mmap_mode="r+")
    arr[150] = 0.5
    arr[0] = 0.25
    arr.flush()
    del arr
    rc, out, err = cli(capsys, "mweat", "--lang", "fr", "--vectors", cache)
    assert "vectors.npy changed since the store was saved" in one_line(rc, err)


# ------------------------------------------------------------------ messages
@pytest.fixture
def bad_files(tmp_path):
    (tmp_path / "garbage.vec").write_bytes(bytes(range(256)) * 4 + b"\n" + b"\x00\x01" * 100)
    (tmp_path / "neg.txt").write_text("-5 3\na 1 2 3\n", encoding="utf-8")
    np.savez(tmp_path / "obj.npz", words=np.array(["a", "b"], dtype=object), vectors=np.ones((2, 3), np.float32))
    (tmp_path / "one_col.tsv").write_text("actrice\nacteur\n", encoding="utf-8")
    (tmp_path / "afile").write_text("mine\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("args, needle", [
    (["neighbors", "a", "--vectors", "{d}/garbage.vec"], "binary data, not a word2vec/fastText text file"),
    (["neighbors", "a", "--vectors", "{d}/neg.txt"], "header declares -5 vectors of dimension 3"),
    (["neighbors", "a", "--vectors", "{d}/obj.npz"], "object array"),
    (["mweat", "--lang", "fr", "--targets", "{d}/one_col.tsv"], "expected 2 or 3 tab-separated columns"),
    (["mitigate", "--method", "hard-debias", "--lang", "en", "--vectors", "{d}/neg.txt", "--out", "{d}/afile"],
     "is an existing file; give a new directory name"),
])
def test_tidy_messages(bad_files, capsys, args, needle):
    before = {p.name: digest(p) for p in bad_files.iterdir()}
    rc, out, err = cli(capsys, *[a.replace("{d}", str(bad_files)) for a in args])
    line = one_line(rc, err)
    assert needle in line and len(line) < 240 and "\\x" not in line, line
    assert {p.name: digest(p) for p in bad_files.iterdir()} == before  # nothing written, input untouched


# ------------------------------------------------------------------ whitespace-only words
def test_mitigate_default_drops_whitespace_only_words_with_a_warning(tmp_path, capsys):
    rng = np.random.default_rng(0)
    words = [w for p in wordlists.definitional_pairs("en") for w in p] + ["nurse", "\u2009", "\u3000", "\x85"]
    np.savez(tmp_path / "en.npz", words=np.array(words), vectors=rng.standard_normal((len(words), 8)).astype(np.float32))
    base = ["mitigate", "--method", "hard-debias", "--lang", "en", "--vectors", tmp_path / "en.npz"]
    rc, out, err = cli(capsys, *base, "--out", tmp_path / "t", "--json")
    assert rc == 0, err
    assert err.count("\n") == 1 and err.startswith("warning: left out 3 en word(s)") and "'\\u2009'" in err
    assert result_of(out)["report"]["dropped_whitespace_words"] == {"en": ["\u2009", "\u3000", "\x85"]}
    from gensim.models import KeyedVectors

    assert list(KeyedVectors.load_word2vec_format(str(tmp_path / "t" / "en.txt")).index_to_key) == words[:-3]
    for fmt, ext in (("w2v-bin", "bin"), ("npz", "npz")):  # binary formats keep them
        rc, out, err = cli(capsys, *base, "--out", tmp_path / fmt, "--format", fmt, "--json")
        assert rc == 0 and err == "", err
        from geobias.sources import read_vectors

        assert read_vectors(tmp_path / fmt / f"en.{ext}").words == words


# ------------------------------------------------------------------ safetensors vs pickle
def test_model_folder_prefers_safetensors_and_refuses_pickle(tmp_path, capsys):
    pytest.importorskip("transformers")
    import torch
    from _tiny_models import make_random_bert, vocabulary_for
    from safetensors.torch import load_file

    from geobias.models import load_encoder

    vocab = vocabulary_for(["he she doctor nurse"])
    both = make_random_bert(tmp_path / "both", vocab, hidden_size=16, num_hidden_layers=1, intermediate_size=32,
                            mlm_head=False)
    (both / "pytorch_model.bin").write_bytes(b"not a pickle: must never be opened")
    assert load_encoder(str(both), "cpu").model.config.hidden_size == 16
    only_bin = make_random_bert(tmp_path / "bin", vocab, hidden_size=16, num_hidden_layers=1, intermediate_size=32,
                                mlm_head=False)
    torch.save(load_file(str(only_bin / "model.safetensors")), only_bin / "pytorch_model.bin")
    (only_bin / "model.safetensors").unlink()
    words = tmp_path / "w.txt"
    words.write_text("he\nshe\n", encoding="utf-8")
    capsys.readouterr()  # transformers' own save bars
    before = digest(only_bin)
    rc, out, err = cli(capsys, "vectors", "pool", "--model", only_bin, "--words", words, "--out", tmp_path / "p",
                       "--device", "cpu")
    assert "only pickled weights" in one_line(rc, err) and "--trust-pickle" in err
    assert not (tmp_path / "p").exists() and digest(only_bin) == before
    rc, out, err = cli(capsys, "vectors", "pool", "--model", only_bin, "--words", words, "--out", tmp_path / "p",
                       "--device", "cpu", "--trust-pickle")
    assert rc == 0, err


# ------------------------------------------------------------------ directions plot labels
def test_plot_labels_a_spaced_few():
    from geobias.report.plots import choose_labels

    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(200), rng.standard_normal(200)
    chosen = choose_labels(x, y, 15)
    assert len(chosen) == 15 and len(set(chosen)) == 15
    assert chosen[0] == int(np.argmax((x / np.ptp(x)) ** 2 + (y / np.ptp(y)) ** 2))
    u, v = x / np.ptp(x), y / np.ptp(y)
    gaps = [np.hypot(u[i] - u[j], v[i] - v[j]) for i in chosen for j in chosen if i < j]
    assert min(gaps) >= 0.06


def test_plots_return_a_figure_and_write_nothing(tmp_path, monkeypatch):
    """Every plot function returns a bare matplotlib Figure (no pyplot, no backend switch) and
    saves nothing; save_figure writes the PNG atomically."""
    import sys

    from matplotlib.figure import Figure

    from geobias.report import plots

    monkeypatch.chdir(tmp_path)
    pyplot_before = "matplotlib.pyplot" in sys.modules
    figs = [
        plots.plot_gender_plane(["a", "b"], np.array([0.1, -0.2]), np.array([0.3, -0.1]),
                                ["masculine", "feminine"], ["occupation", "noun"], title="t"),
        plots.plot_occupation_projections([("m", [("f", "m", "e")], [(0.1, 0.2)], [(0.0, 0.0)])]),
        plots.plot_correlation(["x", "y", "z"], [0.1, 0.2, 0.3], [0.3, 0.1, 0.2], rho=0.5, p_value=0.6, lang="fr"),
        plots.plot_bars(["a", "b"], [1.0, -1.0], "t", "x"),
    ]
    for fig in figs:
        assert isinstance(fig, Figure)
    assert list(tmp_path.iterdir()) == []  # drawing wrote nothing
    assert ("matplotlib.pyplot" in sys.modules) == pyplot_before  # drawing did not load pyplot
    out = plots.save_figure(figs[0], tmp_path / "plane.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and [p.name for p in tmp_path.iterdir()] == ["plane.png"]


def test_a_missing_extra_is_named_in_one_line(capsys, monkeypatch):
    """A command whose optional dependency is not installed says which extra to install."""
    import geobias.commands._base as base

    def no_torch(*args, **kwargs):
        raise ModuleNotFoundError("No module named 'torch'", name="torch")

    monkeypatch.setattr(base, "_execute", no_torch)
    code, out, err = cli(capsys, "neighbors", "--lang", "fr", "roi")
    assert code == 1 and err.strip() == ("geobias: error: this command needs the contextual extra: "
                                         "pip install 'geobias[contextual]' (torch is not installed)")


def test_a_plane_plot_for_a_language_without_masculine_and_feminine_is_refused_before_the_fit(capsys, tmp_path):
    code, out, err = cli(capsys, "directions", "--lang", "nl", "--plot", str(tmp_path / "nl.png"))
    assert code == 2 and "Dutch's genders are common and neuter" in err and err.count("\n") == 1
    assert not (tmp_path / "nl.png").exists()
