"""A sweep killed with SIGKILL at random moments and resumed each time ends as if never interrupted.

Also: the same config and seed give the same raw records (timing aside) and
byte-identical tables across runs and across runtime.n_jobs = 1 and 2.
"""

import pytest

from experiments.drivers.soak import (
    compare_with,
    kill_and_resume,
    records_without_timing,
    run_to_completion,
    table_files,
)
from experiments.running.plan import plan_run

# 2 datasets x 2 N x 2 T x 2 methods x 4 repetitions = 64 units in 16 splits, about 5 s of work.
SWEEP = ["experiment=smoke", "protocol.Ns=[30,40]", "protocol.Ts=[10,20]", "protocol.repetitions=4"]
UNITS = 64


def sweep(data_dir, n_jobs):
    return [*SWEEP, f"data.dir={data_dir}", f"runtime.n_jobs={n_jobs}"]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory, data_dir):
    output = tmp_path_factory.mktemp("uninterrupted")
    run_to_completion(output, sweep(data_dir, 2), timeout=300)
    return output


@pytest.mark.slow
def test_sigkill_at_random_moments_loses_and_duplicates_nothing(uninterrupted, tmp_path, data_dir):
    # One worker: splits land one at a time, so kills can fall between any two of them.
    report = kill_and_resume(tmp_path, sweep(data_dir, 1), UNITS, n_kills=6, seed=2026)
    summary = "\n".join(report.events)
    assert report.kills == 6 and report.kills_mid_run >= 5, summary
    assert report.lost == 0 and report.duplicated == 0, summary
    compare_with(report, tmp_path, uninterrupted)
    assert report.records_identical, summary
    assert report.tables_identical, summary


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_same_seed_same_records_and_tables_for_any_n_jobs(uninterrupted, tmp_path, data_dir, n_jobs):
    run_to_completion(tmp_path, sweep(data_dir, n_jobs), timeout=300)
    reference = records_without_timing(uninterrupted / "raw")
    assert sum(map(len, reference.values())) == UNITS
    assert records_without_timing(tmp_path / "raw") == reference
    assert table_files(tmp_path) == table_files(uninterrupted)
    assert {"ecoli.csv", "ecoli.md", "ecoli.tex", "ionosphere.csv"} <= set(table_files(tmp_path))


# ---------------------------------------------------------------- one writer, no leftovers, disk full
def hold_folder_in_another_process(folder):
    """A process that holds ``folder``'s lock until killed (as a second launch would find it)."""
    import subprocess
    import sys

    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from experiments.safety.folder_lock import exclusive_folder\n"
            f"with exclusive_folder({str(folder)!r}):\n"
            "    print('held', flush=True)\n"
            "    time.sleep(120)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout.readline().strip() == "held"
    return holder


def test_a_second_run_on_a_folder_is_refused_at_once_and_a_killed_holder_leaves_no_lock(tmp_path, data_dir):
    import signal

    from experiments.running.composition import compose_config
    from experiments.running.runner import run_units
    from experiments.safety.folder_lock import FolderInUseError

    output = tmp_path / "out"
    cfg = compose_config(*sweep(data_dir, 1), f"runtime.output_dir={output}", "runtime.progress=false")
    holder = hold_folder_in_another_process(output)
    try:
        with pytest.raises(
            FolderInUseError, match=rf"{output}.* another run \(.*\"pid\": {holder.pid}.*\"host\""
        ):
            run_units(plan_run(cfg))
        assert not (output / "raw").exists()  # refused before any work
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    # The kernel dropped the killed holder's lock: the same folder can be written again.
    summary = run_units(
        plan_run(
            compose_config(
                *sweep(data_dir, 1),
                "protocol.repetitions=1",
                f"runtime.output_dir={output}",
                "runtime.progress=false",
                "datasets=[ecoli]",
                "protocol.Ns=[30]",
            )
        )
    )
    assert summary["units_run"] == 4


def test_leftovers_of_an_interrupted_rewrite_are_never_read_and_are_removed_and_modes_match(
    tmp_path, data_dir
):
    import os
    import stat

    from disdf.utils import is_leftover, remove_leftovers
    from experiments.reporting.report import write_protocol
    from experiments.running.composition import compose_config
    from experiments.running.runner import run_units

    output = tmp_path / "out"
    overrides = [*sweep(data_dir, 1), "protocol.repetitions=1", "datasets=[ecoli]", "protocol.Ns=[30]"]
    cfg = compose_config(*overrides, f"runtime.output_dir={output}", "runtime.progress=false")
    run_units(plan_run(cfg))
    write_protocol(plan_run(cfg))
    leftover = output / "tables" / ".ecoli.csv.k2j3h4l5.tmp.csv"
    leftover.write_text((output / "tables" / "ecoli.csv").read_text())  # a kill between write and rename
    from scripts.figures.plotting import read_cells

    assert is_leftover(leftover) and len(read_cells(output)) == 4  # 1 N x 2 T x 2 methods, not twice
    write_protocol(plan_run(cfg))
    assert not leftover.exists() and remove_leftovers(output) == []
    mode = stat.S_IMODE(os.stat(output / "raw" / "ecoli.jsonl").st_mode)
    for written in (output / "tables" / "ecoli.md", output / "REPORT.md"):
        assert stat.S_IMODE(os.stat(written).st_mode) == mode


