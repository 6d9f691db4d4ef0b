"""Every hint runnable (issue 45): each error message that suggests a command is followed — the
suggested command is run (network stubbed: every URL refuses) and must succeed — and a failed
install leaves nothing behind."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest
from _envelope import result_of

from geobias.cli import main
from geobias.sources import write_vectors
from geobias.store import VectorStore

#: A command in a message: between backticks, starting with ``geobias`` or ``hf``.
SUGGESTED = re.compile(r"`((?:geobias|hf) [^`]+)`")


def run(capsys, *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(list(args))
    out, err = capsys.readouterr()
    return info.value.code, out, err


def suggestions(err: str) -> list[list[str]]:
    found = [shlex.split(s) for s in SUGGESTED.findall(err)]
    assert found, f"no command suggested in {err!r}"
    return found


@pytest.fixture(autouse=True)
def offline(tmp_path, monkeypatch):
    """Stores and datasets in the test's folder; the network refuses every URL."""
    monkeypatch.setenv("GEOBIAS_VECTORS_DIR", str(tmp_path / "vectors"))
    monkeypatch.setenv("GEOBIAS_DATASETS_DIR", str(tmp_path / "datasets"))
    monkeypatch.delenv("GEOBIAS_DEBUG", raising=False)

    def refuse(*args, **kwargs):
        raise urllib.error.URLError("network stubbed by the test")

    monkeypatch.setattr(urllib.request, "urlopen", refuse)


@pytest.fixture
def muse_copy(tmp_path):
    """A local copy of MUSE's fr-en dictionaries (the folder MUSE's archive unpacks to)."""
    d = tmp_path / "mine" / "dictionaries"
    d.mkdir(parents=True)
    (d / "fr-en.0-5000.txt").write_text("roi king\nreine queen\nhomme man\nfemme woman\n", encoding="utf-8")
    (d / "fr-en.5000-6500.txt").write_text("chat cat\nchien dog\n", encoding="utf-8")
    return d


def _follow(capsys, command: list[str], path: Path) -> tuple[int, str, str]:
    """Run a suggested ``geobias …`` command with ``PATH`` replaced by ``path``."""
    assert command[0] == "geobias"
    return run(capsys, *[str(path) if a == "PATH" else a for a in command[1:]])


def test_data_install_offline_suggests_its_own_from_and_it_works(tmp_path, capsys, muse_copy):
    code, _, err = run(capsys, "data", "install", "muse-dictionary", "fr-en")
    assert code == 1 and len(err.strip().splitlines()) == 1
    (command,) = suggestions(err)
    assert command[:4] == ["geobias", "data", "install", "muse-dictionary"] and "--from" in command
    assert not (tmp_path / "datasets").exists()  # the failed download left nothing
    code, out, err = _follow(capsys, command + ["--json"], muse_copy)
    assert code == 0, err
    (part,) = result_of(out)["installed"]
    assert Path(part["files"][1]).read_text(encoding="utf-8") == "chat cat\nchien dog\n"


def test_a_failed_install_leaves_nothing_behind(tmp_path, capsys, muse_copy):
    (muse_copy / "fr-en.5000-6500.txt").unlink()  # only one of the part's two files
    code, _, err = run(capsys, "data", "install", "muse-dictionary", "fr-en", "--from", str(muse_copy))
    assert code == 1 and "fr-en.5000-6500.txt" in err
    assert not (tmp_path / "datasets").exists()
    # an existing datasets folder keeps only what it held
    (tmp_path / "datasets" / "gap").mkdir(parents=True)
    code, _, _ = run(capsys, "data", "install", "muse-dictionary", "fr-en", "--from", str(muse_copy))
    assert code == 1
    assert sorted(p.relative_to(tmp_path / "datasets").as_posix() for p in (tmp_path / "datasets").rglob("*")) == ["gap"]


def test_data_install_takes_several_parts(tmp_path, capsys, muse_copy):
    (muse_copy / "es-en.0-5000.txt").write_text("rey king\n", encoding="utf-8")
    (muse_copy / "es-en.5000-6500.txt").write_text("gato cat\n", encoding="utf-8")
    code, out, err = run(capsys, "data", "install", "muse-dictionary", "fr-en", "es-en", "--from", str(muse_copy),
                         "--json")
    assert code == 0, err
    assert [p["part"] for p in result_of(out)["installed"]] == ["fr-en", "es-en"]


