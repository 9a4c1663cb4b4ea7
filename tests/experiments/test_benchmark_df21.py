"""DF21's benchmark rows: fitted on the runner's own splits, resumable, failures kept as status rows."""

import sys

import numpy as np
import pandas as pd

from experiments.drivers import benchmark_df21
from experiments.running.composition import compose_config
from experiments.running.plan import decide
from experiments.running.protocol import Unit


def test_the_splits_df21_gets_are_the_runners(tmp_path):
    protocol = decide(compose_config("experiment=benchmark", "datasets=[keel_wine]")).protocol
    path = tmp_path / "splits.npz"
    benchmark_df21.write_splits(path, protocol, "keel_wine", 100, [0, 7])
    pool = protocol.pool("keel_wine")
    classes = np.unique(pool.y_train)
    with np.load(path) as stored:
        for repetition in (0, 7):
            unit = Unit("keel_wine", 100, 100, "gcforest", repetition)
            split = protocol.split(pool, unit, protocol.split_seed(unit))
            assert stored["seeds"][repetition] == protocol.split_seed(unit)
            np.testing.assert_array_equal(stored[f"X_train_{repetition}"], split.X_train)
            np.testing.assert_array_equal(classes[stored[f"y_test_{repetition}"]], split.y_test)
        assert "X_train_1" not in stored.files


def test_a_failing_worker_leaves_a_status_row_per_repetition_and_a_rerun_resumes(tmp_path, monkeypatch):
    failing = tmp_path / "python"
    failing.write_text(f"#!{sys.executable}\nimport sys\nsys.exit('DF21 exploded')\n")
    failing.chmod(0o755)
    monkeypatch.setattr(benchmark_df21, "decide", lambda cfg: _plan_into(cfg, tmp_path))
    benchmark_df21.main(["--datasets", "keel_wine", "--df21-python", str(failing)])
    rows = pd.read_csv(tmp_path / "df21.csv")
    assert list(rows.repetition) == list(range(30))
    assert rows.status.str.contains("DF21 exploded").all() and rows.accuracy.isna().all()
    benchmark_df21.main(["--datasets", "keel_wine", "--df21-python", str(failing)])  # nothing missing
    assert len(pd.read_csv(tmp_path / "df21.csv")) == 30


def _plan_into(cfg, folder):
    from dataclasses import replace

    plan = decide(cfg)
    return replace(plan, runtime=replace(plan.runtime, output_dir=folder))
