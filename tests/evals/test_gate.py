"""``ragward gate``: what fails it, what passes it, and what it refuses to judge."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ragward.cli import main
from ragward.evals.gate import GateCannotFail, GateResult, compare
from tests.evals.gate_inputs import IMPLEMENTATION, fingerprints, results, write_results

QUERIES = [f"q{i:03d}" for i in range(60)]
GOOD = {q: 0.8 if i % 3 else 0.6 for i, q in enumerate(QUERIES)}
WORSE = {q: v - 0.1 for q, v in GOOD.items()}


def _one(values: dict[str, float], setting: str = "s1", **extra: Any) -> dict[str, Any]:
    return results({setting: {"ndcg_cut_10": values}}, **extra)


def _grid(settings: int, value: float = 1.0, queries: int = 300) -> dict[str, Any]:
    """``settings`` settings of 7 ranking and 7 grounding measures: 14 comparisons each."""
    ids = [f"q{i:03d}" for i in range(queries)]
    measures = ["ndcg_cut_10", "recall_5", "recall_10", "P_5", "recip_rank", "success_1", "map"]
    per_query = {}
    per_claim = {}
    for number in range(settings):
        shift = (number % 7) / 100
        per_query[f"s{number:03d}"] = {
            m: {q: value * (0.5 + shift + (i % 5) / 10) for i, q in enumerate(ids)}
            for m in measures
        }
        per_claim[f"s{number:03d}"] = {
            f"0.{t}": {f"c{i:03d}": float(value == 1.0 or i % 2) for i in range(120)}
            for t in range(3, 10)
        }
    return results(per_query, per_claim=per_claim)


def test_identical_runs_pass() -> None:
    data = _one(GOOD)
    result = compare(data, data)
    assert result.passed
    assert [f.status for f in result.findings] == ["unchanged"]
    assert result.findings[0].p_value == 1.0
    assert result.findings[0].adjusted_p == 1.0


def test_a_consistent_drop_is_a_regression() -> None:
    result = compare(_one(GOOD), _one(WORSE))
    assert not result.passed
    (finding,) = result.findings
    assert finding.status == "regression"
    assert finding.adjusted_p < 0.05
    assert finding.current - finding.baseline == pytest.approx(-0.1)


def test_a_consistent_rise_is_an_improvement_and_passes() -> None:
    result = compare(_one(WORSE), _one(GOOD))
    assert result.passed
    assert [f.status for f in result.findings] == ["improvement"]


def test_a_drop_within_tolerance_passes() -> None:
    slightly = {q: v - 0.01 for q, v in GOOD.items()}
    assert compare(_one(GOOD), _one(slightly), tolerance=0.02).passed
    assert compare(_one(GOOD), _one(slightly), tolerance={"ndcg_cut_10": 0.02}).passed
    assert not compare(_one(GOOD), _one(slightly), tolerance={"recall_5": 0.02}).passed
    assert compare(
        _one(GOOD), _one(slightly), tolerance={"recall_5": 0.0}, default_tolerance=0.02
    ).passed


def test_noise_on_a_few_queries_is_not_significant() -> None:
    noisy = dict(GOOD)
    noisy["q000"] -= 0.2
    noisy["q001"] += 0.1
    assert compare(_one(GOOD), _one(noisy)).passed


@pytest.mark.parametrize("settings", [2, 88])
def test_every_value_halved_fails_at_any_grid_size(settings: int) -> None:
    # 88 settings x 14 measures = 1,232 comparisons: Holm over Monte Carlo p-values could
    # reach no lower than 1232 / 10001 > 0.05 and let this pass.
    result = compare(_grid(settings), _grid(settings, value=0.5), trials=2_000)
    assert len(result.findings) == settings * 14
    assert not result.passed
    ranking = [f for f in result.findings if not f.measure.startswith("grounding")]
    assert {f.status for f in ranking} == {"regression"}
    assert result.floor == 1 / 2_001


def test_one_regressed_setting_among_a_thousand_comparisons_is_found() -> None:
    before = _grid(88)
    after = json.loads(json.dumps(before))
    target = after["settings"][40]["per_query"]["ndcg_cut_10"]
    for number, query in enumerate(sorted(target)):
        target[query] -= 0.05 if number % 4 else 0.0
    result = compare(before, after, trials=2_000)
    assert not result.passed
    assert [(f.setting, f.measure) for f in result.regressions] == [("s040", "ndcg_cut_10")]


def test_any_leak_fails_even_without_a_regression() -> None:
    leaky = dict.fromkeys(QUERIES, 0.0)
    leaky["q007"] = 1.0
    data = results({"s1": {"ndcg_cut_10": GOOD, "leakage_10": leaky}})
    result = compare(data, data)
    assert not result.passed
    assert result.leaks == ("s1",)


def test_a_leak_in_the_means_alone_fails() -> None:
    data = results({"s1": {"ndcg_cut_10": GOOD}, "s2": {"ndcg_cut_10": GOOD}}, leaks={"s2": 0.25})
    assert "leakage_10" not in data["settings"][1]["per_query"]
    result = compare(data, data)
    assert result.leaks == ("s2",)
    assert not result.passed


def test_extra_questions_in_the_current_run_are_refused() -> None:
    more = {**GOOD, "q999": 0.5}
    with pytest.raises(Exception, match="'q999', which the baseline has not"):
        compare(_one(GOOD), _one(more))


def test_a_dropped_question_fails_unless_allowed() -> None:
    fewer = {q: v for q, v in GOOD.items() if q != "q005"}
    result = compare(_one(GOOD), _one(fewer))
    assert not result.passed
    assert result.missing == ("setting s1, measure ndcg_cut_10: 1 query answers dropped ('q005')",)
    assert [f.status for f in result.findings] == ["unchanged"]
    assert compare(_one(GOOD), _one(fewer), allow_missing=True).passed


def test_a_result_fails_on_what_is_missing_or_partial_unless_told_otherwise() -> None:
    # GateResult is public: one built without saying allows nothing
    from ragward.evals.conformance_input import Conformance

    missing = GateResult((), 0, True, 0.0, missing=("setting s1",))
    assert (missing.missing_allowed, missing.passed) == (False, False)
    partial = GateResult((), 0, True, 0.0, conformance=Conformance(3, (), ("GRD-001",), False))
    assert (partial.partial_allowed, partial.conformance_failed, partial.passed) == (
        False,
        True,
        False,
    )


def test_missing_settings_fail_unless_allowed() -> None:
    baseline = results({f"s{i}": {"ndcg_cut_10": GOOD} for i in range(24)})
    current = results({f"s{i}": {"ndcg_cut_10": GOOD} for i in range(6)})
    result = compare(baseline, current)
    assert not result.passed
    assert len(result.missing) == 18
    assert "setting s6" in result.missing
    assert compare(baseline, current, allow_missing=True).passed
    # a gate on one setting needs that setting only
    assert compare(baseline, current, settings=["s2"]).passed


def test_a_missing_gated_measure_fails() -> None:
    baseline = results({"s1": {"ndcg_cut_10": GOOD, "recall_5": GOOD}})
    current = results({"s1": {"ndcg_cut_10": GOOD}})
    result = compare(baseline, current)
    assert result.missing == ("setting s1: measure recall_5",)
    assert not result.passed
    assert compare(baseline, current, measures=["ndcg_cut_10"]).passed


def test_only_the_gated_comparisons_can_fail() -> None:
    baseline = results({"s1": {"ndcg_cut_10": GOOD}, "s2": {"ndcg_cut_10": GOOD}})
    current = results({"s1": {"ndcg_cut_10": GOOD}, "s2": {"ndcg_cut_10": WORSE}})
    assert not compare(baseline, current).passed
    narrowed = compare(baseline, current, settings=["s1"])
    assert narrowed.passed
    assert [f.setting for f in narrowed.findings] == ["s1"]
    assert [(f.setting, f.status) for f in narrowed.exploratory] == [("s2", "regression")]
    assert not compare(baseline, current, settings=["s2"]).passed


def test_best_is_the_baselines_best_setting_on_the_first_gated_measure() -> None:
    low = {q: v - 0.3 for q, v in GOOD.items()}
    baseline = results(
        {"s1": {"ndcg_cut_10": low, "recall_5": GOOD}, "s2": {"ndcg_cut_10": GOOD, "recall_5": low}}
    )
    assert [f.setting for f in compare(baseline, baseline, settings=["best"]).findings] == [
        "s2",
        "s2",
    ]
    by_recall = compare(baseline, baseline, settings=["best"], measures=["recall_5"])
    assert [(f.setting, f.measure) for f in by_recall.findings] == [("s1", "recall_5")]
    assert len(by_recall.exploratory) == 3


def test_best_is_the_highest_mean_whatever_the_number_of_questions() -> None:
    # s1: 10 questions at 0.9 (sum 9); s2: all 60 at 0.5 (sum 30). The best mean is s1's.
    few = dict.fromkeys(QUERIES[:10], 0.9)
    baseline = results(
        {"s1": {"ndcg_cut_10": few}, "s2": {"ndcg_cut_10": dict.fromkeys(GOOD, 0.5)}}
    )
    (finding,) = compare(baseline, baseline, settings=["best"]).findings
    assert (finding.setting, finding.n) == ("s1", 10)


def test_measures_narrow_the_gate_and_accept_either_spelling() -> None:
    baseline = results({"s1": {"ndcg_cut_10": GOOD, "recall_5": GOOD}})
    current = results({"s1": {"ndcg_cut_10": GOOD, "recall_5": WORSE}})
    assert not compare(baseline, current).passed
    result = compare(baseline, current, measures=["nDCG@10"])
    assert result.passed
    assert [f.measure for f in result.exploratory] == ["recall_5"]
    with pytest.raises(Exception, match="not a measure of the baseline"):
        compare(baseline, current, measures=["P_5"])
    with pytest.raises(Exception, match="not a setting of the baseline"):
        compare(baseline, current, settings=["s9"])


def test_grounding_claims_are_units_of_their_own() -> None:
    claims = {f"c{i}": 1.0 for i in range(40)}
    fewer = {c: float(i % 2) for i, c in enumerate(claims)}
    baseline = results({"s1": {"ndcg_cut_10": GOOD}}, per_claim={"s1": {"0.6": claims}})
    current = results({"s1": {"ndcg_cut_10": GOOD}}, per_claim={"s1": {"0.6": fewer}})
    result = compare(baseline, current)
    finding = next(f for f in result.findings if f.measure == "grounding_accuracy@0.6")
    assert (finding.n, finding.status) == (40, "regression")


def test_a_family_that_cannot_fail_is_refused() -> None:
    few = {f"q{i}": 0.5 for i in range(4)}
    with pytest.raises(
        GateCannotFail, match=r"4 query values can never give a p-value below 0\.125"
    ):
        compare(_one(few), _one(few))
    with pytest.raises(GateCannotFail, match="--trials 20 or more"):
        compare(_one(GOOD), _one(GOOD), trials=19)
    assert compare(_one(GOOD), _one(WORSE), trials=20).findings[0].adjusted_p == 1 / 21
    # alpha 0.2 is reachable with 4 queries: 2 / 16 < 0.2
    assert compare(_one(few), _one(few), alpha=0.2).passed


def test_a_gate_on_settings_without_the_gated_measures_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # s1 has no nDCG@10 in the baseline: nothing would be gated, and both regressions
    # would only be exploratory
    baseline = results({"s1": {"recall_5": GOOD}, "s2": {"ndcg_cut_10": GOOD}})
    current = results({"s1": {"recall_5": WORSE}, "s2": {"ndcg_cut_10": WORSE}})
    with pytest.raises(GateCannotFail, match=r"hold none of the gated measures \(ndcg_cut_10\)"):
        compare(baseline, current, settings=["s1"], measures=["nDCG@10"])
    capsys.readouterr()
    assert _gate(tmp_path, baseline, current, "--setting", "s1", "--measures", "nDCG@10") == 2
    assert "ragward gate: error: the gate could not fail" in capsys.readouterr().err
    assert not compare(baseline, current, settings=["s1"]).passed  # recall_5 is gated


def test_the_refusal_names_the_first_of_the_comparisons_that_cannot_fail() -> None:
    few = {f"q{i}": 0.5 for i in range(4)}
    baseline = results({"s1": {"ndcg_cut_10": few, "recall_5": few}, "s2": {"ndcg_cut_10": few}})
    with pytest.raises(GateCannotFail, match="setting s1, measure ndcg_cut_10 can reach"):
        compare(baseline, baseline)


def test_a_family_with_a_single_question_or_claim_is_refused_naming_it() -> None:
    with pytest.raises(GateCannotFail, match=r"1 query values can never give a p-value below 1;"):
        compare(_one({"q0": 0.5}), _one({"q0": 0.25}))
    one_claim = results({"s1": {"ndcg_cut_10": GOOD}}, per_claim={"s1": {"0.6": {"c0": 1.0}}})
    with pytest.raises(GateCannotFail, match=r"1 claim values can never .*gate more claim values"):
        compare(one_claim, one_claim, measures=["grounding_accuracy@0.6"])


# ---------------------------------------------------------------- the command, end to end


def _gate(tmp_path: Path, baseline: dict[str, Any], current: dict[str, Any], *extra: str) -> int:
    base = write_results(tmp_path / "base", baseline)
    now = write_results(tmp_path / "now", current)
    return main(["gate", "--baseline", str(base), "--current", str(now), *extra])


def test_gate_command_exit_codes_and_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _gate(tmp_path, _one(GOOD), _one(GOOD)) == 0
    summary = (tmp_path / "now" / "gate.md").read_text()
    assert "# Quality gate: PASS" in summary
    assert "Westfall-Young" in summary
    assert "Same data, grid, implementation, models and ragward version" in summary
    assert "Runs of different data" not in summary
    assert "\n0 significant regressions, 0 significant improvements.\n" in summary
    assert _gate(tmp_path, _one(GOOD), _one(WORSE)) == 1
    summary = (tmp_path / "now" / "gate.md").read_text()
    assert "# Quality gate: FAIL" in summary
    assert "| regression | s1 " in summary
    assert "\n1 significant regressions, 0 significant improvements.\n" in summary
    assert _gate(tmp_path, _one(WORSE), _one(GOOD)) == 0
    summary = (tmp_path / "now" / "gate.md").read_text()
    assert "\n0 significant regressions, 1 significant improvements.\n" in summary
    capsys.readouterr()


def _rows(summary: str) -> list[list[str]]:
    """The cells of the summary's first table, header and rule left out."""
    lines = [x for x in summary.splitlines() if x.startswith("| ")]
    return [[cell.strip() for cell in x.strip("|").split("|")] for x in lines[1:]]


