#!/usr/bin/env bash
# One call on a machine of 2 or 4 GPUs (nvidia-h100-x4 or -x2; the 4-GPU
# kinds were no longer lent when it ran, so it ran on two): build main;
# the GPU tests of the device loops and walls, and those SHEAR_TESTS names,
# on the last GPU while one GPU (and two, of four) run their scaling rows on
# the first; then the four-GPU rows; then astaroth bench --terms (MHD
# float32) on one GPU.
# Rows, in order of what matters: weak scaling at 256^3 a GPU (hydro float32
# and float64, MHD+entropy float32), strong scaling of 512^3 and 1024^3
# (hydro float32); then, if time is left, strong scaling of 1024^3.  Logs to
# $OUT, each written as it goes.
set -uo pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-device-logs}
mkdir -p "$OUT"
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
GPUS=$(nvidia-smi -L | wc -l)
header() {
    echo "# device: ${GPUS} x $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)"
    echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "# commit: ${COMMIT:-unknown}"
    echo "# command: $*"
}
t0=$(date +%s)
{ header "python3 setup.py build_ext --inplace"
  python3 setup.py build_ext --inplace > /tmp/build.log 2>&1; echo "rc=$?"
  grep -E " error" -A3 /tmp/build.log | head -20
  echo "built in $(( $(date +%s) - t0 )) s"; ls -l astaroth/_core*.so
  grep -E "Compiling entry function|Used [0-9]+ registers" /tmp/build.log | paste - - | grep -E "stream_substep_kernel_f(32|64)ILj" \
    | sed -E 's/.*(stream_substep_kernel_f(32|64)ILj[0-9]+E[^ ]*).*Used ([0-9]+) registers.*/\1 \3/' | sed -E 's/EEv10fields.*EE//' ; } > "$OUT/build.log" 2>&1
head -8 "$OUT/build.log"
rows() { # $1: GPUs, then scaling.py's arguments
    local n=$1; shift
    timeout 150 mpirun -np "$n" python3 scripts/scaling.py "$@" 2>&1 | grep -E "^(weak|strong)|Error|error" | tail -2
}
{ header "python3 -m pytest -q -m gpu -rs (CUDA_VISIBLE_DEVICES=$((GPUS - 1))) ${SHEAR_TESTS:-} tests/test_run_in_c.py tests/test_device_cfl.py tests/test_walls.py tests/test_walls_entropy.py tests/test_stratified.py"
  CUDA_VISIBLE_DEVICES=$((GPUS - 1)) timeout 230 python3 -m pytest -q -m gpu -rs -p no:cacheprovider ${SHEAR_TESTS:-} \
      tests/test_run_in_c.py tests/test_device_cfl.py tests/test_walls.py tests/test_walls_entropy.py tests/test_stratified.py 2>&1 \
      | grep -v excepthook | tail -40; } > "$OUT/gpu-tests.log" 2>&1 &
TESTS=$!
{ header "mpirun -np N python3 scripts/scaling.py weak 256 DTYPE PHYSICS / strong 512|1024 float32 (N = 1, 2 on GPUs 0-1 while the tests run on the last GPU; N = $GPUS after)"
  for args in "weak 256 float32 hydro" "weak 256 float64 hydro" "weak 256 float32 mhd+entropy" "strong 512 float32 hydro"; do
      CUDA_VISIBLE_DEVICES=0 rows 1 $args
      [ "$GPUS" -gt 2 ] && CUDA_VISIBLE_DEVICES=0,1 rows 2 $args
  done
  wait $TESTS
  for args in "weak 256 float32 hydro" "weak 256 float64 hydro" "weak 256 float32 mhd+entropy" "strong 512 float32 hydro"; do
      rows "$GPUS" $args
  done; } > "$OUT/scaling.log" 2>&1
wait
tail -3 "$OUT/gpu-tests.log"
grep -v "^# [dc]" "$OUT/scaling.log"
{ header "python3 -m astaroth bench --backend cuda --terms --physics mhd --dtype float32 --sizes 256 (one GPU)"
  CUDA_VISIBLE_DEVICES=0 timeout 90 python3 -m astaroth bench --backend cuda --terms --physics mhd --dtype float32 --sizes 256 2>&1 | tail -24; } > "$OUT/bench-terms.log" 2>&1
grep -v "^#" "$OUT/bench-terms.log"
{ header "mpirun -np N python3 scripts/scaling.py strong 1024 float32 hydro, N = 1, $GPUS"
  CUDA_VISIBLE_DEVICES=0 rows 1 strong 1024 float32 hydro; rows "$GPUS" strong 1024 float32 hydro; } > "$OUT/scaling-1024.log" 2>&1
grep -v "^# [dc]" "$OUT/scaling-1024.log"
