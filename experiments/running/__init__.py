"""Running a protocol: the config and its schema, the plan of units, the splits, fitting a split's units
and recording them; the full-MNIST run and the committed-records check."""
