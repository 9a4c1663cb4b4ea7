"""DisDF as a metric learner (``experiment=metric``), analysed: per dataset and representation the
5-NN and 1-NN accuracy and the pair-verification ROC AUC with their 95 % CIs over splits, and DisDF
against gcF and against the best other representation, paired by split (Wilcoxon over all the
dataset's splits, Holm over its tests). ``experiments.reporting.sections.metric`` renders them."""

from __future__ import annotations

import pandas as pd

from experiments.analysis.plan import ALPHA, BETTER, POINTS, WORSE
from experiments.analysis.statistics import holm, mean_ci, paired_wilcoxon

REPRESENTATIONS = {
    "metric_raw": "raw (standardised)",
    "metric_nca": "NCA",
    "metric_gcforest": "gcF class vectors",
    "metric_disdf": "DisDF class vectors",
}
SCORES = {"accuracy": "5-NN accuracy", "knn1_accuracy": "1-NN accuracy", "pair_auc": "pair AUC"}
SPLIT = ["dataset", "N", "repetition"]
#: A comparison whose Holm-corrected p is not below α.
NO_DIFFERENCE = "no significant difference"


def score_intervals(
    records: pd.DataFrame, by: tuple[str, ...] = ("dataset", "method"), drop_missing: bool = True
) -> pd.DataFrame:
    """Per group of ``by`` and score: the mean over splits and its 95 % CI half-width (missing scores
    left out with ``drop_missing``; the figure's curves keep them, as they always did)."""
    rows = []
    for keys, group in records.groupby(list(by)):
        for score in SCORES:
            values = group[score].dropna() if drop_missing else group[score]
            mean, half = mean_ci(values.to_numpy())
            rows.append({**dict(zip(by, keys, strict=True)), "score": score, "mean": mean, "half": half})
    return pd.DataFrame(rows)


def score_curves(records: pd.DataFrame) -> pd.DataFrame:
    """Per dataset, representation, score and N: :func:`score_intervals` against N, for the figure."""
    return score_intervals(records, ("dataset", "method", "N"), drop_missing=False)


def disdf_comparisons(records: pd.DataFrame) -> pd.DataFrame:
    """Per dataset and score: DisDF − gcF and DisDF − the best other representation (by mean), in
    points, paired by split: ``mean``, its 95 % CI ``half``, the Holm-corrected Wilcoxon ``p_holm`` over
    the dataset's tests and the ``verdict``."""
    rows = []
    for dataset, part in records.groupby("dataset"):
        tests = []
        for score, label in SCORES.items():
            wide = part.pivot_table(index=SPLIT, columns="method", values=score).dropna()
            others = wide.drop(columns="metric_disdf").mean().drop("metric_gcforest", errors="ignore")
            for against in ("metric_gcforest", others.idxmax()):
                d = 100 * (wide["metric_disdf"] - wide[against])
                tests.append(
                    {
                        "dataset": dataset,
                        "score": label,
                        "against": REPRESENTATIONS[against],
                        "mean": d.mean(),
                        "half": mean_ci(d.to_numpy())[1],
                        "p": paired_wilcoxon(wide["metric_disdf"].to_numpy(), wide[against].to_numpy()),
                    }
                )
        frame = pd.DataFrame(tests)
        frame["p_holm"] = holm(frame["p"].to_numpy())
        frame["verdict"] = [
            (f"DisDF {BETTER}" if s > 0 else f"DisDF {WORSE}") if p < ALPHA else NO_DIFFERENCE
            for s, p in zip(frame["mean"], frame["p_holm"], strict=True)
        ]
        rows.append(frame.drop(columns="p"))
    return pd.concat(rows, ignore_index=True)


def gcf_differences(records: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, N, score): DisDF − gcF class vectors in points, paired by split: ``n`` pairs, the
    ``mean`` and its 95 % CI half-width ``ci`` (not adjusted for multiplicity)."""
    rows = []
    for score in SCORES:
        wide = records.pivot_table(index=SPLIT, columns="method", values=score)
        d = (POINTS * (wide["metric_disdf"] - wide["metric_gcforest"])).dropna()
        for (dataset, N), values in d.groupby(level=["dataset", "N"]):
            mean, half = mean_ci(values.to_numpy())
            rows.append(
                {"dataset": dataset, "N": N, "score": score, "n": len(values), "mean": mean, "ci": half}
            )
    return pd.DataFrame(rows)
