"""The interactive web app of ``geobias serve``: a form for every analysis, generated from its
command's parameter model; live job progress; downloads; two runs side by side.

Every form is built from the JSON schema of the command's pydantic parameter model (the same
model the CLI, the HTTP routes and Python validate with), so a new command appears in the app
without page code. A form is submitted by the app's script (``/static/app.js``, vendored, no
build step, nothing from a CDN) as ``POST /app/run {kind, params}``: a command with a quick
route runs on the quick path and comes back done (recorded as a finished job), anything else (a
long command, or a quick one above the quick budget) becomes a job. The server validates it with
that model and answers a one-line error for a bad field, which the page shows beside the form in
the form's words (the field's label, not its API name). For a job the page polls
``GET /jobs/{id}``; once the run is done it inserts the report's tables and plots
(:func:`geobias.service.pages.result_view`) with links to download the JSON envelope, a CSV of
each table and a PNG or SVG of each plot.

Everything a user typed reaches a page only through :func:`geobias.service.pages.esc`.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from typing import Any

from geobias.commands import Command, commands
from geobias.commands._kinds import spec_of
from geobias.service.pages import esc, page, simple_table, when

#: Widgets shown as text areas: the optional ones fold into a "your own word lists" section.
TEXTAREAS = frozenset({"list", "rows", "inline", "json"})


def label(model, name: str) -> str:
    """A form label for ``model``'s field ``name``: its kind's label, else its title, else its name
    spaced and capitalised."""
    info = model.model_fields.get(name)
    return (spec_of(model, name).label or (info.title if info is not None else None)
            or name.replace("_", " ").capitalize())


def hidden(cmd: Command, name: str) -> bool:
    """Whether the app leaves ``cmd``'s field ``name`` out: an output (the service places it), a
    field the service decides (an engine setting, a local-only option, ``force``: the service's caps
    are its budget; see :attr:`geobias.commands._kinds.Spec.hidden`)."""
    return name in cmd.output_fields or spec_of(cmd.params, name).hidden

#: The headers of the app's pages: its own script and requests only, nothing from elsewhere.
APP_HEADERS = {"Content-Security-Policy": "default-src 'none'; img-src data: 'self'; style-src 'unsafe-inline'; "
                                          "script-src 'self'; connect-src 'self'; form-action 'self'",
               "X-Content-Type-Options": "nosniff"}

APP_CSS = """
nav a{margin-right:1rem}.field{margin:.6rem 0}.field label{display:block;font-weight:600;font-size:.9rem}
.field small{display:block;color:#666;font-size:.8rem;max-width:50rem}
.field input[type=text],.field input[type=number],.field select{min-width:16rem;padding:.2rem}
.field textarea{width:100%;max-width:50rem;height:5rem;font-family:monospace}
#error{color:#a4161a;font-weight:600}progress{width:24rem}.downloads a{margin-right:.8rem}
.side{display:grid;grid-template-columns:1fr 1fr;gap:1.5rem}.side>div{min-width:0;overflow:auto}
ul.commands li{margin:.3rem 0}details{margin:.8rem 0}summary{cursor:pointer;font-weight:600}
"""


@dataclass(frozen=True)
class FormField:
    """One parameter as a form control.

    ``widget`` is how the page shows it and how the script serialises it: ``store`` and ``lang``
    (selects of the served stores and languages), ``choice`` (a select of the schema's enum),
    ``bool`` (a checkbox), ``int`` / ``float`` (a number box), ``list`` (a textarea: one word per
    line or comma-separated → a list of strings), ``rows`` (a textarea: one row per line, columns
    separated by tabs or commas → a list of lists), ``inline`` (a textarea sent as
    ``{"text": ...}``: the service's form of a file), ``text``, ``json``, and ``weat-test`` (a select of
    the built-in WEAT tests, each marked with the languages that have it).

    ``shown`` is what the run uses when the field is left empty, where the model's default is
    ``None`` and means a value (the bootstrap's default count): the box shows it without sending it.
    """

    name: str
    title: str
    widget: str
    required: bool
    default: Any = None
    description: str = ""
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    shown: str | None = None


def app_commands() -> list[Command]:
    """The commands the app offers: every job kind (the app runs each analysis as a job)."""
    return [c for c in commands() if c.job]


def form_fields(cmd: Command) -> list[FormField]:
    """The form of ``cmd``: one :class:`FormField` per parameter the service lets a client set,
    in the model's order, read from the model's JSON schema (validation mode)."""
    schema = cmd.params.model_json_schema(mode="validation")
    required = set(schema.get("required", ()))
    out = [_field(cmd.params, name, prop, name in required)
           for name, prop in schema.get("properties", {}).items() if not hidden(cmd, name)]
    last = 1 + max((s.order for s in map(functools.partial(spec_of, cmd.params), cmd.params.model_fields)
                    if s.order is not None), default=0)

    def rank(f: FormField) -> int:  # what to run on comes before how: the kinds' order, then the model's
        order = spec_of(cmd.params, f.name).order
        return last if order is None else order
    return sorted(out, key=rank)  # stable: the model's order within a rank


def _field(model, name: str, prop: dict[str, Any], required: bool) -> FormField:
    options = prop.get("anyOf") or [prop]
    real = [o for o in options if o.get("type") != "null"] or [{"type": "string"}]
    first = real[0]
    description = prop.get("description") or first.get("description") or ""
    common = dict(name=name, title=label(model, name), required=required, default=prop.get("default"),
                  description=description, minimum=_bound(prop, first, "minimum", "ge"),
                  maximum=_bound(prop, first, "maximum", "le"), shown=_shown(model, name, prop.get("default")))
    widget = spec_of(model, name).widget
    if widget is not None:  # the served stores or languages
        return FormField(widget=widget, **common)
    if "enum" in first:
        return FormField(widget="choice", choices=tuple(str(x) for x in first["enum"]), **common)
    if any("$ref" in o and o["$ref"].endswith("/Inline") for o in real):
        return FormField(widget="inline", **common)
    kind = first.get("type")
    if kind == "boolean":
        return FormField(widget="bool", **common)
    if kind == "integer":
        return FormField(widget="int", **common)
    if kind == "number":
        return FormField(widget="float", **common)
    if kind == "array":
        items = first.get("items", {})
        return FormField(widget="rows" if items.get("type") == "array" else "list", **common)
    if kind == "string":
        return FormField(widget="text", **common)
    return FormField(widget="json", **common)


def _shown(model, name: str, default: Any) -> str | None:
    """What a field left empty means, where its default is ``None``: the bootstrap's count (the
    model's ``DEFAULT_BOOTSTRAP``, as :meth:`~geobias.commands._bootstrap.BootstrapParams.resamples`
    uses it), else the "default: …" its description states."""
    import re

    from geobias.commands._bootstrap import BootstrapParams

    if default is not None:
        return None
    if issubclass(model, BootstrapParams) and name in BootstrapParams.model_fields and spec_of(model, name).cap:
        return f"{model.DEFAULT_BOOTSTRAP:,}"  # the capped count of the bootstrap's fields: its resamples
    info = model.model_fields.get(name)
    found = re.search(r"\(default:? ([^;)]+)\)", (info.description or "") if info is not None else "")
    return found.group(1).replace("`", "").strip() if found else None


def builtin_tests() -> dict[str, list[str]]:
    """Each built-in WEAT test and the languages that have it (in :data:`~geobias.languages.LANGUAGES`' order)."""
    from geobias import wordlists
    from geobias.languages import LANGUAGES

    tests: dict[str, list[str]] = {}
    for code in LANGUAGES:
        try:
            names = wordlists.weat_tests(code)
        except Exception:  # noqa: BLE001 - a language without word lists offers no test
            continue
        for name in names:
            tests.setdefault(name, []).append(code)
    return dict(sorted(tests.items()))


def _bound(prop: dict, first: dict, key: str, alias: str) -> float | None:
    for d in (prop, first):
        for k in (key, alias, "exclusive" + key.capitalize()):
            if isinstance(d.get(k), (int, float)) and not isinstance(d.get(k), bool):
                return d[k]
    return None


# ----------------------------------------------------------------------------- pages
def nav() -> str:
    return ("<nav><a href='/'>Stores and jobs</a><a href='/app'>Run an analysis</a>"
            "<a href='/compare'>Compare two runs</a><a href='/docs'>API</a></nav>")


def app_page(title: str, body: str) -> str:
    return page(title, f"<style>{APP_CSS}</style>{nav()}{body}")


def catalogue() -> str:
    """``/app``: every analysis the app can run, with its one-line summary."""
    items = "".join(f"<li><a href='/app/{esc(c.kind)}'>{esc(c.name)}</a> — {esc(c.summary)}</li>"
                    for c in app_commands())
    return app_page("geobias: run an analysis",
                    "<h1>Run an analysis</h1><p>A quick analysis answers at once; a long one runs as a job on "
                    "this server, its progress shown live. Its tables and plots appear when it is done.</p>"
                    f"<ul class='commands'>{items}</ul>")


def command_form(cmd: Command, stores: list[dict[str, Any]], langs: dict[str, str],
                 caps: dict[str, int] | None = None) -> str:
    """``/app/{kind}``: the command's form (see :func:`form_fields`) and the place its run appears.

    ``stores`` are the service's store rows (installed ones are offered), ``langs`` code → name,
    ``caps`` this service's limits by field name (a number box's maximum and its default when
    the model's default is above it)."""
    caps = caps or {}
    installed = [s for s in stores if s.get("installed")]
    fields = form_fields(cmd)
    main = [_control(f, installed, langs, caps) for f in fields if f.required or f.widget not in TEXTAREAS]
    lists = [_control(f, installed, langs, caps) for f in fields if not f.required and f.widget in TEXTAREAS]
    more = (f"<details><summary>Your own word lists and texts ({len(lists)} optional fields; empty: the "
            f"built-in ones)</summary>{''.join(lists)}</details>") if lists else ""
    doc = (cmd.params.__doc__ or "").strip().split("\n\n")[0]
    body = (f"<h1>{esc(cmd.name)}</h1><p>{esc(cmd.summary)}</p><p class='note'>{esc(doc)}</p>"
            f"<form id='run' data-kind='{esc(cmd.kind)}' autocomplete='off'>{''.join(main)}{more}"
            "<p><button type='submit' id='submit'>Run</button></p></form>"
            "<p id='error' role='alert'></p>"
            "<section id='job' hidden><h2>Run</h2><p><progress id='bar' max='1'></progress> "
            "<span id='state'></span> <span id='message'></span></p>"
            "<p id='links'></p></section><section id='result'></section>"
            "<script src='/static/app.js'></script>")
    return app_page(f"geobias: {cmd.name}", body)


def _control(f: FormField, stores: list[dict[str, Any]], langs: dict[str, str], caps: dict[str, int]) -> str:
    ident = f"f-{f.name}"
    # data-label: the script says the form's words, not the API's field names, in an error
    attrs = f"id='{esc(ident)}' name='{esc(f.name)}' data-widget='{esc(f.widget)}' data-label='{esc(f.title)}'"
    if f.required:
        attrs += " data-required='1'"
    default = f.default
    if f.shown is not None:
        attrs += f" placeholder='{esc(f.shown)}'"
    if f.widget == "store":
        names = [s["name"] for s in stores]
        opts = ("" if f.required else "<option value=''>(the language's default)</option>") + "".join(
            f"<option value='{esc(n)}'{_sel(n, default)}>{esc(store_label(s))}</option>"
            for n, s in zip(names, stores, strict=True))
        control = f"<select {attrs}>{opts}</select>"
    elif f.widget == "weat-test":
        tests = builtin_tests()
        opts = ("" if f.required else "<option value=''>(the language's default)</option>") + "".join(
            f"<option value='{esc(t)}' data-langs='{esc(' '.join(langs_of))}'{_sel(t, default)}>{esc(t)}</option>"
            for t, langs_of in tests.items())
        control = f"<select {attrs}>{opts}</select>"
    elif f.widget == "lang":
        opts = ("" if f.required else "<option value=''>(from the store)</option>") + "".join(
            f"<option value='{esc(c)}'{_sel(c, default)}>{esc(c)} — {esc(n)}</option>" for c, n in langs.items())
        control = f"<select {attrs}>{opts}</select>"
    elif f.widget == "choice":
        opts = ("" if f.required or default is not None else "<option value=''>(default)</option>") + "".join(
            f"<option value='{esc(c)}'{_sel(c, default)}>{esc(c)}</option>" for c in f.choices)
        control = f"<select {attrs}>{opts}</select>"
    elif f.widget == "bool":
        control = f"<input type='checkbox' {attrs}{' checked' if default else ''}>"
    elif f.widget in ("int", "float"):
        cap = caps.get(f.name)
        hi = f.maximum if cap is None else (cap if f.maximum is None else min(cap, f.maximum))
        value = default
        if isinstance(value, (int, float)) and hi is not None and value > hi:
            value = hi
        bounds = "".join(f" {k}='{esc(v)}'" for k, v in (("min", f.minimum), ("max", hi)) if v is not None)
        step = "1" if f.widget == "int" else "any"
        control = (f"<input type='number' step='{step}'{bounds} {attrs}"
                   f"{'' if value is None else f' value={chr(39)}{esc(value)}{chr(39)}'}>")
    elif f.widget in ("list", "rows", "inline", "json"):
        hint = {"list": "one word per line, or comma-separated",
                "rows": "one row per line, columns separated by a tab or a comma",
                "inline": "the file's text (paste it)", "json": "JSON"}[f.widget]
        control = f"<textarea {attrs} placeholder='{esc(hint)}'></textarea>"
    else:
        control = (f"<input type='text' {attrs}"
                   f"{'' if default is None else f' value={chr(39)}{esc(default)}{chr(39)}'}>")
    req = " (required)" if f.required else ""
    return (f"<div class='field'><label for='{esc(ident)}'>{esc(f.title)}{req}</label>{control}"
            f"<small>{esc(f.description)}</small></div>")


def store_label(store: dict[str, Any]) -> str:
    """A store's name in a form, with its language where it has one.

    >>> store_label({"name": "fr-spacy-md", "lang": "fr"}), store_label({"name": "minilm-pooled", "lang": None})
    ('fr-spacy-md (fr)', 'minilm-pooled')
    """
    return f"{store['name']} ({store['lang']})" if store.get("lang") else store["name"]


def _sel(value: Any, default: Any) -> str:
    return " selected" if default is not None and str(value) == str(default) else ""


def compare(jobs: list[dict[str, Any]], a: dict[str, Any] | None, b: dict[str, Any] | None,
            views: tuple[str, str] | None) -> str:
    """``/compare``: pick two runs; their parameters and views side by side."""
    done = [j for j in jobs if j["state"] == "done"]

    def select(name: str, chosen: dict | None) -> str:
        opts = "".join(f"<option value='{esc(j['id'])}'{' selected' if chosen and chosen['id'] == j['id'] else ''}>"
                       f"{esc(j['command'])} · {esc(j['id'])} · {esc(when(j['created']))}</option>" for j in done)
        return f"<label>{name.upper()} <select name='{name}'>{opts}</select></label> "

    form = (f"<form method='get' action='/compare'>{select('a', a)}{select('b', b)}"
            "<button type='submit'>Compare</button></form>")
    body = "<h1>Compare two runs</h1>" + (form if done else "<p>No finished runs yet.</p>")
    if a is not None and b is not None and views is not None:
        keys = sorted(k for k in set(a["params"]) | set(b["params"])
                      if _set_by_user(a, k) or _set_by_user(b, k))
        shown = [[k, _param(a["params"].get(k)), _param(b["params"].get(k)),
                  "" if a["params"].get(k) == b["params"].get(k) else "differs"] for k in keys]
        body += simple_table(["parameter", "A", "B", ""], shown, caption="parameters")
        figures = compare_figures(a, b)
        if figures:
            body += simple_table(["figure", "A", "B", "B − A"], figures, caption="the results side by side")
        cols = []
        for label, job, view in zip("AB", (a, b), views, strict=True):
            cols.append(f"<div><h2>{label}: <a href='/jobs/{esc(job['id'])}/report'>{esc(job['command'])} · "
                        f"{esc(job['id'])}</a></h2>{view}</div>")
        body += f"<div class='side'>{''.join(cols)}</div>"
    return app_page("geobias: compare runs", body)


def compare_figures(a: dict[str, Any], b: dict[str, Any]) -> list[list[str]]:
    """Rows ``[figure, A, B, B − A]`` of two runs' figures, one per column of their data (the rows
    the CSV download holds, :func:`geobias.results.tidy_rows`) where each run has one estimate;
    a difference for the numbers (4 significant digits shown; the downloads keep every digit).
    Empty for runs of several estimates each (their tables stand side by side below)."""
    from geobias.results import tidy_rows

    try:
        rows = [tidy_rows(j.get("result") or {}) for j in (a, b)]
    except Exception:  # noqa: BLE001 - a record this version cannot read as data: the views still show it
        return []
    if any(len(r) != 1 for r in rows):
        return []
    ra, rb = rows[0][0], rows[1][0]
    skip = {"command", "geobias_version"}
    out = []
    for key in [k for k in ra if k not in skip] + [k for k in rb if k not in ra and k not in skip]:
        va, vb = ra.get(key), rb.get(key)
        if va is None and vb is None:
            continue
        numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (va, vb))
        diff = f"{vb - va:+.4g}" if numbers else ("" if va == vb else "differs")
        out.append([key, _figure(va), _figure(vb), diff])
    return out


def _figure(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return "" if value is None else str(value)


def _set_by_user(job: dict[str, Any], key: str) -> bool:
    """Whether ``key`` of a run's parameters is one a user sets and was not left at its default
    (outputs, engine settings and local-only options never are)."""
    from geobias.commands import get

    try:
        cmd = get(job["kind"])
    except Exception:  # noqa: BLE001 - a record of a command this server no longer has
        return job["params"].get(key) is not None
    if hidden(cmd, key):
        return False
    info = cmd.params.model_fields.get(key)
    if info is None:
        return False
    default = None if info.is_required() else info.get_default(call_default_factory=True)
    value = job["params"].get(key)
    return value is not None and value != default and not (isinstance(default, (list, tuple)) and list(default) == value)


def _param(value: Any) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 200 else text[:200] + " …"


__all__ = ["APP_HEADERS", "FormField", "app_commands", "builtin_tests", "catalogue", "command_form", "compare",
           "compare_figures", "form_fields", "store_label"]
