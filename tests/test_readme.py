"""The README's Python example runs and prints a sensible accuracy."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.mark.slow
def test_readme_example_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "README has no python example"
    exec(compile(blocks[0], str(README), "exec"), {})
    lines = capsys.readouterr().out.strip().splitlines()
    assert [line.split(":")[0] for line in lines] == ["CascadeForestClassifier", "DisDFClassifier"]
    for line in lines:
        assert float(line.rsplit(" ", 1)[1]) > 0.9
