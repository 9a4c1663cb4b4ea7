"""Bad input to the runner and its data: config values, data files, the output folder, results
files torn by a crash or holding what is not a record. Nothing here touches the network: where a
missing file would be downloaded, the download fails as it does on an offline machine."""

import json
import os
import re
import shutil
from contextlib import nullcontext
from pathlib import Path

import pandas as pd
import pytest
from hydra.errors import ConfigCompositionException

from disdf import DataFileError
from experiments.running.composition import compose_config
from experiments.running.plan import plan_run
from experiments.running.records import RecordStore
from experiments.running.runner import run_units
from experiments.safety.durable import UnwritableFolderError
from tests.experiments.records_for_tests import a_record


def runner_config(tmp_path, data_dir, *overrides):
    return compose_config(
        "experiment=smoke",
        f"runtime.output_dir={tmp_path / 'out'}",
        f"data.dir={data_dir}",
        "runtime.progress=false",
        "runtime.n_jobs=1",
        *overrides,
    )


def copy_of_data(data_dir, tmp_path, damage=None):
    """The smoke run's two tables in a folder of their own, one of them damaged by ``damage(path)``."""
    folder = tmp_path / "data"
    folder.mkdir()
    for name in ("ionosphere.csv", "ecoli.csv"):
        shutil.copy(data_dir / name, folder / name)
    if damage is not None:
        damage(folder / "ecoli.csv")
    return folder


def truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:-500])


