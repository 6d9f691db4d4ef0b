"""The README starts with exactly two set-up commands, and right under them says how to put
``geobias`` on the PATH; that instruction works in a new shell (issue 45)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _head() -> tuple[list[str], str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    m = re.search(r"```bash\n(.*?)```\n\n(.*?)\n\n", text, re.S)
    commands = [line.split("#")[0].strip() for line in m.group(1).splitlines() if line.split("#")[0].strip()]
    return commands, m.group(2)


def test_the_readme_starts_with_two_commands_then_the_path():
    commands, after = _head()
    assert commands == ["make demo", "make test"]
    assert "source .venv/bin/activate" in after and "make shell" in after
    assert re.search(r"^shell:", (REPO / "Makefile").read_text(encoding="utf-8"), re.M)


def test_the_instruction_puts_geobias_on_the_path_of_a_new_shell():
    if not (REPO / ".venv" / "bin" / "activate").is_file() or shutil.which("bash") is None:
        pytest.skip("no .venv here (make install creates it)")
    env = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp")}  # a new shell: no venv on the PATH
    bare = subprocess.run(["bash", "-c", "command -v geobias"], cwd=REPO, env=env, capture_output=True, text=True)
    assert bare.returncode != 0  # without the instruction: "command not found"
    done = subprocess.run(["bash", "-c", "source .venv/bin/activate && geobias --version"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()
