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


def test_stored_notebooks_are_what_make_notebooks_writes(tmp_path):
    """scripts/make_notebooks.py holds the sources of the validation notebooks: a notebook edited in
    notebooks/ alone would lose the edit when the script next writes it."""
    import json
    import subprocess
    import sys

    root = pathlib.Path(__file__).parent.parent
    subprocess.run([sys.executable, str(root / "scripts" / "make_notebooks.py"), "--out", str(tmp_path)], check=True,
                   capture_output=True)
    written = sorted(tmp_path.glob("*.ipynb"))
    assert written
    for path in written:
        made = [(c["cell_type"], "".join(c["source"])) for c in json.load(open(path))["cells"]]
        stored = [(c["cell_type"], "".join(c["source"])) for c in json.load(open(root / "notebooks" / path.name))["cells"]]
        assert made == stored, f"notebooks/{path.name} differs from what scripts/make_notebooks.py writes"