def alter(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[200] = ord("7") if data[200] != ord("7") else ord("8")
    path.write_bytes(bytes(data))


def a_file_in_the_way(tmp_path):
    (tmp_path / "occupied").write_text("a file, not a folder")
    return [f"runtime.output_dir={tmp_path / 'occupied' / 'results'}"]


RUNNER_CASES = [
    ("unknown dataset", ["datasets=[iris]"], ValueError, r"datasets must name .*\(unknown: \['iris'\]\)"),
    ("no dataset", ["datasets=[]"], ValueError, r"datasets must name one or more of"),
    # Hydra lets keys added with + past the schema; each is refused, naming it and the known keys.
    (
        "unknown model key",
        ["+model.lamda_=1"],
        ValueError,
        r"model\.lamda_; the keys of model are .*'lambda_'",
    ),
    ("unknown solver key", ["+solver.tolerance=1"], ValueError, r"solver\.tolerance; the keys of solver"),
    ("unknown protocol key", ["+protocol.reps=3"], ValueError, r"protocol\.reps; the keys of protocol"),
    ("unknown runtime key", ["+runtime.jobs=2"], ValueError, r"runtime\.jobs; the keys of runtime"),
    ("a dataset added with +", ["+dataset=mnist"], ValueError, r"\['dataset'\].*datasets=\[mnist\]"),
    # A grid value twice would run (and count) its units twice.
    ("a T twice", ["protocol.Ts=[10,10]"], ValueError, r"protocol\.Ts lists \[10\] more than once"),
    ("an N twice", ["protocol.Ns=[30,30]"], ValueError, r"protocol\.Ns lists \[30\] more than once"),
    ("a dataset twice", ["datasets=[ecoli,ecoli]"], ValueError, r"datasets lists \['ecoli'\] more than once"),
    ("n_jobs = 0", ["runtime.n_jobs=0"], ValueError, r"runtime\.n_jobs must be a nonzero integer"),
    ("n_jobs below -cores", ["runtime.n_jobs=-1000"], ValueError, r"runtime\.n_jobs=-1000 asks for"),
    ("tol = nan in the config", ["model.tol=nan"], ValueError, r"tol must be a finite number >= 0; got nan"),
    (
        "a solver option of the wrong type",
        ["solver.options.tol=x"],
        TypeError,
        r"tol must be a finite number > 0",
    ),
    (
        "a pair-draw option of the wrong type",
        ["solver=stochastic_frank_wolfe", "solver.options.batch_size=big"],
        TypeError,
        r"batch_size must be an int in \[1, inf\]; got 'big'",
    ),
    (
        "max_iter < 0",
        ["solver=frank_wolfe", "solver.options.max_iter=-5"],
        ValueError,
        r"max_iter must be an int",
    ),
    (
        "an unknown method",
        ["protocol.methods=[gcforest,knn]"],
        ValueError,
        r"protocol\.methods must list .*'disdf', 'gcforest'",
    ),
    (
        "a method spec that builds nothing",
        ["+methods.disdf.momentum=0.9"],
        ValueError,
        r"methods\.disdf does not build an estimator",
    ),
    ("unknown top-level key", ["+lambda_=1"], ValueError, r"Unknown config key\(s\) \['lambda_'\]"),
    (
        "N + test size larger than the dataset",
        ["datasets=[parkinsons]", "protocol.Ns=[150]", "protocol.cap_test_size=false"],
        ValueError,
        "parkinsons: N=150 training \\+ 100 test examples exceed its 195",
    ),
    (
        "N larger than the dataset",
        ["datasets=[ecoli]", "protocol.Ns=[400]"],
        ValueError,
        "ecoli: N=400 training .* exceed its 336",
    ),
    ("N = 0", ["protocol.Ns=[0]"], ValueError, "protocol.Ns must be a non-empty list of positive integers"),
    ("T = 0", ["protocol.Ts=[10,0]"], ValueError, r"protocol.Ts must be .*positive integers; got \[10, 0\]"),
    ("T < 0", ["protocol.Ts=[-5]"], ValueError, "protocol.Ts must be"),
    (
        "repetitions = 0",
        ["protocol.repetitions=0"],
        ValueError,
        r"protocol: repetitions must be an int in \[1, inf\]; got 0",
    ),
    (
        "repetitions < 0",
        ["protocol.repetitions=-3"],
        ValueError,
        r"protocol: repetitions must be an int .*; got -3",
    ),
    (
        "test fraction = 0",
        ["protocol.test_fraction=0"],
        ValueError,
        "protocol: test_fraction must be a finite number > 0",
    ),
    (
        "test fraction = inf",
        ["protocol.test_fraction=inf"],
        ValueError,
        "protocol: test_fraction must be a finite",
    ),
    ("seed < 0", ["protocol.seed=-1"], ValueError, r"protocol: seed must be an int in \[0, inf\]"),
    (
        "lambda < 0 in the config",
        ["model.lambda_=-1"],
        ValueError,
        "Invalid model/solver config for disdf.*lambda_",
    ),
    ("unknown solver in the config", ["solver.name=adam"], ValueError, "Unknown solver 'adam'"),
    ("unknown engine", ["model.engine=gpu"], ValueError, "engine must be one of"),
    ("unknown solver option", ["+solver.options.momentum=0.9"], ValueError, r"solver_options \['momentum'\]"),
    ("unwritable output folder", a_file_in_the_way, UnwritableFolderError, "runtime.output_dir=.*occupied"),
]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_output_folder_is_refused_before_any_work(tmp_path, data_dir):
    folder = tmp_path / "read_only"
    folder.mkdir(mode=0o500)
    with pytest.raises(UnwritableFolderError, match=r"runtime\.output_dir=.*read_only.*Permission denied"):
        run_units(plan_run(runner_config(tmp_path, data_dir, f"runtime.output_dir={folder}")))


@pytest.mark.parametrize(
    ("name", "overrides", "error", "message"), RUNNER_CASES, ids=[c[0] for c in RUNNER_CASES]
)
def test_bad_run_config_fails_before_any_work(tmp_path, data_dir, name, overrides, error, message):
    extra = overrides(tmp_path) if callable(overrides) else overrides
    with pytest.raises(error, match=message):
        run_units(plan_run(runner_config(tmp_path, data_dir, *extra)))
    assert not (tmp_path / "out" / "raw").exists()


def test_dataset_group_and_typos_fail_at_composition(tmp_path, data_dir):
    """Datasets are chosen one way only, datasets=[...]: a dataset= override is refused, not ignored."""
    for override in ("dataset=mnist", "dataset=iris"):
        with pytest.raises(ConfigCompositionException, match="dataset"):
            runner_config(tmp_path, data_dir, override)
    with pytest.raises(ConfigCompositionException, match=r"protocol\.repetitions"):
        runner_config(tmp_path, data_dir, "protocol.repetitions=ten")


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (truncate, r"ecoli\.csv is altered or truncated: md5 [0-9a-f]{32}, expected df82cb11"),
        (alter, r"ecoli\.csv is altered or truncated: md5 [0-9a-f]{32}, expected df82cb11"),
        (lambda path: path.unlink(), r"ecoli\.csv is missing and could not be downloaded.*DISDF_DATA_DIR"),
    ],
    ids=["truncated", "altered", "missing, no network"],
)
def test_bad_data_file_is_named_before_any_work(tmp_path, data_dir, damage, message):
    """Every file is md5-checked; a missing one is fetched, which fails here as it does offline."""
    folder = copy_of_data(data_dir, tmp_path, damage)
    with pytest.raises(DataFileError, match=message):
        run_units(plan_run(runner_config(tmp_path, folder)))
    assert not (tmp_path / "out" / "raw").exists()


