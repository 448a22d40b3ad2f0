#!/usr/bin/env python3
"""Chooses the tests the sanitized run leaves out (scripts/sanitize-selection).

Input: for each test, the lines and branches of fxsim's sources it reaches
(a file of `path:line` and `path:line:bBLOCK:BRANCH` entries, one a line, in a
folder named after the test's ctest index), and each test's time under the
sanitizers (ctest's CTestCostData.txt). A test is left out when everything it
reaches is reached by tests that stay, visiting the costliest first, so the
tests that stay reach every line and branch the whole suite reaches. Tests
quicker than --min-seconds always stay: they cost little and bring other data.

    sanitize_selection.py --names NAMES --coverage DIR --costs FILE [--min-seconds S]
    sanitize_selection.py --self-test
"""
import argparse
import os
import sys
import tempfile


def choose_left_out(reached, cost, min_seconds):
    """reached: {test: set of entries}; cost: {test: seconds}. Returns the tests
    to leave out, costliest first: each one's entries are all reached by
    tests that stay."""
    stay_count = {}  # entry -> how many staying tests reach it
    for entries in reached.values():
        for e in entries:
            stay_count[e] = stay_count.get(e, 0) + 1
    left_out = []
    for test in sorted(reached, key=lambda t: (-cost.get(t, 0.0), t)):
        if cost.get(test, 0.0) < min_seconds:
            break
        entries = reached[test]
        if entries and all(stay_count[e] >= 2 for e in entries):
            for e in entries:
                stay_count[e] -= 1
            left_out.append(test)
    return left_out


def test_name(listed):
    """A test's name as ctest lists it, less the parameter gtest_discover_tests
    appends to a parameterised test's (`  # GetParam() = …`, which may print
    an address that changes from build to build)."""
    return listed.split("  # GetParam() = ")[0].strip()


def read_costs(path):
    costs = {}
    with open(path) as f:
        for line in f:
            if line.startswith("---"):
                break
            # "name runs seconds"; a parameterised test's name has spaces. A
            # name may be there more than once: with the parameter's address
            # of each run, and without its parameter from older ctest runs (0 0).
            parts = line.rstrip("\n").rsplit(" ", 2)
            if len(parts) == 3:
                name = test_name(parts[0])
                costs[name] = max(costs.get(name, 0.0), float(parts[2]))
    return costs


def self_test():
    reached = {"a": {1, 2, 3}, "b": {1, 2}, "c": {3}, "d": {4}, "e": {1}, "empty": set()}
    cost = {"a": 10, "b": 8, "c": 5, "d": 20, "e": 0.5, "empty": 30}
    # a (costliest with entries shared) goes: b and c reach 1, 2 and 3; d alone
    # reaches 4; e is under the minimum; a test that reached nothing stays
    # (it may have failed to write its profile).
    got = choose_left_out(reached, cost, 1.0)
    assert got == ["a"], got
    # Once a has gone, b and c are needed.
    assert choose_left_out({"a": {1}, "b": {1}}, {"a": 2, "b": 1}, 0) == ["a"]
    assert choose_left_out({"a": {1}}, {"a": 5}, 0) == []
    assert test_name('P/T.Case/x  # GetParam() = 16-byte object <80-34>\n') == "P/T.Case/x"
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
        f.write("A.b 3 1.5\nP/T.Case/x 0 0\nP/T.Case/x  # GetParam() = <80-34> 1 7.25\n"
                "P/T.Case/x  # GetParam() = <90-34> 1 6\n---\nA.b\n")
        f.flush()
        assert read_costs(f.name) == {"A.b": 1.5, "P/T.Case/x": 7.25}, read_costs(f.name)
    print("sanitize_selection: self-test passed")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--names", help="ctest's test names, one a line, in index order")
    parser.add_argument("--coverage", help="folder of per-test folders 1, 2, … each with a file `reached`")
    parser.add_argument("--costs", help="ctest's CTestCostData.txt from a sanitized run")
    parser.add_argument("--min-seconds", type=float, default=3.0)
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        self_test()
        return 0
    if not (args.names and args.coverage and args.costs):
        parser.error("--names, --coverage and --costs are needed")
    with open(args.names) as f:
        names = [test_name(line) for line in f if line.strip()]
    reached = {}
    for index, name in enumerate(names, 1):
        path = os.path.join(args.coverage, str(index), "reached")
        if not os.path.exists(path):
            sys.exit(f"sanitize_selection: no coverage for test {index} ({name}): {path}")
        with open(path) as f:
            reached[name] = set(line.strip() for line in f if line.strip())
    costs = read_costs(args.costs)
    missing = [n for n in names if n not in costs]
    if missing:
        sys.exit(f"sanitize_selection: no sanitized time for {len(missing)} tests, e.g. {missing[0]}"
                 " (FXSIM_SANITIZE_ALL=1 scripts/sanitize times them all)")
    left_out = choose_left_out(reached, costs, args.min_seconds)
    total = sum(costs[n] for n in names)
    saved = sum(costs[n] for n in left_out)
    print(f"# {len(left_out)} of {len(names)} tests, {saved:.0f} of {total:.0f} s of sanitized test time;"
          f" the {len(names) - len(left_out)} that stay reach every line and branch the suite reaches")
    for name in sorted(left_out):
        print(name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
