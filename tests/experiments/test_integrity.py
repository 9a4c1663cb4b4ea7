"""No silent wrong number: what a run's reader counts, what its outputs are made of, and what a
command refuses. Each test here was written against a way the runner once gave a wrong number or a
traceback without saying so (records outside the grid counted, tables of two generations side by
side, a sweep's jobs sharing one folder, Hydra's multi-line refusals)."""

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from experiments.paths import ROOT
from experiments.reporting.report import write_protocol
from experiments.reporting.section import ReportContext
from experiments.running.composition import compose_config, config_hash
from experiments.running.plan import plan_run
from experiments.running.records import RecordStore
from experiments.safety.generation import (
    IncompleteOutputsError,
    add_to_generation,
    check_generation,
    new_generation,
)
from tests.experiments.records_for_tests import a_record

SMOKE = ("experiment=smoke", "datasets=[ecoli]", "protocol.repetitions=2")


def smoke_config(tmp_path, *overrides):
    return compose_config(*SMOKE, f"runtime.output_dir={tmp_path / 'out'}", "runtime.n_jobs=1", *overrides)


def smoke_record(cfg, **changes):
    """A record the smoke config could have written (ecoli, N=30: 20 test examples)."""
    return a_record(config_hash=config_hash(cfg), **changes)


def read_with_warnings(store, grid):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        records = store.read("ecoli", grid)
    return records, " | ".join(str(w.message) for w in caught)


# (changes to a valid record, the warning): each record is impossible or outside a 2-repetition grid.
NOT_COUNTED = [
    (
        "a repetition past the protocol's",
        {"repetition": 7},
        r"outside this run's grid .*repetition 7 is not in \[0, 2\)",
    ),
    ("a huge repetition", {"repetition": 10**30}, r"repetition 1000000000000000000000000000000 is not in"),
    ("a negative repetition", {"repetition": -1}, r"'repetition' is -1, not a repetition number"),
    ("a cascade with no level", {"n_levels": 0, "level_scores": []}, r"'n_levels' is 0: a gcforest cascade"),
    (
        "a test set of the wrong size",
        {"n_test": 7, "accuracy": 3 / 7},
        r"'n_test' is 7; the split rule gives 20",
    ),
    ("an accuracy no test set gives", {"accuracy": 0.512}, r"not a whole number of its 20 test examples"),
    (
        "an N outside the grid",
        {"N": 50, "n_test": 33, "accuracy": 11 / 33},
        r"N 50 is not in this run's \[30\]",
    ),
    (
        "a level score above 1",
        {"level_scores": [1.5]},
        r"'level_scores' is \[1\.5\], not numbers in \[0, 1\]",
    ),
]


@pytest.mark.parametrize(("name", "changes", "warning"), NOT_COUNTED, ids=[c[0] for c in NOT_COUNTED])
def test_a_record_the_grid_or_the_split_rule_forbids_is_not_counted_and_named(
    tmp_path, name, changes, warning
):
    cfg = smoke_config(tmp_path)
    grid = plan_run(cfg).grid
    store = RecordStore(tmp_path / "raw")
    store.append_many([smoke_record(cfg), smoke_record(cfg, method="disdf")])
    store.append_many([smoke_record(cfg, **{"repetition": 1, **changes})])
    records, said = read_with_warnings(store, grid)
    assert [(r["method"], r["repetition"]) for r in records] == [("gcforest", 0), ("disdf", 0)]
    assert str(store.path("ecoli")) in said and "(line 3)" in said
    assert pytest.importorskip("re").search(warning, said), said


def test_a_baseline_with_levels_is_not_counted(tmp_path):
    cfg = compose_config("experiment=baselines", "datasets=[ecoli]", "protocol.Ns=[50]")
    store = RecordStore(tmp_path / "raw")
    good = a_record(config_hash=config_hash(cfg), method="knn", N=50, T=100, n_test=33, accuracy=11 / 33)
    store.append_many([{**good, "n_levels": 0, "level_scores": []}, {**good, "repetition": 1}])
    records, said = read_with_warnings(store, plan_run(cfg).grid)
    assert len(records) == 1 and "method 'knn' has no cascade" in said