def test_the_table_shows_regressions_first_with_their_signed_change(tmp_path: Path) -> None:
    baseline = results({"s1": {"ndcg_cut_10": WORSE}, "s2": {"ndcg_cut_10": GOOD}})
    current = results({"s1": {"ndcg_cut_10": GOOD}, "s2": {"ndcg_cut_10": WORSE}})
    assert _gate(tmp_path, baseline, current) == 1
    rows = _rows((tmp_path / "now" / "gate.md").read_text())
    assert [(r[0], r[1], r[6]) for r in rows] == [
        ("regression", "s2", "-0.1000"),
        ("improvement", "s1", "0.1000"),
    ]


def test_with_nothing_changed_the_table_shows_the_five_lowest_p_values(tmp_path: Path) -> None:
    data = results({f"s{i}": {"ndcg_cut_10": GOOD} for i in range(7)})
    assert _gate(tmp_path, data, data) == 0
    rows = _rows((tmp_path / "now" / "gate.md").read_text())
    assert [r[0] for r in rows] == ["unchanged"] * 5


@pytest.mark.parametrize("left_out", ["--baseline", "--current"])
def test_the_baseline_and_the_current_run_are_required(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], left_out: str
) -> None:
    folder = write_results(tmp_path / "run", _one(GOOD))
    argv = [
        "gate",
        *(a for o in ("--baseline", "--current") if o != left_out for a in (o, str(folder))),
    ]
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert f"the following arguments are required: {left_out}" in err
    assert "Traceback" not in err


