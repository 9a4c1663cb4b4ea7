"""Builds disdf as pyproject.toml declares, and ships the compiled engine's cache inside the wheel.

The forest engine is numba code, compiled at its first use: about 30 CPU-s that a user would pay at
the first fit of every new environment. A wheel built here runs :func:`disdf.warm_up` on the built
package, so numba's cache of every kernel the estimators call is written beside the kernels
(``disdf/forests/_compiled/__pycache__``, ``disdf/weights/__pycache__``) and installed with them.

numba reads a cached kernel only when its source (a hash of the file's content), the Python, the
numba version and the CPU (model and features) are those it was compiled with; otherwise it compiles
as before, so a cache that does not fit costs time and never changes a result. ``pip install`` from
the source tree or an sdist builds on the machine that will run the code, with the numba that pip
resolves for both (the build requirements are the package's own dependencies). A wheel built on
another machine usually misses on the CPU.

The cache is skipped in an editable install (``make install`` runs the warm-up itself) and when
``DISDF_BUILD_KERNEL_CACHE=0``; a build whose warm-up fails warns and ships the package without it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

WARM_UP = "import disdf; disdf.warm_up()"
#: numba's cache files: one index per kernel (``.nbi``), one object file per signature (``.nbc``).
CACHE_SUFFIXES = (".nbi", ".nbc")


def write_kernel_cache(build_lib: Path) -> None:
    """Compile the kernels of the package built in ``build_lib`` into numba's cache beside them."""
    package = build_lib / "disdf"
    for stale in [path for suffix in CACHE_SUFFIXES for path in package.rglob(f"*{suffix}")]:
        stale.unlink()  # a reused build folder: only this build's kernels ship
    env = {key: value for key, value in os.environ.items() if key != "NUMBA_CACHE_DIR"}  # beside the kernels
    env["PYTHONPATH"] = os.pathsep.join([str(build_lib), *filter(None, [env.get("PYTHONPATH")])])
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # the wheel ships sources and kernels, no interpreter's .pyc
    command = [sys.executable, "-c", WARM_UP]
    result = subprocess.run(command, env=env, cwd=build_lib, capture_output=True, text=True)
    if result.returncode:
        for partial in [path for suffix in CACHE_SUFFIXES for path in package.rglob(f"*{suffix}")]:
            partial.unlink()
        print(
            "disdf: the compiled engine's cache is not shipped (the warm-up failed); the first fit will "
            f"compile it (about 30 CPU-s):\n{result.stderr[-2000:]}",
            file=sys.stderr,
        )


class BuildPyWithKernelCache(build_py):
    """``build_py``, then numba's cache of the built kernels written into the build folder."""

    def run(self) -> None:
        super().run()
        if self.editable_mode or os.environ.get("DISDF_BUILD_KERNEL_CACHE", "1") == "0":
            return
        write_kernel_cache(Path(self.build_lib))


setup(cmdclass={"build_py": BuildPyWithKernelCache})
