"""The library installs alone: a library install ships only ``disdf``; the experiment code runs from the
checkout and says which extra it needs when that is missing."""

import subprocess
import sys
from pathlib import Path

import pytest
from setuptools import find_packages

ROOT = Path(__file__).resolve().parents[2]


def test_a_library_install_ships_only_disdf():
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    shipped = find_packages(where=ROOT, include=config["include"])
    assert shipped and all(name == "disdf" or name.startswith("disdf.") for name in shipped), shipped
    assert "experiments" not in shipped  # it would shadow a user's own `experiments`


def test_the_experiment_code_without_its_extra_names_the_extra():
    """Simulated: hydra made unfindable in a child process, as in a library-only environment."""
    code = (
        "import importlib.util, sys; real = importlib.util.find_spec;"
        "importlib.util.find_spec = lambda n, *a: None if n == 'hydra' else real(n, *a);"
        "import experiments.run"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.strip() == (
        "The experiment code needs the package's 'experiments' extra (hydra missing): "
        "pip install -e '.[experiments]' in the checkout, or `make install`"
    )
