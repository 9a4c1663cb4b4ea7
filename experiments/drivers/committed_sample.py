"""Are the committed records what the code computes? Rerun a sample of each committed experiment.

    python -m experiments.drivers.committed_sample                        # every committed experiment
    python -m experiments.drivers.committed_sample --experiment headline  # one of them

Each committed experiment (:data:`SAMPLES`) is rerun on a restricted grid: its first repetition,
in a few cells, into a temporary folder, with the committed config otherwise, so its records have
the committed records' config hash (the hash leaves out the grid) and pair with them key by key.
Every field is compared but the timings and the solver's two diagnostics whose last digits depend
on the library builds (:data:`IGNORED_FIELDS`). A sample keeps every T and method of its
experiment: a split's units are fitted together and each record says how many they were
(``split_units``) and holds the warnings of the whole split, so a sample of a split's units
would differ from the committed records in both. Prints one line per experiment, e.g.
``headline: 128/128 records equal``, and the differences; exit status 1 if any.

CI reruns every sample (tests/experiments/test_committed_records.py).
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from omegaconf import DictConfig

from experiments.paths import ROOT
from experiments.reporting.sections.audit import GRID, MECHANISMS
from experiments.running.composition import compose_config
from experiments.running.keel import KEEL_PREFIX, KEEL_TABLES
from experiments.running.plan import RunPlan, plan_run
from experiments.running.records import ABSENT, RecordStore, differing_fields, record_key
from experiments.running.runner import run_units
from experiments.running.unit import RERUN_VARYING_FIELDS

#: The solver's diagnostics: with another numpy, scipy or OpenBLAS build the Newton step's products
#: round differently and the mean iterations move by hundredths (README, "Reproducing the paper");
#: accuracy, depth and every level's score do not.
BUILD_DEPENDENT_FIELDS = ("solver_mean_iter", "solver_max_relative_gap")
#: Where and by what code a record was made, should a record ever hold it: not a result.
PROVENANCE_FIELDS = ("machine", "commit", "start_commit", "start_dirty", "end_commit", "libraries")
#: The fields a rerun may change: everything else must equal the committed record (the digests then
#: differ only where those fields do, and each side's are checked when it is read).
IGNORED_FIELDS = frozenset((*RERUN_VARYING_FIELDS, *BUILD_DEPENDENT_FIELDS, *PROVENANCE_FIELDS))
#: The field of a :class:`Difference` that says a whole record is on one side only.
RECORD = "<record>"
#: Differences listed per experiment on the command line (all of them are counted).
LISTED = 20


@dataclass(frozen=True)
class Part:
    """One run of a sample: its own overrides and where its committed records are."""

    label: str
    overrides: tuple[str, ...] = ()
    #: The committed records' folder below the sample's ``folder``: a multirun job's folder.
    subfolder: str = ""


@dataclass(frozen=True)
class CommittedSample:
    """A committed experiment and the sample of it that is rerun."""

    name: str
    experiment: str
    #: The committed output folder (with raw/), relative to the checkout.
    folder: str
    #: The restricted grid; the sample is always one repetition (repetition 0).
    grid: tuple[str, ...] = ()
    #: Its runs: one, each job of a multirun sweep, or a large sample cut into pieces so that
    #: the test spreads them over workers (the records are the same either way).
    parts: tuple[Part, ...] = (Part("all"),)


#: The benchmark's tables as its runs name them (experiments/running/keel.py).
BENCHMARK_TABLES = [f"{KEEL_PREFIX}{name}" for name in KEEL_TABLES]


def table_parts(count: int, tables: Sequence[str] = BENCHMARK_TABLES) -> tuple[Part, ...]:
    """The KEEL ``tables`` dealt into ``count`` parts of about equal work for the test's workers."""
    return tuple(
        Part(f"tables-{part}", (f"datasets=[{','.join(tables[part::count])}]",)) for part in range(count)
    )


def tables_with_copies() -> list[str]:
    """The benchmark's tables that repeat a row (results/bench/duplicate_rows.csv): the only ones whose
    grouped folds differ from the paper's (on the others the grouped reruns equal the committed records,
    scripts/evidence/compare_grouped_folds.py)."""
    with open(ROOT / "results" / "bench" / "duplicate_rows.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return [
        row["dataset"] for row in rows if row["dataset"] in BENCHMARK_TABLES and int(row["repeated_rows_f32"])
    ]


