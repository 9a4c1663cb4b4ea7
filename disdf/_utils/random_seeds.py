"""The range of the integer seeds the estimators draw for their folds and forests."""

import numpy as np

#: Seeds are drawn from [0, SEED_HIGH): int32's range, which every engine and scikit-learn accept.
SEED_HIGH = np.iinfo(np.int32).max
