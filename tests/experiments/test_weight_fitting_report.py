"""The "Honest DisDF" section pairs the headline and the ablation on the same units."""

import pandas as pd

from experiments.analysis.weight_fitting import gcf_agreement, variants
from experiments.reporting.sections.weight_fitting import leak_effect_rows, variant_rows
from tests.experiments.records_for_tests import a_record


def run(disdf_accuracy, disdf_scores, gcf_accuracy=0.5, repetitions=4, cells=((30, 10), (30, 20))):
    """Records of one run: gcF and DisDF on every (N, T) cell and repetition."""
    rows = []
    for N, T in cells:
        for rep in range(repetitions):
            common = {"N": N, "T": T, "repetition": rep}
            rows.append(a_record(**common, accuracy=gcf_accuracy + rep / 100, level_scores=[0.55]))
            rows.append(
                a_record(
                    **common,
                    method="disdf",
                    accuracy=disdf_accuracy + rep / 100,
                    n_levels=len(disdf_scores),
                    level_scores=list(disdf_scores),
                )
            )
    return pd.DataFrame(rows)


def test_variants_keep_the_ablation_cells_and_the_units_both_runs_have():
    headline = run(0.6, [0.6], cells=((30, 10), (30, 20), (40, 10)))
    ablation = run(0.55, [0.6, 0.9], repetitions=3)
    frame = variants(headline, ablation)
    assert set(frame["variant"]) == {"gcF", "DisDF cross_fit", "DisDF same_examples"}
    assert set(zip(frame["N"], frame["T"], strict=True)) == {
        (30, 10),
        (30, 20),
    }  # the headline's N=40 is not paired
    assert frame.groupby("variant").size().to_dict() == {k: 6 for k in set(frame["variant"])}
    assert gcf_agreement(headline, ablation) == (6, 6)
    assert gcf_agreement(headline, ablation.assign(accuracy=ablation["accuracy"] + 0.01)) == (0, 6)


def test_optimism_and_differences_are_in_points_against_gcf_of_the_same_unit():
    headline = run(0.6, [0.6])  # honest: the kept score is the test accuracy of repetition 0
    ablation = run(0.55, [0.6, 0.95])  # leaking: 0.95 out-of-fold, 0.55 + rep/100 on test
    rows = variant_rows(variants(headline, ablation)).set_index("variant")
    assert list(rows.index) == ["gcF", "DisDF cross_fit", "DisDF same_examples"]
    assert rows.loc["DisDF same_examples", "optimism (pp)"].startswith("+38.5")  # 95 - (55 + 1.5)
    assert rows.loc["DisDF cross_fit", "DisDF − gcF (pp)"].startswith("+10.0")
    assert rows.loc["DisDF same_examples", "DisDF − gcF (pp)"].startswith("+5.0")
    assert rows.loc["DisDF same_examples", "levels kept"] == 2
    leak = leak_effect_rows(variants(headline, ablation)).iloc[0]
    assert leak["splits"] == 4 and leak["cross_fit − same_examples (pp)"].startswith("+5.0")
