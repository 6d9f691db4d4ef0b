"""Evaluation data a user fetches once: MUSE bilingual dictionaries and the GAP corpus.

Some commands read data geobias cannot ship (its licence, or its size): the bilingual evaluation
reads MUSE's dictionaries (Conneau et al. 2018), CDA and fine-tuning read GAP (Webster et al. 2018).
``geobias data install NAME [PART ...]`` downloads a dataset from its published address into
:func:`datasets_dir`, or copies a file you already have (``--from FILE``, offline), and records its
sha256 beside it; ``geobias data path NAME [PART]`` prints where it is, for scripts
(``D=$(geobias data path muse-dictionary fr-en)``).

Examples
--------
>>> sorted(DATASETS)
['gap', 'muse-dictionary']
>>> DATASETS["muse-dictionary"].files("fr-en")
['fr-en.0-5000.txt', 'fr-en.5000-6500.txt']
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from geobias._progress import ProgressArg
from geobias.errors import InputError
from geobias.results import Result

__all__ = ["DATASETS", "Dataset", "DatasetFiles", "DatasetInstalls", "datasets_dir", "dataset_path", "install_command",
           "install_dataset", "missing_file_hint"]


@dataclass(frozen=True)
class Dataset:
    """A dataset: where its files are published and how a part is named.

    ``url`` and ``filenames`` are patterns over the part (``{part}``: a language pair such as
    ``fr-en``, or ``development``); ``parts`` is a regular expression a part must match.
    """

    name: str
    description: str
    licence: str
    url: str
    filenames: tuple[str, ...]
    parts: str
    default_part: str | None = None

    def files(self, part: str | None = None) -> list[str]:
        return [f.format(part=self.part(part)) for f in self.filenames]

    def part(self, part: str | None) -> str:
        part = part or self.default_part
        if part is None:
            raise InputError(f"{self.name} needs a part ({self.parts_help()})")
        if not re.fullmatch(self.parts, part):
            raise InputError(f"{self.name}: no part {part!r} ({self.parts_help()})")
        return part

    def parts_help(self) -> str:
        return {"muse-dictionary": "a language pair such as fr-en or en-es",
                "gap": "development, validation or test"}.get(self.name, self.parts)


DATASETS = {
    "muse-dictionary": Dataset(
        "muse-dictionary", "MUSE bilingual dictionaries (Conneau et al. 2018): training 0-5000 and test 5000-6500",
        "CC BY-NC 4.0", "https://dl.fbaipublicfiles.com/arrival/dictionaries/{file}",
        ("{part}.0-5000.txt", "{part}.5000-6500.txt"), r"[a-z]{2}-[a-z]{2}"),
    "gap": Dataset(
        "gap", "GAP coreference corpus (Webster et al. 2018)", "Apache-2.0",
        "https://raw.githubusercontent.com/google-research-datasets/gap-coreference/master/{file}",
        ("gap-{part}.tsv",), r"development|validation|test", default_part="development"),
}


def datasets_dir() -> Path:
    """Where datasets are kept: ``$GEOBIAS_DATASETS_DIR``, else ``datasets/`` beside the stores'
    folder (a checkout's ``datasets/``; ``~/.cache/geobias/datasets`` for an installed wheel)."""
    env = os.environ.get("GEOBIAS_DATASETS_DIR")
    if env:
        return Path(env).expanduser()
    from geobias.sources.registry import vectors_dir

    return vectors_dir().parent / "datasets"


def get_dataset(name: str) -> Dataset:
    if name not in DATASETS:
        raise InputError(f"unknown dataset {name!r}; choose from {', '.join(DATASETS)}")
    return DATASETS[name]


@dataclass(frozen=True)
class DatasetFiles(Result):
    """A dataset's files on this machine (``data install`` / ``data path``)."""

    dataset: str
    part: str
    folder: str
    files: list
    sha256: dict
    source: str
    licence: str

    def __rich__(self):
        from rich.table import Table

        t = Table("file", "sha256", title=f"{self.dataset} {self.part} ({self.licence}) in {self.folder}",
                  title_justify="left")
        for f in self.files:
            t.add_row(f, self.sha256.get(Path(f).name, "")[:16])
        return t


@dataclass(frozen=True)
class DatasetInstalls(Result):
    """What ``geobias data install NAME PART [PART ...]`` installed: one :class:`DatasetFiles` per part."""

    installed: list[DatasetFiles]

    def __rich__(self):
        from rich.console import Group

        return Group(*(d.__rich__() for d in self.installed))


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def dataset_path(name: str, part: str | None = None) -> DatasetFiles:
    """The installed files of a dataset part.

    Raises
    ------
    InputError
        Unknown dataset or part; not installed (the message gives the install command).
    """
    ds = get_dataset(name)
    part = ds.part(part)
    folder = datasets_dir() / ds.name
    record = folder / f".{part}.json"
    files = ds.files(part)
    if not record.is_file() or not all((folder / f).is_file() for f in files):
        raise InputError(f"{ds.name} {part} is not installed: geobias data install {ds.name} {part} "
                         "(downloads it; offline: --from PATH)")
    meta = json.loads(record.read_text(encoding="utf-8"))
    return DatasetFiles(ds.name, part, str(folder), [str(folder / f) for f in files], meta["sha256"], meta["source"],
                        ds.licence)


def missing_file_hint(path: str | os.PathLike, dataset: str) -> str:
    """What to run when a file the user named does not exist and ``dataset`` publishes such files:
    the ``geobias data install`` that fetches it (offline: ``--from PATH``) and where it then is.

    Examples
    --------
    >>> missing_file_hint("fr-en.0-5000.txt", "muse-dictionary").startswith(
    ...     "it is MUSE's fr-en dictionary: install it with `geobias data install muse-dictionary fr-en`")
    True
    """
    ds = get_dataset(dataset)
    name = Path(path).name
    for pattern in ds.filenames:
        head, _, tail = pattern.partition("{part}")
        part = name[len(head):len(name) - len(tail)] if name.startswith(head) and name.endswith(tail) else ""
        if part and re.fullmatch(ds.parts, part):
            where = datasets_dir() / ds.name / name
            what = f"MUSE's {part} dictionary" if ds.name == "muse-dictionary" else f"GAP's {part} part"
            if where.is_file():
                return f"it is {what}, installed at {where}: pass that path"
            return (f"it is {what}: install it with `geobias data install {ds.name} {part}` (offline: "
                    f"`{install_command(ds.name, part)}`), then pass {where}")
    example = "fr-en" if ds.name == "muse-dictionary" else ds.default_part or "PART"
    return (f"to use the {ds.description.split(' (')[0]}: `geobias data install {ds.name} {example}` (offline: "
            f"`{install_command(ds.name, example)}`); `geobias data path {ds.name} {example}` prints where it is")


def install_command(name: str, part: str | None = None) -> str:
    """The command that installs a dataset part from a local copy (the hint of every error that
    needs it): ``geobias data install muse-dictionary fr-en --from PATH``."""
    ds = get_dataset(name)
    return f"geobias data install {ds.name} {ds.part(part)} --from PATH"


def install_dataset(name: str, part: str | None = None, *, from_paths: list[Path] | None = None,
                    progress: ProgressArg = True) -> DatasetFiles:
    """Download (or copy from ``from_paths``) a dataset part into :func:`datasets_dir`, recording
    each file's sha256.

    All-or-nothing: every file is written into a temporary folder beside the datasets folder and
    moved into place only once all of them are complete (the record last); a failure removes the
    temporary folder and leaves nothing behind.

    ``from_paths`` are your own copies: a file whose name is one of the part's files, or a folder
    holding them (e.g. MUSE's ``dictionaries/``).

    Raises
    ------
    InputError
        Unknown dataset or part; a ``--from`` that holds none of the part's files; a failed download
        (the message gives the ``geobias data install NAME PART --from PATH`` that copies a local copy).
    """
    import shutil
    import tempfile

    from geobias.io.download import download

    ds = get_dataset(name)
    part = ds.part(part)
    root = datasets_dir()
    folder = root / ds.name
    made = [d for d in (root, folder) if not d.exists()]
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{ds.name}-{part}-", suffix=".tmp", dir=root))
    wanted = ds.files(part)
    hashes, source = {}, "download"
    try:
        for fname in wanted:
            dest = staging / fname
            if from_paths:
                found = next((p for p in (Path(x).expanduser() for x in from_paths)
                              for p in ([p / fname] if p.is_dir() else [p]) if p.is_file() and p.name == fname), None)
                if found is None:
                    raise InputError(f"--from: none of {', '.join(map(str, from_paths))} is {fname} (or a folder "
                                     "holding it)")
                shutil.copyfile(found, dest)
                source = "local copy"
            else:
                download(ds.url.format(file=fname), dest, name=f"{ds.name} {part}", progress=progress,
                         local_hint=install_command(ds.name, part))
            hashes[fname] = _sha256(dest)
        (staging / f".{part}.json").write_text(json.dumps({"sha256": hashes, "source": source, "url": ds.url},
                                                          indent=2), encoding="utf-8")
        folder.mkdir(exist_ok=True)
        for fname in [*wanted, f".{part}.json"]:  # the record last: a part is installed once it exists
            os.replace(staging / fname, folder / fname)
    except OSError as exc:
        raise InputError(f"cannot install {ds.name} {part} into {folder}: {exc.strerror or exc}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        for d in reversed(made):  # folders this install created and left empty
            if d.is_dir() and not any(d.iterdir()):
                d.rmdir()
    return dataset_path(ds.name, part)