def test_datasets_folder_is_ignored_by_git():
    root = Path(__file__).resolve().parents[2]
    if shutil.which("git") is None or not (root / ".git").exists():
        pytest.skip("not a git checkout")
    done = subprocess.run(["git", "check-ignore", "-q", "datasets/muse-dictionary/fr-en.0-5000.txt"], cwd=root)
    assert done.returncode == 0


@pytest.mark.parametrize("argv", [
    ["align", "--src", "fr", "--tgt", "en", "--dictionary", "fr-en.0-5000.txt", "--out", "OUT"],
    ["translate-eval", "--src", "fr", "--tgt", "en", "--dictionary", "fr-en.5000-6500.txt"],
    ["evaluate", "--lang", "fr", "--dictionary", "fr-en.0-5000.txt", "--test-dictionary", "fr-en.5000-6500.txt"],
    ["mitigate", "--method", "hybrid-ori", "--lang", "fr", "--dictionary", "fr-en.0-5000.txt", "--out", "OUT"],
], ids=["align", "translate-eval", "evaluate", "mitigate"])
def test_a_missing_dictionary_points_at_data_install(tmp_path, capsys, muse_copy, argv):
    argv = [str(tmp_path / "out") if a == "OUT" else a for a in argv]
    code, _, err = run(capsys, *argv)
    assert code == 1 and "dictionary file not found" in err and len(err.strip().splitlines()) == 1
    install = [c for c in suggestions(err) if "--from" in c]
    assert install and install[0][:3] == ["geobias", "data", "install"]
    code, _, err2 = _follow(capsys, install[0], muse_copy)
    assert code == 0, err2
    # the message said where the file then is, and it is there
    where = re.search(r"then pass (\S+)$", err.strip()).group(1)
    assert Path(where).is_file() and Path(where).name == Path(argv[argv.index("--dictionary") + 1]).name


def test_a_missing_corpus_points_at_data_install(tmp_path, capsys):
    gap = tmp_path / "mine" / "gap-development.tsv"
    gap.parent.mkdir(parents=True)
    gap.write_text("ID\tText\n1\tHe said she was right.\n", encoding="utf-8")
    code, _, err = run(capsys, "cda", "-i", "gap-development.tsv", "--column", "Text", "-o", str(tmp_path / "o.tsv"))
    assert code == 1 and "corpus file not found" in err
    install = [c for c in suggestions(err) if "--from" in c]
    code, _, err2 = _follow(capsys, install[0], gap)
    assert code == 0, err2
    where = re.search(r"then pass (\S+)$", err.strip()).group(1)
    code, _, err3 = run(capsys, "cda", "-i", where, "--column", "Text", "-o", str(tmp_path / "o.tsv"))
    assert code == 0, err3


def _synthetic_spanish(tmp_path) -> Path:
    """A small Spanish .vec holding the MWEAT word lists (random 300-d vectors, the dimension of muse-es)."""
    from geobias import wordlists

    words = list(dict.fromkeys(
        [w for o in wordlists.occupations("es") for w in (o.masculine, o.feminine)]
        + [w for s in wordlists.attribute_words("es") for w in s]))
    vecs = np.random.default_rng(0).standard_normal((len(words), 300)).astype(np.float32)
    return write_vectors(VectorStore(words, vecs), tmp_path / "es.vec", format="vec")


def test_the_store_selection_message_names_the_installed_store(tmp_path, capsys):
    es = _synthetic_spanish(tmp_path)
    assert run(capsys, "vectors", "install", "muse-es", "--from", str(es))[0] == 0
    # muse-es is installed: asking for use-m3-es names it, not "no Spanish vectors installed"
    shutil.move(tmp_path / "vectors" / "muse-es", tmp_path / "vectors" / "use-m3-es")
    code, _, err = run(capsys, "mweat", "--lang", "es", "--vectors", "muse-es", "--permutations", "200")
    assert code == 1 and "no Spanish vectors installed" not in err
    commands = suggestions(err)
    assert ["geobias", "vectors", "install", "muse-es"] in commands
    use = [c for c in commands if c[0] == "--vectors"] or [shlex.split(m) for m in re.findall(r"`(--vectors [^`]+)`", err)]
    assert use == [["--vectors", "use-m3-es"]]
    code, _, err2 = run(capsys, "mweat", "--lang", "es", *use[0], "--permutations", "200")
    assert code == 0, err2
    # the install it suggests, offline, suggests `--from PATH`, which works
    code, _, err3 = run(capsys, "vectors", "install", "muse-es")
    assert code == 1
    install = [c for c in suggestions(err3) if "--from" in c]
    code, _, err4 = _follow(capsys, install[0], es)
    assert code == 0, err4


