"""``python -m conformance.bench --fuzz --programs N``: a fresh campaign over a seed's first N
programs, the same work on every run (how two versions are compared on a machine whose speed drifts)."""

from conformance.bench import measure_fuzz


def test_a_fixed_workload_runs_exactly_the_seeds_first_programs_and_splits_its_cpu(tmp_path):
    first = measure_fuzz("oracle", seed=3, out_dir=str(tmp_path / "a"), programs=6)
    again = measure_fuzz("oracle", seed=3, out_dir=str(tmp_path / "b"), programs=6)
    assert first["campaign programs"] == again["campaign programs"] == 6
    assert first["known-deviation failures"] == again["known-deviation failures"]
    total = first["campaign CPU seconds (all processes)"]
    assert total > 0 and abs(total - first["  of which the campaign's process"]
                             - first["  of which the backend's workers"]) < 0.02
    assert abs(first["CPU seconds per program"] * 6 - total) < 0.01
