"""The README's Python example runs and prints a sensible accuracy."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.mark.slow
def test_readme_example_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "README has no python example"
    exec(compile(blocks[0], str(README), "exec"), {})
    lines = capsys.readouterr().out.strip().splitlines()
    assert [line.split(":")[0] for line in lines] == ["CascadeForestClassifier", "DisDFClassifier"]
    for line in lines:
        assert float(line.rsplit(" ", 1)[1]) > 0.9


@pytest.mark.slow
def test_readme_metric_example_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    exec(compile(blocks[1], str(README), "exec"), {})
    knn, distance = capsys.readouterr().out.strip().splitlines()
    assert float(knn.rsplit(" ", 1)[1]) > 0.9
    left, right = distance.split(": ")[1].split(" = ")
    assert float(left) == float(right) > 0


def readme_run_commands() -> list[list[str]]:
    """The overrides of every `python -m experiments.run` command in the README's shell blocks."""
    import shlex

    commands = []
    for block in re.findall(r"```bash\n(.*?)```", README.read_text(), flags=re.S):
        for command in block.replace("\\\n", " ").splitlines():
            command = command.split("#", 1)[0]
            if "experiments.run" not in command:
                continue
            words = shlex.split(command)
            commands.append(words[words.index("experiments.run") + 1 :])
    return commands


COMMANDS = readme_run_commands()


@pytest.mark.parametrize("words", COMMANDS, ids=[" ".join(words) for words in COMMANDS])
def test_every_readme_run_command_composes_and_passes_the_checks(words):
    """What a user copies from the README is a valid command (sweeps: their first value)."""
    from experiments.running.composition import compose_config
    from experiments.running.plan import plan_run

    overrides = []
    for word in words:
        if word == "-m" or word.startswith("hydra"):
            continue  # the launcher's own settings; composed by tests/test_cluster.py
        key, _, value = word.partition("=")
        if "," in value and not value.startswith("["):
            value = value.split(",")[0]
        overrides.append(f"{key}={value}")
    plan_run(compose_config(*overrides))


def test_the_readme_shows_at_least_the_commands_it_promises():
    assert len(COMMANDS) >= 6
