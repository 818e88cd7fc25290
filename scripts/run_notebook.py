"""Execute a notebook's code cells in this Python process and write it back
with its outputs (text and matplotlib figures as PNG).  For machines without
a Jupyter kernel (the GPU machine); CI runs the notebooks with nbclient.
usage: python3 scripts/run_notebook.py IN.ipynb OUT.ipynb"""
import base64
import contextlib
import io
import json
import sys
import time
import traceback

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

plt.show = lambda *a, **k: None  # figures are collected after each cell


def run(path_in, path_out):
    nb = json.load(open(path_in))
    namespace = {"__name__": "__main__"}
    count = 0
    ok = True
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        count += 1
        out = io.StringIO()
        outputs = []
        t0 = time.time()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                exec(compile("".join(cell["source"]), f"<cell {count}>", "exec"), namespace)
        except Exception:
            ok = False
            outputs.append({"output_type": "error", "ename": sys.exc_info()[0].__name__,
                            "evalue": str(sys.exc_info()[1]), "traceback": traceback.format_exc().splitlines()})
        if out.getvalue():
            outputs.insert(0, {"output_type": "stream", "name": "stdout", "text": out.getvalue().splitlines(True)})
        for num in plt.get_fignums():
            buf = io.BytesIO()
            plt.figure(num).savefig(buf, format="png", dpi=90, bbox_inches="tight")
            outputs.append({"output_type": "display_data", "metadata": {},
                            "data": {"image/png": base64.b64encode(buf.getvalue()).decode(), "text/plain": ["<Figure>"]}})
        plt.close("all")
        cell["outputs"], cell["execution_count"] = outputs, count
        print(f"cell {count}: {time.time() - t0:.1f} s{'' if ok else ' FAILED'}", flush=True)
        sys.stdout.write(out.getvalue())
        if not ok:
            break
    json.dump(nb, open(path_out, "w"), indent=1)
    return ok


if __name__ == "__main__":
    sys.exit(0 if run(sys.argv[1], sys.argv[2]) else 1)
