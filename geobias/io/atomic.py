"""File input/output shared by every module: reading user text files and writing atomically.

There is one way to write an output in geobias: :func:`atomic_write` for a file and
:func:`atomic_directory` for a directory. Both stage the output in a temporary sibling and
rename it into place only when it is complete, so a failure or an interruption never leaves a
half-written file and never touches what was there before. Operating-system errors (missing or
read-only directory, a path through a regular file, disk full) become one-line
:class:`~geobias.errors.InputError` messages naming the path.

Publishing never replaces what another process wrote meanwhile: when the destination was absent
at the start (or was another entry) it is published with a no-replace rename (Linux
``renameat2(RENAME_NOREPLACE)``, a hard link for files elsewhere), and an existing destination
that may be overwritten is swapped atomically (``RENAME_EXCHANGE``) only if it is still the entry
seen at the start. The loser of a race fails with one line and the winner's output is kept.

Temporaries are named ``.NAME.<pid>.<random>.tmp`` beside the destination. One left behind by a
killed process (``kill -9``, power loss) is removed by the next write to the same destination
when its process is gone (or, for names without a pid, when it is older than
:data:`STALE_SECONDS`); nothing else is ever removed.

Call :func:`check_output_path` before long work (a probe, a pooling run) so that an unwritable
``--out``/``--plot`` fails at once instead of after the computation.
"""

from __future__ import annotations

import ctypes
import errno
import os
import re
import shutil
import socket
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from geobias.errors import InputError

__all__ = ["atomic_directory", "atomic_write", "check_output_path", "clean_stale_temporaries", "read_text", "same_path",
           "within"]

#: Age after which a temporary of our naming without a readable pid counts as stale (24 h).
STALE_SECONDS = 24 * 3600

