"""``geobias mitigate``: apply a Zhou et al. (2019) / Bolukbasi et al. (2016) method and write
the debiased vectors."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._options import Json, Limit, TrustPickle, Vectors, emit, stderr
from geobias.results import Result

EXTENSIONS = {"w2v-text": "txt", "w2v-bin": "bin", "vec": "vec", "kv": "kv", "npz": "npz"}


@dataclass(frozen=True)
class MitigateResult(Result):
    method: str
    lang: str
    files: dict
    format: str
    report: dict


def write_outputs(stores: dict, out: Path, fmt: str, report: dict) -> dict:
    """Write ``{name: store}`` as ``out/<name>.<ext>`` plus ``mitigation.json``, atomically:
    everything goes to a temporary sibling directory renamed into place.

    Raises
    ------
    InputError
        ``out`` exists and is not an empty directory; bad format.
    """
    from geobias.errors import InputError
    from geobias.sources import write_vectors

    if fmt not in EXTENSIONS:
        raise InputError(f"--format must be one of {', '.join(EXTENSIONS)}; got {fmt!r}")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError(f"{out} already exists and is not an empty directory; choose another --out")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    files = {}
    try:
        for name, store in stores.items():
            path = tmp / f"{name}.{EXTENSIONS[fmt]}"
            write_vectors(store, path, format=fmt)
            files[name] = str(out / path.name)
        (tmp / "mitigation.json").write_text(json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8")
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o777 & ~umask)  # mkdtemp/mkstemp create private (0700/0600) entries
        for f in tmp.iterdir():
            os.chmod(f, 0o666 & ~umask)
        if out.exists():
            out.rmdir()
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return files


@app.command("mitigate")
def mitigate_command(
    method: Annotated[str, typer.Option("--method", help="shift-ori, shift-en, de-align, hybrid-ori, hybrid-en or hard-debias.")],
    lang: Annotated[str, typer.Option("--lang", "-l", help="The gendered language (fr, es, de); en for hard-debias.")],
    out: Annotated[Path, typer.Option("--out", help="New (or empty) directory for the debiased vectors.")],
    vectors: Vectors = None,
    en_vectors: Annotated[str | None, typer.Option("--en-vectors", help="English vectors: registry name or path.")] = None,
    dictionary: Annotated[str | None, typer.Option("--dictionary", help="MUSE dictionary LANG→en (or 'identical') for alignment.")] = None,
    fmt: Annotated[str, typer.Option("--format", help="w2v-text, w2v-bin, vec, kv or npz.")] = "w2v-text",
    refine: Annotated[int, typer.Option("--refine", help="Procrustes refinement rounds.")] = 0,
    drop_whitespace_words: Annotated[bool, typer.Option(
        "--drop-whitespace-words",
        help="Leave out words containing whitespace (e.g. U+2009 in spaCy's French vocabulary), which "
        "word2vec/fastText formats cannot hold; they are listed in mitigation.json.")] = False,
    limit: Limit = None,
    trust_pickle: TrustPickle = False,
    as_json: Json = False,
) -> None:
    """Debias vectors and write them (both sides when the method changes English too).

    The gendered language is aligned to English (Procrustes on --dictionary) before Shift, as in
    Zhou et al.'s bilingual setting; shift-ori without --dictionary and --en-vectors works
    monolingually. Files keep the original vocabulary order.
    """
    from geobias.errors import InputError
    from geobias.mitigation import HardDebias, get_method
    from geobias.sources import resolve_store

    cls = get_method(method)
    if fmt not in EXTENSIONS:
        raise InputError(f"--format must be one of {', '.join(EXTENSIONS)}; got {fmt!r}")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError(f"{out} already exists and is not an empty directory; choose another --out")
    store = resolve_store(lang, vectors, limit=limit, trust_pickle=trust_pickle)
    with stderr.status(f"fitting {method}"):
        if cls is HardDebias:
            est = cls().fit(store)
            outputs = {lang: est.transform(store)}
            report = {"direction_explained_variance_ratio": list(est.explained_variance_ratio_[:5]),
                      "n_gender_specific": len(est.gender_specific_), "n_equalize_pairs": len(est.equalize_pairs_)}
        else:
            en = resolve_store("en", en_vectors, limit=limit, trust_pickle=trust_pickle) if (
                en_vectors is not None or dictionary is not None or cls.bilingual and method != "shift-ori") else None
            est = cls(refine=refine).fit(store, en, dictionary)
            outputs = {lang: est.transform(store)}
            if cls.changes_english:
                outputs["en"] = est.transform(en)
            report = est.report_.to_dict()
    dropped: dict[str, list[str]] = {}
    if fmt in ("w2v-text", "w2v-bin", "vec"):
        for name, st in list(outputs.items()):
            bad = [w for w in st.words if any(c.isspace() for c in w)]
            if bad and not drop_whitespace_words:
                raise InputError(
                    f"{len(bad)} {name} word(s) contain whitespace (e.g. {bad[0]!r}) and cannot be written as "
                    f"{fmt}; use --format npz or kv, or --drop-whitespace-words"
                )
            if bad:
                dropped[name] = bad
                outputs[name] = st.subset([w for w in st.words if w not in set(bad)])
    report = {"method": method, "lang": lang, "dropped_whitespace_words": dropped, **report}
    files = write_outputs(outputs, out, fmt, report)
    result = MitigateResult(method, lang, files, fmt, report)

    def render(console, r):
        for name, path in r.files.items():
            console.print(f"wrote {name}: {path}")
        if r.report.get("n_pairs_shifted") is not None:
            console.print(f"{r.report['n_pairs_shifted']} two-form pairs shifted; cos(d_PCA, d_g) = "
                          f"{r.report.get('cos_pca_grammatical')}")

    emit(result, as_json, render)
