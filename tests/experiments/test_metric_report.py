"""The metric section pairs representations by split and names the best other one."""

import numpy as np
import pandas as pd

from experiments.reporting.sections.metric import comparison_rows, score_rows


def records(repetitions=30):
    rng = np.random.default_rng(0)
    rows = []
    shift = {"metric_raw": 0.0, "metric_nca": 0.05, "metric_gcforest": 0.10, "metric_disdf": 0.15}
    for r in range(repetitions):
        base = rng.normal(0.6, 0.05)
        for method, s in shift.items():
            value = base + s + rng.normal(0, 0.005)
            rows.append(
                {"dataset": "ecoli", "N": 50, "repetition": r, "method": method, "accuracy": value}
                | {"knn1_accuracy": value, "pair_auc": value}
            )
    return pd.DataFrame(rows)


def test_disdf_is_tested_against_gcf_and_the_best_other_representation():
    tests = comparison_rows(records())
    assert set(tests["DisDF against"]) == {"gcF class vectors", "NCA"}  # NCA beats raw by 5 points
    assert (tests["verdict"] == "DisDF better").all() and len(tests) == 6
    assert tests[tests["DisDF against"] == "NCA"]["difference (pp)"].str.startswith("+10.0").all()


def test_scores_are_means_over_splits():
    rows = score_rows(records()).set_index("representation")
    assert rows.loc["DisDF class vectors", "pair AUC"].startswith("0.75") or rows.loc[
        "DisDF class vectors", "pair AUC"
    ].startswith("0.74")
