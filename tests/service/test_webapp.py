"""The web app of ``geobias serve`` over HTTP: forms generated from the parameter models, a run
submitted as the app's script submits it, its view, the downloads (envelope, CSV, PNG/SVG),
the comparison page, escaping, the page headers, and the token login for the app's own requests.
The same pages in a real browser: tests/service/test_webapp_browser.py."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

httpx = pytest.importorskip("httpx", reason="the serve extra is not installed (pip install 'geobias[serve]')")
pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install 'geobias[serve]')")

from _server import ServerProcess, small_french_store, wait_job  # noqa: E402

from geobias.commands import commands, get  # noqa: E402

SMALL = "small-fr"
TOKEN = "s3cret-token-for-the-app"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from geobias.store import save_store

    root = tmp_path_factory.mktemp("webapp")
    (root / "vectors").mkdir()
    save_store(small_french_store(), root / "vectors" / SMALL)
    save_store(small_french_store(), root / "vectors" / "use-m3-fr")  # for an atlas job over fr
    # a quick budget that an MWEAT on the built-in lists at 1,000,000 permutations exceeds (its cost is
    # about the partitions, plus the bootstrap's 1,000 resamples × its words): the app runs it as a job;
    # at 2,000 permutations it runs quick
    with ServerProcess(root / "vectors", root / "data", "--workers", "1", "--quick-budget", "1e6") as srv, \
            srv.client(timeout=120) as client:
        yield srv, client




@pytest.fixture(scope="module")
def mweat_job(server):
    _, client = server
    job = client.post("/jobs", json={"kind": "mweat", "params": {"lang": "fr", "vectors": SMALL, "permutations": 2000}}).json()
    job = wait_job(client, job["id"])
    assert job["state"] == "done", job.get("error")
    return job


def test_form_fields_come_from_the_parameter_model():
    from geobias.service.webapp import app_commands, form_fields

    fields = {f.name: f for f in form_fields(get("mweat"))}
    # every parameter a service client may set, and nothing else
    model = set(get("mweat").params.model_fields)
    assert set(fields) == model - {"force", "limit", "trust_pickle", "subwords"}
    assert fields["vectors"].widget == "store" and fields["lang"].widget == "lang"
    assert fields["permutation_method"].widget == "choice"
    assert fields["permutation_method"].choices == ("auto", "exact", "monte-carlo")
    assert fields["permutations"].widget == "int" and fields["permutations"].default == 100_000
    assert fields["targets"].widget == "rows" and fields["targets_x"].widget == "list"
    assert fields["seed"].widget == "int" and fields["seed"].maximum == 2**63 - 1
    # a file argument is pasted text ({"text": ...}); outputs are never a field
    evaluate = {f.name: f for f in form_fields(get("evaluate"))}
    assert evaluate["dictionary"].widget == "inline" and evaluate["dictionary"].required
    assert "plot" not in evaluate
    # every job kind is offered: a new command appears without page code
    assert {c.kind for c in app_commands()} == {c.kind for c in commands() if c.job}
    assert {"mweat", "weat", "directions", "neighbors", "evaluate", "erasure"} <= {c.kind for c in app_commands()}


def test_catalogue_and_every_form_render(server):
    _, client = server
    page = client.get("/app")
    assert page.status_code == 200
    kinds = re.findall(r"href='/app/([a-z-]+)'", page.text)
    assert set(kinds) == {c.kind for c in commands() if c.job}
    for kind in kinds:
        form = client.get(f"/app/{kind}")
        assert form.status_code == 200, kind
        assert f"data-kind='{kind}'" in form.text and "<script src='/static/app.js'></script>" in form.text
        assert "script-src 'self'" in form.headers["content-security-policy"]
    assert client.get("/app/no-such-thing").status_code == 404
    js = client.get("/static/app.js")
    assert js.status_code == 200 and js.headers["content-type"].startswith("text/javascript")
    assert "fetch(\"/app/run\"" in js.text


def test_mweat_form_offers_the_store_and_caps_permutations(server):
    _, client = server
    text = client.get("/app/mweat").text
    assert f"<option value='{SMALL}'" in text
    # the model's default (100,000) is within this service's cap (1,000,000): kept, capped by max
    assert re.search(r"max='1000000' id='f-permutations'[^>]*value='100000'", text)


def test_run_view_and_downloads(server, mweat_job):
    _, client = server
    jid = mweat_job["id"]
    stat = mweat_job["result"]["result"]["statistic"]
    view = client.get(f"/app/jobs/{jid}/view")
    assert view.status_code == 200
    assert f"{stat:.4f}" in view.text  # the table shows the job's statistic
    assert f"/jobs/{jid}/tables/0.csv" in view.text and f"/jobs/{jid}/plots/0.svg" in view.text

    env = client.get(f"/jobs/{jid}/envelope.json")
    assert env.status_code == 200 and "attachment" in env.headers["content-disposition"]
    assert json.loads(env.text) == mweat_job["result"]

    rows = list(csv.reader(io.StringIO(client.get(f"/jobs/{jid}/tables/0.csv").text)))
    assert rows[0] and any(f"{stat:.4f}" in cell for row in rows for cell in row)
    n_tables = view.text.count("/tables/")
    assert client.get(f"/jobs/{jid}/tables/{n_tables}.csv").status_code == 404

    # the result as data: the CSV loads into pandas with numbers in full
    pd = pytest.importorskip("pandas")
    assert f"/jobs/{jid}/data.csv" in view.text and f"/jobs/{jid}/data.parquet" in view.text
    frame = pd.read_csv(io.StringIO(client.get(f"/jobs/{jid}/data.csv").text))
    assert len(frame) == 1 and frame.statistic[0] == stat and frame.command[0] == "mweat"
    assert isinstance(frame.p_value[0], float) and frame.p_value[0] == mweat_job["result"]["result"]["p_value"]
    parquet = client.get(f"/jobs/{jid}/data.parquet")
    assert parquet.status_code == 200 and parquet.content[:4] == b"PAR1"
    assert pd.read_parquet(io.BytesIO(parquet.content)).statistic[0] == stat
    assert client.get(f"/jobs/{jid}/data.xlsx").status_code == 422

    # the view shows its tables first: each plot is an image the browser loads from the plot route
    # (drawn then, and kept in the job's folder), where the report page inlines it
    assert re.search(rf"<img class='plot' alt='[^']+' src='/jobs/{jid}/plots/0.png'>", view.text)
    assert "data:image/png;base64," not in view.text
    assert "data:image/png;base64," in client.get(f"/jobs/{jid}/report").text
    png = client.get(f"/jobs/{jid}/plots/0.png")
    assert png.status_code == 200 and png.content[:8] == b"\x89PNG\r\n\x1a\n"
    assert client.get(f"/jobs/{jid}/plots/0.png").content == png.content  # the kept file, the same bytes
    assert client.get(f"/jobs/{jid}/plots/1.png").status_code == 404
    svg = client.get(f"/jobs/{jid}/plots/0.svg")
    assert svg.status_code == 200 and b"<svg" in svg.content[:2000]
    bad = client.get(f"/jobs/{jid}/plots/0.gif")
    assert bad.status_code == 422 and bad.json()["error"]["message"].startswith("plot format must be png or svg")


def test_results_of_an_unfinished_job_are_a_conflict(server):
    _, client = server
    job = client.post("/jobs", json={"kind": "mweat", "params": {"lang": "fr", "vectors": SMALL,
                                                                "permutations": 1_000_000,
                                                                "permutation_method": "monte-carlo"}}).json()
    try:
        r = client.get(f"/jobs/{job['id']}/tables/0.csv")
        if client.get(f"/jobs/{job['id']}").json()["state"] != "done":
            assert r.status_code == 409 and "results exist once it is done" in r.json()["error"]["message"]
    finally:
        client.delete(f"/jobs/{job['id']}")


def test_compare_shows_two_runs_side_by_side(server, mweat_job):
    _, client = server
    other = client.post("/jobs", json={"kind": "mweat", "params": {"lang": "fr", "vectors": SMALL,
                                                                  "permutations": 500, "seed": 3}}).json()
    other = wait_job(client, other["id"])
    page = client.get("/compare", params={"a": mweat_job["id"], "b": other["id"]})
    assert page.status_code == 200
    assert page.text.count("<div><h2>") == 2
    assert "<tr><td>permutations</td><td class='num'>2000</td><td class='num'>500</td><td>differs</td></tr>" in page.text
    assert "<tr><td>lang</td><td>fr</td><td>fr</td><td></td></tr>" in page.text
    # the figures of both runs in one table, with their difference (same statistic: 0; other p-values)
    stat_a, stat_b = (j["result"]["result"]["statistic"] for j in (mweat_job, other))
    row = re.search(r"<tr><td>statistic</td><td class='num'>([^<]*)</td><td class='num'>([^<]*)</td>"
                    r"<td[^>]*>([^<]*)</td></tr>", page.text)
    assert row and float(row.group(1)) == float(f"{stat_a:.4g}") and float(row.group(2)) == float(f"{stat_b:.4g}")
    assert float(row.group(3)) == float(f"{stat_b - stat_a:+.4g}")
    assert re.search(r"<tr><td>n_permutations</td>.*?<td[^>]*>\+?-1500</td></tr>", page.text)
    assert page.text.count("<img") >= 2  # each run's plots, side by side
    assert client.get("/compare").status_code == 200
    assert client.get("/compare", params={"a": "nope"}).status_code == 404


def test_a_hostile_word_is_escaped_everywhere(server):
    _, client = server
    evil = "<script>alert(1)</script>"
    job = client.post("/jobs", json={"kind": "neighbors", "params": {"lang": "fr", "vectors": SMALL, "word": evil}}).json()
    job = wait_job(client, job["id"])
    assert job["state"] == "failed"
    for url in (f"/app/jobs/{job['id']}/view", f"/jobs/{job['id']}/report", "/"):
        text = client.get(url).text
        assert evil not in text, url
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in client.get(f"/app/jobs/{job['id']}/view").text


def test_token_login_lets_the_app_submit_same_origin_only(tmp_path):
    from geobias.store import save_store

    (tmp_path / "vectors").mkdir()
    save_store(small_french_store(), tmp_path / "vectors" / SMALL)
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN)
    with ServerProcess(tmp_path / "vectors", tmp_path / "data", "--workers", "1", "--token-file", str(token_file)) as srv, \
            srv.client(timeout=60) as c:
        assert c.get("/app").status_code == 401
        # a browser asking for a page is sent to the login form
        page = c.get("/app", headers={"Accept": "text/html,application/xhtml+xml"}, follow_redirects=False)
        assert page.status_code == 303 and page.headers["location"] == "/login"
        login = c.post("/login", data={"token": TOKEN}, follow_redirects=False)
        assert login.status_code == 303
        assert c.get("/app/mweat").status_code == 200  # the cookie opens the pages
        body = {"kind": "mweat", "params": {"lang": "fr", "vectors": SMALL, "permutations": 100}}
        # the app's own request names this server's origin: the cookie is enough
        ok = c.post("/jobs", json=body, headers={"Origin": srv.url})
        assert ok.status_code == 202
        # without an Origin (not a browser's fetch) the cookie does not authorise a change
        assert c.post("/jobs", json=body).status_code == 401
        # another origin is refused before the token is looked at
        assert c.post("/jobs", json=body, headers={"Origin": "http://evil.example"}).status_code == 403
        c.delete(f"/jobs/{ok.json()['id']}", headers={"Origin": srv.url})


def test_an_atlas_job_serves_its_report(server, mweat_job):
    _, client = server
    job = client.post("/jobs", json={"kind": "atlas", "params": {"langs": "fr", "permutations": 200,
                                                                "max_per_class": 20}}).json()
    job = wait_job(client, job["id"], timeout=300)
    assert job["state"] == "done", job.get("error")
    page = client.get(f"/jobs/{job['id']}/outputs/atlas/index.html")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "default-src 'none'" in page.headers["content-security-policy"]
    assert "French" in page.text and "<script" not in page.text
    parquet = client.get(f"/jobs/{job['id']}/outputs/atlas/atlas.parquet")
    assert parquet.status_code == 200 and parquet.content[:4] == b"PAR1"
    assert json.loads(client.get(f"/jobs/{job['id']}/outputs/atlas/atlas.json").text)
    assert f"/jobs/{job['id']}/outputs/atlas/index.html" in client.get(f"/app/jobs/{job['id']}/view").text
    assert client.get(f"/jobs/{job['id']}/outputs/atlas/secrets.txt").status_code == 404
    assert client.get(f"/jobs/{mweat_job['id']}/outputs/atlas/index.html").status_code == 404


def test_the_app_runs_a_quick_analysis_on_the_quick_path(server):
    """``POST /app/run`` of a quick command within the quick budget answers done at once, with the
    quick route's numbers, recorded as a finished run: its view, downloads and comparison are a job's."""
    _, client = server
    params = {"lang": "fr", "vectors": SMALL, "permutations": 2000, "seed": 3}
    r = client.post("/app/run", json={"kind": "mweat", "params": params})
    assert r.status_code == 200 and "compute;dur=" in r.headers["server-timing"]
    run = r.json()
    assert run["state"] == "done" and run["progress"]["fraction"] == 1.0
    assert run["result"] == client.post("/mweat", json=params).json()  # the quick route's envelope, to the bit
    assert run["params"]["permutations"] == 2000 and run["params"]["seed"] == 3
    jid = run["id"]
    assert client.get(f"/jobs/{jid}").json()["state"] == "done"
    assert jid in [j["id"] for j in client.get("/jobs").json()["jobs"]]
    stat = run["result"]["result"]["statistic"]
    assert f"{stat:.4f}" in client.get(f"/app/jobs/{jid}/view").text
    assert json.loads(client.get(f"/jobs/{jid}/envelope.json").text) == run["result"]
    assert client.get(f"/jobs/{jid}/plots/0.png").content[:8] == b"\x89PNG\r\n\x1a\n"
    pd = pytest.importorskip("pandas")
    assert pd.read_csv(io.StringIO(client.get(f"/jobs/{jid}/data.csv").text)).statistic[0] == stat


def test_the_app_runs_long_analyses_as_jobs(server):
    """Above the quick budget, or a command without a quick route: ``POST /app/run`` answers as ``POST /jobs``."""
    _, client = server
    long = client.post("/app/run", json={"kind": "mweat", "params": {"lang": "fr", "vectors": SMALL,
                                                                       "permutations": 1_000_000}})
    assert long.status_code == 202 and long.json()["state"] in ("queued", "starting", "running", "done")
    assert wait_job(client, long.json()["id"])["state"] == "done"
    job_only = [c.kind for c in commands() if c.job and not c.quick]
    assert "correlate" in job_only
    r = client.post("/app/run", json={"kind": "correlate", "params": {"lang": "fr", "vectors": SMALL}})
    assert r.status_code == 202, r.text
    assert wait_job(client, r.json()["id"])["state"] in ("done", "failed")


def test_the_app_refuses_bad_parameters_in_one_line(server):
    _, client = server
    bad = client.post("/app/run", json={"kind": "mweat", "params": {"lang": "fr", "vectors": SMALL, "seed": -3}})
    assert bad.status_code == 422 and bad.json()["error"]["message"].startswith("seed")
    assert client.post("/app/run", json={"kind": "nope", "params": {}}).status_code == 422
    assert client.post("/app/run", json={"kind": "mweat", "params": [1]}).status_code == 422


def test_forms_show_defaults_tests_as_a_select_and_plain_store_labels(server):
    _, client = server
    text = client.get("/app/weat").text
    assert re.search(r"<select id='f-test' name='test' data-widget='weat-test'", text)
    assert "<option value='career-family-terms' data-langs='en es fr de'>" in text
    assert "placeholder='1,000'" in text  # the bootstrap's default count, shown, not sent
    assert f">{SMALL} (fr)<" in text and "()" not in text
    from geobias.service.webapp import store_label

    assert store_label({"name": "minilm-pooled", "lang": None}) == "minilm-pooled"  # no empty brackets
    assert "data-label='Bootstrap resamples'" in text