#: The experiments whose records are committed, and what of each is rerun. The smallest N keeps
#: a sample cheap (a split at N = 50 takes a few seconds); the headline reruns every cell.
SAMPLES: tuple[CommittedSample, ...] = (
    CommittedSample(
        "headline",
        "paper",
        "results",
        # A split (dataset, N) per part, the largest first, so that pytest-xdist's workers share
        # them evenly: MNIST at N = 120 alone is a fifth of the headline's time.
        parts=tuple(
            Part(f"{name}-{n}", (f"datasets=[{name}]", f"protocol.Ns=[{n}]"))
            for n in (120, 100, 80, 50)
            for name in ("mnist", "parkinsons", "ionosphere", "ecoli")
        ),
    ),
    CommittedSample(
        "ablation_same_examples",
        "ablation_same_examples",
        "results/ablation_same_examples",
        ("protocol.Ns=[50]",),
    ),
    CommittedSample(
        "audit",
        "audit",
        "results/audit",
        ("protocol.Ns=[50]",),
        parts=tuple(Part(name, (f"audit={name}",), f"audit={name}") for name in (GRID, *MECHANISMS)),
    ),
    CommittedSample("baselines", "baselines", "results/baselines", ("protocol.Ns=[50]",)),
    CommittedSample("headline_tuned", "headline_tuned", "results/headline_tuned", ("protocol.Ns=[50]",)),
    CommittedSample("metric", "metric", "results/metric", ("protocol.Ns=[50]",)),
    CommittedSample("mgs", "mgs", "results/mgs", ("protocol.Ns=[50]",)),
    # gcForest's own scanner: its first split at N = 50 (both methods, T = 100 and 1000; about 3 min).
    CommittedSample("mgs_full", "mgs_full", "results/mgs_full", ("protocol.Ns=[50]",)),
    # Drawn pairs against every pair: each arm's first split (its output folder is per max_pairs).
    *(
        CommittedSample(
            f"pair_draws_{part}_{cap}",
            f"pair_draws_{part}",
            f"results/pair_draws/{part}/max_pairs_{cap}",
            grid,
            parts=(Part("all", (f"model.max_pairs={'null' if cap == 'None' else cap}",)),),
        )
        for part, grid, caps in (
            ("protocol", (), ("None", "100")),
            ("mnist", ("protocol.Ns=[1000]",), ("None", "5000")),
        )
        for cap in caps
    ),
    # Every KEEL table's first repetition, in four parts of about equal work for the test's workers.
    CommittedSample(
        "benchmark",
        "benchmark",
        "results/benchmark",
        parts=table_parts(4),
    ),
    # Regime (b): every KEEL table's first fold (repetition 0 of 5 x 2-fold CV), in two parts.
    CommittedSample(
        "benchmark_cv",
        "benchmark_cv",
        "results/benchmark_cv",
        parts=table_parts(2),
    ),
    # Copies of a row in one fold (make grouped-folds): the tables with copies, both regimes, and the
    # Ionosphere table's first split at N = 120 (where its draws hold both copies most often).
    *(
        CommittedSample(
            f"{name}_grouped",
            f"{name}_grouped",
            f"results/{name}_grouped",
            parts=table_parts(2, tables_with_copies()),
        )
        for name in ("benchmark", "benchmark_cv")
    ),
    CommittedSample(
        "ionosphere_grouped", "ionosphere_grouped", "results/ionosphere_grouped", ("protocol.Ns=[120]",)
    ),
)

#: Committed raw folders that no sample reruns, and why (the test of SAMPLES checks that every
#: committed folder is either sampled or here).
NOT_SAMPLED = {
    "results/engine_equivalence/fast": (
        "records older than the field solver_fallbacks (every other field of repetition 0 at N = 50 "
        "equals a rerun); the scikit-learn half is the slow engine"
    ),
    "results/engine_equivalence/sklearn": (
        "as results/engine_equivalence/fast, and scikit-learn's forests are slow"
    ),
    "results/sklearn": (
        "a partial run of the headline under scikit-learn's engine before cross-fitting, records older "
        "than the field split_units; its config is results/engine_equivalence/sklearn's"
    ),
}


@dataclass(frozen=True)
class Difference:
    """A field of one record key whose recomputed value is not the committed one."""

    key: tuple
    field: str
    committed: object
    recomputed: object

    def __str__(self) -> str:
        if self.field == RECORD:  # a whole record on one side: say which, not the record
            return f"{self.key}: {'not recomputed' if self.recomputed is ABSENT else 'no committed record'}"
        return f"{self.key} {self.field}: committed {self.committed!r}, recomputed {self.recomputed!r}"


@dataclass
class Comparison:
    """How a sample's recomputed records compare with the committed ones."""

    records: int = 0
    differences: list[Difference] = field(default_factory=list)

    def __add__(self, other: Comparison) -> Comparison:
        return Comparison(self.records + other.records, self.differences + other.differences)

    @property
    def equal_records(self) -> int:
        return self.records - len({difference.key for difference in self.differences})

    def summary(self, name: str, listed: int = LISTED) -> str:
        """One line, then each difference (the first ``listed``) on a line of its own."""
        line = f"{name}: {self.equal_records}/{self.records} records equal"
        if not self.differences:
            return line
        shown = [f"  {difference}" for difference in self.differences[:listed]]
        if len(self.differences) > listed:
            shown.append(f"  ... and {len(self.differences) - listed} more differences")
        return "\n".join([f"{line}; {len(self.differences)} differences:", *shown])