def test_tables_count_only_the_grid(tmp_path, data_dir):
    """The reported case: a repetition-7 record in a 2-repetition protocol made a cell 0.467 (3)."""
    cfg = smoke_config(tmp_path, f"data.dir={data_dir}")
    store = RecordStore(tmp_path / "out" / "raw")
    store.append_many(
        [
            smoke_record(cfg, method=m, repetition=r, accuracy=0.7)
            for r in (0, 1)
            for m in ("gcforest", "disdf")
        ]
    )
    store.append_many([smoke_record(cfg, repetition=7, accuracy=0.0)])
    with pytest.warns(UserWarning, match="repetition 7 is not in"):
        cells = write_protocol(plan_run(cfg))
    assert set(cells["n"]) == {2} and set(cells["mean"].round(3)) == {0.7}


def test_every_committed_record_passes_its_experiments_checks():
    """The checks accept every record the project committed (none is refused, none dropped)."""
    experiments = [("paper", ()), ("ablation_same_examples", ()), ("baselines", ()), ("metric", ())]
    experiments += [
        ("audit", (f"audit={path.name.split('=')[1]}",), path.name)
        for path in sorted(Path("results/audit").glob("audit=*"))
    ]
    for experiment, overrides, *folder in experiments:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            records, _ = ReportContext(ROOT, ROOT / "results").records(
                experiment, *overrides, folder=folder[0] if folder else ""
            )
        assert len(records) > 0, experiment


def test_reading_an_intact_records_file_never_opens_it_for_writing(tmp_path, monkeypatch):
    """A read-only raw/ that holds every unit can be read and resumed (root ignores permissions, so
    the test catches any open for writing instead)."""
    store = RecordStore(tmp_path / "raw")
    store.append_many([a_record(), a_record(method="disdf")])
    import builtins

    real_open = builtins.open

    def read_only_open(file, mode="r", *args, **kwargs):
        if any(flag in mode for flag in "wa+x"):
            raise PermissionError(13, "Permission denied (read-only folder)", str(file))
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", read_only_open)
    store.repair("ecoli")
    assert len(store.read("ecoli")) == 2


def test_a_line_that_is_not_utf8_is_named_not_a_traceback(tmp_path):
    store = RecordStore(tmp_path / "raw")
    store.append_many([a_record()])
    with open(store.path("ecoli"), "ab") as handle:
        handle.write(b"\xff\xfe not text\n")
    with pytest.warns(UserWarning, match=r"ecoli\.jsonl:2: dropping a line that is not UTF-8 text"):
        assert len(store.read("ecoli")) == 1


# --- outputs of one generation -------------------------------------------------------------------


def written_outputs(tmp_path, data_dir):
    cfg = smoke_config(tmp_path, f"data.dir={data_dir}")
    store = RecordStore(tmp_path / "out" / "raw")
    store.append_many(
        [smoke_record(cfg, method=m, repetition=r) for r in (0, 1) for m in ("gcforest", "disdf")]
    )
    write_protocol(plan_run(cfg))
    return cfg, tmp_path / "out"


def test_outputs_are_one_generation_and_a_mixed_set_is_refused(tmp_path, data_dir):
    cfg, out = written_outputs(tmp_path, data_dir)
    manifest = check_generation(out)
    assert manifest["source"]["records"] == 4 and manifest["source"]["config_hash"] == config_hash(cfg)
    assert {"tables/ecoli.csv", "tables/ecoli.md", "tables/ecoli.tex", "REPORT.md"} <= set(manifest["files"])
    (out / "tables" / "ecoli.md").write_text("a table of other records")
    with pytest.raises(IncompleteOutputsError, match=r"ecoli\.md is not the file outputs\.json lists"):
        check_generation(out)


