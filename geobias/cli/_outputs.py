"""The command line's check of every output path it was given, before any work.

A command line names its outputs in two ways: the command's own output fields (``-o/--out``, a
``plot`` of its own: :attr:`geobias.commands.Command.outputs`) and the options every command has
(``--parquet FILE``, ``--plot FILE``). Before the command runs, :func:`check_outputs` refuses, with
one line naming the option and the path,

* an output that is one of the command's inputs (the same file, also through a symbolic or hard
  link), lies inside an input folder (a store directory, a model folder), or is a folder holding
  an input;
* an output inside a vector store's folder (a store's ``words.txt``, ``vectors.npy`` or
  ``meta.json``, whether the command reads that store or not: the store would be damaged);
* two outputs on one path, or one inside the other;
* an existing ``--parquet`` or ``--plot`` file, unless ``--overwrite`` was given (the command's own
  outputs are checked by the command, which knows what it may replace: an empty folder, a store).

The command's inputs are the values of its other options that name something on disk, and the
stores its store options name (a registry name or a saved store's name: its folder).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from geobias.errors import InputError

#: Output kinds that are folders (a store, a report, a folder of files).
FOLDERS = ("folder", "report", "store")


def _on_disk(value: Any) -> Path | None:
    """``value`` as a path when it names an existing file or folder (a word list, a corpus...)."""
    if not isinstance(value, (str, os.PathLike)) or not str(value):
        return None
    try:
        path = Path(value).expanduser()
        return path if path.exists() else None
    except (OSError, ValueError):  # a name the system cannot hold (a NUL byte, too long)
        return None


def _is_choice(annotation: Any) -> bool:
    """Whether a field's type admits only choices, numbers or flags."""
    import enum
    import typing

    if annotation is None or annotation is type(None):
        return True
    if isinstance(annotation, type):
        return issubclass(annotation, (bool, int, float, enum.Enum))
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return True
    if origin is typing.Annotated:
        return _is_choice(typing.get_args(annotation)[0])
    args = typing.get_args(annotation)
    return bool(args) and origin is not list and all(_is_choice(a) for a in args)


def _reads_files(cmd, field: str) -> bool:
    """Whether ``field``'s value may name a file or folder the command reads (a path, a word set,
    a store, a model, a ``vectors info`` target). A choice, a number or a language never does, even
    where a folder of that name exists (``--lang en`` beside a folder ``en``)."""
    from geobias.commands._kinds import Kind, spec_of

    return spec_of(cmd.params, field).kind is not Kind.LANGUAGE and not _is_choice(cmd.params.model_fields[field].annotation)


def command_inputs(cmd, options: dict[str, Any], flag: Callable[[str], str]) -> list[tuple[str, Path]]:
    """``(option, path)`` for each file or folder the command line names as an input of ``cmd``:
    every option value (or list item) that is a path on disk, and each store option's store
    folder; ``options`` are the command line's values by field name, ``flag`` gives a field's
    option (:func:`geobias.cli._run.flag`)."""
    from geobias.commands._kinds import Kind, spec_of
    from geobias.sources.opened import store_location

    outputs = {o.field for o in cmd.outputs}
    found: list[tuple[str, Path]] = []
    for field, value in options.items():
        if field in outputs or field not in cmd.params.model_fields or value is None:
            continue
        if not _reads_files(cmd, field):
            continue
        name = field.upper() if spec_of(cmd.params, field).argument else flag(field)  # `vectors info TARGET`
        if spec_of(cmd.params, field).kind is Kind.STORE and isinstance(value, str):
            try:
                path = store_location(None, value)
            except (OSError, ValueError):
                path = None
            if path is not None:
                found.append((name, path))
            continue
        for item in value if isinstance(value, (list, tuple)) else (value,):
            path = _on_disk(item)
            if path is not None:
                found.append((name, path))
    return found


def _store_holding(path: Path) -> Path | None:
    """The vector store folder that ``path`` lies inside, if any."""
    from geobias.store.cache import is_cache

    try:
        parents = path.expanduser().resolve().parents
    except (OSError, RuntimeError):
        return None
    return next((p for p in parents if is_cache(p)), None)


def _output_path(kind: str, value: Any) -> Path:
    """Where a declared output of ``kind`` lands: a store given by a bare name goes under the
    vectors directory (:func:`geobias.sources.registry.store_path`), anything else is a path."""
    if kind == "store":
        from geobias.sources.registry import store_path

        return store_path(value, create=False)
    return Path(str(value)).expanduser()


def check_outputs(cmd, options: dict[str, Any], validated, generic: dict[str, Any], *, overwrite: bool,
                  flag: Callable[[str], str]) -> None:
    """Refuse, before any work, an output path of this command line that would overwrite one of its
    inputs, a store, another of its outputs or (``--parquet``, ``--plot``) an existing file
    without ``overwrite`` (see the module docstring).

    Parameters
    ----------
    cmd : Command
    options : dict
        The command line's values by field name, as given (before validation: a word list's file
        name, not its words).
    validated : Params
        The validated parameters (the output fields' values).
    generic : dict
        ``{option: path or None}`` of the options every command has (``{"--parquet": ...,
        "--plot": ...}``).
    overwrite : bool
        Whether an existing ``--parquet`` or ``--plot`` file may be replaced.
    flag : callable
        A field's command-line option (:func:`geobias.cli._run.flag`), for the message.

    Raises
    ------
    InputError
        One line naming the option and the path.
    """
    from geobias.io.atomic import check_output_path, same_path, shown, within

    declared = [(flag(o.field), _output_path(o.kind, value), o.kind in FOLDERS)
                for o in cmd.outputs
                if (value := getattr(validated, o.field, None)) is not None and not isinstance(value, bool)]
    given = [(option, Path(str(path)).expanduser(), False) for option, path in generic.items() if path is not None]
    inputs = command_inputs(cmd, options, flag)
    seen: list[tuple[str, Path, bool]] = []
    for option, path, folder in [*declared, *given]:
        name = f"{option} {shown(path)}"
        for source, inp in inputs:
            if same_path(path, inp):
                raise InputError(f"{name} is an input of this command ({source}); choose another path for {option}")
            if within(path, inp):
                raise InputError(f"{name} is inside {shown(inp)}, the {source} input of this command; "
                                 f"choose a path outside it for {option}")
            if folder and within(inp, path):
                raise InputError(f"{name} holds {shown(inp)}, the {source} input of this command; "
                                 f"choose another path for {option}")
        store = _store_holding(path)
        if store is not None:
            raise InputError(f"{name} is inside the vector store {shown(store)}; choose a path outside it for {option}")
        for other, earlier, earlier_folder in seen:
            if same_path(path, earlier):
                raise InputError(f"{name}: {other} names the same path; give each output its own path")
            if (earlier_folder and within(path, earlier)) or (folder and within(earlier, path)):
                raise InputError(f"{name} and {other} {shown(earlier)} are one inside the other; "
                                 "give each output its own path")
        seen.append((option, path, folder))
    for option, path, _ in given:  # the command's own outputs are the command's to check
        if path.is_file() and not overwrite:
            raise InputError(f"{option} {shown(path)} already exists (pass --overwrite to replace it)")
        check_output_path(path, what=option, overwrite=overwrite)
