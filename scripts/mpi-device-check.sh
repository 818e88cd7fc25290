#!/usr/bin/env bash
# One call on a multi-GPU machine (nvidia-h200-x2 or larger): build in place,
# check that a forced run split over the GPUs equals one GPU bit for bit
# (ghost zones through host memory, through device buffers, and auto), then
# weak (256^3 per GPU) and strong (512^3) scaling.  Logs go to $OUT.
#   usage: COMMIT=<sha> scripts/mpi-device-check.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-device-logs}
mkdir -p "$OUT"
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
GPUS=$(nvidia-smi -L | wc -l)
header() {
    echo "# device: ${GPUS} x $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)"
    echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "# commit: ${COMMIT:-unknown}"
    echo "# MPI: $(mpirun --version 2>&1 | head -1); mpi4py $(python3 -c 'import mpi4py; print(mpi4py.__version__)')"
    echo "# command: $*"
}
{
    header "python3 setup.py build_ext --inplace"
    rm -rf build astaroth/_core*.so
    python3 setup.py build_ext --inplace 2>&1 | grep -E "error|warning" || true
    ls -l astaroth/_core*.so
} > "$OUT/mpi-build.log" 2>&1
ls astaroth/_core*.so >/dev/null 2>&1 || { cat "$OUT/mpi-build.log"; exit 1; }
{
    header "mpirun -np $GPUS python3 scripts/scaling.py check host|device|peer|auto"
    nvidia-smi topo -m 2>&1 | head -5
    for mode in host device peer auto; do
        timeout 300 mpirun -np "$GPUS" python3 scripts/scaling.py check $mode 2>&1 | tail -3
    done
    header "python3 -m pytest -q tests/test_mpi.py (CPU backend, mpirun --oversubscribe)"
    timeout 300 python3 -m pytest -q tests/test_mpi.py 2>&1 | tail -3
} > "$OUT/mpi-check.log" 2>&1
cat "$OUT/mpi-check.log"
{
    header "mpirun -np N python3 scripts/scaling.py weak 256 float32 / strong 512 float32, N = 1 .. $GPUS"
    for n in $(seq 1 "$GPUS"); do
        timeout 300 mpirun -np "$n" python3 scripts/scaling.py weak 256 float32 2>&1 | tail -2
    done
    for n in $(seq 1 "$GPUS"); do
        timeout 300 mpirun -np "$n" python3 scripts/scaling.py strong 512 float32 2>&1 | tail -2
    done
} > "$OUT/scaling.log" 2>&1
cat "$OUT/scaling.log"
