"""DF21 (the ``deep-forest`` library) on MNIST: fit time, predict time, peak memory, test accuracy.

The reference point for our own full-MNIST timing (``scripts/tools/mnist_full.py`` ->
results/mnist_full.csv): DF21's ``CascadeForestClassifier`` is fitted on the first
``--n-train`` training images and scored on the first ``--n-test`` test images, and one row is
appended to ``--output`` (default build/bench/df21_mnist.csv; results/bench/df21_mnist.csv with
``--record``, as ``make bench-df21`` runs it: scripts/bench_output.py).

DF21 cannot be installed beside this package: deep-forest-py310 0.1.9 pins
scikit-learn<1.6 (and calls ``check_array(force_all_finite=...)``, gone in scikit-learn 1.8) and
bins with ``np.percentile(interpolation=...)``, gone in numpy 2.4. So this script needs numpy only
and runs in a venv of its own, without disdf::

    python3 -m venv /work/df21venv
    /work/df21venv/bin/pip install deep-forest-py310 "numpy<2.4"
    /work/df21venv/bin/python scripts/bench/bench_df21.py --data-dir ../shared/data \\
        --n-train 60000 --n-jobs 2 --n-trees 100

The data directory holds ``mnist/`` with MNIST's four original gzip IDX files (as for
``disdf.datasets._loaders.load_mnist``; the files may also sit directly in the directory). Instead of MNIST,
``--npz PATH`` fits on the arrays ``X_train``, ``y_train``, ``X_test``, ``y_test`` of a ``numpy.savez``
file (all of them: ``--n-train``/``--n-test`` do not apply; with ``--json`` only, as df21_mnist.csv holds
MNIST's rows); scripts/bench/bench_scale.py writes its
problems so, to fit DF21 on the same data as the other methods. ``--json`` prints one JSON line
instead of writing a CSV row: ``fit_seconds``, ``predict_seconds`` (the best of 3),
``test_accuracy``, ``n_levels`` (the layers kept) and the peak resident memory of this process alone
(``ru_maxrss``, GiB) before the fit (``memory_before_fit_gib``: the data loaded), after it
(``peak_memory_fit_gib``) and after the prediction (``peak_memory_gib``), bench_scale.py's columns,
and ``libraries``, this venv's builds.

Two configurations (``--mode``), both with 2 + 2 forests of ``--n-trees`` trees per layer, at most
``--max-layers`` layers (10, as ours), stopping at the first layer that does not improve the
layer's training-set estimate of accuracy (``n_tolerant_rounds=1``, as our ``patience=1``;
``delta=1e-5`` is "strictly better" for fewer than 100,000 examples, as our ``tol=0``):

* ``native`` (default): DF21's own layers and Cython trees, ``n_estimators=2`` (which DF21 doubles
  into 2 random forests + 2 extra-trees forests). Differences from ours: class vectors are
  out-of-bag estimates (every forest bootstraps, no K-fold); DF21's extra trees use
  ``max_features="sqrt"``, not gcForest's completely-random ``max_features=1`` without bootstrap.
* ``kfold``: ``set_estimator`` with our exact forests (scikit-learn's ExtraTreesClassifier with
  ``max_features=1``, no bootstrap, twice; RandomForestClassifier with ``max_features="sqrt"``,
  twice) and 3-fold class vectors whose fold models are averaged for new examples (as our
  ``test_vectors="fold_mean"``). Its folds are DF21's plain shuffled KFold (ours: stratified).

In both, DF21 bins every feature into at most ``--n-bins`` bins (255: MNIST's pixels lose
nothing; the class vectors are cut at percentiles) and a layer sees the input and the previous
layer's class vectors only (our gcForest: all earlier levels' vectors, ``augmentation="cumulative"``).

Columns: ``n_estimators`` is DF21's parameter (``native``: 2, i.e. 4 forests; ``kfold``: the
4 custom forests); ``n_layers_built`` is the number of layers kept for prediction;
``peak_memory_gb`` is the peak resident memory of this process plus that of its finished children
(ru_maxrss, GiB; DF21 and the forests use threads, so the children's part is normally 0); then
the stamp of scripts/bench_output.py (date, commit, library builds of this venv; the older rows
have the date only).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
import gzip
import importlib.metadata
import json
import os
import platform
import resource
from typing import Any

import numpy as np

from scripts.bench_output import add_record_flag, bench_output, measurement_stamp, timed, write_csv

MNIST_TRAIN, MNIST_TEST = 60_000, 10_000
IMAGE_MAGIC, LABEL_MAGIC = 2051, 2049
MNIST_FILES = {
    "X_train": ("train-images-idx3-ubyte.gz", IMAGE_MAGIC, MNIST_TRAIN),
    "y_train": ("train-labels-idx1-ubyte.gz", LABEL_MAGIC, MNIST_TRAIN),
    "X_test": ("t10k-images-idx3-ubyte.gz", IMAGE_MAGIC, MNIST_TEST),
    "y_test": ("t10k-labels-idx1-ubyte.gz", LABEL_MAGIC, MNIST_TEST),
}
COLUMNS = (
    "library",
    "library_version",
    "mode",
    "n_train",
    "n_test",
    "n_trees",
    "n_estimators",
    "n_bins",
    "max_layers",
    "n_layers_built",
    "n_jobs",
    "fit_seconds",
    "predict_seconds",
    "test_accuracy",
    "peak_memory_gb",
    "machine",
)
DISTRIBUTIONS = ("deep-forest-py310", "deep-forest")
N_FOLDS = 3


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    data = parser.add_mutually_exclusive_group(required=True)
    data.add_argument("--data-dir", type=Path, help="folder holding mnist/*.gz")
    data.add_argument("--npz", type=Path, help="a numpy.savez file of X_train, y_train, X_test, y_test")
    parser.add_argument("--n-train", type=int, default=MNIST_TRAIN, help="first N training images")
    parser.add_argument("--n-test", type=int, default=MNIST_TEST, help="first N test images")
    parser.add_argument("--n-trees", type=int, default=100, help="trees per forest")
    parser.add_argument("--n-bins", type=int, default=255, help="DF21's bins per feature (2-255)")
    parser.add_argument("--max-layers", type=int, default=10, help="cap on cascade layers")
    parser.add_argument("--n-jobs", type=int, default=2, help="threads per forest")
    parser.add_argument("--mode", choices=("native", "kfold"), default="native")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--verbose", type=int, default=1, help="DF21's verbosity (0: silent)")
    parser.add_argument("--json", action="store_true", help="print one JSON line, write no CSV")
    parser.add_argument("--output", type=Path, help="the CSV to append to (overrides --record)")
    add_record_flag(parser)
    args = parser.parse_args(argv)
    if args.npz and not args.json:
        parser.error("--npz needs --json (the CSV, df21_mnist.csv, holds MNIST's rows only)")
    for name, value, low, high in (
        ("--n-train", args.n_train, N_FOLDS, MNIST_TRAIN),
        ("--n-test", args.n_test, 1, MNIST_TEST),
        ("--n-trees", args.n_trees, 1, None),
        ("--n-bins", args.n_bins, 2, 255),
        ("--max-layers", args.max_layers, 1, None),
    ):
        if value < low or (high is not None and value > high):
            parser.error(f"{name} must be in [{low}, {high or 'inf'}]; got {value}")
    return args


def read_idx(path: Path, magic: int, count: int) -> np.ndarray:
    """One gzip IDX file as a uint8 array, its magic number and item count checked."""
    with gzip.open(path, "rb") as handle:
        raw = handle.read()
    found = int.from_bytes(raw[:4], "big")
    n_dims = found & 0xFF
    shape = tuple(int.from_bytes(raw[4 + 4 * d : 8 + 4 * d], "big") for d in range(n_dims))
    if found != magic or not shape or shape[0] != count:
        raise ValueError(f"{path}: expected magic {magic} and {count} items; got {found}, shape {shape}")
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * n_dims).reshape(shape)


def mnist_folder(data_dir: Path) -> Path:
    """The folder with the four IDX files: ``data_dir/mnist`` or ``data_dir`` itself."""
    names = [name for name, _, _ in MNIST_FILES.values()]
    for folder in (data_dir / "mnist", data_dir):
        if all((folder / name).is_file() for name in names):
            return folder
    missing = [name for name in names if not (data_dir / "mnist" / name).is_file()]
    raise FileNotFoundError(
        f"MNIST's IDX files are not in {data_dir / 'mnist'} (nor in {data_dir}); missing: "
        f"{', '.join(missing)}. Put the original gzip files there (disdf.load_mnist fetches them)."
    )


def load_mnist(data_dir: Path, n_train: int, n_test: int) -> dict[str, np.ndarray]:
    """The first ``n_train`` training and ``n_test`` test images (uint8, flattened) and labels."""
    folder = mnist_folder(data_dir)
    arrays = {key: read_idx(folder / name, magic, count) for key, (name, magic, count) in MNIST_FILES.items()}
    return {
        "X_train": arrays["X_train"][:n_train].reshape(n_train, -1).copy(),
        "y_train": arrays["y_train"][:n_train].astype(np.int64),
        "X_test": arrays["X_test"][:n_test].reshape(n_test, -1).copy(),
        "y_test": arrays["y_test"][:n_test].astype(np.int64),
    }


def load_npz(path: Path) -> dict[str, np.ndarray]:
    """The four arrays of a ``numpy.savez`` file, their presence and shapes checked."""
    with np.load(path, allow_pickle=False) as stored:
        missing = [key for key in MNIST_FILES if key not in stored.files]
        if missing:
            raise ValueError(f"{path}: the arrays {', '.join(missing)} are missing; it holds {stored.files}")
        data = {key: stored[key] for key in MNIST_FILES}
    for part in ("train", "test"):
        X, y = data[f"X_{part}"], data[f"y_{part}"]
        if X.ndim != 2 or y.shape != (X.shape[0],):
            raise ValueError(
                f"{path}: X_{part} must be 2-d and y_{part} one label per row; got {X.shape}, {y.shape}"
            )
    if data["X_train"].shape[0] < N_FOLDS or data["X_train"].shape[1] != data["X_test"].shape[1]:
        raise ValueError(
            f"{path}: X_train {data['X_train'].shape} and X_test {data['X_test'].shape} do not match"
        )
    return data


def import_deepforest() -> Any:
    try:
        import deepforest
    except ImportError as error:
        raise SystemExit(
            f"DF21 is not installed in {sys.prefix}: pip install deep-forest-py310 'numpy<2.4' "
            "(in a venv of its own; it pins scikit-learn<1.6)"
        ) from error
    return deepforest


def library_version() -> str:
    for name in DISTRIBUTIONS:
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return "unknown"


def gcforest_forests(n_trees: int, n_jobs: int, seed: int) -> list[Any]:
    """Our level: 2 completely-random tree forests and 2 random forests (disdf.forests._specs)."""
    from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier

    common = {"n_estimators": n_trees, "n_jobs": n_jobs}
    return [
        ExtraTreesClassifier(max_features=1, bootstrap=False, random_state=seed, **common),
        ExtraTreesClassifier(max_features=1, bootstrap=False, random_state=seed + 1, **common),
        RandomForestClassifier(max_features="sqrt", bootstrap=True, random_state=seed + 2, **common),
        RandomForestClassifier(max_features="sqrt", bootstrap=True, random_state=seed + 3, **common),
    ]


def make_model(args: argparse.Namespace) -> Any:
    """DF21's cascade, as close to our gcForest as its parameters allow (see the module docstring)."""
    deepforest = import_deepforest()
    model = deepforest.CascadeForestClassifier(
        n_bins=args.n_bins,
        max_layers=args.max_layers,
        n_estimators=2,
        n_trees=args.n_trees,
        use_predictor=False,
        n_tolerant_rounds=1,
        delta=1e-5,
        n_jobs=args.n_jobs,
        random_state=args.seed,
        verbose=args.verbose,
    )
    if args.mode == "kfold":
        model.set_estimator(gcforest_forests(args.n_trees, args.n_jobs, args.seed), n_splits=N_FOLDS)
    return model


