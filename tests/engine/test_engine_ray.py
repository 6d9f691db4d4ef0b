"""The Ray engine gives the local engine's numbers, in the same order, and survives faults.

One local Ray cluster (2 CPUs, no dashboard) serves the whole module; inputs are small. The Ray
engine runs the local engine's forward pass on the same batches (one dataset block per local
batch), so the numbers should be bit-identical; the tolerance allows a few float32 ulps of the
logits (another batch composition changes the padding width and float32 summation order, ~3e-8
in log-probability): 1e-7 absolute on log-probabilities, 1e-6 absolute on pooled float32 vectors.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
ray = pytest.importorskip("ray")
pytest.importorskip("ray.data")

from _engine_grid import write_grid  # noqa: E402
from _tiny_models import make_random_bert, vocabulary_for  # noqa: E402

from geobias.contextual.becpro import generate_becpro  # noqa: E402
from geobias.contextual.kurita import kurita_association  # noqa: E402
from geobias.contextual.pooling import pool_vectors  # noqa: E402
from geobias.engine import LocalEngine  # noqa: E402
from geobias.engine.ray_engine import RayEngine, RemoteModel  # noqa: E402
from geobias.errors import ModelError  # noqa: E402
from geobias.evaluation.audit import read_config, run_audit  # noqa: E402

ROWS = generate_becpro("en")[::54]  # 100 BEC-Pro sentences
WORDS = ["nurse", "engineer", "teacher", "plumber", "secretary", "carpenter"]
ATOL_LOGP = 1e-7
ATOL_VEC = 1e-6


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if ray.is_initialized():  # pragma: no cover - another module left one running
        ray.shutdown()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             _temp_dir=str(tmp_path_factory.mktemp("ray")))
    try:
        yield
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    texts = [r.sentence for r in generate_becpro("en")] + WORDS
    return make_random_bert(tmp_path_factory.mktemp("ray-mlm"), vocabulary_for(texts), hidden_size=16, seed=5)


@pytest.fixture(scope="module")
def local_association(model_dir):
    with LocalEngine(threads=1) as eng:
        return kurita_association(eng.load_masked_lm(str(model_dir), "cpu"), [r.probe for r in ROWS], batch_size=32)


def _ray_association(model_dir, **kwargs):
    with RayEngine(threads=1, **kwargs) as eng:
        lm = eng.load_masked_lm(str(model_dir), "cpu")
        assert isinstance(lm, RemoteModel)
        return kurita_association(lm, [r.probe for r in ROWS], batch_size=32)


def test_becpro_association_same_numbers_same_order(cluster, model_dir, local_association):
    res = _ray_association(model_dir, actors=2)
    loc = local_association
    assert res.sentences == loc.sentences
    np.testing.assert_allclose(res.log_p_target, loc.log_p_target, rtol=0, atol=ATOL_LOGP)
    np.testing.assert_allclose(res.log_p_prior, loc.log_p_prior, rtol=0, atol=ATOL_LOGP)
    np.testing.assert_allclose(res.association, loc.association, rtol=0, atol=ATOL_LOGP)
    assert (res.n_distinct_target_masked, res.n_distinct_prior_masked) == (
        loc.n_distinct_target_masked, loc.n_distinct_prior_masked)
    assert np.ptp(loc.association) > 1e-4 and np.ptp(loc.log_p_target) > 0.1  # real signal vs 1e-7
    assert ray.is_initialized()  # the engine used the running cluster and left it running


def test_batch_raising_once_and_actor_killed_mid_run_give_the_same_numbers(cluster, model_dir, local_association,
                                                                           tmp_path):
    # the first batch raises (retried in the actor: DataContext.retried_map_errors); its retry
    # kills the actor process (Ray Data restarts the actor and resubmits the batch)
    raise_once, exit_once = tmp_path / "raise-once", tmp_path / "exit-once"
    raise_once.touch()
    exit_once.touch()
    res = _ray_association(model_dir, actors=2, _fault=[("raise", str(raise_once)), ("exit", str(exit_once))])
    assert not raise_once.exists() and not exit_once.exists()  # both faults fired
    np.testing.assert_allclose(res.association, local_association.association, rtol=0, atol=ATOL_LOGP)
    assert res.sentences == local_association.sentences


def test_pooling_same_vectors(cluster, model_dir):
    with LocalEngine(threads=1) as eng:
        loc = pool_vectors(eng.load_encoder(str(model_dir), "cpu"), WORDS, batch_size=8)
    with RayEngine(threads=1, actors=2) as eng:
        res = pool_vectors(eng.load_encoder(str(model_dir), "cpu"), WORDS, batch_size=8)
    assert res.words == loc.words == WORDS
    np.testing.assert_allclose(res.vectors, loc.vectors, rtol=0, atol=ATOL_VEC)
    assert res.provenance == loc.provenance


def test_audit_grid_same_report(cluster, tmp_path):
    config = read_config(write_grid(tmp_path, permutations=200))
    with LocalEngine(threads=1) as eng:
        loc = run_audit(config, eng)
    with RayEngine(threads=1) as eng:
        res = run_audit(config, eng)
    assert res.cells == loc.cells  # same order, same envelopes, same one-line errors
    assert (res.n_ok, res.n_failed) == (4, 5) and res.engine["engine"] == "ray"


def test_model_that_cannot_load_in_the_actors_is_one_line(cluster, tmp_path):
    enc = make_random_bert(tmp_path / "enc", vocabulary_for([r.sentence for r in ROWS[:2]]), hidden_size=16,
                           mlm_head=False)
    with RayEngine(threads=1, actors=1) as eng, pytest.raises(ModelError, match="has no masked-LM head") as exc:
        kurita_association(eng.load_masked_lm(str(enc), "cpu"), [r.probe for r in ROWS[:2]])
    assert "\n" not in str(exc.value)


def test_cli_probe_association_ray_equals_local(cluster, model_dir, tmp_path, capsys):
    from _envelope import envelope_of

    from geobias.cli import main

    tsv = tmp_path / "s.tsv"
    tsv.write_text("sentence\ttarget\tattribute\n" + "".join(
        f"{r.sentence}\t{r.person}\t{r.profession}\n" for r in ROWS[:20]), encoding="utf-8")
    outs = []
    for extra in ([], ["--engine", "ray", "--actors", "1", "--threads", "1"]):
        with pytest.raises(SystemExit) as exc:
            main(["probe", "association", "--model", str(model_dir), "--sentences", str(tsv),
                  "--device", "cpu", "--json", *extra])
        assert exc.value.code == 0
        outs.append(envelope_of(capsys.readouterr().out))
    loc, rem = outs
    assert loc["inputs"]["engine"]["engine"] == "local" and rem["inputs"]["engine"]["engine"] == "ray"
    assert rem["inputs"]["engine"]["actors"] == 1
    np.testing.assert_allclose(rem["result"]["association"], loc["result"]["association"], rtol=0, atol=ATOL_LOGP)
    assert json.dumps(rem["result"]["sentences"]) == json.dumps(loc["result"]["sentences"])