CORRUPTIONS = {
    # A crash half-way through writing a line: the torn tail is dropped, its unit runs again.
    "torn last line": lambda text: text + '{"dataset": "ecoli", "N": 30, "T": 10, "meth',
    # A record garbled in the middle of the file (not a crash of ours, but it happens to copies).
    "garbled line": lambda text: text.replace('{"N"', '{"N"#garbage', 1),
}


@pytest.mark.slow
@pytest.mark.parametrize("corruption", sorted(CORRUPTIONS))
def test_a_corrupted_results_file_is_repaired_by_rerunning_its_units(tmp_path, data_dir, corruption):
    config = runner_config(tmp_path, data_dir, "datasets=[ecoli]")
    assert run_units(plan_run(config))["units_run"] == 4
    raw = tmp_path / "out" / "raw" / "ecoli.jsonl"
    raw.write_text(CORRUPTIONS[corruption](raw.read_text()))
    with pytest.warns(UserWarning, match="cut a torn last line of 44 bytes and 0 complete|not valid JSON"):
        rerun = run_units(plan_run(config))
    assert rerun["units_run"] == (0 if corruption == "torn last line" else 1)
    with pytest.warns(UserWarning) if corruption == "garbled line" else nullcontext():
        records = RecordStore(tmp_path / "out" / "raw").read("ecoli")
    keys = [(r["T"], r["method"], r["repetition"]) for r in records]
    assert len(keys) == len(set(keys)) == 4


