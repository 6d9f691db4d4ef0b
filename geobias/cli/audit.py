"""`geobias audit`: stores x tests x languages from a TOML config, one JSON report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._engine import EngineOpt, RayAddress, Threads, open_engine, record_engine
from geobias.cli._options import Json, emit, stderr


def _render(console, res) -> None:
    from rich.table import Table

    t = Table(title=f"audit {res.config}: {res.n_ok} ok, {res.n_failed} failed ({res.engine['engine']} engine)")
    for c in ("store", "test", "lang", "statistic", "effect size", "p", "n"):
        t.add_column(c, justify="left" if c in ("store", "test") else "right")
    failed = []
    for c in res.cells:
        if c["status"] == "ok":
            s = c["summary"]
            es = s.get("effect_size")
            t.add_row(c["store"], c["test"], c["lang"], f"{s['statistic']:+.4g}",
                      "-" if es is None else f"{es:+.3f}", f"{s['p_value']:.3g}", str(s["n"]))
        else:
            t.add_row(c["store"], c["test"], c["lang"], "failed", "", "", "")
            failed.append(c)
    console.print(t)
    for c in failed:
        console.print(f"failed {c['store']} x {c['test']} x {c['lang']}: {c['error']}", markup=False)
    for s in res.skipped:
        console.print(f"skipped {s['store']} x {s['lang']}: {s['reason']}")


@app.command("audit")
def audit(
    config: Annotated[Path, typer.Option("--config", "-c", help="Audit config (TOML): stores, languages, tests, [options]; see README.")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write the JSON report (the --json envelope) to this file.")] = None,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace an existing report.")] = False,
    engine: EngineOpt = "local",
    ray_address: RayAddress = "local",
    threads: Threads = None,
    as_json: Json = False,
) -> None:
    """Run every store x test x language cell (a Ray task each with --engine ray); a failing cell
    reports its error and the grid goes on.

    Example: geobias audit --config audit.toml --out report.json
    """
    import json

    from geobias.cli._options import command_envelope
    from geobias.evaluation.audit import read_config, run_audit
    from geobias.io.atomic import atomic_write, check_output_path

    cfg = read_config(config)
    if out is not None:
        check_output_path(out, what="report", overwrite=overwrite)  # fail before the grid runs
    with open_engine(engine, ray_address, threads) as eng:
        record_engine(eng)
        res = run_audit(cfg, eng, progress=stderr.is_terminal)
    if out is not None:
        # written only once every cell has finished: never a partial report
        with atomic_write(out, mode="w", what="report", overwrite=overwrite) as fh:
            fh.write(json.dumps(command_envelope(res), indent=2, ensure_ascii=False) + "\n")
    emit(res, as_json, _render)
    if out is not None and not as_json:
        stderr.print(f"report written to {out}")
