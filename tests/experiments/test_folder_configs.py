"""A results folder says which config made it (configs.json), and `make tables RESULTS=<folder>`
re-renders exactly that config's tables: a run with overrides is never re-rendered as the default."""

import json
import subprocess
import sys

import pytest

from experiments.paths import ROOT
from experiments.running.composition import compose_config, config_hash
from experiments.running.folder_configs import CONFIGS_FILE, record_config, report_command


def run(*arguments, cwd=ROOT):
    done = subprocess.run(
        [sys.executable, "-m", *arguments], cwd=cwd, capture_output=True, text=True, timeout=600
    )
    return done.returncode, (done.stdout + done.stderr).strip()


@pytest.fixture(scope="module")
def tau_run(tmp_path_factory, data_dir):
    """experiment=smoke with model.tau=0.5 and a smaller grid: a run made with overrides."""
    folder = tmp_path_factory.mktemp("tau") / "run"
    overrides = ("experiment=smoke", "model.tau=0.5", "datasets=[ecoli]", "protocol.repetitions=1")
    code, output = run(
        "experiments.run",
        *overrides,
        f"runtime.output_dir={folder}",
        "runtime.progress=false",
        "runtime.n_jobs=1",
    )
    assert code == 0, output
    return folder, overrides


def test_a_run_says_which_config_made_the_folder(tau_run):
    folder, overrides = tau_run
    configs = json.loads((folder / CONFIGS_FILE).read_text())
    (saved,) = configs.values()
    assert saved == {"experiment": "smoke", "overrides": list(overrides)}  # no runtime.* override
    assert list(configs) == [config_hash(compose_config(*overrides))]


def test_tables_of_the_folder_rerender_its_own_config_without_its_overrides(tau_run):
    folder, _ = tau_run
    table = folder / "tables" / "ecoli.csv"
    before = table.read_bytes()
    table.unlink()
    code, output = run("experiments.reporting.report", f"runtime.output_dir={folder}")
    assert code == 0, output
    assert table.read_bytes() == before  # tau = 0.5's table, not the default tau = 1's


def test_another_config_is_refused_in_one_line_and_replaces_nothing(tau_run):
    folder, _ = tau_run
    written = {path: path.read_bytes() for path in (folder / "tables").iterdir()}
    code, output = run("experiments.reporting.report", "experiment=smoke", f"runtime.output_dir={folder}")
    assert code == 2
    assert len(output.splitlines()) == 1 and "does not hold" in output and "model.tau=0.5" in output
    assert {path: path.read_bytes() for path in (folder / "tables").iterdir()} == written


def test_a_folder_of_several_configs_is_refused_listing_them_and_one_is_picked(tmp_path):
    tau = ["experiment=smoke", "model.tau=0.5"]
    default = ["experiment=smoke"]
    for overrides in (tau, default):
        record_config(
            tmp_path, config_hash(compose_config(*overrides)), "smoke", [*overrides, "runtime.n_jobs=2"]
        )
    with pytest.raises(ValueError, match=r"holds 2 configs: .*model\.tau=0\.5.*CONFIG=<hash>"):
        report_command([f"runtime.output_dir={tmp_path}"])
    picked = config_hash(compose_config(*tau))
    assert report_command([f"runtime.output_dir={tmp_path}"], picked) == [
        *tau,
        f"runtime.output_dir={tmp_path}",
    ]
    code, output = run("experiments.reporting.report", f"runtime.output_dir={tmp_path}")
    assert code == 2 and len(output.splitlines()) == 1 and "CONFIG=<hash>" in output


def test_every_committed_results_folder_says_its_config():
    """Each folder of committed records (results/**/raw) has its configs.json, of its records' hash."""
    for raw in sorted((ROOT / "results").rglob("raw")):
        folder = raw.parent
        if folder.name == "sklearn":  # an abandoned start of 300 records of an older layout, counted nowhere
            continue
        configs = json.loads((folder / CONFIGS_FILE).read_text())
        held = {json.loads(line)["config_hash"] for path in raw.glob("*.jsonl") for line in path.open()}
        assert set(configs) == held, folder