def test_a_split_torn_mid_write_is_cut_whole(tmp_path):
    """A kill in the middle of a split's write can leave whole lines before the torn one: they go too."""

    def split_records(repetition):
        return [
            a_record(N=30, T=T, method=m, repetition=repetition, split_units=4)
            for T in (10, 20)
            for m in ("gcforest", "disdf")
        ]

    store = RecordStore(tmp_path)
    store.append_many(split_records(0))
    intact = store.path("ecoli").read_bytes()
    torn = "".join(json.dumps(record) + "\n" for record in split_records(1)).encode()
    store.path("ecoli").write_bytes(intact + torn[: len(torn) // 2 + 7])
    with pytest.warns(UserWarning, match="cut a torn last line of .* bytes and 2 complete record"):
        store.repair("ecoli")
    assert store.path("ecoli").read_bytes() == intact
    assert len(store.completed("ecoli", "c")) == 4


COMMAND_LINE_CASES = [
    ("unknown key", lambda tmp_path, data_dir: ["+model.lamda_=1"], r"model\.lamda_; the keys of model"),
    (
        "unquoted non-ASCII folder",
        lambda tmp_path, data_dir: [f"runtime.output_dir={tmp_path}/résultats"],
        r"beyond ASCII only inside quotes; write runtime\.output_dir='.*/résultats'",
    ),
    (
        "altered data file",
        lambda tmp_path, data_dir: [f"data.dir={copy_of_data(data_dir, tmp_path, alter)}"],
        r"DataFileError: .*ecoli\.csv is altered or truncated",
    ),
]


@pytest.mark.parametrize(
    ("name", "overrides", "message"), COMMAND_LINE_CASES, ids=[c[0] for c in COMMAND_LINE_CASES]
)
def test_the_command_line_reports_a_bad_command_in_one_line(tmp_path, data_dir, name, overrides, message):
    """Exit 2, one message, no traceback, no work (run from tmp_path: nothing lands in the checkout)."""
    import subprocess
    import sys

    command = [sys.executable, "-m", "experiments.run", "experiment=smoke", "runtime.progress=false"]
    env = {**os.environ, "DISDF_DATA_DIR": str(data_dir)}
    result = subprocess.run(
        [*command, *overrides(tmp_path, data_dir)], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    output = result.stdout + result.stderr
    assert result.returncode == 2, output
    assert "Nothing was run." in output and "Traceback" not in output, output
    assert len(re.findall(message, output)) >= 1, output
    assert not (tmp_path / "results" / "smoke" / "raw").exists()


def test_a_quoted_non_ascii_output_folder_is_taken_as_written(tmp_path):
    folder = tmp_path / "résultats"
    composed = compose_config("experiment=smoke", f"runtime.output_dir='{folder}'")
    assert composed.runtime.output_dir == str(folder)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["experiment=nosuch"], r"Could not find 'experiment/nosuch'"),
        (
            ["experiment=smoke", "model.lamda=1"],
            r"Unknown config key model\.lamda \(did you mean model\.lambda_",
        ),
        (
            ["experiment=smoke", "protocol.repetitions=abc"],
            r"Error merging override protocol\.repetitions=abc",
        ),
    ],
)
def test_make_tables_refuses_a_bad_override_in_one_line(tmp_path, overrides, message):
    """`make tables` (experiments.reporting.report) refuses as the runner does: exit 2, one line."""
    import subprocess
    import sys

    command = [
        sys.executable,
        "-m",
        "experiments.reporting.report",
        *overrides,
        f"runtime.output_dir={tmp_path}",
    ]
    result = subprocess.run(command, capture_output=True, text=True)
    output = result.stdout + result.stderr
    assert result.returncode == 2, output
    assert len(output.strip().splitlines()) == 1 and "Traceback" not in output, output
    assert re.search(message, output), output
    assert list(tmp_path.iterdir()) == []


# (what is in the file after two valid records, the warning): each bad line is dropped, named by line.
BAD_RECORD_LINES = [
    ("duplicated line", json.dumps(a_record()), r"ecoli\.jsonl: dropping 1 duplicate record\(s\) \(line 3\)"),
    ("empty object", "{}", r"ecoli\.jsonl: dropping 1 line\(s\) .*\(line 3\): field 'digests' is missing"),
    (
        "accuracy edited by hand",
        json.dumps({**a_record(repetition=1, accuracy=0.8), "accuracy": 0.95}),
        r"\(line 3\): field 'accuracy' does not match its digest",
    ),
    (
        "unsigned, as written before digests",
        json.dumps({k: v for k, v in a_record(repetition=1).items() if k != "digests"}),
        r"\(line 3\): field 'digests' is missing .*experiments\.drivers\.sign_records",
    ),
    ("null", "null", r"\(line 3\): not a JSON object \(NoneType\)"),
    ("a list", "[1, 2]", r"\(line 3\): not a JSON object \(list\)"),
    ("accuracy as text", json.dumps(a_record(repetition=1, accuracy="0.8")), r"field 'accuracy' is '0\.8'"),
    (
        "NaN accuracy",
        json.dumps(a_record(repetition=1, accuracy=float("nan"))),
        r"'accuracy' is nan, not a number",
    ),
    (
        "accuracy above 1",
        json.dumps(a_record(repetition=1, accuracy=1.5)),
        r"'accuracy' is 1\.5, not a number",
    ),
    ("N as a bool", json.dumps(a_record(repetition=1, N=True)), r"field 'N' is True, not of type Integral"),
    ("another dataset", json.dumps(a_record(dataset="ionosphere")), r"'ionosphere' in the file of 'ecoli'"),
    ("an empty method", json.dumps(a_record(method="")), r"field 'method' is empty"),
    (
        "more levels than scores",
        json.dumps(a_record(n_levels=2)),
        r"field 'n_levels' is 2, with 1 level score",
    ),
]


