"""The tutorial's Python runs as written."""

from __future__ import annotations

import re
import subprocess
import sys

from .conftest import ROOT


def test_the_tutorial_python_runs(tmp_path):
    text = (ROOT / "docs" / "tutorial.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) == 1
    script = tmp_path / "tutorial.py"
    script.write_text(blocks[0])
    p = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "tutorial_goodput.png").stat().st_size > 1000
    assert "westwood+" in p.stdout
