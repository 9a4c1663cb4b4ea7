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


def splits(table, repetitions=40):
    """Made-up single splits of every cell of ``table``: accuracies spread evenly around its mean."""
    rows = []
    for cell in table.itertuples():
        for repetition in range(repetitions):
            accuracy = cell.mean + 0.2 * (repetition / (repetitions - 1) - 0.5)
            rows.append(
                {"dataset": cell.dataset, "N": cell.N, "T": cell.T, "method": cell.method}
                | {"repetition": repetition, "accuracy": accuracy}
            )
    return pd.DataFrame(rows)


def draw_accuracy(accuracy_plot, monkeypatch, tmp_path, table, split_table=None):
    figures = []
    split_table = splits(table) if split_table is None else split_table
    monkeypatch.setattr(accuracy_plot, "parse_results_dir", lambda description: tmp_path)
    monkeypatch.setattr(accuracy_plot, "read_cells", lambda results: table)
    monkeypatch.setattr(accuracy_plot, "read_splits", lambda results, datasets: split_table)
    monkeypatch.setattr(accuracy_plot, "save", lambda figure, results, name: figures.append(figure))
    accuracy_plot.main()
    return figures[0]


def bands_of(ax):
    """Each single-split band drawn in ``ax``: (x centre, low, high), in drawing order."""
    return [
        (patch.get_x() + patch.get_width() / 2, patch.get_y(), patch.get_y() + patch.get_height())
        for container in ax.containers
        if container.get_label().endswith("central 95 % of single splits)")
        for patch in container.patches
    ]


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


def test_accuracy_plot_puts_single_split_bands_beside_the_papers_values(accuracy_plot, monkeypatch, tmp_path):
    table = cells((100, 400), Ns=(50, 80, 100))
    table.loc[table["method"] == "disdf", "paper"] = 0.60  # far below: still inside the axis
    split_table = splits(table)
    figure = draw_accuracy(accuracy_plot, monkeypatch, tmp_path, table, split_table)
    axes = [ax for ax in figure.axes if ax.get_visible()]
    assert [ax.get_title() for ax in axes] == ["N = 50", "N = 80", "N = 100"]  # every panel titled
    assert "not adjusted for multiplicity" in figure.get_suptitle()
    for ax, N in zip(axes, (50, 80, 100), strict=True):
        drawn = bands_of(ax)
        assert len(drawn) == 4  # two methods, two T
        papers = [line for line in ax.get_lines() if line.get_marker() == "x"]
        for method, paper in zip(("gcforest", "disdf"), papers, strict=True):
            for x, T in zip(paper.get_xdata(), (100, 400), strict=True):
                # the band sits at the paper's value's x, and spans the cell's 2.5th-97.5th percentile
                (band,) = [b for b in drawn if abs(b[0] - x) < 1e-9]
                values = split_table[
                    (split_table["N"] == N) & (split_table["T"] == T) & (split_table["method"] == method)
                ]["accuracy"]
                assert band[1:] == pytest.approx((values.quantile(0.025), values.quantile(0.975)))
        low, high = ax.get_ylim()
        for line in ax.get_lines():  # no value drawn beyond the axis
            assert all(low <= y <= high for y in line.get_ydata())
        assert all(low <= b[1] and b[2] <= high for b in drawn)


def test_a_cell_without_splits_is_refused(accuracy_plot, monkeypatch, tmp_path):
    table = cells((100, 400))
    with pytest.raises(SystemExit, match="No split records for ecoli N=50 T=400"):
        draw_accuracy(accuracy_plot, monkeypatch, tmp_path, table, splits(table[table["T"] == 100]))


def test_read_splits_reads_only_the_records_the_tables_were_made_from(tmp_path):
    import json

    from experiments.running.unit import TIMING_FIELDS
    from experiments.safety.generation import records_digest
    from scripts.figures.plotting import read_splits
    from tests.experiments.records_for_tests import a_record

    mine = [a_record(repetition=r, accuracy=0.5 + r / 10) for r in range(3)]
    other = a_record(config_hash="another", repetition=9, accuracy=0.1)
    (tmp_path / "raw").mkdir()
    lines = [json.dumps(record) for record in [*mine, other]]
    (tmp_path / "raw" / "ecoli.jsonl").write_text("\n".join(lines) + "\n")
    source = {
        "config_hash": "c",
        "records": 3,
        "records_digest": records_digest(pd.DataFrame(mine).to_dict("records"), TIMING_FIELDS),
    }
    (tmp_path / "outputs.json").write_text(json.dumps({"complete": True, "source": source, "files": {}}))
    found = read_splits(tmp_path, ["ecoli"])
    assert list(found["accuracy"]) == [0.5, 0.6, 0.7]  # the other config's record left out
    # a record added after the tables were made: the bands would not be the tables' splits
    extra = json.dumps(a_record(repetition=5, accuracy=0.9))
    (tmp_path / "raw" / "ecoli.jsonl").write_text("\n".join([*lines, extra]) + "\n")
    with pytest.raises(SystemExit, match="4 record"):
        read_splits(tmp_path, ["ecoli"])
    (tmp_path / "outputs.json").write_text(json.dumps({"complete": True, "files": {}}))
    with pytest.raises(SystemExit, match="names no records"):
        read_splits(tmp_path, ["ecoli"])


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

    for folder, changes in (("a", {}), ("b", {"fit_seconds": 9.0}), ("c", {"accuracy": 0.6, "new_field": 0})):
        (tmp_path / folder / "raw").mkdir(parents=True)
        (tmp_path / folder / "raw" / "ecoli.jsonl").write_text(
            json.dumps(a_record(split_units=1, **changes)) + "\n"
        )
    a, b, c = (compare_records.records_by_key(tmp_path / name) for name in "abc")
    assert compare_records.compare(a, b) == (1, {}, {}, 1)
    shared, differing, one_sided, equal = compare_records.compare(a, c)
    assert (shared, dict(differing), dict(one_sided), equal) == (1, {"accuracy": 1}, {"new_field": 1}, 0)
    # a field set aside (e.g. a solver diagnostic that follows the library builds) is not compared
    assert compare_records.compare(a, c, ("accuracy",))[3] == 1
