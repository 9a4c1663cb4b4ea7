"""The declared analysis plan: every decision constant of the report's analyses, in one place.

Every analysis of ``experiments/analysis/``, every section that renders one, and the evidence scripts
of ``scripts/`` read the significance level, the equivalence margins, the posterior probability a
Bayesian verdict needs, the number of Monte Carlo draws and the verdict words from here, and declare
none of their own: ``tests/experiments/test_analysis_plan.py`` fails on a significance level, margin or
draw count written anywhere else. Each value keeps the note of when it was fixed, relative to the data.
"""

from __future__ import annotations

# --- levels ---------------------------------------------------------------------------------------

#: The significance level of every frequentist test (Wilcoxon, t, TOST, binomial, Friedman, Nemenyi).
ALPHA = 0.05
#: The confidence of every two-sided interval shown beside one estimate (a mean, a proportion): 1 − α.
CONFIDENCE = 1 - ALPHA
#: Every interval shown beside a decision: two-sided (1 − 2α), the interval of the one-sided tests at α
#: each way (and of TOST) that decide the rows.
INTERVAL_LEVEL = 1 - 2 * ALPHA
#: The posterior probability a Bayesian verdict ("better", "equivalent", "worse") needs.
DECISION_PROBABILITY = 0.95

# --- margins --------------------------------------------------------------------------------------

#: Accuracy in [0, 1] -> percent and percentage points.
POINTS = 100.0
#: The equivalence margin of accuracy (percentage points) of every TOST of the report (the paper's
#: claims, the scanning claim, the tuned headline) and the Bayesian benchmark's region of practical
#: equivalence: the smallest difference the report counts. First set on 2026-11-22 at 03:01 UTC (commit
#: 68e2c32), after the first 100-repetition headline had been committed and read
#: (:data:`experiments.reporting.claims_text.TIMELINE`).
MARGIN_PP = 1.0
#: The regression benchmark's region of practical equivalence, in R² (one point of R², as the
#: classification benchmark's one point of accuracy), declared with its plan before any record.
ROPE_R2 = 0.01
#: One method computed two ways (the compiled engine against scikit-learn's forests, drawn pairs
#: against every pair, binned against exact splits: ``scripts/evidence/compare_*.py``): a paired TOST
#: pooled over the cells, and one per cell, inside the headline tables' resolution (cell CIs ±0.5–2
#: points); each declared before its comparison.
VARIANT_MARGIN_PP = 0.5
VARIANT_CELL_MARGIN_PP = 1.5
#: A timing A/B (``scripts/bench/bench_protocol_parts_ab.py``): the relative slowdown (5 %) a change
#: may cost before it counts, one-sided on the pairs' log ratios.
TIMING_MARGIN = 0.05

# --- draws ----------------------------------------------------------------------------------------

#: Monte Carlo draws of a whole table per (dataset, n, selection); P = (1 + hits)/(1 + draws). 100,000
#: since 2026-11-28 (10,000 before: a P near 1e-3 then moved by a third between seeds).
DRAWS = 100_000

# --- verdict words --------------------------------------------------------------------------------

#: A claim of the paper, read against our records (and the scanning claim's per-method reading).
CONFIRMED, REFUTED, NOT_DECIDED = "confirmed", "refuted", "not decided"
#: The scanning claim's reading when the cells do not decide it.
NOT_DECIDED_BY_OUR_DATA = "not decided by our data"
#: One cell of a paired comparison with scanning: worse, not worse (better or equivalent), or neither.
WORSE, NOT_WORSE, UNDECIDED = "worse", "not worse", "undecided"
#: A Bayesian verdict of the benchmarks (or "not decided").
BETTER, EQUIVALENT = "better", "equivalent"
