"""The cascades' parameter table: every parameter of :class:`~disdf.CascadeForestClassifier` (and so of
:class:`~disdf.DisDFClassifier`, whose table extends it), its type and range
(:mod:`disdf._utils.parameters`), checked by ``fit`` before any work."""

from __future__ import annotations

from disdf._utils.parameters import Boolean, Constraint, Float, Integer, NJobs, OneOf, RandomSeed
from disdf._utils.sample_weights import ClassWeight
from disdf.cascade._fitted_levels import KeepFittedLevels, LevelsFolder
from disdf.cascade._level_members import LevelEstimators
from disdf.cascade._out_of_bag_levels import OutOfBag
from disdf.cascade._predictor import Predictor
from disdf.forests._specs import ENGINES, BinningParameter, ForestSpecs, TreeSampleCap

#: How a level's input grows (see CascadeForestClassifier's ``augmentation``).
AUGMENTATIONS = ("cumulative", "previous")
#: Where new examples' class vectors come from (see CascadeForestClassifier's ``test_vectors``).
TEST_VECTORS = ("fold_mean", "refit")

#: In this order: a constraint that reads another parameter (forests, n_bins read engine) comes after it.
CASCADE_PARAMETERS: dict[str, Constraint] = {
    "n_trees": Integer(1),
    "n_folds": Integer(2),
    "group_duplicates": Boolean(),
    "max_levels": Integer(1),
    "patience": Integer(1),
    "tol": Float(0.0),
    "augmentation": OneOf(AUGMENTATIONS),
    "max_depth": Integer(1, none=True),
    "min_samples_split": Integer(2),
    "min_samples_leaf": Integer(1),
    "n_jobs": NJobs(),
    "random_state": RandomSeed(),
    "engine": OneOf(ENGINES),
    "n_bins": BinningParameter(),
    "bin_subsample": BinningParameter(),
    "max_tree_samples": TreeSampleCap(),
    "verbose": Integer(0, bools=True),  # verbose=True is the common spelling of 1
    "test_vectors": OneOf(TEST_VECTORS),
    "level_estimators": LevelEstimators(),  # before forests, which reads it
    "forests": ForestSpecs(),
    "keep_fitted_levels": KeepFittedLevels(),
    "fitted_levels_dir": LevelsFolder(),
    "predictor": Predictor(),
    "class_weight": ClassWeight(),
    "out_of_bag": OutOfBag(),  # last: it reads n_folds, test_vectors, level_estimators and forests
}

#: The regressor's table: the same parameters but ``class_weight``, its forests of regression trees
#: and its predictor a regressor.
REGRESSOR_PARAMETERS: dict[str, Constraint] = {
    **{name: rule for name, rule in CASCADE_PARAMETERS.items() if name != "class_weight"},
    "forests": ForestSpecs(regression=True),
    "predictor": Predictor(regressor=True),
    "level_estimators": LevelEstimators(regressor=True),
}
