#!/usr/bin/env bash
# notebooks/mri.ipynb at its GPU size, on a machine with a CUDA GPU: builds
# the extension in place unless ASTAROTH_BUILT=1 (the CUDA backend with it),
# runs the notebook with scripts/run_notebook.py (no Jupyter kernel needed)
# and stores it with its outputs.  The notebook's GPU size: a 128 x 512 x 128
# Keplerian shearing box in single precision to t = 150, or until
# ASTAROTH_MRI_WALL seconds of wall-clock time (default 3000) have passed.
#   usage: scripts/mri_gpu.sh [OUT_DIR]   (default: $OUT, else ./device-logs)
# Writes OUT_DIR/mri.ipynb (copy it over notebooks/mri.ipynb to store the GPU
# run), OUT_DIR/mri.png, OUT_DIR/mri.log (device, date, commit, command,
# each cell's time and output) and OUT_DIR/build.log.
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
    echo "# command: ASTAROTH_MRI_WALL=${ASTAROTH_MRI_WALL:-3000} $PY scripts/run_notebook.py notebooks/mri.ipynb"
    if [ "${ASTAROTH_BUILT:-}" != 1 ]; then
        t0=$(date +%s)
        if ! $PY setup.py build_ext --inplace > "$OUT/build.log" 2>&1; then
            tail -30 "$OUT/build.log"
            exit 1
        fi
        echo "# built in $(( $(date +%s) - t0 )) s"
    fi
    $PY -c "import astaroth as ac; assert 'cuda' in ac.backends(), 'no GPU backend: ' + str(ac.backends())" || exit 1
    ASTAROTH_FIGURES="$OUT" $PY scripts/run_notebook.py notebooks/mri.ipynb "$OUT/mri.ipynb"
} 2>&1 | tee "$OUT/mri.log"
exit "${PIPESTATUS[0]}"
