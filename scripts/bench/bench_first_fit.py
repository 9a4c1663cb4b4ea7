"""The first fit in a new environment: import plus the first fit of each cascade on 100 rows, CPU and wall.

    python scripts/bench/bench_first_fit.py --record   # -> results/bench/first_fit.csv

A fresh virtual environment (``--venv``, made anew unless ``--reuse``) gets this checkout installed
as a user would (``pip install .``: the wheel pip builds carries numba's cache of the engine's
kernels, compiled by setup.py); then, each in a process of its own:

* ``install``: that ``pip install .`` itself, the kernels' compiling in the wheel's build included
  (pip's own download cache as the machine has it); ``install_without_kernel_cache``: the same into
  a second new environment with ``DISDF_BUILD_KERNEL_CACHE=0``, what the install cost before;
* ``import``: importing the estimators only (``peak_mib``: its resident memory);
* ``cold``: the probe right after the install, nothing run before it: what a user's first fit costs;
* ``second_process``: the probe once more;
* ``no_cache``: the probe with numba's cache in an empty folder (``NUMBA_CACHE_DIR``): what the first
  fit costs where the shipped cache cannot serve (another CPU, another numba), as before it shipped.

The probe imports disdf and fits ``CascadeForestClassifier()`` and ``DisDFClassifier()`` (defaults:
T = 100) on 100 random rows of 10 features. CPU is the child's user + system time (its waited-for
children included), ``peak_mib`` its peak resident memory (``ru_maxrss``), from the child's own
resource usage.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
import os
import platform
import shutil
import subprocess
import tempfile
import time
import venv

from scripts.bench_output import ROOT, add_record_flag, bench_output, write_csv

PROBE = (
    "import numpy as np\n"
    "from disdf import CascadeForestClassifier, DisDFClassifier\n"
    "X = np.random.default_rng(0).normal(size=(100, 10)); y = (X[:, 0] > 0).astype(int)\n"
    "CascadeForestClassifier(random_state=0).fit(X, y)\n"
    "DisDFClassifier(random_state=0).fit(X, y)\n"
)
#: What importing the estimators costs (numba loads at the first fit, not here).
IMPORT = "import disdf; from disdf import CascadeForestClassifier, DisDFClassifier"


def timed_child(command: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """(CPU seconds, wall seconds, peak resident MiB) of one child process (its own rusage)."""
    start = time.perf_counter()
    child = subprocess.Popen(command, env=env, cwd=tempfile.gettempdir())
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise subprocess.CalledProcessError(child.returncode, command)
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024


def fresh_environment(folder: Path, reuse: bool, kernel_cache: bool = True) -> tuple[Path, dict | None]:
    """A virtual environment with this checkout installed (not editable), as a user's, and what the
    ``pip install`` cost (``None`` when an existing one is reused)."""
    python = folder / "bin" / "python"
    if reuse and python.exists():
        return python, None
    shutil.rmtree(folder, ignore_errors=True)
    venv.create(folder, with_pip=True)
    subprocess.run([python, "-m", "pip", "install", "--quiet", "--upgrade", "pip"], check=True)
    environment = {key: value for key, value in os.environ.items() if key != "DISDF_BUILD_KERNEL_CACHE"}
    if not kernel_cache:
        environment["DISDF_BUILD_KERNEL_CACHE"] = "0"
    cpu, wall, peak = timed_child([str(python), "-m", "pip", "install", "--quiet", str(ROOT)], environment)
    return python, {"cpu_seconds": round(cpu, 2), "wall_seconds": round(wall, 2), "peak_mib": round(peak)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=ROOT / "build" / "first-fit-venv")
    parser.add_argument("--reuse", action="store_true", help="keep an existing --venv (its cache too)")
    add_record_flag(parser)
    args = parser.parse_args()
    python, install = fresh_environment(args.venv, args.reuse)
    rows = [{"stage": "install", **install}] if install else []
    if install:  # the same install without the kernels' cache, into a scratch environment
        scratch = args.venv.with_name(args.venv.name + "-without-kernel-cache")
        _, without = fresh_environment(scratch, reuse=False, kernel_cache=False)
        shutil.rmtree(scratch)
        rows.append({"stage": "install_without_kernel_cache", **(without or {})})
    base = {key: value for key, value in os.environ.items() if key != "NUMBA_CACHE_DIR"}
    with tempfile.TemporaryDirectory(prefix="numba_cache_") as empty:
        stages = [
            ("import", IMPORT, base),
            ("cold", PROBE, base),
            ("second_process", PROBE, base),
            ("no_cache", PROBE, {**base, "NUMBA_CACHE_DIR": empty}),
        ]
        for stage, code, env in stages:
            cpu, wall, peak = timed_child([str(python), "-c", code], env)
            measured = {"cpu_seconds": round(cpu, 2), "wall_seconds": round(wall, 2), "peak_mib": round(peak)}
            rows.append({"stage": stage, **measured})
    for row in rows:
        cpu, wall, peak = row["cpu_seconds"], row["wall_seconds"], row["peak_mib"]
        print(f"{row['stage']}: {cpu:.1f} CPU-s, {wall:.1f} s wall, {peak} MiB")
        row.update({"n_rows": 100, "python": platform.python_version(), "machine": platform.machine()})
    write_csv(bench_output(args, "first_fit"), rows)


if __name__ == "__main__":
    main()
