"""The library installs alone: a library install ships only ``disdf``; the experiment code runs from the
checkout and says which extra it needs when that is missing; the license and the type marker ship."""

import importlib.metadata
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
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


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    """The sdist built from the checkout as a release would be, the wheel from that sdist (what pip
    does with it), both without build isolation (no network): ``(sdist path, wheel path)``.

    Building an sdist writes disdf.egg-info (and, for a moment, a disdf-<version>/ release tree) into
    the checkout: the checkout is left as it was found. The wheel's build compiles the engine's kernels
    (setup.py): about 45 CPU-s."""
    tmp_path = tmp_path_factory.mktemp("release")
    setuptools_version = importlib.metadata.version("setuptools")
    assert int(setuptools_version.split(".")[0]) >= 77, (
        f"setuptools {setuptools_version} cannot read pyproject.toml's license expression: `make install`"
    )
    egg_info, egg_info_before = ROOT / "disdf.egg-info", tmp_path / "egg-info-before"
    if egg_info.is_dir():
        shutil.copytree(egg_info, egg_info_before)
    release_trees_before = set(ROOT.glob("disdf-*"))
    build_sdist = "import sys, setuptools.build_meta as b; print(b.build_sdist(sys.argv[1]))"
    try:
        command = [sys.executable, "-c", build_sdist, str(tmp_path / "sdist")]
        sdist = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    finally:
        shutil.rmtree(egg_info, ignore_errors=True)
        if egg_info_before.is_dir():
            shutil.copytree(egg_info_before, egg_info)
        for release_tree in set(ROOT.glob("disdf-*")) - release_trees_before:
            shutil.rmtree(release_tree, ignore_errors=True)
    assert sdist.returncode == 0, sdist.stderr[-3000:]
    (archive,) = (tmp_path / "sdist").glob("disdf-*.tar.gz")
    pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-cache-dir"]
    command = [*pip, "--wheel-dir", str(tmp_path / "wheel"), str(archive)]
    environment = {key: value for key, value in os.environ.items() if key != "DISDF_BUILD_KERNEL_CACHE"}
    wheel = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, env=environment)
    assert wheel.returncode == 0, wheel.stderr[-3000:]
    (built,) = (tmp_path / "wheel").glob("disdf-*.whl")
    return archive, built


def test_the_license_ships_in_the_wheel_and_the_sdist(release):
    """LICENSE is in both, py.typed in the wheel, the license expression in its metadata."""
    archive, built = release
    with tarfile.open(archive) as tar:
        sdist_files = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    assert {"LICENSE", "disdf/py.typed", "pyproject.toml", "setup.py"} <= sdist_files
    with zipfile.ZipFile(built) as whl:
        names = set(whl.namelist())
        (metadata,) = [name for name in names if name.endswith(".dist-info/METADATA")]
        headers = whl.read(metadata).decode().split("\n\n", 1)[0].splitlines()
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names), sorted(names)
    assert "disdf/py.typed" in names
    assert {"License-Expression: BSD-3-Clause", "License-File: LICENSE"} <= set(headers)


def test_the_wheel_ships_the_compiled_kernels(release, tmp_path):
    """Every kernel file's cache is in the wheel, and a new process fitting and predicting with each
    cascade from the unpacked wheel loads every kernel it calls and compiles none (numba's cache log:
    nothing saved). Without the cache that process would compile for about 30 CPU-s."""
    _, built = release
    with zipfile.ZipFile(built) as whl:
        names = set(whl.namelist())
        whl.extractall(tmp_path)
    sources = (ROOT / "disdf").rglob("*.py")
    kernel_files = [path.relative_to(ROOT) for path in sources if "@nb.njit" in path.read_text()]
    for kernel_file in kernel_files:
        index = f"{kernel_file.parent.as_posix()}/__pycache__/{kernel_file.stem}."
        assert any(name.startswith(index) and name.endswith(".nbi") for name in names), kernel_file
    assert not [name for name in names if name.endswith(".pyc")]
    probe = (
        "import numpy as np\n"
        "from disdf import CascadeForestClassifier, CascadeForestRegressor, DisDFClassifier\n"
        "X = np.random.default_rng(0).normal(size=(100, 10)); y = (X[:, 0] > 0).astype(int)\n"
        "for model in (CascadeForestClassifier(n_trees=10), DisDFClassifier(n_trees=10)):\n"
        "    model.fit(X, y).predict(X)\n"
        "CascadeForestRegressor(n_trees=10).fit(X, X[:, 1]).predict(X)\n"
    )
    environment = {key: value for key, value in os.environ.items() if key != "NUMBA_CACHE_DIR"}
    environment.update(PYTHONPATH=str(tmp_path), NUMBA_DEBUG_CACHE="1")
    command = [sys.executable, "-c", probe]
    fit = subprocess.run(command, cwd=tmp_path, env=environment, capture_output=True, text=True)
    assert fit.returncode == 0, fit.stderr[-3000:]
    cache_log = fit.stdout + fit.stderr
    assert f"data loaded from '{tmp_path}" in cache_log
    assert "data saved" not in cache_log, [line for line in cache_log.splitlines() if "data saved" in line]


def test_the_build_requires_the_package_dependencies():
    """The wheel's build imports the package (setup.py's warm-up): its requirements are the package's."""
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    requires = config["build-system"]["requires"]
    build_dependencies = [item for item in requires if not item.startswith("setuptools")]
    assert build_dependencies == config["project"]["dependencies"]
