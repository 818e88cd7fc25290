"""Every notebook runs top to bottom in a real Jupyter kernel (small sizes on
the CPU).  Needs the test extras (nbclient, ipykernel, matplotlib)."""
import os
import pathlib

import pytest

NOTEBOOKS = sorted((pathlib.Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("matplotlib")
    nb = nbformat.read(str(path), as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    os.environ.setdefault("MPLBACKEND", "Agg")
    os.environ.setdefault("ASTAROTH_NOTEBOOK_QUICK", "1")  # notebooks that read it take a small grid and a short run
    client.execute()  # raises CellExecutionError on any error
    assert not list(tmp_path.iterdir()), "the notebook wrote files into its working folder"
    assert any(o.get("output_type") == "display_data" or o.get("output_type") == "stream"
               for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
