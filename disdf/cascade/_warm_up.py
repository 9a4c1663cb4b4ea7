"""The compiled engine compiled ahead of the first real fit: ``python -c "import disdf; disdf.warm_up()"``.

The engine's kernels (numba, ``cache=True``) are compiled on their first call and kept in the
package's ``__pycache__`` (or ``NUMBA_CACHE_DIR``): without this, a new environment's first fit pays
about a minute of CPU for it. :func:`warm_up` makes those calls once, on a few examples, for each
compiled engine and each kind of weight solve, so that every later process reads the compiled
kernels from the cache (``make install`` runs it).
"""

from __future__ import annotations

import numpy as np

from disdf.cascade._cascade import CascadeForestClassifier
from disdf.cascade._discriminative import DisDFClassifier
from disdf.cascade._regressor import CascadeForestRegressor
from disdf.forests._specs import COMPILED_ENGINES


def warm_up() -> None:
    """Compile and cache the engine's kernels: fit and apply the cascades once per compiled engine
    (gcForest out of bag too, DisDF with an exact and a pair-sampling solver; the regressor's
    squared-error trees, out of bag too) on 90 random examples. About a minute of CPU in a new
    environment, a second once cached; nothing is returned or kept.

    Examples
    --------
    >>> import disdf
    >>> disdf.warm_up()  # after installing: the first real fit then starts at once
    """
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 5))
    X[:, 0] = np.round(X[:, 0] * 3)  # a few-valued feature: its coded path compiles too
    y = np.arange(90) % 3
    for engine in COMPILED_ENGINES:
        models = [
            CascadeForestClassifier(n_trees=4, max_levels=2, engine=engine, random_state=0),
            # out of bag: the kernel that redraws each tree's bag too
            CascadeForestClassifier(n_trees=4, max_levels=2, engine=engine, random_state=0, out_of_bag=True),
            DisDFClassifier(n_trees=4, max_levels=2, engine=engine, random_state=0),
            DisDFClassifier(
                n_trees=4, max_levels=1, engine=engine, solver="stochastic_frank_wolfe", random_state=0
            ),
        ]
        for model in models:
            model.fit(X, y).predict_proba(X)
        for out_of_bag in (False, True):  # out of bag: the kernel that redraws each tree's bag too
            regressor = CascadeForestRegressor(
                n_trees=4, max_levels=2, engine=engine, random_state=0, out_of_bag=out_of_bag
            )
            regressor.fit(X, X[:, 1] + y).predict(X)
