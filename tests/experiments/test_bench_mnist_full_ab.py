"""bench_mnist_full_ab.py: each version's own full-MNIST driver, warmed up once, then run in the order AB
BA ..., a row per version, run and method (stub drivers here: a real run takes half an hour)."""

import pandas as pd
import pytest

from scripts.bench import bench_mnist_full_ab

#: A stand-in for a checkout's scripts/tools/mnist_full.py: writes the driver's CSV, its fit seconds
#: saying which checkout ran and whether it was the warm-up (fewer trees).
STUB = """\
import sys
from pathlib import Path
arguments = dict(item.split("=", 1) for item in sys.argv[1:])
assert arguments["experiment"] == "mnist_full", arguments
folder = Path(arguments["runtime.output_dir"])
folder.mkdir(parents=True)
seconds = {speed} * (0.01 if arguments.get("full_mnist.n_trees") == "5" else 1.0)
rows = [
    f"{{method}},60000,100,{{levels}},0.97,{{seconds * factor}},2.5,ignored"
    for method, levels, factor in (("gcforest", 9, 1.0), ("disdf", 7, 1.5))
]
header = "method,n_train,n_trees,n_levels,test_accuracy,fit_seconds,peak_memory_gb,other"
(folder / "mnist_full.csv").write_text("\\n".join([header, *rows]) + "\\n")
"""


def checkout(tmp_path, name, speed):
    driver = tmp_path / name / "scripts" / "tools" / "mnist_full.py"
    driver.parent.mkdir(parents=True)
    driver.write_text(STUB.format(speed=speed))
    return tmp_path / name


def test_runs_alternate_after_a_warm_up_of_each_and_keep_the_drivers_measures(tmp_path):
    checkouts = {"baseline": checkout(tmp_path, "a", 400.0), "candidate": checkout(tmp_path, "b", 300.0)}
    commits = {"baseline": "aaa1111", "candidate": "bbb2222"}
    rows = pd.DataFrame(bench_mnist_full_ab.measure(checkouts, commits, 2, tmp_path / "runs"))
    assert list(rows["version"]) == ["baseline"] * 2 + ["candidate"] * 4 + ["baseline"] * 2  # AB BA
    assert list(rows["position"]) == [0, 0, 1, 1, 2, 2, 3, 3]
    assert set(rows.columns) == {
        "pair",
        "position",
        "version",
        "version_commit",
        *bench_mnist_full_ab.KEPT_COLUMNS,
    }
    by_version = rows.groupby(["version", "method"])["fit_seconds"].unique()
    assert list(by_version[("baseline", "disdf")]) == [600.0] and list(
        by_version[("candidate", "gcforest")]
    ) == [300.0]
    assert (tmp_path / "runs" / "warm_baseline" / "mnist_full.csv").is_file()  # warmed, not kept


def test_a_failing_driver_stops_the_comparison(tmp_path):
    broken = tmp_path / "broken" / "scripts" / "tools" / "mnist_full.py"
    broken.parent.mkdir(parents=True)
    broken.write_text("import sys; sys.exit(3)\n")
    checkouts = {"baseline": tmp_path / "broken", "candidate": checkout(tmp_path, "b", 1.0)}
    with pytest.raises(Exception, match="returned non-zero exit status 3"):
        bench_mnist_full_ab.measure(checkouts, {"baseline": "a", "candidate": "b"}, 1, tmp_path / "runs")
