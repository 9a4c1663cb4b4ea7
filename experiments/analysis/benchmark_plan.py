"""What the benchmark beyond the paper's datasets decides, and how: declared before its first record
(configs/experiment/benchmark.yaml is the protocol; this module the analysis), so that no rule is
chosen after the data are seen. The analysis that applies them is written against these constants.

Unit of independence: the dataset (a dataset's accuracy is the mean over its repetitions). Per
regime, over the datasets that every method completed:

* Friedman's test over the methods' per-dataset accuracies (scipy.stats.friedmanchisquare), and a
  Nemenyi critical-difference diagram of their mean ranks (scikit-posthocs if it installs cleanly);
* for each contrast of :data:`CONTRASTS`: Wilcoxon's signed-rank test over datasets, Holm-corrected
  across the contrasts (:data:`ALPHA`); and a Bayesian signed-rank test with a region of practical
  equivalence of ± :data:`MARGIN_PP` percentage points (Benavoli et al. 2017; baycomp if it installs
  cleanly), reporting P(better), P(equivalent), P(worse);
* per dataset, the contrast with its 95 % CI over repetitions, in one forest plot;
* whether a dataset's traits (:data:`TRAITS`) go with DisDF's gain: Spearman's correlation, reported
  descriptively (no correction, no claim).

Regime (b) (5 x 2-fold CV, configs/experiment/benchmark_cv.yaml) is analysed in the same way, each
dataset's accuracy the mean over its ten folds; its per-dataset interval is Dietterich's 5 x 2 CV
t-interval (the variance from each repeat's two folds, 5 degrees of freedom), since the ten folds are
not independent. Declared with regime (b)'s config, before its first record.

A verdict "equivalent" needs the Bayesian P(equivalent) above :data:`DECISION_PROBABILITY`;
"better"/"worse" likewise for P(better)/P(worse); otherwise "not decided".
"""

from __future__ import annotations

# The equivalence margin (MARGIN_PP: the headline's ±1 point of accuracy), the significance level and
# the posterior probability a verdict needs are the plan's (experiments.analysis.plan).
#: The contrasts decided (treatment, baseline), by method name.
CONTRASTS = (("disdf", "gcforest"), ("disdf_tuned", "gcforest"))
#: The secondary endpoint, declared on 2026-11-28 before it was computed (after the accuracy results of
#: both regimes had been read): balanced accuracy, the mean recall over a test set's classes (accuracy
#: hides what a method does to the smaller classes). The same tests as accuracy, on the same units
#: (Wilcoxon with Holm, the Bayesian signed-rank test with the ROPE of ±MARGIN_PP points, Friedman and
#: Nemenyi); a secondary reading, never the benchmark's verdict. Both regimes were run again on their
#: seeded splits with ``protocol.record_confusion`` (every accuracy equal record by record).
SECONDARY_METRIC = "balanced_accuracy"
#: The dataset traits read against DisDF's gain.
TRAITS = ("n", "d", "classes", "majority_rate", "gcforest_accuracy")

# The tuned headline (configs/experiment/headline_tuned.yaml), declared with it and before its first
# record. Unit of independence: the split. Per dataset and N, the split-level difference DisDF tuned
# - gcF (accuracy averaged over the split's four T; gcF the headline's record of the same split) over
# the 30 splits; Holm across the dataset's four N. "Beats gcF" at an N: the one-sided paired t-test in
# DisDF's favour significant after Holm; "does not beat": TOST within ± MARGIN_PP (equivalent) or
# significant against; otherwise not decided. The same rule for DisDF (lambda = tau = 1) on the same
# 30 splits, so the two are read side by side.
#: The repetitions of the tuned headline (the headline's first 30).
TUNED_HEADLINE_REPETITIONS = 30
#: The contrasts the tuned headline decides (treatment, baseline).
TUNED_HEADLINE_CONTRASTS = (("disdf_tuned", "gcforest"), ("disdf", "gcforest"))
