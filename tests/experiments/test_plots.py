"""The plot scripts read a run's tables and draw what a reader can tell apart."""

import subprocess
import sys
from pathlib import Path

import matplotlib
import pandas as pd
import pytest

matplotlib.use("Agg")
SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def cells(Ts, Ns=(50,)):
    """A table CSV in the layout reporting.tables writes (made-up accuracies: only the layout matters)."""
    rows = []
    for N in Ns:
        for T in Ts:
            for method, mean in (("gcforest", 0.80), ("disdf", 0.82)):
                rows.append(
                    {
                        "dataset": "ecoli",
                        "N": N,
                        "T": T,
                        "method": method,
                        "n": 5,
                        "mean": mean,
                        "ci_half": 0.03,
                        "paper": 0.85,
                        "difference": 0.02,
                        "verdict": "no significant difference",
                    }
                )
    return pd.DataFrame(rows)


@pytest.fixture
def accuracy_plot(monkeypatch):
    from scripts.figures import plot_accuracy_vs_t

    return plot_accuracy_vs_t


def draw_accuracy(accuracy_plot, monkeypatch, tmp_path, table):
    figures = []
    monkeypatch.setattr(accuracy_plot, "parse_results_dir", lambda description: tmp_path)
    monkeypatch.setattr(accuracy_plot, "read_cells", lambda results: table)
    monkeypatch.setattr(accuracy_plot, "save", lambda figure, results, name: figures.append(figure))
    accuracy_plot.main()
    return figures[0]


def test_accuracy_plot_dodges_the_methods_and_labels_each_t(accuracy_plot, monkeypatch, tmp_path):
    Ts = (100, 400, 700, 1000)
    figure = draw_accuracy(accuracy_plot, monkeypatch, tmp_path, cells(Ts))
    (ax,) = figure.axes
    assert [label.get_text() for label in ax.get_xticklabels()] == [str(T) for T in Ts]
    ours = [line for line in ax.get_lines() if line.get_marker() == "o"]
    assert len(ours) == 2
    gcf_x, disdf_x = (line.get_xdata() for line in ours)
    assert all(a < b for a, b in zip(gcf_x, disdf_x, strict=True))  # side by side, never on top
    assert "5 repetitions" in figure.get_suptitle() and figure.get_suptitle().startswith("Ecoli")
    assert ax.get_xlabel() == "trees per forest T" and ax.get_ylabel() == "test accuracy"


def test_one_t_draws_accuracy_against_n_not_against_t(accuracy_plot, monkeypatch, tmp_path):
    figure = draw_accuracy(accuracy_plot, monkeypatch, tmp_path, cells((100,), Ns=(50, 80)))
    (ax,) = figure.axes
    assert ax.get_xlabel() == "training set size N"
    assert [label.get_text() for label in ax.get_xticklabels()] == ["50", "80"]
    assert "against T" not in figure.get_suptitle() and "T = 100" in figure.get_suptitle()


def test_records_textconv_drops_only_the_timing_fields(tmp_path):
    raw = tmp_path / "ecoli.jsonl"
    raw.write_text(
        '{"accuracy": 0.8, "fit_seconds": 1.5, "predict_seconds": 0.1, "seed": 3}\n'
        '{"accuracy": 0.7, "split_fit_seconds": 2.0, "solver_seconds": 0.2, "seed": 4}\n'
        '{"torn": \n'
    )
    shown = subprocess.run(
        [sys.executable, str(SCRIPTS / "tools" / "records_textconv.py"), str(raw)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert shown == ['{"accuracy": 0.8, "seed": 3}', '{"accuracy": 0.7, "seed": 4}', '{"torn": ']


def test_compare_records_finds_a_changed_result_and_ignores_timing(tmp_path):
    import json

    from scripts.tools import compare_records
    from tests.experiments.records_for_tests import a_record

    base = a_record(split_units=1)
    for folder, changes in (("a", {}), ("b", {"fit_seconds": 9.0}), ("c", {"accuracy": 0.6, "new_field": 0})):
        (tmp_path / folder / "raw").mkdir(parents=True)
        (tmp_path / folder / "raw" / "ecoli.jsonl").write_text(json.dumps({**base, **changes}) + "\n")
    a, b, c = (compare_records.records_by_key(tmp_path / name) for name in "abc")
    assert compare_records.compare(a, b) == (1, {}, {}, 1)
    shared, differing, one_sided, equal = compare_records.compare(a, c)
    assert (shared, dict(differing), dict(one_sided), equal) == (1, {"accuracy": 1}, {"new_field": 1}, 0)
    # a field set aside (e.g. a solver diagnostic that follows the library builds) is not compared
    assert compare_records.compare(a, c, ("accuracy",))[3] == 1