def test_an_interrupted_write_is_marked_incomplete(tmp_path, data_dir, monkeypatch):
    cfg, out = written_outputs(tmp_path, data_dir)
    import experiments.reporting.report as report

    def killed(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(report, "put_section", killed)  # tables written, REPORT.md not
    with pytest.raises(KeyboardInterrupt):
        write_protocol(plan_run(cfg))
    with pytest.raises(IncompleteOutputsError, match="incomplete"):
        check_generation(out)
    monkeypatch.undo()
    write_protocol(plan_run(cfg))
    assert check_generation(out)["complete"]


def test_a_table_of_another_run_or_an_older_figure_is_named(tmp_path, data_dir):
    _, out = written_outputs(tmp_path, data_dir)
    (out / "tables" / "ionosphere.md").write_text("another run's table")
    with pytest.raises(IncompleteOutputsError, match=r"ionosphere\.md is not of this folder's records"):
        check_generation(out)
    (out / "tables" / "ionosphere.md").unlink()
    figure = out / "figures" / "a.png"
    figure.parent.mkdir()
    figure.write_bytes(b"drawn from these tables")
    add_to_generation(out, [figure])
    check_generation(out)
    with new_generation(out, {"records": 5}) as written:  # new records: the figure is now older
        written.append(out / "tables" / "ecoli.csv")
    with pytest.raises(IncompleteOutputsError, match=r"a\.png was made from earlier records"):
        check_generation(
            out, may_be_older=("REPORT.md", "APPENDIX.md", "PERFORMANCE.md", "report/", "tables/")
        )
    documents = ("REPORT.md", "APPENDIX.md", "PERFORMANCE.md")
    assert check_generation(out, may_be_older=("figures/", *documents, "report/", "tables/"))


def test_figures_refuse_incomplete_tables(tmp_path, data_dir):
    _, out = written_outputs(tmp_path, data_dir)
    manifest = json.loads((out / "outputs.json").read_text())
    (out / "outputs.json").write_text(json.dumps({**manifest, "complete": False}))
    result = subprocess.run(
        [sys.executable, "scripts/figures/plot_accuracy_vs_t.py", "--results", str(out)],
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0 and "Nothing was drawn." in result.stderr and "incomplete" in result.stderr
    assert not (out / "figures").exists()


# --- sweeps ----------------------------------------------------------------------------------------


def test_two_jobs_of_one_sweep_never_share_a_folder(tmp_path):
    from hydra.types import RunMode
    from omegaconf import OmegaConf

    from experiments.safety.guards import claim_sweep_folder, sweep_job

    output = smoke_config(tmp_path).runtime.output_dir
    (tmp_path / "out").mkdir()

    def job(*task, sweep="multirun/1"):
        hydra = {"mode": RunMode.MULTIRUN, "overrides": {"task": list(task)}, "sweep": {"dir": sweep}}
        return sweep_job(OmegaConf.create({**hydra, "job": {"num": 0}}))

    claim_sweep_folder(output, job("model.tau=0.5"))
    claim_sweep_folder(output, job("model.tau=0.5"))  # the same job again (a resume) is welcome
    with pytest.raises(ValueError, match=r"is the folder of this sweep's job \['model\.tau=0\.5'\] already"):
        claim_sweep_folder(output, job("model.tau=1.5"))
    claim_sweep_folder(output, job("model.tau=1.5", sweep="multirun/2"))  # a later sweep takes it over


# --- a solver failure is said on the console ------------------------------------------------------


def test_a_split_whose_solves_fell_back_is_said_on_the_console(caplog):
    from experiments.running.runner import say_solver_failures

    warning = "solver 'qp' failed on 2 of 12 weight problems at level 1; solved them with solver_fallback=..."
    records = [a_record(method="disdf", solver_fallbacks=2, warnings=[warning]), a_record()]
    with caplog.at_level("WARNING"):
        say_solver_failures(records)
    assert "ecoli, N=30, repetition 0: weight solves failed" in caplog.text and "qp' failed" in caplog.text
    caplog.clear()
    say_solver_failures([a_record()])
    assert caplog.text == ""


# --- every refused command is one line -------------------------------------------------------------

REFUSED = [
    ("a misspelt key", ["model.lamda=1"], r"Unknown config key model\.lamda \(did you mean model\.lambda_"),
    (
        "lambda without _",
        ["model.lambda=1"],
        r"Unknown config key model\.lambda \(did you mean model\.lambda_",
    ),
    ("an unknown experiment", ["experiment=nope"], r"Could not find 'experiment/nope'"),
    ("N beyond the data", ["protocol.Ns=[100000]"], r"protocol\.Ns=\[100000\]: ionosphere: N=100000"),
    ("no test example", ["protocol.test_fraction=0.001"], r"protocol\.test_fraction=0\.001 gives round"),
    (
        "trees beyond memory",
        ["protocol.Ts=[1000000000]"],
        r"InsufficientMemoryError: protocol\.Ts=\[1000000000\]",
    ),
    ("tau beyond float64", ["model.tau=1e300"], r"tau must be"),
    ("an empty output folder", ["runtime.output_dir=''"], r"runtime\.output_dir is empty"),
    ("an experiment name that climbs", ["experiment_name=.."], r"experiment_name must be one plain folder"),
    (
        "a scheduler that does not answer",
        ["runtime=dask", "runtime.scheduler_address=tcp://127.0.0.1:9"],
        r"runtime\.scheduler_address=tcp://127\.0\.0\.1:9 does not answer",
    ),
    ("SLURM without SLURM", ["-m", "hydra/launcher=slurm"], r"hydra/launcher=slurm submits through SLURM"),
]


@pytest.mark.parametrize(("name", "overrides", "message"), REFUSED, ids=[c[0] for c in REFUSED])
def test_a_refused_command_is_one_line_and_exit_2(tmp_path, data_dir, name, overrides, message):
    import re

    env = {**os.environ, "DISDF_DATA_DIR": str(data_dir), "PATH": "/usr/bin:/bin"}
    env["PATH"] = f"{Path(sys.executable).parent}:{env['PATH']}"
    command = [
        sys.executable,
        "-m",
        "experiments.run",
        "experiment=smoke",
        "runtime.progress=false",
        *overrides,
    ]
    result = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    output = (result.stdout + result.stderr).strip()
    assert result.returncode == 2, output
    lines = [line for line in output.splitlines() if "Nothing was run." in line]
    assert len(lines) == 1 and "Traceback" not in output, output
    assert re.search(message, lines[0]), output
    assert not (tmp_path / "results").exists()


# --- make reproduce computes ------------------------------------------------------------------------


def test_make_reproduce_computes_into_its_own_folder_then_compares_and_installs():
    """On a fresh clone it must recompute (the committed records would make a resume run nothing)."""
    plan = subprocess.run(["make", "-n", "reproduce"], capture_output=True, text=True, check=True).stdout
    steps = [
        line
        for line in plan.splitlines()
        if "experiments.run" in line or "compare_records" in line or "cp " in line
    ]
    assert "experiment=paper" in steps[0] and "runtime.output_dir=build/reproduce/fast" in steps[0], plan
    assert "compare_records.py results build/reproduce/fast" in steps[1], plan
    assert any(step.endswith("cp -r build/reproduce/fast/raw results/raw") for step in steps[2:]), plan


def test_a_method_edited_to_another_estimator_is_another_config():
    """The estimator that makes a record is in its hash: editing configs/method/gcforest.yaml's
    _target_ to DisDF once kept the hash, and a resumed run merged DisDF records into gcF's."""
    base = config_hash(compose_config("experiment=smoke"))
    edited = compose_config("experiment=smoke", "methods.gcforest._target_=disdf.DisDFClassifier")
    assert config_hash(edited) != base
    nested = compose_config("experiment=mgs", "methods.gcforest_mgs.cascade._target_=disdf.DisDFClassifier")
    assert config_hash(nested) != config_hash(compose_config("experiment=mgs"))
    # the target as written: another path to the same class is another config (never merged, rerun)
    alias = compose_config(
        "experiment=smoke", "methods.gcforest._target_=disdf.cascade.CascadeForestClassifier"
    )
    assert config_hash(alias) != base


def test_every_committed_folder_holds_the_hash_its_configs_compose():
    """Each committed folder's configs.json names the overrides of its records: composed by today's
    code they give its key, and every record there carries that key (the records a folder without
    configs.json holds, results/sklearn, carry the hash of another folder's config). Fails when what
    the hash covers changed and the records were not moved (python -m experiments.drivers.rehash_records)."""
    from experiments.drivers.sign_records import record_files
    from experiments.running.folder_configs import CONFIGS_FILE, folder_configs

    composed: dict[Path, set[str]] = {}
    for path in sorted((ROOT / "results").rglob(CONFIGS_FILE)):
        configs = folder_configs(path.parent)
        assert {config_hash(compose_config(*entry["overrides"])) for entry in configs.values()} == set(
            configs
        )
        composed[path.parent] = set(configs)
    every_hash = set().union(*composed.values())
    for path in record_files([ROOT / "results"]):
        hashes = {json.loads(line)["config_hash"] for line in path.read_text().splitlines()}
        folder = path.parent.parent
        assert hashes <= composed.get(folder, every_hash), path


def test_rehashing_moves_records_and_their_digests_and_refuses_an_edited_record(tmp_path, capsys):
    from experiments.drivers import rehash_records
    from experiments.running.records import digest_problem, signed

    folder = tmp_path / "results" / "smoke"
    (folder / "raw").mkdir(parents=True)
    (folder / "configs.json").write_text(
        json.dumps({"000000000000": {"experiment": "smoke", "overrides": ["experiment=smoke"]}})
    )
    record = signed({"config_hash": "000000000000", "dataset": "ecoli", "accuracy": 0.5, "N": 50})
    records = folder / "raw" / "ecoli.jsonl"
    edited = json.dumps({**record, "accuracy": 0.9}, sort_keys=True) + "\n"
    records.write_text(json.dumps(record, sort_keys=True) + "\n" + edited)
    (folder / "runs.jsonl").write_text(json.dumps({"config_hash": "000000000000", "n_jobs": 2}) + "\n")
    before = {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()}
    with pytest.raises(SystemExit, match="line 2: field 'accuracy' does not match its digest"):
        rehash_records.main(["--results", str(tmp_path / "results")])
    assert before == {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()}

    records.write_text(json.dumps(record, sort_keys=True) + "\n")
    assert rehash_records.main(["--results", str(tmp_path / "results"), "--check"]) == 1
    assert rehash_records.main(["--results", str(tmp_path / "results")]) == 0
    new = config_hash(compose_config("experiment=smoke"))
    (moved,) = [json.loads(line) for line in records.read_text().splitlines()]
    assert moved["config_hash"] == new and digest_problem(moved) is None
    assert {key: value for key, value in moved.items() if key not in ("config_hash", "digests")} == {
        key: value for key, value in record.items() if key not in ("config_hash", "digests")
    }
    assert json.loads((folder / "runs.jsonl").read_text())["config_hash"] == new
    assert list(json.loads((folder / "configs.json").read_text())) == [new]
    assert f"config 000000000000 -> {new}" in capsys.readouterr().out
    assert rehash_records.main(["--results", str(tmp_path / "results"), "--check"]) == 0
