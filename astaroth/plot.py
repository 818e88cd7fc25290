"""A picture of a run: mid-plane slices of the fields, the spectra and the
time series (matplotlib, an optional dependency).

Hydrodynamics: lnrho, ux, uy, uz, the kinetic-energy spectrum and urms,
umax, rms div u.  With physics="mhd" also |B| (b_ext included), the
magnetic spectrum beside the kinetic one, brms and bmax beside urms and
umax, and the kinetic and magnetic energies.  With energy="entropy" also
the temperature T and the thermal and total energies.  A curve that spans more than
two decades is drawn on a log axis.
"""
import os

import numpy as np

DECADES = 2.0  # a panel whose positive values span more than this many decades gets a log y axis


def _log_if_wide(ax, *curves):
    """A log y axis when the positive values of `curves` span more than DECADES."""
    values = np.concatenate([np.asarray(c, dtype=float).ravel() for c in curves])
    values = values[np.isfinite(values) & (values > 0)]
    if values.size and values.max() > 10 ** DECADES * values.min():
        ax.set_yscale("log")


def _slice(fig, ax, sim, data, title, cmap="RdBu_r"):
    k = sim.shape[2] // 2
    im = ax.imshow(data[:, :, k].T, origin="lower", cmap=cmap,
                   extent=(sim.x[0], sim.x[0] + sim.box[0], sim.y[0], sim.y[0] + sim.box[1]))
    ax.set_title(f"{title}, z = {sim.z[k]:.3g}")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    fig.colorbar(im, ax=ax, shrink=0.8)


def figure(sim, timeseries=None):
    """The summary figure of `sim` (and of the time-series CSV `timeseries`):
    the z mid-plane of each field with its axes and colour bar, the
    spectra, and the time series with the snapshot's time marked."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    from . import analysis
    from .diagnostics import read_timeseries

    mhd = getattr(sim, "physics", "hydro") == "mhd"
    entropy = getattr(sim, "energy", "isothermal") == "entropy"
    # the fields, |B|, T, the spectra, the time series and (MHD or entropy) the energies
    cols = (4 + mhd + entropy + 2 + (mhd or entropy) + 1) // 2
    # constrained layout gives each colour bar its own room, off the neighbours' labels
    fig, axes = plt.subplots(2, cols, figsize=(4.3 * cols, 8), layout="constrained")
    panels = iter(axes.flat)
    for name in ("lnrho", "ux", "uy", "uz"):
        _slice(fig, next(panels), sim, sim[name], name)
    if mhd:
        b = analysis.magnetic_field(sim)
        _slice(fig, next(panels), sim, np.sqrt(sum(c ** 2 for c in b)), "|B|", cmap="viridis")
    if entropy:
        _slice(fig, next(panels), sim, analysis.temperature(sim), "T", cmap="inferno")
    ax = next(panels)
    walls = analysis.walls_of(sim)
    spectra = [] if walls else [("kinetic", *analysis.spectrum(sim))]  # spectra are of periodic axes
    if walls:
        ax.text(0.5, 0.5, "no spectrum: walls along " + ", ".join("xyz"[a] for a in walls), ha="center",
                transform=ax.transAxes)
    elif mhd:
        spectra.append(("magnetic", *analysis.spectrum(sim, field="magnetic")))
    for label, kk, E in spectra:
        ax.loglog(kk[1:], np.maximum(E[1:], 1e-300), label=label)
    ax.xaxis.set_minor_formatter(NullFormatter())  # a short k range labels every minor tick
    ax.set_xlabel("k")
    ax.set_ylabel("E(k)")
    ax.set_title("energy spectra" if mhd else "kinetic-energy spectrum")
    if mhd and spectra:
        ax.legend()
    history = next(panels)
    energies = next(panels) if (mhd or entropy) else None
    if timeseries and os.path.exists(timeseries):
        data = np.atleast_1d(read_timeseries(timeseries))
        names = data.dtype.names
        t = data["t"]
        curves = [("urms", data["urms"]), ("umax", data["umax"])]
        if "divu2m" in names:
            curves.append(("rms div u", np.sqrt(data["divu2m"])))
        curves += [(c, data[c]) for c in ("brms", "bmax") if c in names]
        for label, y in curves:
            history.plot(t, y, label=label)
        _log_if_wide(history, *(y for _, y in curves))
        history.axvline(sim.t, color="0.4", linestyle=":", label=f"this snapshot, t = {sim.t:.4g}")
        history.set_xlabel("t")
        history.legend()
        history.set_title("time series")
        if energies is not None:
            pairs = [("ekin", data["ekin"])] if "ekin" in names else []
            if "b2m" in names:
                pairs.append(("b2m / (2 mu0)", data["b2m"] / (2 * sim.mu0)))
            pairs += [(c, data[c]) for c in ("ethm", "etotm") if c in names]
            for label, y in pairs:
                energies.plot(t, y, label=label)
            _log_if_wide(energies, *(y for _, y in pairs))
            energies.axvline(sim.t, color="0.4", linestyle=":")
            energies.set_xlabel("t")
            energies.legend()
            energies.set_title("energy per unit volume")
    else:
        history.axis("off")
        if energies is not None:
            energies.axis("off")
    for ax in panels:  # an odd panel count leaves one
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


def spectra_evolution(path, output=None, curves=8):
    """Write a PNG of the time evolution of the spectra in `path` (a
    spectra.h5 of astaroth.outputs.Spectra): for each spectrum up to
    `curves` rows evenly spread in time, coloured from early (light) to late
    (dark) on log axes.  Returns the PNG's path, or None without matplotlib.
    A ValueError names the file when it holds no spectra."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    import h5py

    with h5py.File(path, "r", libver="latest", swmr=True) as f:
        names = [k for k in f if k not in ("k", "t", "it")]
        if f.attrs.get("kind") != "spectra" or "k" not in f or not names or f["t"].shape[0] == 0:
            raise ValueError(f"{path} holds no spectra written during a run (astaroth.outputs.Spectra)")
        k, t = f["k"][:], f["t"][:]
        data = {name: f[name][:] for name in names}
    rows = np.unique(np.linspace(0, len(t) - 1, min(curves, len(t))).round().astype(int))
    fig, axes = plt.subplots(1, len(names), figsize=(5 * len(names), 4), squeeze=False)
    colours = plt.get_cmap("viridis_r")(np.linspace(0.15, 1.0, len(rows)))
    for ax, name in zip(axes[0], names):
        for colour, i in zip(colours, rows):
            E = data[name][i]
            ax.loglog(k[1:], np.where(E[1:] > 0, E[1:], np.nan), color=colour, label=f"t = {t[i]:.3g}")
        ax.set_xlabel("k")
        ax.set_ylabel("E(k)")
        ax.set_title(f"{name} spectrum")
        ax.legend(fontsize="small")
    output = output or os.path.splitext(os.fspath(path))[0] + ".png"
    fig.savefig(output, dpi=90, bbox_inches="tight")
    plt.close(fig)
    return output
