"""Server-rendered HTML: the home page and a job's report (no JavaScript, no build step).

Tables are the CLI's own: the command's rich renderer is run against a collecting console and
each rich ``Table`` becomes an HTML ``<table>``. Plots are the PNGs the command wrote (gender
plane, BEC-Pro bars) or matplotlib ``Figure`` objects drawn from the result by
:func:`geobias.report.plots.plot_bars` (per-pair MWEAT bias bars, per-word WEAT associations,
per-method evaluation bars), inlined as base64 PNG.
"""

from __future__ import annotations

import base64
import csv
import datetime as _dt
import html
import io
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from geobias.errors import GeobiasError
from geobias.report.registry import Collector, plain_text

CSS = """
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:72rem;color:#222;padding:0 1rem}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem}
table{border-collapse:collapse;margin:.8rem 0}caption{text-align:left;font-weight:600;padding:.3rem 0}
td,th{border:1px solid #ccc;padding:.25rem .6rem;text-align:left;vertical-align:top;font-size:.9rem}
th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}
.state-done{color:#176f2c}.state-failed,.state-cancelled{color:#a4161a}.state-running,.state-starting,.state-queued{color:#8a5a00}
img.plot{max-width:100%;border:1px solid #ddd;margin:.5rem 0}pre{background:#f6f6f6;padding:.6rem;overflow:auto;font-size:.8rem}
p.note{color:#666;font-size:.85rem}
"""


def esc(x: Any) -> str:
    return html.escape("" if x is None else str(x))


def page(title: str, body: str) -> str:
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{esc(title)}</title>"
            f"<style>{CSS}</style></head><body>{body}</body></html>")


