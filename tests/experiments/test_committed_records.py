"""The committed records are what the code computes: a sample of every committed experiment, rerun.

Each part of experiments.drivers.committed_sample.SAMPLES is a test of its own, so that pytest-xdist
spreads them over its workers; the fast tests show the comparison can fail and what it ignores.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from experiments.drivers import committed_sample
from experiments.drivers.committed_sample import (
    IGNORED_FIELDS,
    NOT_SAMPLED,
    RECORD,
    SAMPLES,
    Comparison,
    Difference,
    Part,
    compare_part,
    records_of,
    rerun_part,
    sample_config,
    sample_keys,
    sample_named,
)
from experiments.paths import ROOT
from experiments.running.composition import compose_config
from experiments.running.plan import plan_run
from experiments.running.records import ABSENT, RecordStore
from experiments.safety.guards import job_folder

PARTS = [
    pytest.param(sample, part, id=f"{sample.name}-{part.label}")
    for sample in SAMPLES
    for part in sample.parts
]


@pytest.mark.committed_records
@pytest.mark.parametrize(("sample", "part"), PARTS)
def test_a_rerun_of_the_sample_equals_the_committed_records(sample, part, data_dir, tmp_path):
    comparison = rerun_part(sample, part, tmp_path, n_jobs=1)
    assert comparison.records > 0
    assert not comparison.differences, comparison.summary(f"{sample.name} ({part.label})")


def headline_ecoli(tmp_path: Path):
    """The config of the headline's Ecoli part and its committed records, by key."""
    plan = plan_run(
        sample_config(sample_named("headline"), Part("ecoli", ("datasets=[ecoli]",)), tmp_path / "rerun")
    )
    keys = sample_keys(plan)
    return plan, keys, records_of(ROOT / "results", ["ecoli"], keys)


def write_copy(folder: Path, records: list[dict]) -> Path:
    RecordStore(folder / "raw").append_many(records)
    return folder


def test_an_altered_committed_value_and_a_lost_record_are_differences_and_timings_are_not(tmp_path):
    cfg, keys, committed = headline_ecoli(tmp_path)
    assert len(committed) == len(keys) == 32  # 4 N x 4 T x 2 methods, repetition 0
    altered_key, lost_key, *others = sorted(committed, key=repr)
    ignored = dict.fromkeys(sorted(IGNORED_FIELDS), 123.0)
    copy = [{**committed[key], **ignored} for key in others]  # every timing and diagnostic moved
    # one more test example right (a possible accuracy: the reader refuses one no test set gives)
    altered = committed[altered_key]["accuracy"] + 1 / committed[altered_key]["n_test"]
    copy.append({**committed[altered_key], "accuracy": altered})
    copy_dir = write_copy(tmp_path / "copy", copy)

    comparison = compare_part(cfg, copy_dir, ROOT / "results")

    assert comparison.differences == [
        Difference(
            altered_key,
            "accuracy",
            altered,
            committed[altered_key]["accuracy"],
        ),
        Difference(lost_key, RECORD, ABSENT, committed[lost_key]),
    ]
    assert str(comparison.differences[1]) == f"{lost_key}: no committed record"
    assert (comparison.records, comparison.equal_records) == (32, 30)
    assert comparison.summary("headline").startswith("headline: 30/32 records equal; 2 differences:")


def test_a_field_on_one_side_only_is_a_difference(tmp_path):
    cfg, _, committed = headline_ecoli(tmp_path)
    copy = [{**record, "new_field": 1} for record in committed.values()]
    comparison = compare_part(cfg, ROOT / "results", write_copy(tmp_path / "copy", copy))
    assert {(d.field, d.committed, d.recomputed) for d in comparison.differences} == {
        ("new_field", ABSENT, 1)
    }
    assert comparison.equal_records == 0


def test_a_rerun_refuses_a_folder_that_holds_records(tmp_path):
    """run_units would resume there: its records would be compared, not recomputed ones."""
    _, _, committed = headline_ecoli(tmp_path)
    folder = write_copy(tmp_path / "old", list(committed.values()))
    with pytest.raises(ValueError, match="already holds records"):
        rerun_part(sample_named("headline"), Part("ecoli", ("datasets=[ecoli]",)), folder)


def test_equal_records_make_one_line():
    assert Comparison(128, []).summary("headline") == "headline: 128/128 records equal"
    many = Comparison(30, [Difference(("ecoli", i), "accuracy", 0.5, 0.6) for i in range(25)])
    lines = many.summary("metric", listed=3).splitlines()
    assert lines[0] == "metric: 5/30 records equal; 25 differences:"
    assert lines[1:] == [
        "  ('ecoli', 0) accuracy: committed 0.5, recomputed 0.6",
        "  ('ecoli', 1) accuracy: committed 0.5, recomputed 0.6",
        "  ('ecoli', 2) accuracy: committed 0.5, recomputed 0.6",
        "  ... and 22 more differences",
    ]


def committed_raw_folders() -> set[str]:
    """The folders of committed raw records (git's, not what a local run left in results/)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "results"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return {str(Path(path).parent.parent) for path in listed if Path(path).parent.name == "raw"}


def test_every_committed_folder_is_sampled_or_said_not_to_be():
    sampled = {str(Path(s.folder) / p.subfolder) for s in SAMPLES for p in s.parts}
    assert sampled.isdisjoint(NOT_SAMPLED)
    assert committed_raw_folders() == sampled | set(NOT_SAMPLED)


@pytest.mark.parametrize("sample", SAMPLES, ids=[s.name for s in SAMPLES])
def test_a_sample_reads_where_its_experiment_writes(sample):
    # A one-part sample's own overrides choose its folder (e.g. model.max_pairs for results/pair_draws).
    own = sample.parts[0].overrides if len(sample.parts) == 1 else ()
    committed = compose_config(f"experiment={sample.experiment}", *own, return_hydra_config=True)
    assert sample.folder == committed.runtime.output_dir
    swept = committed.hydra.sweeper.params
    if swept:  # a multirun sweep: one part per job, in the job's folder (experiments.safety.guards)
        jobs = [f"{name}={value}" for name, values in swept.items() for value in values.split(",")]
        assert sorted(p.overrides for p in sample.parts) == sorted((job,) for job in jobs)
        assert all(p.subfolder == job_folder(p.overrides) for p in sample.parts)
    else:
        assert all(p.subfolder == "" for p in sample.parts)


def test_the_command_line_says_one_line_per_experiment_and_fails_on_a_difference(monkeypatch, capsys):
    found = {"metric": Comparison(16, [Difference(("k",), "accuracy", 0.5, 0.6)])}
    monkeypatch.setattr(
        committed_sample,
        "rerun_sample",
        lambda sample, folder, n_jobs: found.get(sample.name, Comparison(8, [])),
    )
    assert committed_sample.main(["--experiment", "baselines"]) == 0
    assert capsys.readouterr().out == "baselines: 8/8 records equal\n"
    assert committed_sample.main([]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines if not line.startswith(" ")] == [s.name for s in SAMPLES]
    assert "metric: 15/16 records equal; 1 differences:" in lines


def test_the_sample_configs_have_the_committed_hash_and_one_repetition(tmp_path):
    for sample in SAMPLES:
        for part in sample.parts:
            plan = plan_run(sample_config(sample, part, tmp_path))
            assert plan.protocol.repetitions == 1
            with (ROOT / sample.folder / part.subfolder / "runs.jsonl").open() as runs:
                hashes = {json.loads(line)["config_hash"] for line in runs}
            assert {key[-1] for key in sample_keys(plan)} <= hashes, (sample.name, part.label)
