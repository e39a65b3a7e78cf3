"""Benchmark: start-up and main-job wall times (issue #22 part 5).

Run: ``python bench/startup.py [--runs N]``. Each case runs in a fresh subprocess ``N``
times (default 5) and the median wall time is printed with its goal and the ratio
median / goal (below 1 meets it):

* ``archsim --help`` (goal 0.3 s);
* ``python -c "import archsim.sim.soc"`` (no goal of its own; it must not import Amaranth);
* ``archsim run soc_configs/smaug_baseline.toml --workload resnet50`` with plots (goal 1 s)
  and with ``--no-plots``.

Goals are for an idle machine; the machine's load average is printed next to the figures,
and so is the median CPU time (user + system) of the subprocess, which a loaded machine
inflates less than the wall time. One untimed warm-up run precedes each case.
``PYTHONDONTWRITEBYTECODE`` (set on some machines) makes every run compile archsim's
modules from source; ``--pycache`` lets the subprocesses write and reuse bytecode in a
temporary ``PYTHONPYCACHEPREFIX`` instead, as an installed package would.

``--baseline DIR`` measures a second tree in the same run: ``DIR`` is a ``PYTHONPATH`` entry
whose ``archsim`` is, say, an export of an older commit (``git archive REV | tar -x -C
/tmp/base/archsim``). Its runs alternate with this tree's, so both see the same load.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "soc_configs" / "smaug_baseline.toml"

#: The CLI as the ``archsim`` console script runs it (the entry point of pyproject.toml).
_CLI = "import sys; from archsim.sim.cli import main; sys.exit(main())"


def _cpu_children_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _medians_s(argv: list[str], runs: int,
               envs: list[dict[str, str]]) -> list[tuple[float, float]]:
    """Median wall and CPU seconds of ``runs`` runs of ``argv`` under each of ``envs`` (the
    environments alternate run by run, after one warm-up run each)."""
    walls: list[list[float]] = [[] for _ in envs]
    cpus: list[list[float]] = [[] for _ in envs]
    for i in range(runs + 1):
        for j, env in enumerate(envs):
            t0, c0 = time.perf_counter(), _cpu_children_s()
            subprocess.run(argv, check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, env=env)
            if i:
                walls[j].append(time.perf_counter() - t0)
                cpus[j].append(_cpu_children_s() - c0)
    return [(statistics.median(w), statistics.median(c)) for w, c in zip(walls, cpus, strict=True)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--pycache", action="store_true",
                        help="write and reuse bytecode (in a temporary PYTHONPYCACHEPREFIX)")
    parser.add_argument("--baseline", type=Path, default=None, metavar="DIR",
                        help="also measure the archsim found on this PYTHONPATH entry")
    args = parser.parse_args()
    py = sys.executable
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as tmp:
        if args.pycache:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        run = [py, "-c", _CLI, "run", str(CONFIG), "--workload", "resnet50", "--out", tmp]
        cases: list[tuple[str, list[str], float | None]] = [
            ("archsim --help", [py, "-c", _CLI, "--help"], 0.3),
            ("import archsim.sim.soc", [py, "-c", "import archsim.sim.soc"], None),
            ("archsim run resnet50 (plots)", run, 1.0),
            ("archsim run resnet50 --no-plots", [*run, "--no-plots"], None),
        ]
        print(f"median of {args.runs} runs each; PYTHONDONTWRITEBYTECODE "
              f"{'set' if env.get('PYTHONDONTWRITEBYTECODE') else 'not set'}"
              f"{' (bytecode cached)' if args.pycache else ''}")
        print(f"{'case':>43} {'wall_s':>7} {'goal_s':>7} {'ratio':>6} {'cpu_s':>6} "
              f"{'load (1 min)':>13}")
        envs = [env]
        if args.baseline is not None:
            envs.append({**env, "PYTHONPATH": str(args.baseline.resolve())})
        trees = ["", " [baseline]"]
        for label, argv, goal in cases:
            load = os.getloadavg()[0]
            for tree, (wall, cpu) in zip(trees[:len(envs)], _medians_s(argv, args.runs, envs),
                                         strict=True):
                goal_txt = f"{goal:7.2f} {wall / goal:6.2f}" if goal else f"{'-':>7} {'-':>6}"
                print(f"{label + tree:>43} {wall:7.2f} {goal_txt} {cpu:6.2f} {load:13.2f}",
                      flush=True)


if __name__ == "__main__":
    main()
