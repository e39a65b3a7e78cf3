"""Serving plots are drawn without pyplot; ``save_figure`` closes only pyplot's figures."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from archsim.outputs import save_figure

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

_SCRIPT = textwrap.dedent("""
    import sys
    from pathlib import Path
    from archsim.sim.serving import Deployment, generate_requests, make_policy, simulate
    from archsim.sim.serving.plots import plot_sensitivity, plot_throughput_vs_rate

    out = Path(sys.argv[1])
    dep = Deployment.build(model="gpt-j-6b", gpu="a100-80gb")
    res = simulate(dep, generate_requests(30, rate_per_s=5.0, seed=1), make_policy("paged"),
                   seed=0)
    files = res.write(out / "run", plots=True)
    rows = [{"policy": p, "rate_per_s": r, "throughput_tokens_per_s": 100.0 * r,
             "e2e_p90_s": 1.0 + r} for p in ("s3", "paged") for r in (1.0, 2.0)]
    files.append(plot_throughput_vs_rate(rows, out / "rate.png"))
    sens = [{"accuracy": a, "s3_over_worst_case": 1.0 + a, "oracle_over_worst_case": 2.0}
            for a in (0.5, 0.9)]
    files.append(plot_sensitivity(sens, "accuracy", out / "acc.png", xlabel="accuracy"))
    print("\\n".join(str(f) for f in files if str(f).endswith(".png")))
    print("PYPLOT", "matplotlib.pyplot" in sys.modules)
""")


def test_serving_plots_do_not_import_pyplot(tmp_path):
    proc = subprocess.run([sys.executable, "-c", _SCRIPT, str(tmp_path)], capture_output=True,
                          text=True, check=False, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.split()
    assert lines[-2:] == ["PYPLOT", "False"]
    pngs = lines[:-2]
    assert sorted(p.rsplit("/", 1)[-1] for p in pngs) == ["acc.png", "memory.png", "rate.png"]
    from matplotlib.image import imread

    for p in pngs:
        with open(p, "rb") as f:
            assert f.read(8) == PNG_MAGIC
        img = imread(p)
        assert img.shape[0] > 100 and img.shape[1] > 100
        assert float(np.ptp(img[..., :3])) > 0  # something was drawn, not a blank canvas


def test_save_figure_closes_pyplot_figures_and_renders_plain_ones(tmp_path):
    plt = pytest.importorskip("matplotlib.pyplot")
    from matplotlib.figure import Figure

    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    num = fig.number
    assert num in plt.get_fignums()
    save_figure(fig, tmp_path / "pyplot.png")
    assert num not in plt.get_fignums()  # pyplot let go of it

    before = list(plt.get_fignums())
    plain = Figure(figsize=(3, 2))
    plain.subplots().plot([0, 1], [0, 1])
    path = save_figure(plain, tmp_path / "plain.png")
    assert plt.get_fignums() == before  # never registered with pyplot
    assert path.read_bytes()[:8] == PNG_MAGIC
    assert (tmp_path / "pyplot.png").read_bytes()[:8] == PNG_MAGIC