def test_vectors_install_takes_several_names(tmp_path, capsys):
    es = _synthetic_spanish(tmp_path)
    code, out, err = run(capsys, "vectors", "install", "muse-es", "muse-fr", "--from", str(es))
    assert code == 2 or code == 1  # --from builds one store: refused, nothing installed
    assert not (tmp_path / "vectors" / "muse-es").exists()
    assert run(capsys, "vectors", "install", "muse-es", "--from", str(es))[0] == 0
    code, out, err = run(capsys, "vectors", "install", "muse-es", "muse-es", "--json")
    assert code == 0, err
    assert [r["name"] for r in result_of(out)["installed"]] == ["muse-es"]  # once, already installed
    assert result_of(out)["installed"][0]["already_installed"]


def test_the_model_hint_names_a_command_that_exists(monkeypatch):
    """The probes' message for a model that is not installed suggests ``hf download``: the installed
    huggingface_hub ships that command (``huggingface-cli`` is gone)."""
    from geobias.errors import ModelError
    from geobias.models import resolve_model

    monkeypatch.setattr("geobias.models.hub_reachable", lambda: False)
    with pytest.raises(ModelError) as info:
        resolve_model("geobias-tests/not-installed")
    (command,) = [shlex.split(s) for s in SUGGESTED.findall(str(info.value))]
    hf = Path(sys.executable).parent / command[0]
    assert hf.is_file(), f"{command[0]} is not installed beside python"
    done = subprocess.run([str(hf), *command[1:2], "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "download" in done.stdout.lower()


def test_erasure_without_dictionaries_points_at_data_install(tmp_path, capsys, muse_copy):
    code, _, err = run(capsys, "erasure", "--lang", "fr")
    assert code == 1 and len(err.strip().splitlines()) == 1
    install = [c for c in suggestions(err) if "--from" in c]
    code, _, err2 = _follow(capsys, install[0], muse_copy)
    assert code == 0, err2
    train, test = re.search(r"then pass (\S+) and (\S+)$", err.strip()).groups()
    assert Path(train).is_file() and Path(test).is_file()


def test_every_suggested_command_and_option_exists():
    """Every ``geobias …`` that the package's messages and help put between backticks names a command
    the CLI has, and each ``--option`` it shows is one of that command's (``geobias data list`` and
    ``vectors install NAME PART`` were suggestions that did not run)."""
    import ast

    sys.path.insert(0, str(Path(__file__).parent))
    from _help_options import snapshot

    cli = snapshot()
    options = {name: {n for p in params.values() if p["kind"] == "option" for n in p["names"]} | {"--help"}
               for name, params in cli.items()}
    root = Path(__file__).resolve().parents[2] / "geobias"
    seen, bad = 0, []
    for path in sorted(root.rglob("*.py")):
        if "service" in path.relative_to(root).parts:
            continue  # the service's own pages suggest its routes
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.JoinedStr):  # f-strings: placeholders become NAME
                text = "".join(v.value if isinstance(v, ast.Constant) else "NAME" for v in node.values)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value
            else:
                continue
            for suggestion in re.findall(r"`{1,2}geobias ([^`]+)`", text):
                words = suggestion.split()
                plain = [w for w in words if re.fullmatch(r"[a-z][a-z0-9-]*", w)]
                command = next((" ".join(plain[:i]) for i in (2, 1) if " ".join(plain[:i]) in cli), None)
                if command is None:
                    groups = {c.split()[0] for c in cli if " " in c}
                    group = len(plain) == 1 and plain[0] in groups  # `geobias probe`: the group's help
                    if not group and words[0] not in ("--help", "serve", "CMD", "<command>", "NAME"):
                        bad.append(f"{path.name}: geobias {suggestion}")
                    continue
                seen += 1
                bad += [f"{path.name}: geobias {suggestion} ({w})" for w in words
                        if w.startswith("--") and w not in options[command]]
    assert seen > 20  # the scan finds the suggestions
    assert bad == []
