"""Tools around runs: git diff of records, record comparison, the resume soak, full MNIST."""