_RENAME_NOREPLACE = 1
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


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
        The whole file (universal newlines), without a leading UTF-8 byte-order mark (Excel and
        Notepad write one; kept, it would become part of the first word).

    Raises
    ------
    InputError
        Missing file, a directory, an unreadable file, or not UTF-8; the message names the file.
    """
    p = Path(path)
    name = shown(p)
    try:
        return p.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError(f"{name}: {what} file not found") from None
    except IsADirectoryError:
        raise InputError(f"{name}: is a directory, expected a {what} file") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{name}: {what} file is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise InputError(f"{name}: cannot read {what} file ({_reason(exc)})") from None


def shown(path: str | Path) -> str:
    r"""``path`` as an error message shows it: as given, or quoted with escapes where it holds a
    character that does not print (a newline would break the message's one line).

    >>> shown("words.txt")
    'words.txt'
    >>> print(shown("a\nb"))
    'a\nb'
    """
    text = str(path)
    return text if text.isprintable() else repr(text)


def same_path(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Whether ``a`` and ``b`` name one file or directory: the same entry when both exist (through a
    symbolic or hard link too), else the same resolved path.

    >>> same_path("words.txt", "./words.txt")
    True
    """
    pa, pb = Path(a).expanduser(), Path(b).expanduser()
    try:
        if pa.exists() and pb.exists():
            return os.path.samefile(pa, pb)
        return pa.resolve() == pb.resolve()
    except OSError:
        return False


def within(path: str | os.PathLike, directory: str | os.PathLike) -> bool:
    """Whether ``path`` lies inside the existing folder ``directory`` (at any depth, also through
    symbolic links; ``directory`` is not inside itself).

    >>> within("/", "/")
    False
    """
    folder = Path(directory).expanduser()
    try:
        if not folder.is_dir():
            return False
        for parent in Path(path).expanduser().resolve().parents:
            if parent.exists() and os.path.samefile(parent, folder):
                return True
    except OSError:
        return False
    return False


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


# ------------------------------------------------------------------ temporaries


def _host_tag() -> str:
    """A short tag of this host, so that a pid is only judged on the machine that wrote it."""
    return re.sub(r"[^A-Za-z0-9]", "", socket.gethostname())[:12] or "host"


def _tmp_prefix(dest: Path) -> str:
    return f".{dest.name}.{_host_tag()}-{os.getpid()}."


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    except OSError:
        return True
    return True


def _is_stale(entry: Path, dest: Path, now: float) -> bool:
    """Whether ``entry`` is a temporary of ``dest`` that its writer abandoned."""
    name = entry.name
    head = f".{dest.name}."
    if not (name.startswith(head) and name.endswith(".tmp")):
        return False
    middle = name[len(head):-len(".tmp")]
    m = re.fullmatch(r"([A-Za-z0-9]+)-(\d+)\.[A-Za-z0-9_]+", middle)
    if m:
        if m.group(1) != _host_tag():
            pass  # another machine's pid: judge by age only
        else:
            pid = int(m.group(2))
            return pid != os.getpid() and not _pid_alive(pid)
    elif not re.fullmatch(r"[A-Za-z0-9_]{8}", middle):  # tempfile's own 8 random characters
        return False
    try:
        age = now - entry.lstat().st_mtime
    except OSError:
        return False
    return age > STALE_SECONDS


def clean_stale_temporaries(path: str | os.PathLike) -> list[Path]:
    """Remove temporaries of ``path`` left behind by a killed writer.

    Only entries named like ours (``.NAME.<host>-<pid>.<random>.tmp``, or the older
    ``.NAME.<random>.tmp``) are considered, and only stale ones: the recorded process on this
    host no longer exists, or (no pid, or another host) the entry is older than
    :data:`STALE_SECONDS`. Errors are ignored (another process may be cleaning too).

    Parameters
    ----------
    path : path-like
        The destination whose siblings are examined.

    Returns
    -------
    list of Path
        The entries removed.
    """
    dest = Path(path).expanduser()
    removed: list[Path] = []
    try:
        entries = list(dest.parent.iterdir())
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        if not _is_stale(entry, dest, now):
            continue
        try:
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
            removed.append(entry)
        except OSError:
            continue
    return removed


# ------------------------------------------------------------------ no-replace publishing


def _renameat2(src: Path, dst: Path, flags: int) -> bool:
    """``renameat2(src, dst, flags)``; False when the system does not offer it."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    if fn(_AT_FDCWD, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), flags) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(dst))


class _Appeared(Exception):
    """The destination was created (or replaced) by someone else while we worked."""


def _publish_new(tmp: Path, dest: Path, directory: bool) -> None:
    """Move ``tmp`` to ``dest``, which must not exist; never replace anything."""
    try:
        if _renameat2(tmp, dest, _RENAME_NOREPLACE):
            return
    except FileExistsError:
        raise _Appeared from None
    except OSError as exc:
        if exc.errno in (errno.EEXIST, errno.ENOTEMPTY):
            raise _Appeared from None
        raise
    if not directory:
        try:
            os.link(tmp, dest)  # fails if dest exists
        except FileExistsError:
            raise _Appeared from None
        except OSError:
            pass  # no hard links here: fall back to a checked rename
        else:
            tmp.unlink(missing_ok=True)
            return
    if os.path.lexists(dest):
        raise _Appeared
    if directory:
        os.rename(tmp, dest)  # replaces at most an empty directory created in the last instant
    else:
        os.replace(tmp, dest)


def _publish_over(tmp: Path, dest: Path, seen: tuple[int, int] | None, directory: bool) -> Path | None:
    """Replace ``dest`` (seen at the start as inode ``seen``) by ``tmp``.

    Returns the path now holding the previous entry (to be removed), or None.
    """
    if seen is None or not os.path.lexists(dest):
        _publish_new(tmp, dest, directory)
        return None
    st = dest.lstat()
    if (st.st_dev, st.st_ino) != seen:
        raise _Appeared
    if directory:
        if _renameat2(tmp, dest, _RENAME_EXCHANGE):
            return tmp  # tmp now holds the previous directory
        old = Path(tempfile.mkdtemp(prefix=_tmp_prefix(dest), suffix=".tmp", dir=dest.parent))
        os.rmdir(old)
        os.rename(dest, old)
        os.rename(tmp, dest)
        return old
    os.replace(tmp, dest)
    return None


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = path.lstat()
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _appeared_message(what: str, dest: Path) -> str:
    return (f"cannot write the {what} {dest}: another process wrote it while this one was working; "
            "nothing was replaced (choose another path, or run again)")


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
        Whether an existing file may be replaced. Only the file seen at the start is replaced:
        one created or replaced by another process meanwhile is never overwritten.

    Yields
    ------
    file object

    Raises
    ------
    InputError
        See :func:`check_output_path`; an operating-system error while writing (disk full...);
        the destination was written by another process meanwhile. Whatever the body raises
        propagates; the temporary file is removed and ``path`` is left as it was.
    """
    if mode not in ("wb", "w"):
        raise ValueError(f"mode must be 'wb' or 'w'; got {mode!r}")
    dest = check_output_path(path, what=what, overwrite=overwrite)
    clean_stale_temporaries(dest)
    seen = _identity(dest) if overwrite else None
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=_tmp_prefix(dest), suffix=".tmp", dir=dest.parent)
    except OSError as exc:
        raise InputError(f"cannot write the {what} {dest}: {_reason(exc)}") from None
    tmp = Path(tmp_name)
    try:
        kwargs = {"encoding": "utf-8", "newline": ""} if mode == "w" else {}
        with os.fdopen(fd, mode, **kwargs) as fh:
            yield fh
        _publish_mode(tmp, directory=False)
        _publish_over(tmp, dest, seen, directory=False)
    except _Appeared:
        tmp.unlink(missing_ok=True)
        raise InputError(_appeared_message(what, dest)) from None
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

    An existing ``path`` (with ``overwrite=True``) is exchanged atomically with the new
    directory and removed afterwards, but only if it is still the directory seen at the start;
    a ``path`` that another process created or replaced meanwhile is never overwritten.

    Raises
    ------
    InputError
        See :func:`check_output_path`; an operating-system error while writing; the destination
        was written by another process meanwhile. Whatever the body raises propagates; the
        temporary directory is removed and ``path`` is untouched.
    """
    dest = check_output_path(path, what=what, overwrite=overwrite, directory=True)
    clean_stale_temporaries(dest)
    seen = _identity(dest) if overwrite else None
    try:
        tmp = Path(tempfile.mkdtemp(prefix=_tmp_prefix(dest), suffix=".tmp", dir=dest.parent))
    except OSError as exc:
        raise InputError(f"cannot write the {what} {dest}: {_reason(exc)}") from None
    try:
        yield tmp
        _publish_mode(tmp, directory=True)
        old = _publish_over(tmp, dest, seen, directory=True)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except _Appeared:
        shutil.rmtree(tmp, ignore_errors=True)
        raise InputError(_appeared_message(what, dest)) from None
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise InputError(f"cannot write the {what} {dest}: {_reason(exc)}") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