def test_runs_of_different_data_are_refused_one_line_per_difference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    regraded = _one(GOOD, identity=fingerprints(qrels="sha256:r1", corpus="sha256:c1"))
    capsys.readouterr()
    assert _gate(tmp_path, _one(GOOD), regraded) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3
    assert err[0].startswith("ragward gate: error: the runs differ in their data: corpus:")
    assert "qrels: baseline sha256:r0, current sha256:r1" in err[1]
    assert not (tmp_path / "now" / "gate.md").exists()
    assert _gate(tmp_path, _one(GOOD), regraded, "--allow-data-change") == 0
    summary = (tmp_path / "now" / "gate.md").read_text()
    assert "Runs of different data, compared because --allow-data-change" in summary
    assert "  - corpus: baseline sha256:c0, current sha256:c1\n" in summary
    assert "  - qrels: baseline sha256:r0, current sha256:r1\n" in summary
    assert "Same data" not in summary  # the data differ, the system does not
    assert "different systems" not in summary
    capsys.readouterr()


def test_another_system_on_the_same_data_is_judged_and_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = dict(IMPLEMENTATION, spec="mypkg.adapter:factory")
    current = _one(GOOD, identity=fingerprints(implementation=other, ragward="0.2.0"))
    assert _gate(tmp_path, _one(GOOD), current) == 0
    summary = (tmp_path / "now" / "gate.md").read_text()
    assert "made by different systems" in summary
    assert (
        "implementation.spec: baseline ragward.engines.reference:reference_factory, current "
        in summary
    )
    assert "ragward: baseline 0.1.0, current 0.2.0" in summary
    capsys.readouterr()


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda v: v.__setitem__("q003", float("nan")), "query 'q003': nan is outside [0, 1]"),
        (lambda v: v.__setitem__("q004", 5.0), "query 'q004': 5.0 is outside [0, 1]"),
        (lambda v: v.__setitem__("q005", "0.1"), "query 'q005': '0.1' is not a number"),
        (lambda v: v.__setitem__("q006", True), "query 'q006': True is not a number"),
        (lambda v: v.__setitem__("q007", -0.5), "query 'q007': -0.5 is outside [0, 1]"),
    ],
)
def test_values_no_measure_can_take_are_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: Any, expected: str
) -> None:
    values: dict[str, Any] = dict(GOOD)
    edit(values)
    capsys.readouterr()
    assert _gate(tmp_path, _one(GOOD), _one(values)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "now/results.json: setting 's1', measure ndcg_cut_10, " + expected in err


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{", "not valid JSON"),
        ('{"format": "other"}', "not a ragward eval results file"),
        (
            '{"format": "ragward-eval/1", "settings": []}',
            "written before runs carried fingerprints",
        ),
        ('{"format": "ragward-eval/2", "settings": []}', "fingerprints"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ],
)
def test_bad_results_file_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, expected: str
) -> None:
    base = write_results(tmp_path / "base", _one(GOOD))
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    assert main(["gate", "--baseline", str(base), "--current", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert expected in err
    assert "bad.json" in err


# ---------------------------------------------------------------- conformance reports


def _report(tmp_path: Path, verdicts: dict[str, str], **changes: Any) -> Path:
    from ragward.api import _kit

    kit = sorted(_kit())
    entries = [{"id": i, "verdict": verdicts.get(i, "pass")} for i in kit]
    data: dict[str, Any] = {
        "schema": 2,
        "implementation": IMPLEMENTATION["spec"],
        "fingerprints": {"implementation": dict(IMPLEMENTATION), "ragward": "0.1.0"},
        "selection": None,
        "catalogue": kit,
        "invariants": entries,
    }
    data.update(changes)
    path = tmp_path / "conform.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _gated_with(tmp_path: Path, report: Path, *extra: str) -> int:
    return _gate(tmp_path, _one(GOOD), _one(GOOD), "--conformance", str(report), *extra)


def test_tolerance_options_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for bad, expected in [
        ("nan", "a drop allowed is a number >= 0"),
        ("-1", "a drop allowed is a number >= 0"),
        ("recall_5=0.1", "not a measure of the runs"),
        ("x=y", "expected [MEASURE=]DROP"),
    ]:
        capsys.readouterr()
        assert _gate(tmp_path, _one(GOOD), _one(WORSE), "--tolerance", bad) == 2
        assert expected in capsys.readouterr().err
    assert _gate(tmp_path, _one(GOOD), _one(WORSE), "--tolerance", "nDCG@10=0.2") == 0
    capsys.readouterr()


# ---------------------------------------------------------------- the issue's cases, as processes


def _process_case(tmp_path: Path, case: str) -> list[str]:
    """Write the inputs of one case under ``tmp_path``; the gate's arguments."""
    base, now = tmp_path / "base", tmp_path / "now"
    if case == "halved-1232-comparisons":
        write_results(base, _grid(88))
        write_results(now, _grid(88, value=0.5))
    elif case == "18-of-24-settings-missing":
        write_results(base, results({f"s{i}": {"ndcg_cut_10": GOOD} for i in range(24)}))
        write_results(now, results({f"s{i}": {"ndcg_cut_10": GOOD} for i in range(6)}))
    elif case == "regraded-qrels":
        write_results(base, _one(GOOD))
        write_results(now, _one(WORSE, identity=fingerprints(qrels="sha256:r1")))
    elif case == "cannot-fail":
        write_results(base, _one(GOOD))
        write_results(now, _one(WORSE))
        return ["--baseline", str(base), "--current", str(now), "--trials", "10"]
    elif case in ("errored-invariant", "selected-invariant"):
        write_results(base, _one(GOOD))
        write_results(now, _one(GOOD))
        from ragward.api import _kit

        first = sorted(_kit())[0]
        verdicts = {first: "error"} if case == "errored-invariant" else {}
        changes: dict[str, Any] = {}
        if case == "selected-invariant":
            changes = {"selection": [first], "invariants": [{"id": first, "verdict": "pass"}]}
        report = _report(tmp_path, verdicts, **changes)
        return ["--baseline", str(base), "--current", str(now), "--conformance", str(report)]
    return ["--baseline", str(base), "--current", str(now), "--trials", "2000"]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("case", "code"),
    [
        ("halved-1232-comparisons", 1),
        ("18-of-24-settings-missing", 1),
        ("regraded-qrels", 2),
        ("cannot-fail", 2),
        ("errored-invariant", 1),
        ("selected-invariant", 1),
    ],
)
def test_the_issues_cases_give_their_exit_codes_as_processes(
    tmp_path: Path, case: str, code: int
) -> None:
    import subprocess
    import sys

    argv = [sys.executable, "-m", "ragward", "gate", *_process_case(tmp_path, case)]
    done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == code, done.stdout[-2000:] + done.stderr
    if code == 1:
        assert done.stdout.startswith("# Quality gate: FAIL")
    else:
        assert "Traceback" not in done.stderr
        assert done.stderr.startswith("ragward gate: error:")


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ([{"id": "s1", "means": {}}], "setting 's1': per_query missing or not an object"),
        ([_one(GOOD)["settings"][0], "s2"], "field 'settings[1].id': missing"),
        ([_one(GOOD)["settings"][0]] * 2, "field 'settings[1].id': 's1' appears twice"),
        ([], "field 'settings': missing or empty"),
    ],
)
def test_a_results_file_with_broken_settings_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], settings: list[Any], expected: str
) -> None:
    base = write_results(tmp_path / "base", _one(GOOD))
    bad = write_results(tmp_path / "bad", {**_one(GOOD), "settings": settings})
    assert main(["gate", "--baseline", str(base), "--current", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"bad/results.json: {expected}" in err, err


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1.5, "1.5 is outside [0, 1]"),
        ("1", "'1' is not a number"),
        (float("nan"), "nan is outside [0, 1]"),
    ],
)
def test_a_per_claim_value_no_verdict_can_take_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: Any, expected: str
) -> None:
    claims = {f"c{i}": float(i % 2) for i in range(40)}
    baseline = results({"s1": {"ndcg_cut_10": GOOD}}, per_claim={"s1": {"0.6": claims}})
    current = results(
        {"s1": {"ndcg_cut_10": GOOD}}, per_claim={"s1": {"0.6": {**claims, "c3": value}}}
    )
    capsys.readouterr()
    assert _gate(tmp_path, baseline, current) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"setting 's1', measure grounding_accuracy@0.6, claim 'c3': {expected}" in err


