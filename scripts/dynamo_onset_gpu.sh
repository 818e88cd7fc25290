#!/usr/bin/env bash
# notebooks/dynamo_onset.ipynb at its GPU size, on a machine with a CUDA GPU:
# builds the extension in place (the CUDA backend with it), runs the notebook
# with scripts/run_notebook.py (no Jupyter kernel needed: the GPU machine has
# no nbclient) and stores it with its outputs.  The notebook's GPU size:
# 32^3 (the Pencil Code sample's), 8 values of eta x 4 seeds to t = 400;
# ASTAROTH_ONSET_N=64 for 64^3.  Needs numpy, pandas and matplotlib.
#   usage: scripts/dynamo_onset_gpu.sh [OUT_DIR]   (default: $OUT, else ./device-logs)
# Writes OUT_DIR/dynamo_onset.ipynb (copy it over notebooks/dynamo_onset.ipynb
# to store the GPU run), OUT_DIR/dynamo_onset.png, OUT_DIR/dynamo_onset.log
# (device, date, commit, command, each cell's time and output) and
# OUT_DIR/build.log.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-${OUT:-device-logs}}
mkdir -p "$OUT"
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 MPLBACKEND=Agg
PY=${PYTHON:-python3}
{
    echo "# device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -1)"
    echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "# commit: ${COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
    echo "# command: ASTAROTH_ONSET_N=${ASTAROTH_ONSET_N:-32} $PY scripts/run_notebook.py notebooks/dynamo_onset.ipynb"
    t0=$(date +%s)
    if ! $PY setup.py build_ext --inplace > "$OUT/build.log" 2>&1; then
        tail -30 "$OUT/build.log"
        exit 1
    fi
    echo "# built in $(( $(date +%s) - t0 )) s"
    $PY -c "import astaroth as ac, pandas; assert 'cuda' in ac.backends(), 'no GPU backend: ' + str(ac.backends())" || exit 1
    ASTAROTH_FIGURES="$OUT" $PY scripts/run_notebook.py notebooks/dynamo_onset.ipynb "$OUT/dynamo_onset.ipynb"
} 2>&1 | tee "$OUT/dynamo_onset.log"
exit "${PIPESTATUS[0]}"