def sample_named(name: str) -> CommittedSample:
    """The sample of :data:`SAMPLES` called ``name``."""
    for sample in SAMPLES:
        if sample.name == name:
            return sample
    raise ValueError(f"no committed sample {name!r}; the samples are {[s.name for s in SAMPLES]}")


def sample_config(sample: CommittedSample, part: Part, output_dir: str | Path, n_jobs: int = 1) -> DictConfig:
    """The committed config of ``part``, on the sample's grid, one repetition, into ``output_dir``."""
    return compose_config(
        f"experiment={sample.experiment}",
        *part.overrides,
        *sample.grid,
        "protocol.repetitions=1",
        f"runtime.output_dir={output_dir}",
        f"runtime.n_jobs={n_jobs}",
        "runtime.progress=false",
    )


def sample_keys(plan: RunPlan) -> set[tuple]:
    """The record keys (with the config hash) of every unit ``plan`` runs."""
    return {(*unit.key, plan.config_hash) for unit in plan.protocol.units()}


def records_of(output_dir: Path, datasets: Iterable[str], keys: set[tuple]) -> dict[tuple, dict]:
    """The records of ``output_dir``/raw whose key is one of ``keys``, by key."""
    store = RecordStore(output_dir / "raw")
    return {record_key(r): r for dataset in datasets for r in store.read(dataset) if record_key(r) in keys}


def compare_records(
    committed: dict[tuple, dict], recomputed: dict[tuple, dict], keys: set[tuple]
) -> Comparison:
    """Every difference between the committed and the recomputed records of ``keys``, the
    :data:`IGNORED_FIELDS` aside; a record on one side only is a difference in :data:`RECORD`,
    a field one record lacks one with the value :data:`~experiments.running.records.ABSENT`."""
    differences = []
    for key in sorted(keys, key=repr):  # keys mix ints and strings: a stable order for the report
        if key not in committed or key not in recomputed:
            differences.append(
                Difference(key, RECORD, committed.get(key, ABSENT), recomputed.get(key, ABSENT))
            )
            continue
        for name, (old, new) in differing_fields(committed[key], recomputed[key], IGNORED_FIELDS).items():
            differences.append(Difference(key, name, old, new))
    return Comparison(len(keys), differences)


def compare_part(plan: RunPlan, committed_dir: Path, rerun_dir: Path) -> Comparison:
    """The records ``plan`` ran into ``rerun_dir`` against those of the same keys in ``committed_dir``."""
    keys = sample_keys(plan)
    datasets = plan.datasets
    return compare_records(
        records_of(committed_dir, datasets, keys), records_of(rerun_dir, datasets, keys), keys
    )


def rerun_part(
    sample: CommittedSample, part: Part, output_dir: Path, n_jobs: int = 1, root: Path = ROOT
) -> Comparison:
    """Run one part of a sample into ``output_dir`` and compare its records with the committed ones."""
    if any((Path(output_dir) / "raw").glob("*.jsonl")):
        # run_units would resume: the records there would be compared, not recomputed ones.
        raise ValueError(f"{output_dir} already holds records: rerun a sample into a new folder")
    plan = plan_run(sample_config(sample, part, output_dir, n_jobs))
    run_units(plan)
    return compare_part(plan, root / sample.folder / part.subfolder, output_dir)


def rerun_sample(sample: CommittedSample, output_dir: Path, n_jobs: int = 1, root: Path = ROOT) -> Comparison:
    """Rerun every part of ``sample``, each into a folder of its own under ``output_dir``, and
    return the differences of its records from the committed ones in ``root``."""
    comparison = Comparison()
    for part in sample.parts:
        comparison += rerun_part(sample, part, output_dir / part.label, n_jobs, root)
    return comparison


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--experiment", choices=[s.name for s in SAMPLES], help="one committed experiment (default: all)"
    )
    parser.add_argument("--n-jobs", type=int, default=2, help="processes per run (runtime.n_jobs)")
    args = parser.parse_args(argv)
    samples = [sample_named(args.experiment)] if args.experiment else list(SAMPLES)
    differing = False
    for sample in samples:
        with tempfile.TemporaryDirectory(prefix=f"committed_sample_{sample.name}_") as folder:
            comparison = rerun_sample(sample, Path(folder), args.n_jobs)
        print(comparison.summary(sample.name), flush=True)
        differing = differing or bool(comparison.differences)
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