def test_too_little_disk_is_refused_before_any_work_and_a_failed_append_names_its_file(
    tmp_path, data_dir, monkeypatch
):
    import errno
    import os
    import shutil

    from experiments.running.composition import compose_config
    from experiments.running.runner import run_units
    from experiments.safety import durable
    from experiments.safety.durable import DiskFullError, append_json_lines

    output = tmp_path / "out"
    cfg = compose_config(*sweep(data_dir, 1), f"runtime.output_dir={output}", "runtime.progress=false")
    usage = shutil.disk_usage(tmp_path)
    monkeypatch.setattr(durable.shutil, "disk_usage", lambda path: usage._replace(free=10_000))
    with pytest.raises(
        DiskFullError, match=rf"runtime\.output_dir='{output}' has 10,000 bytes free; .* needs at least"
    ):
        run_units(plan_run(cfg))
    assert not (output / "raw").exists()

    def disk_full(descriptor, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(durable.os, "write", disk_full)
    with pytest.raises(OSError, match=r"No space left on device.*ecoli\.jsonl"):
        append_json_lines(tmp_path / "raw" / "ecoli.jsonl", [{"a": 1}])


def test_a_run_that_logged_nothing_gets_its_runs_entry_on_the_next_run(tmp_path, data_dir):
    from experiments.running.composition import compose_config
    from experiments.running.runner import run_units
    from experiments.safety.durable import read_json_lines

    output = tmp_path / "out"
    overrides = [*sweep(data_dir, 1), "protocol.repetitions=1", "datasets=[ecoli]", "protocol.Ns=[30]"]
    cfg = compose_config(*overrides, f"runtime.output_dir={output}", "runtime.progress=false")
    assert run_units(plan_run(cfg))["units_run"] == 4
    (output / "runs.jsonl").unlink()  # as if the run had been killed before it could log itself
    assert run_units(plan_run(cfg))["units_run"] == 0
    (entry,) = read_json_lines(output / "runs.jsonl")
    assert entry["lost_summary"] and entry["units_run"] == 4 and entry["wall_seconds"] is None
    run_units(plan_run(cfg))
    assert len(read_json_lines(output / "runs.jsonl")) == 1  # logged once


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_a_signal_while_tables_or_figures_are_written_exits_130_with_a_message(signal_name, capsys):
    import os
    import signal
    import time

    from experiments.safety.interrupts import run_interruptible

    def writing():
        os.kill(os.getpid(), getattr(signal, signal_name))
        time.sleep(5)

    with pytest.raises(SystemExit) as stopped:
        run_interruptible(writing, "the figures")
    assert stopped.value.code == 130
    assert "Interrupted while writing the figures" in capsys.readouterr().err
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # handlers restored


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.5, 2.0, 3.5, 5.0, 6.5])
def test_sigterm_during_the_first_numba_compilation_exits_130_with_a_message(tmp_path, data_dir, delay):
    """A cold numba cache (NUMBA_CACHE_DIR empty): the signal lands while the kernels compile."""
    import os
    import signal
    import subprocess

    from experiments.drivers.soak import ROOT, sweep_command

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba_cache")}
    # 128 units: the run outlasts the latest signal even after compiling.
    command = sweep_command(tmp_path / "out", [*sweep(data_dir, 1), "protocol.repetitions=8"])
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    import time

    time.sleep(delay)
    process.send_signal(signal.SIGTERM)
    output, _ = process.communicate(timeout=60)
    assert process.returncode == 130, output
    assert "Interrupted" in output or "Stopping (SIGTERM" in output, output
    assert "Traceback" not in output, output


def children_of(pid: int) -> set[int]:
    """The live processes whose parent is ``pid`` (Linux's /proc)."""
    from pathlib import Path

    children = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            children.add(int(stat.parent.name))
    return children


def test_the_workers_of_a_sigkilled_runner_exit_within_10_seconds(tmp_path, data_dir):
    """loky keeps idle workers for 300 s and did not notice a killed runner (2 x 340 MB for minutes)."""
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    if not Path("/proc/self/stat").exists():
        pytest.skip("reads the process table from /proc")
    output = tmp_path / "out"
    command = [sys.executable, "-m", "experiments.run", *sweep(data_dir, 2), f"runtime.output_dir={output}"]
    runner = subprocess.Popen(
        [*command, "runtime.progress=false"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 120
        while not any((output / "raw").glob("*.jsonl")) and time.monotonic() < deadline:
            time.sleep(0.2)  # a split recorded: the workers exist and have run a job
        workers = children_of(runner.pid)
        assert workers, "the runner started no worker process"
    finally:
        runner.send_signal(signal.SIGKILL)
        runner.wait()
    deadline = time.monotonic() + 10
    alive = workers
    while alive and time.monotonic() < deadline:
        time.sleep(0.2)
        alive = {pid for pid in alive if Path(f"/proc/{pid}").exists() and "Z" not in _state(pid)}
    for pid in alive:  # do not leave them behind whatever the outcome
        os.kill(pid, signal.SIGKILL)
    assert not alive, f"{len(alive)} of {len(workers)} workers outlived the killed runner by 10 s"


def _state(pid: int) -> str:
    from pathlib import Path

    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"