@pytest.mark.parametrize("data", [None, ["corpus", "queries", "qrels", "claims"], "corpus"])
def test_data_fingerprints_that_are_not_an_object_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: Any
) -> None:
    prints = fingerprints()
    prints["data"] = data
    capsys.readouterr()
    assert _gate(tmp_path, _one(GOOD), _one(GOOD, identity=prints)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "field 'fingerprints.data': needs corpus, queries, qrels, claims" in err


def test_a_count_measure_takes_any_number_from_zero_up(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    counts = {q: float(i % 13) for i, q in enumerate(QUERIES)}  # 0 and 12 among them
    data = results({"s1": {"ndcg_cut_10": GOOD, "num_rel_ret": counts}})
    assert _gate(tmp_path, data, data) == 0
    negative = results({"s1": {"ndcg_cut_10": GOOD, "num_rel_ret": {**counts, "q003": -1.0}}})
    capsys.readouterr()
    assert _gate(tmp_path, data, negative) == 2
    err = capsys.readouterr().err
    assert "measure num_rel_ret, query 'q003': -1.0 is outside [0, inf)" in err
    bogus = results({"s1": {"ndcg_cut_10": GOOD, "bogus_3": dict.fromkeys(GOOD, 0.5)}})
    assert _gate(tmp_path, data, bogus) == 2
    assert "setting 's1': measure 'bogus_3' is not one ragward computes" in capsys.readouterr().err


def test_a_missing_results_file_is_named_as_not_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = write_results(tmp_path / "base", _one(GOOD))
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["gate", "--baseline", str(base), "--current", str(empty)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "current results not found" in err
    assert str(empty / "results.json") in err
