"""The gate at its boundaries: exactly alpha, exactly the tolerance, the summary's sections."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ragward.cli import main
from ragward.errors import InputError
from ragward.evals.gate import compare
from ragward.evals.gate_summary import summary
from ragward.evals.run_identity import compare_identity
from ragward.evals.significance import paired_randomization
from ragward.evals.westfall_young import max_t_step_down
from tests.evals.gate_inputs import fingerprints, results, write_results

# 64 queries of dyadic values: means and differences are exact in binary.
QUERIES = [f"q{i:02d}" for i in range(64)]
BASE = {q: 0.75 if i % 2 else 0.5 for i, q in enumerate(QUERIES)}


def _one(values: dict[str, float], **extra: Any) -> dict[str, Any]:
    return results({"s1": {"ndcg_cut_10": values}}, **extra)


def test_a_p_value_of_exactly_alpha_is_not_significant() -> None:
    # Six queries, all worse: every one of the 64 patterns enumerated; the observed pattern
    # and its mirror reach the observed |T|, and no other does, so p = 2/64 exactly.
    six = {f"q{i}": 0.5 for i in range(6)}
    worse = dict.fromkeys(six, 0.25)
    result = compare(_one(six), _one(worse), trials=64, alpha=0.05)
    assert result.exact
    assert result.findings[0].adjusted_p == 2 / 64
    assert result.findings[0].status == "regression"
    at_alpha = compare(_one(six), _one(worse), trials=64, alpha=2 / 64 + 1e-12)
    assert at_alpha.findings[0].status == "regression"
    # alpha = 2/64 itself: the gate could not fail, and says so instead of passing
    with pytest.raises(Exception, match="could not fail"):
        compare(_one(six), _one(worse), trials=64, alpha=2 / 64)


def test_an_adjusted_p_of_exactly_alpha_above_the_floor_is_not_significant() -> None:
    # Five queries drop by 0.5, a sixth rises by 0.25: of the 64 patterns, the observed one,
    # the one with the sixth flipped (|sum| 2.75) and their mirrors reach |sum| 2.25, so
    # p = 4/64 exactly, above the floor 2/64.
    six = {f"q{i}": 0.75 for i in range(6)}
    worse = {**dict.fromkeys(six, 0.25), "q5": 1.0}
    at_alpha = compare(_one(six), _one(worse), trials=64, alpha=4 / 64)
    assert at_alpha.floor == 2 / 64
    assert at_alpha.findings[0].adjusted_p == 4 / 64
    assert at_alpha.findings[0].status == "unchanged"
    assert at_alpha.passed
    above = compare(_one(six), _one(worse), trials=64, alpha=4 / 64 + 1e-12)
    assert above.findings[0].status == "regression"


def test_a_floor_of_exactly_alpha_names_the_questions_not_the_trials() -> None:
    # 4 questions: 2**(1 - 4) = 0.125 = alpha; no number of trials would help.
    four = {f"q{i}": 0.5 for i in range(4)}
    with pytest.raises(Exception, match=r"4 query values can never give a p-value below 0\.125"):
        compare(_one(four), _one(four), alpha=0.125)
    with pytest.raises(Exception, match="--trials 6 or more would let it fail"):
        compare(_one(four), _one(four), alpha=0.15, trials=5)


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"tolerance": float("nan")}, "tolerance must be a finite number >= 0, got nan"),
        ({"tolerance": math.inf}, "tolerance must be a finite number >= 0, got inf"),
        ({"tolerance": -0.125}, "tolerance must be a finite number >= 0, got -0.125"),
        (
            {"tolerance": {"ndcg_cut_10": float("nan")}},
            "tolerance['ndcg_cut_10'] must be a finite number >= 0, got nan",
        ),
        (
            {"tolerance": {"ndcg_cut_10": "0.1"}},
            "tolerance['ndcg_cut_10'] must be a finite number >= 0, got '0.1'",
        ),
        ({"default_tolerance": -1.0}, "default_tolerance must be a finite number >= 0, got -1.0"),
    ],
)
def test_a_tolerance_that_could_hide_or_invent_a_change_is_refused(
    options: dict[str, Any], expected: str
) -> None:
    # A NaN or infinite drop allowed would let nothing regress: a gate that cannot fail.
    drop = {q: v - 0.125 for q, v in BASE.items()}
    with pytest.raises(InputError) as refused:
        compare(_one(BASE), _one(drop), **options)
    assert str(refused.value) == expected
    assert not compare(_one(BASE), _one(drop), tolerance=0, default_tolerance=0.0).passed


def test_a_drop_of_exactly_the_tolerance_is_allowed() -> None:
    drop = {q: v - 0.125 for q, v in BASE.items()}
    exactly = compare(_one(BASE), _one(drop), tolerance=0.125)
    assert exactly.findings[0].current - exactly.findings[0].baseline == -0.125
    assert exactly.findings[0].status == "unchanged"
    assert exactly.passed
    below = compare(_one(BASE), _one(drop), tolerance=0.0625)
    assert below.findings[0].status == "regression"
    rise = compare(_one(drop), _one(BASE), tolerance=0.125)
    assert rise.findings[0].status == "unchanged"


def test_one_trial_is_a_valid_test() -> None:
    result = max_t_step_down([[0.5], [0.25], [0.125], [1.0], [0.5], [0.25]], trials=1)
    assert not result.exact
    assert result.patterns == 1
    assert result.adjusted[0] in (0.5, 1.0)  # (count + 1) / 2


def test_every_gated_setting_missing_fails_rather_than_refuses() -> None:
    baseline = results({"s1": {"ndcg_cut_10": BASE}})
    current = results({"s2": {"ndcg_cut_10": BASE}})
    result = compare(baseline, current)
    assert result.findings == ()
    assert (result.trials, result.exact) == (0, True)
    assert result.missing == ("setting s1",)
    assert not result.passed
    assert compare(baseline, current, allow_missing=True).passed


def test_identity_lines_are_short_and_exact() -> None:
    long_spec = "x" * 72
    longer_spec = "y" * 73
    base = _one(BASE)
    other = _one(BASE, identity=fingerprints(ragward=long_spec, grid=None))
    lines = compare_identity(base, other).system
    assert f"ragward: baseline 0.1.0, current {long_spec}" in lines
    assert "grid: baseline sha256:g0, current none" in lines
    longer = compare_identity(base, _one(BASE, identity=fingerprints(ragward=longer_spec)))
    assert longer.system == (f"ragward: baseline 0.1.0, current {'y' * 69}...",)
    models = compare_identity(base, _one(BASE, identity=fingerprints(models={"a": "b"})))
    assert models.system == (
        "models.a: baseline none, current b",
        "models.hash-96: baseline hashing/96, current none",
    )
    assert compare_identity(base, base).system == ()
    assert compare_identity(base, base).data == ()


def test_identity_lines_cut_hashes_to_twelve_digits_and_keep_their_text() -> None:
    digest = "sha256:" + "0123456789abcdef" * 4
    other = fingerprints(corpus=digest, models=None)
    other["implementation"] = dict(other["implementation"], capabilities={"modèle": "é"})
    lines = compare_identity(_one(BASE), _one(BASE, identity=other))
    assert lines.data == ("corpus: baseline sha256:c0, current sha256:0123456789ab",)
    assert lines.system == (
        'implementation.capabilities: baseline {"dense":true,"lexical":true}, '
        'current {"modèle":"é"}',
        'models: baseline {"hash-96":"hashing/96"}, current none',
    )


def test_the_summary_shows_the_exploratory_comparisons(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    worse = {q: v - 0.125 for q, v in BASE.items()}
    baseline = results({"s1": {"ndcg_cut_10": BASE}, "s2": {"ndcg_cut_10": BASE}})
    current = results({"s1": {"ndcg_cut_10": BASE}, "s2": {"ndcg_cut_10": worse}})
    base = write_results(tmp_path / "base", baseline)
    now = write_results(tmp_path / "now", current)
    argv = ["gate", "--baseline", str(base), "--current", str(now), "--setting", "s1"]
    assert main(argv) == 0
    summary = (now / "gate.md").read_text()
    assert "1 gated comparisons" in summary
    assert "## Exploratory (not gated)" in summary
    assert "1 more comparisons, adjusted over every comparison of the runs; 1 significant" in (
        summary
    )
    assert "| regression | s2 " in summary
    assert "# Quality gate: PASS" in summary
    capsys.readouterr()


def test_the_summary_says_when_every_pattern_was_enumerated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    six = {f"q{i}": 0.5 for i in range(6)}
    worse = dict.fromkeys(six, 0.25)
    base = write_results(tmp_path / "base", _one(six))
    now = write_results(tmp_path / "now", _one(worse))
    argv = ["gate", "--baseline", str(base), "--current", str(now), "--trials", "64"]
    assert main(argv) == 1
    summary = (now / "gate.md").read_text()
    assert "over all 64 sign patterns of the questions that differ (exact)" in summary
    assert "the smallest adjusted p-value this gate can reach is 0.03125" in summary
    same = write_results(tmp_path / "same", _one(six))
    assert main(["gate", "--baseline", str(base), "--current", str(same), "--trials", "64"]) == 0
    assert "(none does)" in (same / "gate.md").read_text()
    capsys.readouterr()


@pytest.mark.parametrize("alpha", ["0", "1", "-0.5", "1.5", "nan"])
def test_alpha_outside_the_open_unit_interval_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], alpha: str
) -> None:
    base = write_results(tmp_path / "base", _one(BASE))
    capsys.readouterr()
    assert main(["gate", "--baseline", str(base), "--current", str(base), "--alpha", alpha]) == 2
    assert "--alpha must lie in (0, 1)" in capsys.readouterr().err


@pytest.mark.parametrize(("trials", "code"), [("0", 2), ("10000001", 2), ("20", 0)])
def test_trials_are_bounded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], trials: str, code: int
) -> None:
    base = write_results(tmp_path / "base", _one(BASE))
    capsys.readouterr()
    assert main(["gate", "--baseline", str(base), "--current", str(base), "--trials", trials]) == (
        code
    )
    if code == 2:
        assert "--trials must lie in [1, 10000000]" in capsys.readouterr().err
    capsys.readouterr()


def test_a_tolerance_for_every_measure_and_one_for_a_measure_combine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    worse = {q: v - 0.125 for q, v in BASE.items()}
    baseline = results({"s1": {"ndcg_cut_10": BASE, "recall_5": BASE}})
    current = results({"s1": {"ndcg_cut_10": worse, "recall_5": worse}})
    base = write_results(tmp_path / "base", baseline)
    now = write_results(tmp_path / "now", current)
    argv = ["gate", "--baseline", str(base), "--current", str(now)]
    assert main([*argv, "--tolerance", "0.2"]) == 0
    assert main([*argv, "--tolerance", "0.2", "--tolerance", "recall_5=0"]) == 1
    assert "| regression | s1        | recall_5" in (now / "gate.md").read_text()
    assert main([*argv, "--tolerance", "R@5=0.2", "--tolerance", "nDCG@10=0.2"]) == 0
    capsys.readouterr()


def test_a_tolerance_for_a_grounding_measure_is_kept_under_its_own_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    claims = {f"c{i:02d}": 1.0 for i in range(40)}
    fewer = {c: float(i % 2) for i, c in enumerate(claims)}  # accuracy 1.0 -> 0.5
    baseline = results({"s1": {"ndcg_cut_10": BASE}}, per_claim={"s1": {"0.6": claims}})
    current = results({"s1": {"ndcg_cut_10": BASE}}, per_claim={"s1": {"0.6": fewer}})
    base = write_results(tmp_path / "base", baseline)
    now = write_results(tmp_path / "now", current)
    argv = ["gate", "--baseline", str(base), "--current", str(now), "--tolerance"]
    assert main([*argv, "grounding_accuracy@0.6=0.4"]) == 1
    assert main([*argv, "grounding_accuracy@0.6=0.5"]) == 0
    capsys.readouterr()


def test_an_enumeration_over_many_blocks_counts_each_pattern_once() -> None:
    # 20 equal differences: only the observed pattern and its mirror reach |T| = sqrt(20);
    # 2**20 patterns take several blocks of signs.
    joint = max_t_step_down([[1.0]] * 20, trials=1 << 20)
    assert joint.exact
    assert joint.patterns == 1 << 20
    assert joint.adjusted == (2 / (1 << 20),)
    single = paired_randomization([0.0] * 20, [1.0] * 20, trials=1 << 20)
    assert single.exact
    assert single.p_value == 2 / (1 << 20)
    # a Monte Carlo p-value counts the observed pattern once: never 0
    strong = paired_randomization([0.0] * 300, [0.125] * 300, trials=100)
    assert not strong.exact
    assert (strong.p_value, strong.p_increase) == (1 / 101, 1 / 101)
    assert max_t_step_down([[0.125]] * 300, trials=100).adjusted == (1 / 101,)


def test_the_commands_default_seed_is_zero_and_default_trials_ten_thousand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = np.random.default_rng(3)
    before = {q: float(v) for q, v in zip(QUERIES, rng.uniform(0.2, 0.8, 64), strict=True)}
    after = {q: min(1.0, max(0.0, v + float(rng.normal(0.02, 0.1)))) for q, v in before.items()}
    base = write_results(tmp_path / "base", _one(before))
    now = write_results(tmp_path / "now", _one(after))
    argv = ["gate", "--baseline", str(base), "--current", str(now)]

    def table(*extra: str) -> str:
        main([*argv, *extra])
        text = (now / "gate.md").read_text()
        return text[text.index("| status") :]

    default = table()
    assert "over 10000 random sign patterns" in (now / "gate.md").read_text()
    assert default == table("--seed", "0", "--trials", "10000")
    assert default != table("--seed", "1")
    assert default != table("--trials", "10001")
    capsys.readouterr()


def test_the_default_seed_is_zero() -> None:
    rng = np.random.default_rng(2)
    before = {q: float(v) for q, v in zip(QUERIES, rng.uniform(0.2, 0.8, 64), strict=True)}
    noise = rng.normal(0.02, 0.1, 64)
    after = {q: min(1.0, max(0.0, v + float(noise[i]))) for i, (q, v) in enumerate(before.items())}
    default = compare(_one(before), _one(after), trials=200)
    assert default == compare(_one(before), _one(after), trials=200, seed=0)
    assert default != compare(_one(before), _one(after), trials=200, seed=1)
    values = list(before.values())
    shifted = list(after.values())
    assert paired_randomization(values, shifted, trials=200) == paired_randomization(
        values, shifted, trials=200, seed=0
    )
    rows = [[a - b] for a, b in zip(shifted, values, strict=True)]
    assert max_t_step_down(rows, trials=200) == max_t_step_down(rows, trials=200, seed=0)
    assert max_t_step_down(rows, trials=200) != max_t_step_down(rows, trials=200, seed=1)


@pytest.mark.parametrize("alpha", [0.0, 1.0])
def test_compare_refuses_alpha_at_the_ends(alpha: float) -> None:
    with pytest.raises(Exception, match=r"alpha must lie in \(0, 1\)"):
        compare(_one(BASE), _one(BASE), alpha=alpha)


def test_the_trials_bounds_are_inclusive(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from ragward.cli import gate as gate_command

    monkeypatch.setattr(gate_command, "_MAX_TRIALS", 30)
    base = write_results(tmp_path / "base", _one(BASE))
    argv = ["gate", "--baseline", str(base), "--current", str(base), "--trials"]
    assert main([*argv, "30"]) == 0
    capsys.readouterr()
    assert main([*argv, "31"]) == 2
    assert "--trials must lie in [1, 30]" in capsys.readouterr().err
    assert main([*argv, "1"]) == 2  # accepted, and then the gate could not fail
    assert "the gate could not fail" in capsys.readouterr().err


def test_dropped_questions_are_named_three_at_most() -> None:
    three = {q: v for q, v in BASE.items() if q not in ("q01", "q02", "q03")}
    four = {q: v for q, v in three.items() if q != "q04"}
    (line,) = compare(_one(BASE), _one(three)).missing
    assert line.endswith("3 query answers dropped ('q01', 'q02', 'q03')")
    (line,) = compare(_one(BASE), _one(four)).missing
    assert line.endswith("4 query answers dropped ('q01', 'q02', 'q03', ...)")


def test_the_joint_test_draws_ten_thousand_patterns_by_default() -> None:
    joint = max_t_step_down([[0.125]] * 300)
    assert (joint.patterns, joint.exact) == (10_000, False)
    drop = {q: v - 0.125 for q, v in BASE.items()}
    assert compare(_one(BASE), _one(drop)).trials == 10_000
    assert paired_randomization([0.0] * 300, [0.125] * 300).trials == 10_000


def test_more_capabilities_are_shown_compact() -> None:
    from tests.evals.gate_inputs import IMPLEMENTATION

    other = dict(IMPLEMENTATION, capabilities={"lexical": True, "modes": ["hybrid", "dense"]})
    lines = compare_identity(_one(BASE), _one(BASE, identity=fingerprints(implementation=other)))
    assert lines.system == (
        'implementation.capabilities: baseline {"dense":true,"lexical":true}, current '
        '{"lexical":true,"modes":["hybrid","dense"]}',
    )


def test_an_infinite_tolerance_and_a_true_trials_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = write_results(tmp_path / "base", _one(BASE))
    capsys.readouterr()
    argv = ["gate", "--baseline", str(base), "--current", str(base)]
    assert main([*argv, "--tolerance", "inf"]) == 2
    assert "a drop allowed is a number >= 0" in capsys.readouterr().err
    with pytest.raises(Exception, match="trials must be a positive integer"):
        paired_randomization([0.5], [0.25], trials=True)


def test_an_empty_table_of_values_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = write_results(tmp_path / "base", _one(BASE))
    empty = write_results(tmp_path / "empty", results({"s1": {"ndcg_cut_10": {}}}))
    capsys.readouterr()
    assert main(["gate", "--baseline", str(base), "--current", str(empty)]) == 2
    assert "setting 's1', measure ndcg_cut_10: no per-query values" in capsys.readouterr().err


@pytest.mark.parametrize(("changed", "cut"), [(20, False), (21, True)])
def test_the_exploratory_table_is_cut_only_above_twenty_rows(changed: int, cut: bool) -> None:
    worse = {q: v - 0.125 for q, v in BASE.items()}
    ids = [f"s{i:02d}" for i in range(changed + 1)]
    baseline = results({s: {"ndcg_cut_10": BASE} for s in ids})
    current = results({s: {"ndcg_cut_10": BASE if s == "s00" else worse} for s in ids})
    result = compare(baseline, current, settings=["s00"], trials=200)
    text = summary(result, alpha=0.05, baseline="base", current="now")
    assert f"{changed} more comparisons, adjusted over every comparison of the runs; " in text
    assert text.count("| regression | s") == 20
    assert ("... and 1 more." in text) is cut
    assert ("... and" in text) is cut


def test_long_lists_in_the_summary_are_cut(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ragward.api import _kit

    worse = {q: v - 0.125 for q, v in BASE.items()}
    ids = [f"s{i:02d}" for i in range(23)]
    baseline = results({s: {"ndcg_cut_10": BASE} for s in ids})
    current = results({s: {"ndcg_cut_10": BASE if s == "s00" else worse} for s in ids})
    base = write_results(tmp_path / "base", baseline)
    now = write_results(tmp_path / "now", current)
    kit = sorted(_kit())
    report = tmp_path / "conform.json"
    for left_out, cut in ((8, False), (9, True)):
        data = {
            "schema": 2,
            "fingerprints": {"implementation": baseline["fingerprints"]["implementation"]},
            "selection": None,
            "catalogue": kit,
            "invariants": [{"id": i, "verdict": "pass"} for i in kit[left_out:]],
        }
        report.write_text(json.dumps(data), encoding="utf-8")
        argv = ["gate", "--baseline", str(base), "--current", str(now), "--setting", "s00"]
        assert main([*argv, "--conformance", str(report), "--allow-partial"]) == 0
        summary = (now / "gate.md").read_text()
        line = next(x for x in summary.splitlines() if "Conformance report without" in x)
        assert f"without {left_out} invariants" in line
        assert ("..." in line) is cut
        shown = ", ".join(kit[:8]) + (", ..." if cut else "")
        assert f"invariants of the kit ({shown}; allowed by --allow-partial)" in line
    assert "22 more comparisons, adjusted over every comparison of the runs; 22 significant" in (
        summary
    )
    assert summary.count("| regression | s") == 20
    assert "... and 2 more." in summary
    capsys.readouterr()
