"""Sweeps beyond one machine: a Dask cluster runs the units, SLURM runs the multirun jobs.

The Dask test starts a real 2-worker LocalCluster on loopback. SLURM is not
here: its test composes the launcher config and has submitit write the sbatch
script it would submit (a stand-in ``srun`` on PATH lets submitit start).
"""

import os

import pytest
from omegaconf import OmegaConf

from experiments.drivers.soak import records_without_timing
from experiments.running.composition import compose_config
from experiments.running.plan import plan_run
from experiments.running.runner import run_units


def sweep_config(output_dir, data_dir, *overrides):
    return compose_config(
        "experiment=smoke",
        "protocol.Ts=[10,20]",
        f"runtime.output_dir={output_dir}",
        f"data.dir={data_dir}",
        "runtime.progress=false",
        *overrides,
    )


@pytest.mark.slow
def test_a_sweep_on_a_two_worker_dask_cluster_gives_the_loky_records(tmp_path, data_dir):
    local = run_units(plan_run(sweep_config(tmp_path / "loky", data_dir, "runtime.n_jobs=2")))
    cluster = run_units(
        plan_run(sweep_config(tmp_path / "dask", data_dir, "runtime=dask", "runtime.dask_workers=2"))
    )
    assert local["units_run"] == cluster["units_run"] == 2 * 2 * 2 * 2  # datasets x T x methods x repetitions
    assert (cluster["backend"], cluster["n_jobs"]) == ("dask", 2)
    records = records_without_timing(tmp_path / "dask" / "raw")
    assert records == records_without_timing(tmp_path / "loky" / "raw")
    assert sum(map(len, records.values())) == 16


def test_runtime_groups_compose_and_a_bad_backend_is_refused(tmp_path, data_dir):
    cfg = sweep_config(tmp_path, data_dir, "runtime=dask", "runtime.scheduler_address=tcp://head:8786")
    assert (cfg.runtime.backend, cfg.runtime.scheduler_address) == ("dask", "tcp://head:8786")
    assert sweep_config(tmp_path, data_dir).runtime.backend == "loky"
    with pytest.raises(ValueError, match=r"runtime\.backend must be one of"):
        run_units(plan_run(sweep_config(tmp_path, data_dir, "runtime.backend=ray")))


def test_the_slurm_launcher_config_gives_a_valid_sbatch_script(tmp_path, monkeypatch):
    import submitit
    from hydra_plugins.hydra_submitit_launcher.config import BaseQueueConf

    overrides = ["hydra/launcher=slurm", "hydra.launcher.partition=cpu", "experiment=table_ecoli"]
    cfg = compose_config(*overrides, return_hydra_config=True)
    launcher = OmegaConf.to_container(cfg.hydra.launcher)
    assert launcher.pop("_target_") == "hydra_plugins.hydra_submitit_launcher.submitit_launcher.SlurmLauncher"
    # As the launcher builds its executor (hydra_submitit_launcher.submitit_launcher.BaseSubmititLauncher).
    fake_srun = tmp_path / "bin" / "srun"
    fake_srun.parent.mkdir()
    fake_srun.write_text("#!/bin/sh\nexit 0\n")
    fake_srun.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake_srun.parent}{os.pathsep}{os.environ['PATH']}")
    launcher.pop("submitit_folder")
    executor = submitit.AutoExecutor(
        cluster="slurm", folder=tmp_path / "submitit", slurm_max_num_timeout=launcher.pop("max_num_timeout")
    )
    base = set(OmegaConf.structured(BaseQueueConf).keys())
    launcher["name"] = "disdf"
    executor.update_parameters(**{k if k in base else f"slurm_{k}": v for k, v in launcher.items()})
    script = executor._executor._make_submission_file_text("python -m experiments.run", "uid")
    for line in ("--cpus-per-task=2", "--mem=8GB", "--time=720", "--partition=cpu", "--nodes=1"):
        assert f"#SBATCH {line}" in script