@pytest.mark.parametrize(("name", "line", "warning"), BAD_RECORD_LINES, ids=[c[0] for c in BAD_RECORD_LINES])
def test_a_bad_or_duplicated_record_is_dropped_with_file_and_line_and_counts_nowhere(
    tmp_path, name, line, warning
):
    from experiments.analysis.cells import cell_table

    store = RecordStore(tmp_path)
    store.append_many([a_record(), a_record(method="disdf")])
    with open(store.path("ecoli"), "a") as handle:
        handle.write(line + "\n")
    with pytest.warns(UserWarning, match=warning):
        records = store.read("ecoli")
    assert [(r["method"], r["repetition"]) for r in records] == [("gcforest", 0), ("disdf", 0)]
    with pytest.warns(UserWarning, match=warning):
        assert store.completed("ecoli", "c") == {
            ("ecoli", 30, 10, "gcforest", 0),
            ("ecoli", 30, 10, "disdf", 0),
        }
    cells = cell_table(
        pd.DataFrame(records), pd.DataFrame(columns=["dataset", "N", "T", "method", "accuracy"])
    )
    assert list(cells["n"]) == [1, 1] and set(cells["dataset"]) == {"ecoli"}


def test_tables_count_distinct_repetitions_and_another_runs_table_goes_aloud(tmp_path, data_dir, caplog):
    from experiments.reporting.report import write_protocol
    from experiments.running.composition import config_hash

    cfg = runner_config(tmp_path, data_dir, "datasets=[ecoli]")
    store = RecordStore(tmp_path / "out" / "raw")
    digest = config_hash(cfg)
    good = [
        a_record(config_hash=digest, N=30, method=m, repetition=r)
        for r in (0, 1)
        for m in ("gcforest", "disdf")
    ]
    store.append_many(good)
    with open(store.path("ecoli"), "a") as handle:  # a copy of every line, and a stray ionosphere record
        handle.write("".join(json.dumps(record) + "\n" for record in good))
        handle.write(json.dumps(a_record(config_hash=digest, dataset="ionosphere")) + "\n")
    tables = tmp_path / "out" / "tables"
    tables.mkdir(parents=True)
    (tables / "ionosphere.md").write_text("another run's table")
    with pytest.warns(UserWarning, match="duplicate record"):
        cells = write_protocol(plan_run(cfg))
    assert set(cells["n"]) == {2} and set(cells["dataset"]) == {"ecoli"}
    # Tables of another run never sit beside this run's unannounced: removed, and said so.
    assert not (tables / "ionosphere.md").exists()
    assert "Removed 1 file(s) from" in caplog.text and "(ionosphere.md)" in caplog.text
    assert "no records of this run's config in this folder made them" in caplog.text
    assert "(2)" in (tables / "ecoli.md").read_text()


def test_a_run_on_fewer_datasets_keeps_the_same_configs_other_tables(tmp_path, data_dir, caplog):
    """A run of a config on ecoli only leaves that config's ionosphere tables (its records are in the
    folder) and says so; a table no record of the config made goes, in true words."""
    import logging

    from experiments.reporting.report import write_protocol
    from experiments.running.composition import config_hash

    both = runner_config(tmp_path, data_dir, "datasets=[ecoli,ionosphere]")
    digest = config_hash(both)
    store = RecordStore(tmp_path / "out" / "raw")
    for dataset in ("ecoli", "ionosphere"):
        store.append_many(
            [a_record(config_hash=digest, dataset=dataset, N=30, method=m) for m in ("gcforest", "disdf")]
        )
    write_protocol(plan_run(both))
    tables = tmp_path / "out" / "tables"
    ionosphere = (tables / "ionosphere.md").read_text()
    (tables / "parkinsons.md").write_text("a table no record of this config made")
    one = runner_config(tmp_path, data_dir, "datasets=[ecoli]")
    assert config_hash(one) == digest
    with caplog.at_level(logging.INFO):
        write_protocol(plan_run(one))
    assert (tables / "ionosphere.md").read_text() == ionosphere
    assert not (tables / "parkinsons.md").exists()
    assert "Kept 3 file(s)" in caplog.text and "datasets not in this run" in caplog.text
    assert "Removed 1 file(s)" in caplog.text and "(parkinsons.md)" in caplog.text