def own_peak_gib() -> float:
    """Peak resident memory of this process alone, in GiB (bench_scale.py's measure)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (2**30 if sys.platform == "darwin" else 2**20)


def peak_memory_gb() -> float:
    """Peak resident memory of this process plus its finished children, in GiB (ru_maxrss in KiB)."""
    kib = sum(resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return kib / (2**30 if sys.platform == "darwin" else 2**20)


def run(args: argparse.Namespace, data: dict[str, np.ndarray]) -> dict[str, Any]:
    """Fit and score one model; the timing and accuracy part of the row."""
    model = make_model(args)
    _, fit_seconds = timed(lambda: model.fit(data["X_train"], data["y_train"]))
    predictions, predict_seconds = timed(lambda: model.predict(data["X_test"]))
    return {
        "n_estimators": model.n_estimators,
        "n_layers_built": model.n_layers_,
        "fit_seconds": round(fit_seconds, 3),
        "predict_seconds": round(predict_seconds, 3),
        "test_accuracy": float(np.mean(predictions == data["y_test"])),
    }


def json_line(args: argparse.Namespace, data: dict[str, np.ndarray]) -> str:
    """Fit and score one model; bench_scale.py's measures as one JSON line (see the module docstring)."""
    before = own_peak_gib()
    model = make_model(args)
    _, fit_seconds = timed(lambda: model.fit(data["X_train"], data["y_train"]))
    peak_fit = own_peak_gib()
    predictions, first_predict = timed(lambda: model.predict(data["X_test"]))
    accuracy = float(np.mean(predictions == data["y_test"]))
    predict_seconds = min(first_predict, *(timed(lambda: model.predict(data["X_test"]))[1] for _ in range(2)))
    measures = {
        "fit_seconds": fit_seconds,
        "predict_seconds": predict_seconds,  # the best of 3 predictions of X_test
        "peak_memory_gib": own_peak_gib(),
        "peak_memory_fit_gib": peak_fit,
        "memory_before_fit_gib": before,
        "n_levels": int(model.n_layers_),
        "test_accuracy": accuracy,
        "library_version": library_version(),
        "libraries": measurement_stamp()["libraries"],  # this venv's builds, not bench_scale.py's
    }
    return json.dumps(measures)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    import_deepforest()  # fail before reading the data
    if args.json:  # bench_scale.py's measures; no CSV
        data = load_npz(args.npz) if args.npz else load_mnist(args.data_dir, args.n_train, args.n_test)
        print(json_line(args, data))
        return
    output = bench_output(args, "df21_mnist", args.output)
    data = load_mnist(args.data_dir, args.n_train, args.n_test)
    result = run(args, data)
    row = {
        "library": "deep-forest (DF21)",
        "library_version": library_version(),
        "mode": args.mode,
        "n_train": args.n_train,
        "n_test": args.n_test,
        "n_trees": args.n_trees,
        "n_bins": args.n_bins,
        "max_layers": args.max_layers,
        "n_jobs": args.n_jobs,
        **result,
        "peak_memory_gb": round(peak_memory_gb(), 4),
        "machine": f"{platform.machine()} {platform.system()}, {os.cpu_count()} cores",
    }
    row = {key: row[key] for key in COLUMNS}
    write_csv(output, [row])  # + date, commit, library builds (scripts/bench_output.py)
    print(", ".join(f"{key}={value}" for key, value in row.items()))


if __name__ == "__main__":
    main()
