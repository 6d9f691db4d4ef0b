"""File input/output shared by every module: reading user text files and writing atomically.

There is one way to write an output in geobias: :func:`atomic_write` for a file and
:func:`atomic_directory` for a directory. Both stage the output in a temporary sibling and
rename it into place only when it is complete, so a failure or an interruption never leaves a
half-written file and never touches what was there before. Operating-system errors (missing or
read-only directory, a path through a regular file, disk full) become one-line
:class:`~geobias.errors.InputError` messages naming the path.

Call :func:`check_output_path` before long work (a probe, a pooling run) so that an unwritable
``--out``/``--plot`` fails at once instead of after the computation.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from geobias.errors import InputError

__all__ = ["atomic_directory", "atomic_write", "check_output_path", "read_text"]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _publish_mode(path: Path, directory: bool) -> None:
    """Give a finished temporary entry the permissions a plain ``open``/``mkdir`` would have:
    mkstemp/mkdtemp create private (0600/0700) entries, which must not leak into user files."""
    os.chmod(path, (0o777 if directory else 0o666) & ~_umask())


def _reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def read_text(path: str | os.PathLike, *, what: str = "input") -> str:
    """Read a UTF-8 text file given by the user.

    Parameters
    ----------
    path : path-like
    what : str, default "input"
        What the file is, for the message (``"word-list"``, ``"sentences"``...).

    Returns
    -------
    str
        The whole file (universal newlines).

    Raises
    ------
    InputError
        Missing file, a directory, an unreadable file, or not UTF-8; the message names the file.
    """
    p = Path(path)
    try:
        return p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{p}: {what} file not found") from None
    except IsADirectoryError:
        raise InputError(f"{p}: is a directory, expected a {what} file") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{p}: {what} file is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise InputError(f"{p}: cannot read {what} file ({_reason(exc)})") from None


def check_output_path(
    path: str | os.PathLike, *, what: str = "output", overwrite: bool = True, directory: bool = False
) -> Path:
    """Check that ``path`` can be written, without writing anything.

    Parameters
    ----------
    path : path-like
        The file (or, with ``directory=True``, the directory) to be written.
    what : str, default "output"
        What is written, for the message (``"plot"``, ``"store"``...).
    overwrite : bool, default True
        Whether an existing ``path`` may be replaced.
    directory : bool, default False
        ``path`` is to be a directory (a store) rather than a file.

    Returns
    -------
    Path

    Raises
    ------
    InputError
        ``path`` exists and ``overwrite`` is False; it is a directory where a file is expected
        (or the reverse); its parent directory is missing, not a directory, or not writable.
    """
    dest = Path(path).expanduser()
    if dest.exists():
        if dest.is_dir() and not directory:
            raise InputError(f"{dest} is a directory; give a file name for the {what}")
        if directory and not dest.is_dir():
            raise InputError(f"{dest} is a file; give a directory name for the {what}")
        if not overwrite:
            raise InputError(f"{dest} already exists (pass --overwrite to replace it)")
    parent = dest.parent
    if not parent.exists():
        raise InputError(f"cannot write the {what} {dest}: directory {parent} does not exist")
    if not parent.is_dir():
        raise InputError(f"cannot write the {what} {dest}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"cannot write the {what} {dest}: directory {parent} is not writable")
    return dest


@contextmanager
def atomic_write(
    path: str | os.PathLike, *, mode: str = "wb", what: str = "output", overwrite: bool = True
) -> Iterator[IO]:
    """Open a temporary sibling of ``path`` for writing; rename it onto ``path`` on success.

    Parameters
    ----------
    path : path-like
        Destination file; its directory must exist (see :func:`check_output_path`).
    mode : {"wb", "w"}, default "wb"
        Text mode writes UTF-8 with ``newline=""`` (the caller's line endings are kept).
    what : str, default "output"
        For error messages.
    overwrite : bool, default True
        Whether an existing file may be replaced.

    Yields
    ------
    file object

    Raises
    ------
    InputError
        See :func:`check_output_path`; an operating-system error while writing (disk full...).
        Whatever the body raises propagates; the temporary file is removed and ``path`` is
        left as it was.
    """
    if mode not in ("wb", "w"):
        raise ValueError(f"mode must be 'wb' or 'w'; got {mode!r}")
    dest = check_output_path(path, what=what, overwrite=overwrite)
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
    except OSError as exc:
        raise InputError(f"cannot write the {what} {dest}: {_reason(exc)}") from None
    tmp = Path(tmp_name)
    try:
        kwargs = {"encoding": "utf-8", "newline": ""} if mode == "w" else {}
        with os.fdopen(fd, mode, **kwargs) as fh:
            yield fh
        _publish_mode(tmp, directory=False)
        os.replace(tmp, dest)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise InputError(f"cannot write the {what} {dest}: {_reason(exc)}") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


@contextmanager
def atomic_directory(
    path: str | os.PathLike, *, what: str = "store", overwrite: bool = False
) -> Iterator[Path]:
    """Yield an empty temporary sibling directory of ``path``; move it onto ``path`` on success.

    An existing ``path`` (with ``overwrite=True``) is moved aside first and removed only after
    the new directory is in place.

    Raises
    ------
    InputError
        See :func:`check_output_path`; an operating-system error while writing. Whatever the
        body raises propagates; the temporary directory is removed and ``path`` is untouched.
    """
    dest = check_output_path(path, what=what, overwrite=overwrite, directory=True)
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent))
    except OSError as exc:
        raise InputError(f"cannot write the {what} {dest}: {_reason(exc)}") from None
    try:
        yield tmp
        _publish_mode(tmp, directory=True)
        if dest.exists():
            old = dest.with_name(f".{dest.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            os.replace(dest, old)
            os.replace(tmp, dest)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, dest)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise InputError(f"cannot write the {what} {dest}: {_reason(exc)}") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
