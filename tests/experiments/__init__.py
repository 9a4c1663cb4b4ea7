"""The reproduction's tests: runner, report, benchmarks, scripts."""
