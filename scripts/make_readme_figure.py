"""The README's figure: three figures of docs/figures side by side, as made
by their notebooks (forced turbulence, the turbulent heating with entropy,
and Sod's shock tube).  Run after the notebooks: python scripts/make_readme_figure.py"""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.image as mpimg  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

FIGURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "figures")


def main():
    top = [mpimg.imread(os.path.join(FIGURES, name)) for name in ("forced_turbulence.png", "turbulent_heating_gpu256.png")]
    sod = mpimg.imread(os.path.join(FIGURES, "sod.png"))
    # heights in pixels: the top row's tallest figure, Sod at the full width
    width = sum(image.shape[1] for image in top)
    top_height = max(image.shape[0] for image in top)
    sod_height = sod.shape[0] * width / sod.shape[1]
    dpi = 110
    fig = plt.figure(figsize=(width / dpi, (top_height + sod_height) / dpi), dpi=dpi)
    grid = fig.add_gridspec(2, 2, height_ratios=(top_height, sod_height),
                            width_ratios=[image.shape[1] for image in top], hspace=0.02, wspace=0.02)
    for column, image in enumerate(top):
        ax = fig.add_subplot(grid[0, column])
        ax.imshow(image)
        ax.axis("off")
    ax = fig.add_subplot(grid[1, :])
    ax.imshow(sod)
    ax.axis("off")
    fig.savefig(os.path.join(FIGURES, "readme.png"), dpi=dpi, bbox_inches="tight", pad_inches=0.05)


if __name__ == "__main__":
    main()
