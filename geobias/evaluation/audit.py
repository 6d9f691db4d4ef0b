"""Audit grids: every store x every test x every language, one cell at a time, on any engine.

Config (TOML, read with :mod:`tomllib`)::

    # audit.toml
    stores = ["fr-spacy-md", "en-w2v-gnews", "vectors/my-pooled"]   # --vectors values
    languages = ["fr", "en"]
    tests = ["mweat", "weat:career-family", "weat:math-arts"]

    [options]              # optional; the same for every cell
    permutations = 10000   # default 10000
    seed = 0               # default 0
    limit = 200000         # default: all vectors
    similarity = "cosine"  # or "dot"
    oov = "ignore"         # or "raise"
    alternative = "greater"  # WEAT only

``stores``: anything ``--vectors`` accepts (registry name, saved store name, path; a relative
path is relative to the config file). ``tests``: ``mweat`` (built-in occupations and attribute
words of the language) or ``weat:NAME`` (a built-in WEAT test of the language, see
``geobias weat --help``). A registry store is paired only with its own language (the other
combinations are listed under ``skipped``, with the reason); any other store is paired with
every language. Each cell is what ``geobias weat``/``geobias mweat`` computes with the same
options; its result carries the common envelope (:func:`geobias.results.envelope`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from geobias._progress import ProgressArg, reporter
from geobias.errors import GeobiasError, InputError
from geobias.query import REPORT_LOST, WordQuery
from geobias.results import Result

_OPTIONS = {"permutations": int, "seed": int, "limit": int, "similarity": str, "oov": str, "alternative": str}
_DEFAULTS: dict[str, Any] = {"permutations": 10_000, "seed": 0, "limit": None, "similarity": "cosine",
                             "oov": "ignore", "alternative": "greater"}


@dataclass(frozen=True)
class AuditConfig:
    """A parsed audit config (see the module docstring for the format)."""

    path: str
    stores: list[str]
    languages: list[str]
    tests: list[str]
    options: dict[str, Any]


@dataclass(frozen=True)
class AuditResult(Result):
    """The report of an audit grid.

    Attributes
    ----------
    config : str
        Path of the config file.
    engine : dict
        What ran the cells.
    cells : list of dict
        In grid order (store, then test, then language): ``store``, ``test``, ``lang``,
        ``status`` (``"ok"`` or ``"error"``), then ``envelope`` (the cell's
        ``{command, geobias_version, inputs, result}``) and ``summary`` (the headline numbers),
        or ``error`` (one line).
    skipped : list of dict
        Combinations not run (``store``, ``lang``, ``reason``).
    n_ok, n_failed : int
    """

    config: str
    engine: dict
    cells: list[dict]
    skipped: list[dict]
    n_ok: int
    n_failed: int


def _list_of_str(raw: dict, key: str, path: Path) -> list[str]:
    value = raw.get(key)
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value):
        raise InputError(f"{path}: '{key}' must be a non-empty list of strings")
    if len(set(value)) != len(value):
        raise InputError(f"{path}: '{key}' lists an entry twice")
    return [v.strip() for v in value]


def read_config(path: str | Path) -> AuditConfig:
    """Parse and check an audit config.

    Raises
    ------
    InputError
        Unreadable file, invalid TOML, a missing or empty list, an unknown key or option, an
        option of the wrong type, an unknown language or test kind.
    """
    try:
        import tomllib
    except ImportError:  # Python 3.10
        raise GeobiasError("geobias audit needs Python 3.11 or later (tomllib)") from None

    from geobias.io.atomic import read_text
    from geobias.languages import get_language

    path = Path(path)
    try:
        raw = tomllib.loads(read_text(path, what="audit config"))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: invalid TOML: {exc}") from None
    unknown = set(raw) - {"stores", "languages", "tests", "options"}
    if unknown:
        raise InputError(f"{path}: unknown key(s) {', '.join(sorted(unknown))} (stores, languages, tests, options)")
    stores = _list_of_str(raw, "stores", path)
    languages = [get_language(code).code for code in _list_of_str(raw, "languages", path)]
    tests = _list_of_str(raw, "tests", path)
    for t in tests:
        if t != "mweat" and not (t.startswith("weat:") and len(t) > 5):
            raise InputError(f"{path}: test {t!r} must be 'mweat' or 'weat:NAME'")
    given = raw.get("options", {})
    if not isinstance(given, dict):
        raise InputError(f"{path}: [options] must be a table")
    options = dict(_DEFAULTS)
    for key, value in given.items():
        kind = _OPTIONS.get(key)
        if kind is None:
            raise InputError(f"{path}: unknown option {key!r} ({', '.join(_OPTIONS)})")
        if not isinstance(value, kind) or isinstance(value, bool):
            raise InputError(f"{path}: option {key} must be a{'n integer' if kind is int else ' string'}")
        options[key] = value
    if options["permutations"] < 1:
        raise InputError(f"{path}: permutations must be positive")
    # relative store paths are relative to the config file (names stay names)
    resolved = []
    for s in stores:
        p = Path(s).expanduser()
        if not p.is_absolute() and ("/" in s or s.startswith(".")):
            p = (path.parent / p).resolve()
            resolved.append(str(p))
        else:
            resolved.append(s)
    return AuditConfig(str(path), resolved, languages, tests, options)


def plan_cells(config: AuditConfig) -> tuple[list[dict], list[dict]]:
    """The cells to run (store x test x language, in that nesting) and the skipped pairs."""
    from geobias.sources import SOURCES

    cells, skipped = [], []
    for store in config.stores:
        src = SOURCES.get(store)
        for lang in config.languages:
            if src is not None and src.lang != lang:
                skipped.append({"store": store, "lang": lang, "reason": f"{store} holds {src.lang!r} vectors"})
        for test in config.tests:
            for lang in config.languages:
                if src is None or src.lang == lang:
                    cells.append({"store": store, "test": test, "lang": lang, "options": dict(config.options)})
    return cells, skipped


def _error_line(exc: BaseException) -> str:
    return " ".join(str(exc).split("\n")[0].split())[:300] or type(exc).__name__


def run_cell(cell: dict) -> dict:
    """Run one cell (also as a Ray task): ``geobias weat``/``mweat`` on one store and language.

    Returns
    -------
    dict
        The cell with ``status`` and either ``envelope`` and ``summary`` or ``error``; never
        raises for a failing cell.
    """
    from geobias.results import (
        envelope,
        record_input,
        recorded_inputs,
        start_recording,
        stop_recording,
    )

    out = {k: cell[k] for k in ("store", "test", "lang")}
    opts = cell["options"]
    token = start_recording()
    try:
        from geobias import wordlists
        from geobias.sources import resolve_store

        if cell["test"] == "mweat":
            from geobias.metrics import mweat

            command = "mweat"
            occupations = wordlists.occupations(cell["lang"])
            male, female = wordlists.attribute_words(cell["lang"])
            record_input("options", {"lang": cell["lang"], "vectors": cell["store"], **opts})
            store = resolve_store(cell["lang"], cell["store"], limit=opts["limit"])
            res = mweat(store, WordQuery.two_form(occupations, male, female, **REPORT_LOST),
                        permutations=opts["permutations"],
                        seed=opts["seed"], similarity=opts["similarity"], oov=opts["oov"])
            summary = {"statistic": res.statistic, "p_value": res.p_value, "n": res.n_pairs}
        else:
            from geobias.metrics import weat

            command = "weat"
            sets = wordlists.weat_test(cell["lang"], cell["test"].split(":", 1)[1])
            record_input("options", {"lang": cell["lang"], "vectors": cell["store"],
                                     "test": cell["test"].split(":", 1)[1], **opts})
            store = resolve_store(cell["lang"], cell["store"], limit=opts["limit"])
            res = weat(store, WordQuery(sets.X, sets.Y, sets.A, sets.B, **REPORT_LOST), permutations=opts["permutations"],
                       seed=opts["seed"], similarity=opts["similarity"], oov=opts["oov"],
                       alternative=opts["alternative"], test=sets.name)
            summary = {"statistic": res.statistic, "effect_size": res.effect_size, "p_value": res.p_value,
                       "n": res.n_x + res.n_y}
        out.update(status="ok", envelope=envelope(command, recorded_inputs(), res),
                   summary={k: (float(v) if isinstance(v, float) else v) for k, v in summary.items()})
    except GeobiasError as exc:
        out.update(status="error", error=_error_line(exc))
    except MemoryError:
        out.update(status="error", error="out of memory (set options.limit)")
    except Exception as exc:  # noqa: BLE001 - one failing cell must not stop the grid
        out.update(status="error", error=f"internal error: {type(exc).__name__}: {_error_line(exc)}")
    finally:
        stop_recording(token)
    return out


def run_audit(config: AuditConfig, engine, *, progress: ProgressArg = False) -> AuditResult:
    """Run every cell of ``config`` on ``engine`` (an open :func:`~geobias.engine.make_engine`).

    Returns
    -------
    AuditResult
        Cells in grid order; a failed cell holds its one-line error, the others their results.
    """
    cells, skipped = plan_cells(config)
    if progress:
        reporter(progress).note(f"audit: {len(cells)} cells on the {engine.kind} engine")
    done = engine.map_cells(run_cell, cells)
    for cell, res in zip(cells, done, strict=True):
        if "status" not in res:  # a task lost for good (see RayEngine.map_cells)
            res.update({k: cell[k] for k in ("store", "test", "lang")}, status="error")
    ordered = [{"store": c["store"], "test": c["test"], "lang": c["lang"], **r} for c, r in zip(cells, done, strict=True)]
    n_ok = sum(r["status"] == "ok" for r in ordered)
    return AuditResult(config=config.path, engine=engine.describe(), cells=ordered, skipped=skipped,
                       n_ok=n_ok, n_failed=len(ordered) - n_ok)
