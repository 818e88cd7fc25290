#!/usr/bin/env bash
# A notebook at its GPU size, on a machine with a CUDA GPU: builds the
# extension in place unless ASTAROTH_BUILT=1 (the CUDA backend with it), runs
# notebooks/NAME.ipynb with scripts/run_notebook.py (no Jupyter kernel
# needed: the GPU machine has no nbclient) and stores it with its outputs.
# The notebook's own ASTAROTH_* settings pass through and are logged.
#   usage: scripts/notebook_gpu.sh NAME [OUT_DIR]   (default: $OUT, else ./device-logs)
# Writes OUT_DIR/NAME.ipynb (copy it over notebooks/NAME.ipynb to store the
# GPU run), the figures the notebook saves (ASTAROTH_FIGURES=OUT_DIR),
# OUT_DIR/NAME.log (device, date, commit, command, each cell's time and
# output) and OUT_DIR/build.log.
set -uo pipefail
cd "$(dirname "$0")/.."
NAME=$1
OUT=${2:-${OUT:-device-logs}}
mkdir -p "$OUT"
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 MPLBACKEND=Agg
PY=${PYTHON:-python3}
{
    echo "# device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -1)"
    echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "# commit: ${COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
    echo "# command: $(env | grep '^ASTAROTH_' | sort | tr '\n' ' ')$PY scripts/run_notebook.py notebooks/$NAME.ipynb"
    if [ "${ASTAROTH_BUILT:-}" != 1 ]; then
        t0=$(date +%s)
        if ! $PY setup.py build_ext --inplace > "$OUT/build.log" 2>&1; then
            tail -30 "$OUT/build.log"
            exit 1
        fi
        echo "# built in $(( $(date +%s) - t0 )) s"
    fi
    $PY -c "import astaroth as ac; assert 'cuda' in ac.backends(), 'no GPU backend: ' + str(ac.backends())" || exit 1
    ASTAROTH_FIGURES="$OUT" $PY scripts/run_notebook.py "notebooks/$NAME.ipynb" "$OUT/$NAME.ipynb"
} 2>&1 | tee "$OUT/$NAME.log"
exit "${PIPESTATUS[0]}"
