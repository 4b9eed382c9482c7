"""The bar chart of ratios that the benchmarks draw with --png (needs matplotlib)."""

from __future__ import annotations


def ratio_chart(
    path: str,
    ratios: dict[str, float],
    xlabel: str,
    *,
    log: bool = False,
    goals: dict[str, float] | None = None,
) -> None:
    """Write a horizontal bar chart of ratios (1.0 = the library's own) to path.

    log draws the ratio axis on a log scale, for ratios that span decades; goals
    marks each bar's target ratio with a short tick.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(ratios)
    fig, ax = plt.subplots(figsize=(7.5, 0.9 + 0.28 * len(names)))
    ax.barh(names, list(ratios.values()), color="#4c72b0")
    ax.axvline(1.0, color="k", lw=1, ls="--")
    if goals:
        for i, name in enumerate(names):
            if name in goals:
                ax.plot([goals[name]] * 2, [i - 0.4, i + 0.4], color="#c44e52", lw=2)
    if log:
        ax.set_xscale("log")
    ax.invert_yaxis()  # first row on top, as in the printed table
    ax.set_xlabel(xlabel)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"chart: {path}")
