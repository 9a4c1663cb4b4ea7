"""bench_dask_fit.py: the same cascade fitted in local threads and on a 2-worker LocalCluster, compared by
the digest of its test probabilities."""

import sys

import numpy as np
import pandas as pd
import pytest

from scripts.bench import bench_dask_fit

pytest.importorskip("distributed")


def run(monkeypatch, argv):
    monkeypatch.setattr(sys, "argv", ["bench_dask_fit.py", *argv])
    bench_dask_fit.main()


def test_bad_sizes_are_refused_before_any_fit(monkeypatch, tmp_path, capsys):
    output = tmp_path / "dask_fit.csv"
    with pytest.raises(SystemExit):
        run(monkeypatch, ["--n-train", "10", "--output", str(output)])
    assert "--n-train must be >= 100" in capsys.readouterr().err and not output.exists()


def test_the_digest_tells_probabilities_apart_by_a_bit():
    probabilities = np.linspace(0, 1, 12).reshape(6, 2)
    nudged = probabilities.copy()
    nudged[3, 1] = np.nextafter(nudged[3, 1], 2.0)
    assert bench_dask_fit.digest(probabilities) == bench_dask_fit.digest(probabilities.copy())
    assert bench_dask_fit.digest(probabilities) != bench_dask_fit.digest(nudged)


def test_a_small_fit_on_the_cluster_is_the_local_fit(monkeypatch, tmp_path):
    output = tmp_path / "dask_fit.csv"
    run(monkeypatch, ["--n-train", "400", "--output", str(output)])
    local, remote = pd.read_csv(output).to_dict("records")
    assert (local["mode"], remote["mode"]) == ("local", "dask")
    assert remote["same_as_local"] and remote["probabilities_sha256"] == local["probabilities_sha256"]
    assert remote["workers_used"] == 2 and remote["tasks"] >= 12 * remote["n_levels"]
    assert remote["test_accuracy"] == local["test_accuracy"] and remote["worker_peak_memory_gib"] > 0
