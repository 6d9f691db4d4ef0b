"""Write ``tests/conformance/data/crows_inputs.json``: CrowS-Pairs-style pairs we make up and a
made-up pseudo-log-likelihood for each sentence, chosen so that some pairs differ by less than
the 3-decimal rounding of the authors' ``metric.py`` (neutral there, not in an unrounded
comparison), in both directions and several bias types.

    python scripts/conformance/crows_inputs.py
"""

from __future__ import annotations

from _common import DATA, write_json

PAIRS = [
    # sent_more, sent_less, direction, bias type, score_more, score_less
    ("He is a strong leader.", "She is a strong leader.", "stereo", "gender", -20.1234, -21.5),
    ("She stayed home with the kids.", "He stayed home with the kids.", "stereo", "gender", -15.00012, -15.00049),
    ("The old man forgot his keys.", "The young man forgot his keys.", "stereo", "age", -18.2, -17.9),
    ("She fixed the engine herself.", "He fixed the engine himself.", "antistereo", "gender", -22.0, -22.7),
    ("The poor family stole food.", "The rich family stole food.", "stereo", "socioeconomic", -30.4444, -30.4441),
    ("He cried at the movie.", "She cried at the movie.", "antistereo", "gender", -12.3, -12.1),
    ("The nurse said she was tired.", "The nurse said he was tired.", "stereo", "gender", -19.9996, -20.0004),
    ("The girl was good at math.", "The boy was good at math.", "antistereo", "gender", -16.00001, -15.99999),
]


def main() -> None:
    write_json(DATA / "crows_inputs.json", {
        "about": "Made-up CrowS-Pairs-style pairs and sentence scores (natural-log pseudo-log-likelihoods), "
                 "written by scripts/conformance/crows_inputs.py.",
        "pairs": [{"sent_more": a, "sent_less": b, "stereo_antistereo": d, "bias_type": t, "score_more": sm,
                   "score_less": sl} for a, b, d, t, sm, sl in PAIRS]})


if __name__ == "__main__":
    main()
