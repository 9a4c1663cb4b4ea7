"""The schema of the committed benchmark evidence: every CSV under ``results/bench/`` and the columns
that name what one of its rows measures (its key).

One merge rule holds for all of them (:func:`scripts.bench_output.write_csv`): a new row replaces
the row already in the file with the same key, every other row stays as written, byte for byte, and
new keys are appended. So re-measuring one method, size or stage never drops another's evidence, and
a file never holds two rows of one key. Every row ends with the stamp columns ``date, commit,
libraries`` (:data:`scripts.bench_output.STAMP_COLUMNS`); rows measured before stamps existed keep
them empty. A log of repeated runs (:data:`EVERY_COLUMN`) is named row by row by all its cells: every
run appends.

Standard library only, like :mod:`scripts.bench_output` (DF21's venv imports both).
"""

from __future__ import annotations

#: The key of a log, whose every run is a row of its own (a timing repeated at one commit, a soak):
#: a row is named by all its cells, so a write appends.
EVERY_COLUMN: tuple[str, ...] = ("*",)

#: Each committed benchmark CSV (results/bench/<name>.csv) -> its key columns.
BENCH_TABLES: dict[str, tuple[str, ...]] = {
    "binned_equivalence": ("slice", "method"),
    "compile_profile": ("numba_opt", "function"),
    "dask_fit": ("problem", "method", "n_train", "workers", "mode"),
    "defaults_repro": ("method", "n_train", "max_pairs"),
    "df21_mnist": ("library", "mode", "n_train", "n_trees"),
    "duplicate_rows": ("dataset", "source"),
    "engine": ("dataset", "n", "kind", "T", "engine"),
    "engine_equivalence": ("dataset", "N", "method"),
    "engine_large": ("n", "kind", "engine"),
    "extra_trees_engines": ("dataset", "N"),
    "first_fit": ("stage",),
    "fit_profile": ("problem", "method", "n_train", "n_jobs", "n_trees", "max_levels", "commit", "part"),
    "grouped_folds": ("experiment", "dataset"),
    "grouped_folds_tests": ("experiment", "side", "test"),
    "grow_tree": ("kind", "n_examples", "n_trees", "version"),
    "memory_estimate": ("method", "n_train", "n_jobs", "solver", "max_pairs", "keep_fitted_levels"),
    "memory_estimate_holdout": ("problem", "method", "n_train", "n_jobs", "keep_fitted_levels"),
    "mgs_full_cost": ("N",),
    "mgs_training_size": ("n_train", "n_test", "method", "scanning"),
    "mnist_full_ab": ("pair", "position", "method"),
    "mnist_full_disk": ("method",),
    "ours_vs_df21_10000": ("method",),
    "ours_vs_df21_60000": ("method",),
    "out_of_bag_accuracy": ("regime", "dataset", "N"),
    "pair_draws": ("part", "max_pairs", "dataset", "N", "method"),
    "predict_df21": ("problem", "method"),
    "predictor": ("table", "split", "predictor", "contrast"),
    "protocol_parts": ("dataset", "N"),
    "protocol_parts_ab": ("pair", "position", "version"),
    "protocol_parts_ab_scale": ("pair", "position", "version"),
    "protocol_parts_ab_scale_rerun": ("pair", "position", "version"),
    "protocol_sample": EVERY_COLUMN,
    "regression_scale": ("problem", "n_train", "method", "n_jobs"),
    "repetition": ("dataset", "variant"),
    "routing_block": ("problem", "kind", "block"),
    "scale": ("problem", "method", "n_train"),
    "scale_slopes": ("problem", "method"),
    "scanning": ("n_train", "n_test", "strides", "n_trees", "n_jobs"),
    "small_n_cost": ("dataset", "method", "max_pairs"),
    "soak_resume": EVERY_COLUMN,
    "solver_tolerance": ("dataset", "N", "T", "repetition", "tol"),
    "solvers": ("instance", "T", "n", "C", "n_pairs", "lambda", "tau", "solver"),
    "split_breakdown": ("label", "dataset", "N"),
    "split_solves": ("dataset", "N", "setting"),
    "stochastic_fw": ("C", "n", "T", "lambda", "tau", "batch_size", "max_iter"),
    "tree_floor": ("dataset", "n", "kind"),
    "tuning": ("dataset", "N", "repetition", "variant"),
}


def table_key(name: str) -> tuple[str, ...]:
    """The key columns of the benchmark table ``name``; a clear error for a table never declared."""
    try:
        return BENCH_TABLES[name]
    except KeyError:
        raise KeyError(
            f"no benchmark table {name!r}: declare its key columns in scripts/bench_tables.py "
            "(BENCH_TABLES) before writing it"
        ) from None