def when(ts: float | None) -> str:
    if ts is None:
        return ""
    return _dt.datetime.fromtimestamp(ts, _dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _num(cell: str) -> bool:
    s = cell.strip().replace(",", "").replace("%", "").lstrip("+-−")
    try:
        float(s.split()[0])
        return True
    except (ValueError, IndexError):
        return False


def simple_table(headers: list[str], rows: list[list[Any]], caption: str = "", raw_cols: tuple[int, ...] = ()) -> str:
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = []
    for r in rows:
        cells = []
        for i, c in enumerate(r):
            text = c if i in raw_cols else esc(c)
            cls = " class='num'" if i not in raw_cols and _num(str(c)) else ""
            cells.append(f"<td{cls}>{text}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    thead = f"<thead><tr>{head}</tr></thead>" if headers else ""
    return f"<table>{cap}{thead}<tbody>{''.join(body)}</tbody></table>"


# ----------------------------------------------------------------------------- rich → tables
def rich_items(obj: Any) -> list:
    """What a CLI renderer printed, as items: ``Table`` → ``(title, headers, rows)`` followed by its
    caption as text (an interval's note), ``Group`` recursed, anything else → its plain text."""
    from rich.console import Group
    from rich.table import Table

    if hasattr(obj, "__rich__"):
        obj = obj.__rich__()
    if isinstance(obj, Group):
        return [x for r in obj.renderables for x in rich_items(r)]
    if isinstance(obj, Table):
        columns = obj.columns
        cells = [[plain_text(c) for c in col.cells] for col in columns]
        n = max((len(c) for c in cells), default=0)
        rows = [[col[i] if i < len(col) else "" for col in cells] for i in range(n)]
        headers = [plain_text(c.header).replace("\n", " ") for c in columns] if obj.show_header else []
        # a caption is a table's note (an interval's measured coverage, why it cannot show "no bias")
        return [(plain_text(obj.title) if obj.title else "", headers, rows),
                *([plain_text(obj.caption)] if obj.caption else [])]
    return [plain_text(obj)]


def items_html(items: list) -> str:
    """HTML of collected items: a ``<table>`` per table, a ``<p>`` per text."""
    return "".join(simple_table(x[1], x[2], caption=x[0]) if isinstance(x, tuple) else f"<p>{esc(x)}</p>"
                   for x in items)


def cli_collected(kind: str, params: dict[str, Any], result: dict[str, Any]) -> list | None:
    """The CLI's tables for a job's stored result, as items (see :func:`rich_items`): the result
    object is rebuilt from its JSON form (:meth:`geobias.results.Result.from_dict`) and drawn by
    the renderer registered for its type, as ``geobias <command>`` draws it; ``None`` when the
    JSON is not that result's form."""
    from geobias.commands import get
    from geobias.errors import GeobiasError
    from geobias.report.draw import render_table

    try:
        obj = get(kind).load_result(result)
    except (GeobiasError, TypeError, ValueError, ImportError, AttributeError):
        return None
    console = Collector()
    render_table(console, obj, **{**params, "top": 15})
    return [x for item in console.items for x in rich_items(item)]


def generic_collected(result: Any, title: str = "result") -> list:
    """Items (see :func:`rich_items`) for a result no renderer draws: its scalars as a two-column
    table; lists of flat dicts and flat dicts as tables of their own."""
    if not isinstance(result, dict):
        return [json.dumps(result, indent=2, ensure_ascii=False)]
    scalars, parts = [], []
    for k, v in result.items():
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            keys = list(dict.fromkeys(k2 for x in v for k2, v2 in x.items() if not isinstance(v2, (dict, list))))
            rows = [[_fmt(x.get(k2)) for k2 in keys] for x in v[:200]]
            parts.append((f"{k} ({len(v)})", keys, rows))
        elif isinstance(v, dict) and v and all(not isinstance(x, (dict, list)) for x in v.values()):
            parts.append((k, ["key", "value"], [[k2, _fmt(v2)] for k2, v2 in v.items()]))
        elif isinstance(v, (dict, list)):
            text = json.dumps(v, ensure_ascii=False)
            scalars.append([k, text if len(text) < 300 else text[:300] + " …"])
        else:
            scalars.append([k, _fmt(v)])
    return [(title, ["field", "value"], scalars), *parts]


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    return "" if v is None else str(v)


# ----------------------------------------------------------------------------- plots
def _img(b64: str, alt: str) -> str:
    return f"<img class='plot' alt='{esc(alt)}' src='data:image/png;base64,{b64}'>"


@dataclass
class Plot:
    """A plot of a run: a PNG the command wrote (``png``), or a matplotlib ``Figure`` drawn from
    its result (``figure``; then also downloadable as SVG)."""

    title: str
    png: bytes | None = None
    figure: Any = None

    def data(self, fmt: str = "png") -> bytes:
        """The plot as ``png`` or (a drawn figure only) ``svg`` bytes."""
        if self.figure is None:
            if fmt != "png" or self.png is None:
                raise ValueError(f"{self.title}: only a PNG exists")
            return self.png
        buf = io.BytesIO()
        self.figure.savefig(buf, format=fmt, dpi=110, bbox_inches="tight")
        return buf.getvalue()

    def img(self, src: str | None = None) -> str:
        """The plot as an ``<img>``: inlined as a base64 PNG (drawn now), or loaded from ``src``."""
        if src is not None:
            return f"<img class='plot' alt='{esc(self.title)}' src='{esc(src)}'>"
        return _img(base64.b64encode(self.data("png")).decode("ascii"), self.title)


def plot_items(kind: str, result: dict[str, Any], artifacts_dir: Path, artifacts: list[str]) -> list[Plot]:
    """The plots of a run: the PNGs the command wrote, then the figure its result type's registered
    renderer draws (:mod:`geobias.report.draw`; none when it has no figure or nothing to draw)."""
    from geobias.commands import get
    from geobias.report.draw import figure_title, make_figure

    out = [Plot(name, png=(artifacts_dir / name).read_bytes()) for name in artifacts if name.endswith(".png")]
    try:
        obj = get(kind).load_result(result)
    except (GeobiasError, KeyError, TypeError, ValueError):  # a record from an older version: its PNGs only
        return out
    fig = make_figure(obj)
    if fig is not None:
        out.append(Plot(figure_title(obj), figure=fig))
    return out


# ----------------------------------------------------------------------------- a run's view and downloads
@dataclass(frozen=True)
class RunTable:
    """One table of a run, as the CLI draws it: caption, header row, rows of strings."""

    caption: str
    headers: list[str]
    rows: list[list[str]]


def run_items(job: dict[str, Any]) -> list:
    """What a finished job's report shows, as items (see :func:`rich_items`): what its command's
    CLI renderer draws (``geobias CMD``'s own tables), else the result's scalars and records."""
    result = (job.get("result") or {}).get("result", {})
    items = cli_collected(job["kind"], job["params"], result)
    return generic_collected(result) if items is None else items


def run_tables(job: dict[str, Any]) -> list[RunTable]:
    """The tables of a finished job (:func:`run_items` without the text), numbered as the
    downloads ``/jobs/{id}/tables/{i}.csv`` number them."""
    return [RunTable(*t) for t in run_items(job) if isinstance(t, tuple)]


def table_csv(table: RunTable) -> str:
    """A table as CSV (RFC 4180, header row first)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    if table.headers:
        w.writerow(table.headers)
    w.writerows(table.rows)
    return buf.getvalue()


def report_links(job: dict[str, Any]) -> list[str]:
    """Links to the files of the report folders the job's command declares (``Output(kind="report")``):
    its ``index.html`` as a page, the other files as downloads."""
    from geobias.commands import get

    jid = esc(job["id"])
    links = []
    for o in get(job["kind"]).outputs:
        if o.kind != "report" or not o.in_service:
            continue
        for name in o.files:
            href = f"/jobs/{jid}/outputs/{esc(o.path)}/{esc(name)}"
            links.append(f"<a href='{href}'>{esc(o.title or o.path)} (HTML)</a>" if name == "index.html"
                         else f"<a download href='{href}'>{esc(name)}</a>")
    return links


def item_links(job: dict[str, Any]) -> list[str]:
    """Download links of a finished job's item tables (one row per pair, word, occupation, cell or
    method: :func:`geobias.results.item_tables`), as CSV and Parquet (``data.csv?table=NAME``).

    >>> env = {"command": "mweat", "geobias_version": "0", "inputs": {},
    ...        "result": {"per_word": [{"masculine": "roi", "bias": 0.1}]}}
    >>> [link.split("'")[1] for link in item_links({"id": "j1", "result": env})]
    ['/jobs/j1/data.csv?table=per_word', '/jobs/j1/data.parquet?table=per_word']

    A stored result the tables cannot read gives one line saying why, in place of the links (never
    a silent drop).
    """
    from urllib.parse import quote

    from geobias.results import item_tables

    env = job.get("result") or {}
    try:
        names = list(item_tables(env)) if env else []
    except (GeobiasError, TypeError, ValueError) as exc:  # a stored result the tables cannot read: say so
        return [f"<span class='note'>no item tables ({esc(type(exc).__name__)}: {esc(exc)})</span>"]
    jid, out = esc(job["id"]), []
    for name in names:
        q = esc(quote(name))
        out += [f"<a download href='/jobs/{jid}/data.csv?table={q}'>CSV (items: {esc(name)}, one row each)</a>",
                f"<a download href='/jobs/{jid}/data.parquet?table={q}'>Parquet (items: {esc(name)})</a>"]
    return out


def result_view(job: dict[str, Any], artifacts_dir: Path, *, inline_plots: bool = True) -> str:
    """The body of a finished job's view: downloads, its tables and plots (the report's parts).

    ``inline_plots``: each plot drawn now and inlined as a base64 PNG (a page that stands alone:
    the report); otherwise an ``<img>`` of ``/jobs/{id}/plots/{i}.png``, which the browser loads
    after the tables are shown (the web app's view: drawing a plot's PNG takes 0.2-0.3 s, several
    times the rest of the view)."""
    jid = esc(job["id"])
    if job["state"] != "done":
        err = job.get("error") or {}
        return f"<p class='state-failed'>{esc(err.get('type'))}: {esc(err.get('message'))}</p>" if err else ""
    items = run_items(job)
    tables = [RunTable(*x) for x in items if isinstance(x, tuple)]
    env = job.get("result") or {}
    plots = plot_items(job["kind"], env.get("result", {}), artifacts_dir, job.get("artifacts", []))
    if not inline_plots and plots:
        _keep_drawn(artifacts_dir.parent, plots)
    links = [*report_links(job),
             f"<a download href='/jobs/{jid}/data.csv'>CSV (data: one row per estimate)</a>",
             f"<a download href='/jobs/{jid}/data.parquet'>Parquet (data)</a>",
             f"<a download href='/jobs/{jid}/envelope.json'>JSON envelope</a>"]
    links += item_links(job)
    links += [f"<a download href='/jobs/{jid}/tables/{i}.csv'>table as shown: {esc(t.caption or f'table {i + 1}')}</a>"
              for i, t in enumerate(tables)]
    for i, p in enumerate(plots):
        links.append(f"<a download href='/jobs/{jid}/plots/{i}.png'>PNG: {esc(p.title)}</a>")
        if p.figure is not None:
            links.append(f"<a download href='/jobs/{jid}/plots/{i}.svg'>SVG: {esc(p.title)}</a>")
    parts = [f"<p class='downloads'>Download: {' · '.join(links)}</p>", "<h2>Tables</h2>", items_html(items)]
    if plots:
        parts += ["<h2>Plots</h2>", *(p.img() if inline_plots else p.img(f"/jobs/{job['id']}/plots/{i}.png")
                                      for i, p in enumerate(plots))]
    return "".join(parts)


#: The rendered view of a finished job, kept in its folder (a finished job never changes).
VIEW_CACHE = "view.html"


def cached_result_view(job: dict[str, Any], job_dir: Path) -> str:
    """:func:`result_view` of a ``done`` job for the web app (its plots loaded by URL, after the
    tables: :func:`cached_plot`), rendered once and kept in ``job_dir/view.html`` (the runner renders
    it when the job ends; a page request reads it). Other states render afresh."""
    cache = job_dir / VIEW_CACHE
    if job["state"] != "done":
        return result_view(job, job_dir / "artifacts", inline_plots=False)
    try:
        return cache.read_text(encoding="utf-8")
    except OSError:
        pass
    text = result_view(job, job_dir / "artifacts", inline_plots=False)
    from geobias.io.atomic import atomic_write

    try:
        with atomic_write(cache, mode="w", what="the job's view") as f:
            f.write(text)
    except GeobiasError:
        pass  # a read-only data directory: the view is rendered on each request
    return text


#: The plots the latest views drew (their figures, not yet their PNGs), per job folder: the plot
#: requests that follow a view take them instead of drawing the figures again.
_DRAWN: OrderedDict[Path, list[Plot]] = OrderedDict()
_DRAWN_LOCK = threading.Lock()
_RENDER_LOCK = threading.Lock()
#: Job folders whose drawn plots are held at most.
DRAWN_HELD = 8


def _keep_drawn(job_dir: Path, plots: list[Plot]) -> None:
    with _DRAWN_LOCK:
        _DRAWN[job_dir] = plots
        _DRAWN.move_to_end(job_dir)
        while len(_DRAWN) > DRAWN_HELD:
            _DRAWN.popitem(last=False)


def _drawn(job_dir: Path) -> list[Plot] | None:
    with _DRAWN_LOCK:
        return _DRAWN.get(job_dir)


def cached_plot(job: dict[str, Any], job_dir: Path, index: int, fmt: str) -> bytes:
    """Plot ``index`` (from 0, in the view's order: :func:`plot_items`) of the ``done`` job ``job`` as
    ``fmt`` (``"png"`` or ``"svg"``) bytes, drawn once and kept in ``job_dir/plot-{index}.{fmt}`` (a
    finished job never changes; a read-only data directory draws it on each request).

    Raises
    ------
    LookupError
        The job has no plot ``index``, or that plot exists as PNG only and ``fmt`` is ``"svg"`` (the
        route answers it 404).
    """
    cache = job_dir / f"plot-{index}.{fmt}"
    if index >= 0:
        try:
            return cache.read_bytes()
        except OSError:
            pass
    drawn = _drawn(job_dir)
    plots = drawn or plot_items(job["kind"], (job.get("result") or {}).get("result", {}), job_dir / "artifacts",
                                job.get("artifacts", []))
    if not 0 <= index < len(plots):
        raise LookupError(f"job {job['id']} has {len(plots)} plots; no plot {index}")
    item = plots[index]
    if fmt == "svg" and item.figure is None:
        raise LookupError(f"plot {index} of job {job['id']} ({item.title}) exists as PNG only")
    if drawn is not None:
        with _RENDER_LOCK:  # a figure held for every request: one thread draws it at a time
            data = item.data(fmt)
    else:
        data = item.data(fmt)
    from geobias.io.atomic import atomic_write

    try:
        with atomic_write(cache, mode="wb", what="the job's plot") as f:
            f.write(data)
    except GeobiasError:
        pass  # a read-only data directory: drawn on each request
    return data


# ----------------------------------------------------------------------------- pages
def home(stores: list[dict[str, Any]], jobs: list[dict[str, Any]]) -> str:
    srows = [[s["name"], s.get("lang") or "", "" if s["shape"][0] is None else f"{s['shape'][0]:,} × {s['shape'][1]}",
              "yes" if s["installed"] else "no", "registry" if s["registry"] else "saved",
              (s.get("sha256_vectors") or "")[:16]] for s in stores]
    jrows = []
    for j in jobs:
        link = f"<a href='/jobs/{esc(j['id'])}/report'>{esc(j['id'])}</a>"
        state = f"<span class='state-{esc(j['state'])}'>{esc(j['state'])}</span>"
        jrows.append([link, esc(j["command"]), state, esc(when(j["created"])),
                      esc("" if j["progress"]["elapsed_s"] is None else f"{j['progress']['elapsed_s']:.1f} s")])
    body = (
        "<h1>geobias service</h1>"
        "<p>Gender bias in the geometry of word representations. <a href='/app'>Run an analysis</a> "
        "in this browser; <a href='/compare'>compare two runs</a>. JSON API: "
        "<a href='/docs'>interactive docs</a>, <a href='/openapi.json'>OpenAPI schema</a>.</p>"
        "<h2>Stores</h2>" + simple_table(["name", "lang", "shape", "installed", "kind", "sha256 (vectors.npy)"], srows)
        + "<h2>Recent jobs</h2>"
        + (simple_table(["job", "command", "state", "submitted", "elapsed"], jrows, raw_cols=(0, 1, 2, 3, 4))
           if jrows else "<p>No jobs yet (POST /jobs).</p>")
    )
    return page("geobias service", body)


def report(job: dict[str, Any], artifacts_dir: Path) -> str:
    """The report of a job: its state; once done, the CLI's tables and the plots."""
    title = f"{job['command']} — job {job['id']}"
    meta = simple_table([], [["state", job["state"]], ["submitted", when(job["created"])],
                                   ["finished", when(job["finished"])],
                                   ["elapsed", "" if job["progress"]["elapsed_s"] is None else f"{job['progress']['elapsed_s']:.2f} s"],
                                   ["parameters", json.dumps({k: v for k, v in job["params"].items() if not isinstance(v, str) or len(v) < 200},
                                                             ensure_ascii=False)]],
                        caption="job")
    parts = [f"<h1>{esc(title)}</h1>", "<p><a href='/'>← all stores and jobs</a> · <a href='/app'>run an analysis</a></p>", meta]
    if job["state"] != "done":
        err = job.get("error") or {}
        if err:
            parts.append(f"<p class='state-failed'>{esc(err.get('type'))}: {esc(err.get('message'))}</p>")
        else:
            parts.append("<p>The result appears here when the job is done (reload the page).</p>")
        return page(title, "".join(parts))
    env = job["result"] or {}
    parts += [result_view(job, artifacts_dir)]
    if job.get("artifacts"):
        links = "".join(f"<li><a href='/jobs/{esc(job['id'])}/artifacts/{esc(a)}'>{esc(a)}</a></li>" for a in job["artifacts"])
        parts += ["<h2>Artefacts</h2>", f"<ul>{links}</ul>"]
    parts.append(f"<p class='note'>geobias {esc(env.get('geobias_version'))}; the JSON envelope is at "
                 f"<a href='/jobs/{esc(job['id'])}'>/jobs/{esc(job['id'])}</a>; "
                 f"<a href='/compare?a={esc(job['id'])}'>compare with another run</a>.</p>")
    return page(title, "".join(parts))


def login(message: str = "") -> str:
    """The token login form: posts the token once; the answer sets an ``HttpOnly; SameSite=Strict``
    cookie that lets this browser read the pages."""
    note = f'<p style="color:#a00">{esc(message)}</p>' if message else ""
    return page("geobias: sign in", f"""<h1>geobias</h1>{note}
<p>This server asks for its token. It is read once, here; the browser then keeps a cookie for the pages.</p>
<form method="post" action="/login"><label>Token <input type="password" name="token" autofocus></label>
<button type="submit">Sign in</button></form>""")
