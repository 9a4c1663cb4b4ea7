"""experiment=mgs: one scan per split shared by the scanning pipelines, and the section's verdict rule."""

import numpy as np
import pandas as pd
import pytest

from disdf import CascadeForestClassifier, DisDFClassifier
from disdf.scanning import MultiGrainedScanner, scanning_pipeline
from experiments.analysis.plan import CONFIRMED, NOT_DECIDED_BY_OUR_DATA, REFUTED
from experiments.analysis.scanning_claim import cell_effects, claim_verdict, paired_differences
from experiments.running.composition import compose_config, config_hash, estimator_specs
from experiments.running.plan import plan_run
from experiments.running.protocol import Split, Unit
from experiments.running.unit import run_split

SCANNER = {
    "_target_": "disdf.scanning.MultiGrainedScanner",
    "image_shape": [6, 6],
    "window_sizes": [3],
    "n_trees": 3,
}


def small_split(seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(40) % 2
    X = rng.random((40, 36))
    X[y == 1, :18] += 0.8
    return Split(X[:24], y[:24], X[24:], y[24:])


def specs():
    return {
        "gcf": {
            "_target_": "disdf.scanning.scanning_pipeline",
            "scanner": SCANNER,
            "cascade": {"_target_": "disdf.CascadeForestClassifier"},
        },
        "dis": {
            "_target_": "disdf.scanning.scanning_pipeline",
            "scanner": SCANNER,
            "cascade": {"_target_": "disdf.DisDFClassifier"},
        },
    }


def test_a_split_scans_once_and_gives_what_each_pipeline_fitted_alone_gives(monkeypatch):
    split = small_split()
    units = [Unit("toy", 24, T, method, 0) for T in (4, 8) for method in ("gcf", "dis")]
    calls = []
    real = MultiGrainedScanner.fit_transform

    def counting(self, X, y, **params):
        calls.append(1)
        return real(self, X, y, **params)

    monkeypatch.setattr(MultiGrainedScanner, "fit_transform", counting)
    records = run_split(units, split, specs(), seed=11, context={})
    assert len(calls) == 1  # four units, one scan
    monkeypatch.setattr(MultiGrainedScanner, "fit_transform", real)
    for unit, record in zip(units, records, strict=True):
        cascade = {"gcf": CascadeForestClassifier, "dis": DisDFClassifier}[unit.method]()
        alone = scanning_pipeline(
            MultiGrainedScanner(image_shape=(6, 6), window_sizes=[3], n_trees=3),
            cascade,
            n_trees=unit.T,
            random_state=11,
            n_jobs=1,
        ).fit(split.X_train, split.y_train)
        assert record["accuracy"] == np.mean(alone.predict(split.X_test) == split.y_test)
        assert record["n_levels"] == alone.named_steps["cascade"].n_levels_


def test_the_mgs_methods_take_the_headlines_cascade_values():
    cfg = compose_config("experiment=mgs")
    found = estimator_specs(cfg, ["gcforest", "gcforest_mgs", "disdf", "disdf_mgs"])
    assert found["gcforest_mgs"]["cascade"] == found["gcforest"]
    assert found["disdf_mgs"]["cascade"] == found["disdf"]
    assert found["gcforest_mgs"]["scanner"] == found["disdf_mgs"]["scanner"]  # one scan per split
    assert config_hash(cfg) != config_hash(compose_config("experiment=paper"))  # its own records
    # the pipelines' records are a cascade's (levels, scores): counted, not dropped as invalid
    assert plan_run(cfg).grid.cascades == {"gcforest_mgs", "disdf_mgs"}


def pairs(differences: dict[str, list[float]], n=30, seed=0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Records of both arms: per method a list of 16 / 2 cell means of with − without (pp)."""
    rng = np.random.default_rng(seed)
    scanned, headline = [], []
    for method, means in differences.items():
        for cell, mean in enumerate(means):
            N, T = (50, 80, 100, 120)[cell % 4], (100, 1000)[cell // 4]
            for r in range(n):
                base = 0.7 + 0.05 * rng.standard_normal()
                d = (mean + 0.5 * rng.standard_normal()) / 100
                key = {"N": N, "T": T, "repetition": r, "seed": r, "dataset": "mnist"}
                headline.append({**key, "method": method, "accuracy": base})
                scanned.append({**key, "method": f"{method}_mgs", "accuracy": base + d})
    return pd.DataFrame(scanned), pd.DataFrame(headline)


@pytest.mark.parametrize(
    ("effect", "verdict"),
    [(-5.0, CONFIRMED), (+5.0, REFUTED), (0.0, REFUTED)],  # 0 +- 0.5 pp: TOST-equivalent within 1 pp
)
def test_the_verdict_follows_the_rule(effect, verdict):
    scanned, headline = pairs({"gcforest": [effect] * 8, "disdf": [effect] * 8})
    cells = cell_effects(paired_differences(scanned, headline))
    assert claim_verdict(cells)[0] == verdict


def test_one_method_worse_and_the_other_not_is_not_decided():
    scanned, headline = pairs({"gcforest": [-5.0] * 8, "disdf": [5.0] * 8})
    assert claim_verdict(cell_effects(paired_differences(scanned, headline)))[0] == NOT_DECIDED_BY_OUR_DATA


def test_pairs_of_different_splits_are_refused():
    scanned, headline = pairs({"gcforest": [0.0] * 8})
    headline.loc[0, "seed"] = 999
    with pytest.raises(ValueError, match="different split seeds"):
        paired_differences(scanned, headline)


def test_the_section_is_not_written_without_its_records(tmp_path):
    from experiments.reporting.section import ReportContext
    from experiments.reporting.sections.mgs import render

    assert render(ReportContext(tmp_path, tmp_path)) is None


def test_the_full_size_scanner_is_gcforests_on_the_headlines_splits():
    from experiments.running.composition import compose_config, config_hash

    reduced, full = compose_config("experiment=mgs"), compose_config("experiment=mgs_full")
    for method in ("gcforest_mgs", "disdf_mgs"):
        scanner = full.methods[method].scanner
        assert (scanner.n_trees, scanner.strides, list(scanner.window_sizes)) == (500, 1, [7, 10, 14])
        assert full.methods[method].cascade == reduced.methods[method].cascade
    assert list(full.protocol.Ns) == [50, 80] and full.protocol.repetitions == 30
    assert list(full.protocol.Ts) == [100, 1000] and full.protocol.seed == reduced.protocol.seed
    assert config_hash(full) != config_hash(reduced)  # other records, never merged with the reduced ones


def test_the_limitations_give_the_full_scanners_measured_cost_or_only_the_reduced_scanner():
    import pandas as pd

    from experiments.reporting.sections.limitations import scanning_line

    assert scanning_line(None).endswith("gcForest: 500, 1).")
    cost = pd.DataFrame(
        {
            "N": [50, 80], "measured": [True, False], "split_seconds": [1800.0, 2880.0],
            "declared_run_hours": [19.5, 19.5], "budget_hours": [8.0, 8.0], "fits": [False, False],
        }
    )  # fmt: skip
    line = scanning_line(cost)
    assert "gcForest's took 30 min a split (20 h for the 60 asked, past the 8-hour budget" in line
    assert "within" in scanning_line(cost.assign(fits=True))
    stopped = scanning_line(cost.assign(complete=False))
    assert "was stopped after 30 min a split (at least 20 h" in stopped
    # Once gcForest's own scanner decides (experiment=mgs_full complete), the line says where it ran.
    full = scanning_line(cost, full_scanner=True)
    assert (
        "rests on gcForest's own scanner (500 trees per scanning forest, stride 1) at N = 50 and 80" in full
    )
    assert "reduced scanner" in full and "budget" not in full


def test_sentence_15_rests_on_gcforests_scanner_once_its_run_is_complete():
    """While experiment=mgs_full runs, the reduced scanner's pairs decide, noted with the progress;
    with all 240 units, gcForest's own scanner's pairs (N = 50 and 80) decide, with no note."""
    import pandas as pd

    from experiments.analysis.scanning_claim import FULL_SCANNER_UNITS
    from experiments.reporting.sections.mgs import scanning_evidence

    def frame(methods, Ns, repetitions):
        return pd.DataFrame(
            [
                {"dataset": "mnist", "method": m, "N": N, "T": T, "repetition": r, "seed": r, "accuracy": 0.5}
                for m in methods for N in Ns for T in (100, 1000) for r in range(repetitions)
            ]
        )  # fmt: skip

    headline = frame(["gcforest", "disdf"], [50, 80, 100, 120], 30)
    reduced = frame(["gcforest_mgs", "disdf_mgs"], [50, 80, 100, 120], 30)

    class Context:
        def __init__(self, full):
            self.found = {"mgs": reduced, "mgs_full": full}

        def records(self, name):
            return self.found[name], None

    partial = frame(["gcforest_mgs", "disdf_mgs"], [50, 80], 3)
    pairs, note = scanning_evidence(Context(partial), headline)
    assert note == "reduced scanner; gcForest's own: 24/240 units"
    assert sorted(pairs["N"].unique()) == [50, 80, 100, 120]
    complete = frame(["gcforest_mgs", "disdf_mgs"], [50, 80], 30)
    assert len(complete) == FULL_SCANNER_UNITS
    pairs, note = scanning_evidence(Context(complete), headline)
    assert note == "" and sorted(pairs["N"].unique()) == [50, 80]
