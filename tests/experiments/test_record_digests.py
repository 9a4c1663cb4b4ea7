"""Records carry the digests of their fields: an edited record is named (file, line, field) and not
counted, never in place of the record the run wrote; old records are signed once by a command."""

import json

import pytest

from experiments.drivers.sign_records import main as sign_records
from experiments.running.records import DIGESTS, RecordStore, digest_problem
from tests.experiments.records_for_tests import a_record


def test_a_record_edited_by_hand_is_named_by_file_line_and_field(tmp_path):
    store = RecordStore(tmp_path)
    store.append_many([a_record(accuracy=0.8, repetition=r) for r in range(2)])
    lines = store.path("ecoli").read_text().splitlines()
    edited = json.loads(lines[1])
    edited["accuracy"] = 0.95
    store.path("ecoli").write_text(lines[0] + "\n" + json.dumps(edited, sort_keys=True) + "\n")
    with pytest.warns(
        UserWarning, match=r"ecoli\.jsonl: dropping 1 .*\(line 2\): field 'accuracy' does not match"
    ):
        records = store.read("ecoli")
    assert [r["repetition"] for r in records] == [0]


def test_a_renamed_record_never_displaces_the_record_the_run_wrote(tmp_path):
    """A gcForest record renamed disdf, earlier in the file than the genuine DisDF record: the renamed
    one is dropped as edited, the genuine one counts (the one-record-per-key rule never sees the copy)."""
    store = RecordStore(tmp_path)
    gcforest, disdf = a_record(method="gcforest", accuracy=0.7), a_record(method="disdf", accuracy=0.6)
    renamed = {**gcforest, "method": "disdf"}
    store.path("ecoli").parent.mkdir(parents=True, exist_ok=True)
    store.path("ecoli").write_text(
        "".join(json.dumps(r, sort_keys=True) + "\n" for r in (renamed, gcforest, disdf))
    )
    with pytest.warns(UserWarning, match=r"\(line 1\): field 'method' does not match its digest") as caught:
        records = store.read("ecoli")
    assert not any("duplicate" in str(w.message) for w in caught)
    assert {(r["method"], r["accuracy"]) for r in records} == {("gcforest", 0.7), ("disdf", 0.6)}


def test_an_added_or_removed_field_is_named_as_such():
    record = a_record()
    assert digest_problem(record) is None
    assert "one added or removed" in digest_problem({**record, "seed": 3})
    assert "one added or removed" in digest_problem({k: v for k, v in record.items() if k != "n_test"})


def test_old_records_are_signed_once_with_their_content_unchanged(tmp_path, capsys):
    unsigned = [{k: v for k, v in a_record(repetition=r).items() if k != DIGESTS} for r in range(3)]
    raw = tmp_path / "run" / "raw"
    raw.mkdir(parents=True)
    text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in unsigned) + "not json\n"
    (raw / "ecoli.jsonl").write_text(text)
    sign_records([str(tmp_path)])
    assert "3 signed" in capsys.readouterr().out
    lines = (raw / "ecoli.jsonl").read_text().splitlines()
    assert lines[3] == "not json"
    for line, before in zip(lines[:3], unsigned, strict=True):
        record = json.loads(line)
        assert digest_problem(record) is None
        assert {k: v for k, v in record.items() if k != DIGESTS} == before
    signed_once = (raw / "ecoli.jsonl").read_bytes()
    sign_records([str(tmp_path)])  # a second time: nothing left to sign, nothing rewritten
    assert "3 signed before" in capsys.readouterr().out
    assert (raw / "ecoli.jsonl").read_bytes() == signed_once
