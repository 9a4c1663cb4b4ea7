"""numba's on-disk cache never runs old code after an edit.

``cache=True`` keys a cached function on its own file only (numba issue 1833): a
cached function that calls a compiled function of another file keeps the callee's
old machine code after the callee's file changes. The library therefore keeps every
cached kernel and the compiled functions it calls in one file (test_layout.py checks
the rule on the source); this test checks the consequence on the pair-sampling
solver, whose cached loop calls the pair kernels.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import disdf

#: One stochastic Frank-Wolfe solve on one-hot tree probabilities, so that every pair's Q_ij^t is
#: read from the pure classes (the constant 2.0 the test edits); prints the weights.
PROBE = """
import numpy as np
from disdf.weights._stochastic_frank_wolfe import SampledWeightProblem, stochastic_frank_wolfe
rng = np.random.default_rng(0)
probabilities = np.eye(3)[rng.integers(0, 3, size=(30, 7))]
y = np.arange(30) % 3
problem = SampledWeightProblem(probabilities, y, 1.0, 1.0, random_state=0)
print(repr(stochastic_frank_wolfe(problem, batch_size=16, max_iter=20).w.tolist()))
"""
#: The Manhattan distance of two different one-hot vectors in the pair kernels (_manhattan_entry, which
#: the cached iterations call through sampled_hinge_sums); 0 after the edit, so that no hinge pulls and
#: the weights follow the quadratic term alone.
ORIGINAL = "return 2.0 * np.float64(a != b)"
EDITED = "return 0.0 * np.float64(a != b)  # edited by the test"


def _solve(source: Path, cache: Path) -> str:
    environment = {**os.environ, "PYTHONPATH": str(source), "NUMBA_CACHE_DIR": str(cache)}
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        env=environment,
        cwd=source,  # -c puts the working folder first on sys.path
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.slow  # three processes, two of them compiling the solver: about 10-20 s
def test_an_edited_callee_is_recompiled_into_its_cached_callers(tmp_path):
    source = tmp_path / "source"
    shutil.copytree(
        Path(disdf.__file__).parent, source / "disdf", ignore=shutil.ignore_patterns("__pycache__")
    )
    # An empty package top: only the weight solvers are imported, not the estimators.
    (source / "disdf" / "__init__.py").write_text("")
    [callee] = [p for p in (source / "disdf").rglob("*.py") if ORIGINAL in p.read_text()]

    before = _solve(source, tmp_path / "cache")  # compiles, and fills the on-disk cache
    callee.write_text(callee.read_text().replace(ORIGINAL, EDITED))
    after = _solve(source, tmp_path / "cache")  # a new process, with that cache
    recompiled = _solve(source, tmp_path / "fresh_cache")  # the edited source compiled from nothing

    assert recompiled != before  # the edit changes the weights
    assert after == recompiled
