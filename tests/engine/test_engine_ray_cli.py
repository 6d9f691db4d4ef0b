"""`geobias audit --engine ray --json` in its own process, with a cell whose worker dies every time
it runs it: stdout is the JSON envelope alone (Ray's own lines go to stderr or nowhere), the failed
cell is reported and the others are not; the head geobias starts listens on 127.0.0.1 only, and the
envelope names the engine and the cluster."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("ray")

from _engine_grid import write_grid  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

# The driver: the CLI, with RayEngine.map_cells wrapped so that store1's cells kill their worker
# (os._exit: no exception, no traceback, as a SIGKILL or an out-of-memory kill). The wrapper is
# defined in __main__, so Ray ships it to the workers by value. It also records the addresses the
# head's processes (the driver's children) listen on, once the grid has run.
DRIVER = textwrap.dedent("""
    import os, sys
    from geobias.engine.ray_engine import RayEngine

    _map = RayEngine.map_cells

    def listening():
        import psutil

        out = set()
        for proc in psutil.Process().children(recursive=True):
            try:
                conns = proc.net_connections(kind="inet")
            except (psutil.Error, OSError):
                continue
            out |= {c.laddr.ip for c in conns if c.status == psutil.CONN_LISTEN}
        return out

    def map_cells(self, fn, cells):
        def dying(cell):
            if os.path.basename(cell["store"]) == "store1":
                os._exit(1)
            return fn(cell)
        result = _map(self, dying, cells)
        with open(os.environ["LISTEN_FILE"], "w") as fh:
            fh.write("\\n".join(sorted(listening())))
        return result

    RayEngine.map_cells = map_cells
    from geobias.cli import main
    main(sys.argv[1:])
""")

def test_audit_on_ray_with_a_killed_worker_prints_only_the_envelope(tmp_path):
    config = write_grid(tmp_path, permutations=200)
    listen_file = tmp_path / "listen.txt"
    ray_tmp = tempfile.mkdtemp(prefix="gb-ray-", dir="/tmp")  # Ray's socket paths must stay under 107 bytes
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{ROOT / 'tests'}", GEOBIAS_RAY_TMPDIR=ray_tmp,
               LISTEN_FILE=str(listen_file), OMP_NUM_THREADS="1")
    env.pop("RAY_ADDRESS", None)
    try:
        r = subprocess.run([sys.executable, "-c", DRIVER, "audit", "--config", str(config), "--engine", "ray",
                            "--threads", "1", "--json"], capture_output=True, text=True, timeout=600, env=env,
                           cwd=tmp_path)
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)
    assert r.returncode == 0, r.stderr[-3000:]
    envelope = json.loads(r.stdout)  # nothing but the envelope on stdout
    result = envelope["result"]
    assert result["engine"]["engine"] == "ray" and result["engine"]["cluster"] == "local"
    cells = {(Path(c["store"]).name, c["test"]): c for c in result["cells"]}
    for test in ("mweat", "weat:career-family"):
        dead = cells[("store1", test)]
        assert dead["status"] == "error" and "worker running this cell died" in dead["error"], dead
        assert "\n" not in dead["error"]
        assert cells[("store0", test)]["status"] == "ok"
    assert result["n_failed"] == 7  # the two killed cells and the five that fail on any engine
    # the head's processes (GCS, raylet, workers: children of the driver) listen on loopback only
    addresses = set(listen_file.read_text().split())
    assert addresses and addresses <= {"127.0.0.1", "::ffff:127.0.0.1", "::1"}, addresses
