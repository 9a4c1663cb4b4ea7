"""What a run records beyond accuracy: the code it started from, and (when its config asks) each
record's confusion counts, from which later metrics are computed without refitting."""

import numpy as np
import pytest

import experiments.running.runner as runner
from experiments.reporting.sections.protocol import code_lines
from experiments.running.composition import compose_config
from experiments.running.plan import plan_run
from experiments.running.records import RecordStore, record_problem, signed
from experiments.running.runner import run_units
from experiments.running.unit import RERUN_VARYING_FIELDS


def smoke(output, data_dir, *overrides):
    cfg = compose_config(
        "experiment=smoke",
        f"runtime.output_dir={output}",
        "runtime.progress=false",
        "runtime.n_jobs=1",
        "protocol.repetitions=1",
        f"data.dir={data_dir}",
        *overrides,
    )
    return plan_run(cfg)


def records(output):
    store = RecordStore(output / "raw")
    return sorted(
        (r for d in ("ionosphere", "ecoli") for r in store.read(d)),
        key=lambda r: (r["dataset"], r["method"], r["repetition"]),
    )


@pytest.fixture(scope="module")
def with_and_without(tmp_path_factory, data_dir):
    plain, counted = tmp_path_factory.mktemp("plain"), tmp_path_factory.mktemp("counted")
    run_units(smoke(plain, data_dir))
    summary = run_units(smoke(counted, data_dir, "protocol.record_confusion=true"))
    return records(plain), records(counted), summary


def test_confusion_counts_add_fields_and_change_no_other(with_and_without):
    plain, counted, _ = with_and_without
    assert plain and len(plain) == len(counted)
    assert not any("confusion" in r or "balanced_accuracy" in r for r in plain)
    for before, after in zip(plain, counted, strict=True):
        kept = {k: v for k, v in after.items() if k not in ("confusion", "balanced_accuracy")}
        assert {k: v for k, v in kept.items() if k not in RERUN_VARYING_FIELDS} == {
            k: v for k, v in before.items() if k not in RERUN_VARYING_FIELDS
        }


def test_the_confusion_counts_give_accuracy_and_balanced_accuracy(with_and_without):
    _, counted, _ = with_and_without
    for record in counted:
        table = np.array(record["confusion"])
        assert table.sum() == record["n_test"]
        assert np.trace(table) == round(record["accuracy"] * record["n_test"])
        present = table.sum(axis=1) > 0
        recall = np.diag(table)[present] / table.sum(axis=1)[present]
        assert recall.mean() == pytest.approx(record["balanced_accuracy"], abs=1e-12)
        assert record_problem(record, record["dataset"]) is None


def test_a_confusion_table_that_disagrees_with_its_record_is_named():
    base = {
        "dataset": "ecoli", "N": 30, "T": 10, "method": "gcforest", "repetition": 0, "seed": 1,
        "n_test": 4, "accuracy": 0.5, "n_levels": 1, "level_scores": [0.5], "config_hash": "abc",
        "version": "0.1.0", "fit_seconds": 0.1, "predict_seconds": 0.1, "split_units": 2,
    }  # fmt: skip
    assert record_problem(signed({**base, "confusion": [[2, 0], [2, 0]]}), "ecoli") is None
    assert "n_test" in record_problem(signed({**base, "confusion": [[2, 0], [1, 0]]}), "ecoli")
    assert "accuracy" in record_problem(signed({**base, "confusion": [[1, 1], [2, 0]]}), "ecoli")
    assert "square" in record_problem(signed({**base, "confusion": [[4, 0]]}), "ecoli")


def test_a_run_records_the_commit_it_started_from(with_and_without):
    _, _, summary = with_and_without
    assert summary["start_commit"] and summary["start_dirty"] == summary["start_commit"].endswith("+")
    assert "commit" not in summary


def test_a_checkout_that_moves_during_a_run_is_recorded_at_both_ends(tmp_path, data_dir, monkeypatch):
    commits = iter(["aaaaaaa", "bbbbbbb+"])
    monkeypatch.setattr(runner, "code_commit", lambda: next(commits))
    summary = run_units(smoke(tmp_path, data_dir, "protocol.Ts=[5]"))
    assert (summary["start_commit"], summary["start_dirty"], summary["end_commit"]) == (
        "aaaaaaa",
        False,
        "bbbbbbb+",
    )
    assert code_lines([summary]) == [
        f"- Code of the run of {summary['started'][:16].replace('T', ' ')}: started from `aaaaaaa` (clean); "
        "the checkout was at `bbbbbbb+` when it ended."
    ]


def test_a_dirty_start_and_an_old_end_only_line_say_so():
    dirty = {"started": "2026-11-28T10:00:00+00:00", "start_commit": "abc1234+", "start_dirty": True}
    old = {"started": "2026-11-27T05:35:16+00:00", "commit": "01400da+"}
    lines = code_lines([dirty, old])
    assert "started from `abc1234+` (with uncommitted changes)" in lines[0]
    assert "`01400da+` at its end (its start commit was not recorded" in lines[1]


def test_the_run_folders_report_names_the_code_its_records_came_from(tmp_path, data_dir):
    from experiments.reporting.report import write_protocol

    plan = smoke(tmp_path, data_dir, "protocol.Ts=[5]")
    summary = run_units(plan)
    write_protocol(plan)
    report = (tmp_path / "REPORT.md").read_text()
    state = "with uncommitted changes" if summary["start_dirty"] else "clean"
    assert f"started from `{summary['start_commit']}` ({state})" in report
