"""A picture of a run: mid-plane slices of the fields, the spectrum and the
time series (matplotlib, an optional dependency)."""
import os

import numpy as np


def figure(sim, timeseries=None):
    """The summary figure of `sim` (and of the time-series CSV `timeseries`):
    the z mid-plane of each field with its axes and colour bar, the
    spectrum, and the time series with the snapshot's time marked."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    from . import analysis

    # constrained layout gives each colour bar its own room, off the neighbours' labels
    fig, axes = plt.subplots(2, 3, figsize=(13, 8), layout="constrained")
    k = sim.shape[2] // 2
    for ax, name in zip(axes.flat[:4], ("lnrho", "ux", "uy", "uz")):
        im = ax.imshow(sim[name][:, :, k].T, origin="lower", cmap="RdBu_r",
                       extent=(sim.x[0], sim.x[0] + sim.box[0], sim.y[0], sim.y[0] + sim.box[1]))
        ax.set_title(f"{name}, z = {sim.z[k]:.3g}")
        ax.set_xlabel("x")
        ax.set_ylabel("y")
        fig.colorbar(im, ax=ax, shrink=0.8)
    kk, E = analysis.spectrum(sim)
    ax = axes.flat[4]
    ax.loglog(kk[1:], np.maximum(E[1:], 1e-300))
    ax.xaxis.set_minor_formatter(NullFormatter())  # a short k range labels every minor tick
    ax.set_xlabel("k")
    ax.set_ylabel("E(k)")
    ax.set_title("kinetic-energy spectrum")
    ax = axes.flat[5]
    if timeseries and os.path.exists(timeseries):
        data = np.atleast_1d(np.genfromtxt(timeseries, delimiter=",", names=True))
        ax.plot(data["t"], data["urms"], label="urms")
        ax.plot(data["t"], data["umax"], label="umax")
        ax.plot(data["t"], data["divu_rms"], label="rms div u")
        ax.axvline(sim.t, color="0.4", linestyle=":", label=f"this snapshot, t = {sim.t:.4g}")
        ax.set_xlabel("t")
        ax.legend()
        ax.set_title("time series")
    else:
        ax.axis("off")
    return fig


def summary(snapshot, timeseries=None, output=None):
    """Write a PNG for an HDF5 snapshot; returns its path, or None without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    from .io import load

    sim = load(snapshot, backend="cpu")
    fig = figure(sim, timeseries)
    fig.suptitle(f"{os.path.basename(os.fspath(snapshot))}: t = {sim.t:.4g}, step {sim.steps}")
    output = output or os.path.splitext(os.fspath(snapshot))[0] + ".png"
    fig.savefig(output, dpi=90, bbox_inches="tight")
    plt.close(fig)
    return output
