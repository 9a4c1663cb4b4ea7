"""bench_routing_block.py on a tiny problem: a row per block and kind, the chosen block among them,
every block's leaves those of block 256, and speedups read against block 256."""

import argparse

import pytest

from disdf.forests._compiled import prediction_kernels
from scripts.bench import bench_routing_block as bench


@pytest.mark.parametrize("kind", bench.KINDS)
def test_each_block_routes_to_the_same_leaves_and_the_chosen_one_is_marked(kind, monkeypatch):
    monkeypatch.setitem(bench.SIZES, "higgs_like", (600, 300))
    args = argparse.Namespace(n_trees=3, blocks=[1, 64, 4096], repeats=1, data_dir=None)
    rows = bench.measure("higgs_like", kind, args)
    blocks = [row["block"] for row in rows]
    assert {1, 64, 4096, prediction_kernels.ROUTING_BLOCK} <= set(blocks) and blocks == sorted(blocks)
    assert sum(row["chosen"] for row in rows) == 1
    assert all(row["same_leaves"] for row in rows) and all(row["n_routed"] == 300 for row in rows)
    base = next(row for row in rows if row["block"] == prediction_kernels.ROUTING_BLOCK)
    assert base["speedup"] == 1.0 and all(row["seconds"] > 0 for row in rows)
