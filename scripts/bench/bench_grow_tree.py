"""The tree-growing kernel, old against new: same trees, and how long growing takes.

"old" is ``disdf/forests/_compiled/kernels.py`` as a git revision has it (``--old-ref REV``, default
``HEAD~1``: the commit before this checkout's; name the last commit before the kernel change you
measure), written to a temporary folder and imported from there; "new" is the kernels module
this checkout imports. Both are compiled (and cached) before any clock starts.

Timing: ``grow_forest`` called directly, for 1,000 trees on 120 MNIST images,
100 trees on 2,000 and 4 on 40,000 (a full-MNIST fold model's rows; the time
includes the forest's presorting), random-forest and completely-random kinds. The two
versions alternate (old, new, old, new, ...) for ``--rounds`` rounds, so a
background load slows both alike; a round's time is the best of ``--inner``
calls and a row's time is the median over the rounds
-> build/bench/grow_tree.csv, results/bench/grow_tree.csv with ``--record`` (kind,
n_examples, n_trees, version, median_seconds, rounds, old_ref: the old revision's short hash).

``--check``: instead of timing, grow forests with both versions on random
datasets (both kinds, bootstrap on and off, min_samples_leaf > 1, max_depth
set, features with negative values, constant and duplicate features, float32
ties) and compare every returned array for exact equality.

Usage: python scripts/bench/bench_grow_tree.py [--rounds 7] [--inner 3] [--old-ref REV]
       python scripts/bench/bench_grow_tree.py --check [--old-ref REV]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
import hashlib
import importlib.util
import inspect
import itertools
import statistics
import subprocess
import tempfile
from functools import partial
from types import ModuleType

import numpy as np
import pandas as pd

import disdf.forests._compiled.kernels as new_kernels
from experiments.running.config import default_data_dir
from experiments.running.protocol import load_pool
from scripts.bench_output import ROOT, add_record_flag, bench_output, best_of, write_csv

#: Where the kernels module is, newest first: a revision before the library was grouped by concern has
#: it at the second path.
KERNELS_PATHS = ("disdf/forests/_compiled/kernels.py", "disdf/fast_forest/kernels.py")
# kind -> (random_splits, bootstrap, max_features on 784 pixels: sqrt for the random forest)
KINDS = {"random_forest": (False, True, 28), "completely_random": (True, False, 1)}
# (n_examples, n_trees) per benchmark row
SIZES = [(120, 1000), (2000, 100), (40_000, 4)]


def short_hash(ref: str) -> str:
    """The commit ``ref`` names in this checkout, as a short hash (a moving name like HEAD~1 is
    recorded as the commit it was)."""
    return git("rev-parse", "--short", f"{ref}^{{commit}}").strip()


def git(*arguments: str) -> str:
    return subprocess.run(["git", *arguments], cwd=ROOT, check=True, capture_output=True, text=True).stdout


def load_old_kernels(ref: str) -> ModuleType:
    """The kernels module of git revision ``ref``, imported from a temporary copy (its numba cache too)."""
    for kernels_path in KERNELS_PATHS:
        try:
            source = git("show", f"{ref}:{kernels_path}")
            break
        except subprocess.CalledProcessError:
            continue
    else:
        raise FileNotFoundError(f"revision {ref} has no kernels module at {' or '.join(KERNELS_PATHS)}")
    digest = hashlib.sha256(source.encode()).hexdigest()[:12]
    folder = Path(tempfile.gettempdir()) / f"bench_grow_tree_{digest}"
    folder.mkdir(exist_ok=True)
    path = folder / f"kernels_old_{digest}.py"
    if not path.exists():
        path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def mnist(n: int) -> tuple[np.ndarray, np.ndarray, int]:
    """The first n MNIST training images (float32, C order) and their class codes."""
    pool = load_pool("mnist", default_data_dir())
    classes, y = np.unique(pool.y_train[:n], return_inverse=True)
    X = np.ascontiguousarray(pool.X_train[:n], dtype=np.float32)
    return X, y.astype(np.int64), len(classes)


def grow_arguments(kind: str, X, y, n_classes: int, n_trees: int) -> tuple:
    random_splits, bootstrap, max_features = KINDS[kind]
    return (X, y, n_classes, n_trees, 0, max_features, random_splits, bootstrap, -1, 2, 1)


def grow(module: ModuleType, arguments: tuple) -> tuple:
    """``grow_forest`` of any kernels API, one leaf row per leaf: ``(X, ...)`` example-major
    before it merged with ``grow_forest_shared``, ``(Xt, ..., histogram_min_node, max_bins,
    share_pure)`` feature-major since (the transposition is then timed too, as the old one did it),
    and ``(Xt, y, sample_weight, ...)`` once it took example weights (empty: none), ``(..., max_bins,
    bin_sample, share_pure)`` once its bins could come from a sample (empty: every example). The tree
    arrays only (later kernels also return the trees' importances)."""
    X, *rest = arguments
    if hasattr(module, "grow_forest_shared"):
        return module.grow_forest(X, *rest)[:6]
    Xt = np.ascontiguousarray(X.T).astype(np.float64)
    parameters = inspect.signature(module.grow_forest.py_func).parameters
    if "sample_weight" in parameters:
        y, *rest = rest
        rest = [y, np.empty(0), *rest]
    bins = (0, np.empty(0, dtype=np.bool_)) if "bin_sample" in parameters else (0,)
    return module.grow_forest(Xt, *rest, module._HISTOGRAM_MIN_NODE, *bins, False)[:6]


def assert_same_forest(old: tuple, new: tuple, label: str) -> None:
    names = ("roots", "feature", "threshold", "left", "right", "leaf_values")
    for name, a, b in zip(names, old, new, strict=True):
        if a.dtype != b.dtype or a.shape != b.shape or not np.array_equal(a, b):
            raise AssertionError(f"{label}: {name} differs (old {a.dtype}{a.shape}, new {b.dtype}{b.shape})")


def bench(versions: dict[str, ModuleType], rounds: int, inner: int) -> pd.DataFrame:
    rows = []
    for (n, n_trees), kind in itertools.product(SIZES, KINDS):
        X, y, n_classes = mnist(n)
        arguments = grow_arguments(kind, X, y, n_classes, n_trees)
        outputs = {name: grow(module, arguments) for name, module in versions.items()}  # + compile
        assert_same_forest(outputs["old"], outputs["new"], f"{kind} n={n}")
        times: dict[str, list[float]] = {name: [] for name in versions}
        for _ in range(rounds):
            for name, module in versions.items():
                times[name].append(best_of(inner, partial(grow, module, arguments)))
        for name in versions:
            rows.append(
                {
                    "kind": kind,
                    "n_examples": n,
                    "n_trees": n_trees,
                    "version": name,
                    "median_seconds": statistics.median(times[name]),
                    "rounds": rounds,
                }
            )
        old_s, new_s = (statistics.median(times[name]) for name in ("old", "new"))
        label = f"{kind:>17} n={n:<5} T={n_trees:<5}"
        print(f"{label} old {old_s:.4f} s  new {new_s:.4f} s  new/old {new_s / old_s:.3f}", flush=True)
    return pd.DataFrame(rows)


def random_datasets(seed: int):
    """(label, X, y, n_classes): small random datasets with the features growing must cope with."""
    rng = np.random.default_rng(seed)
    for n, d, n_classes in [(60, 5, 2), (150, 20, 3), (300, 50, 4), (700, 30, 5)]:
        X = rng.normal(size=(n, d))
        X[:, 0] = 1.0  # constant
        X[:, 1] = X[:, 2]  # duplicate
        X[:, 3] = np.round(X[:, 3])  # many ties
        if d > 10:  # sparse non-negative columns, as pixels (the zero-bits paths)
            sparse = rng.random((n, d // 2)) < 0.8
            X[:, d // 2 :][sparse[:, : d - d // 2]] = 0.0
            X[:, d // 2 :] = np.abs(X[:, d // 2 :])
        y = rng.integers(0, n_classes, size=n)
        y[: n // 3] = (X[: n // 3, 4] > 0).astype(int)  # some signal
        yield f"normal n={n} d={d}", np.ascontiguousarray(X, dtype=np.float32), y.astype(np.int64), n_classes
    pixels = (rng.random((400, 100)) < 0.15) * rng.integers(1, 256, size=(400, 100))
    y = rng.integers(0, 10, size=400).astype(np.int64)
    yield "pixels n=400 d=100", np.ascontiguousarray(pixels, dtype=np.float32), y, 10


def check(versions: dict[str, ModuleType]) -> None:
    # (random_splits, max_features, bootstrap, max_depth, min_samples_split, min_samples_leaf)
    settings = [
        (False, 3, True, -1, 2, 1),
        (False, 3, False, -1, 2, 1),
        (False, 7, True, 4, 2, 3),
        (False, 1, False, -1, 10, 5),
        (True, 1, False, -1, 2, 1),
        (True, 1, True, -1, 2, 1),
        (True, 4, False, 3, 2, 2),
        (True, 2, True, -1, 6, 4),
    ]
    n_checked = 0
    for seed in range(3):
        for label, X, y, n_classes in random_datasets(seed):
            for random_splits, max_features, bootstrap, max_depth, split, leaf in settings:
                max_features = min(max_features, X.shape[1])
                for forest_seed in (0, 1 + seed):
                    arguments = (X, y, n_classes, 15, forest_seed, max_features, random_splits, bootstrap)
                    arguments += (max_depth, split, leaf)
                    outputs = {name: grow(module, arguments) for name, module in versions.items()}
                    assert_same_forest(outputs["old"], outputs["new"], f"{label} {arguments[4:]}")
                    n_checked += 1
    X, y, n_classes = mnist(300)
    for kind in KINDS:
        arguments = grow_arguments(kind, X, y, n_classes, 50)
        outputs = {name: grow(module, arguments) for name, module in versions.items()}
        assert_same_forest(outputs["old"], outputs["new"], f"mnist 300 {kind}")
        n_checked += 1
    print(f"{n_checked} forests: every array identical (old = {versions['old'].__name__})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--old-ref", default="HEAD~1", help="git revision of the old kernels (default: HEAD~1)"
    )
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--inner", type=int, default=3, help="calls per round and version (best kept)")
    parser.add_argument("--check", action="store_true", help="compare outputs instead of timing")
    add_record_flag(parser)
    args = parser.parse_args()
    try:
        old_ref = short_hash(args.old_ref)
    except subprocess.CalledProcessError as error:
        parser.error(f"--old-ref {args.old_ref}: {error.stderr.strip()}")
    print(f"old kernels: {args.old_ref} = {old_ref}", flush=True)
    versions = {"old": load_old_kernels(old_ref), "new": new_kernels}
    if args.check:
        check(versions)
        return
    output = bench_output(args, "grow_tree")
    frame = bench(versions, args.rounds, args.inner).assign(old_ref=old_ref)
    write_csv(output, frame, float_format="%.5g")


if __name__ == "__main__":
    main()
