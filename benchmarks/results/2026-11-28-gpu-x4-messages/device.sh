#!/usr/bin/env bash
# One call on 4 GPUs of one host: the split-grid GPU tests of the exchange
# in one round of messages (N), then scripts/scaling.py with it and with the
# exchange axis by axis (A) on the same host, and the parts of a split
# substep (phases.py).  Run from the repository root; logs to $OUT.  Trees
# (built for the device's Python 3.12, carried in .trees/try.tar.xz):
# /tmp/tryso/A = main 748a354; /tmp/tryso/$NEW (N: the same extension with
# the working tree's Python, astaroth/halo_messages.py; W: the working tree
# built, whose region substeps read unsplit axes from periodic images; V: W
# with z-only peer splits copied field to field by the copy engine); MIDDLE
# names a third tree timed between them.
set -uo pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-device-logs}
mkdir -p "$OUT" /tmp/tryso
export PYTHONUNBUFFERED=1
NEW=${NEW:-W}
NGPU=$(nvidia-smi -L | wc -l)  # the split runs take every GPU of the host
[ -d /tmp/tryso/$NEW/astaroth ] || tar -xJf .trees/try.tar.xz -C /tmp/tryso
MPIRUN="mpirun --allow-run-as-root --oversubscribe --bind-to none"
header() {
    echo "# device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | sort | uniq -c | tr -s ' ')"
    echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "# commit: $1 = $(cat /tmp/tryso/$1/COMMIT)"
    echo "# command: ${*:2}"
}
if [ "${STAGES:-tests scaling}" != scaling ]; then
    cmd="python3 -m pytest -q -rs -p no:cacheprovider tests/test_mpi.py::test_a_region_substep_names_the_periodic_axes_it_reads_in_place tests/test_gpu.py tests/test_bitwise.py tests/test_walls.py tests/test_shear_gpu.py"
    { header $NEW "$cmd (CUDA_VISIBLE_DEVICES=$((NGPU - 1)))"; (cd /tmp/tryso/$NEW && CUDA_VISIBLE_DEVICES=$((NGPU - 1)) PYTHONPATH=/tmp/tryso/$NEW timeout 300 $cmd 2>&1 | tail -30); } > "$OUT/gpu-tests-one-$NEW.log" 2>&1 &
    cmd="python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_mpi_gpu.py"
    { header $NEW "$cmd"; (cd /tmp/tryso/$NEW && PYTHONPATH=/tmp/tryso/$NEW timeout 300 $cmd 2>&1 | tail -30); } > "$OUT/gpu-tests-$NEW.log" 2>&1
    wait
    # device memory is a whole GPU's: this test alone, with no other process on the GPU
    cmd="python3 -m pytest -q -rs -p no:cacheprovider tests/test_gpu.py::test_create_and_free_leaves_device_memory_where_it_was"
    { header $NEW "$cmd (alone)"; (cd /tmp/tryso/$NEW && PYTHONPATH=/tmp/tryso/$NEW timeout 100 $cmd 2>&1 | tail -3); } >> "$OUT/gpu-tests-one-$NEW.log" 2>&1
    for f in "$OUT/gpu-tests-$NEW.log" "$OUT/gpu-tests-one-$NEW.log"; do tail -n 2 "$f"; done
    for ranks in $(printf "2\n%s\n" $NGPU | sort -u); do
        for ex in auto host; do
            cmd="$MPIRUN -np $ranks python3 scripts/scaling.py check $ex"
            { header $NEW "$cmd"; (cd /tmp/tryso/$NEW && PYTHONPATH=/tmp/tryso/$NEW timeout 90 $cmd 2>&1 | tail -3); } >> "$OUT/check.log" 2>&1
        done
    done
    grep -E "^check" "$OUT/check.log"
fi
[ "${STAGES:-tests scaling}" = tests ] && exit 0
run() { # tree ranks args...
    local t=$1 n=$2; shift 2
    local cmd="$MPIRUN -np $n python3 scripts/scaling.py $*"
    { header $t "$cmd"; (cd /tmp/tryso/$t && PYTHONPATH=/tmp/tryso/$t timeout 120 $cmd 2>&1 | tail -3); } >> "$OUT/scaling.log" 2>&1
}
for args in "weak 256 float32 hydro" "weak 256 float64 hydro" "weak 256 float32 mhd+entropy" "weak 256 float64 mhd+entropy" "strong 512 float32 hydro" "strong 1024 float32 hydro"; do
    run $NEW 1 $args
    for t in A ${MIDDLE:-} $NEW; do
        [ "$args" = "strong 512 float32 hydro" ] && [ $NGPU -gt 2 ] && run $t 2 $args
        run $t $NGPU $args
    done
done
for physics in hydro mhd+entropy; do
    cmd="$MPIRUN -np $NGPU python3 $PWD/benchmarks/results/2026-11-28-gpu-x4-messages/phases.py 256 float32 $physics"
    { header $NEW "$cmd"; (cd /tmp && PYTHONPATH=/tmp/tryso/$NEW timeout 120 $cmd 2>&1 | tail -3); } >> "$OUT/phases.log" 2>&1
done
grep -E "^weak|^strong|^phases|Error|error" "$OUT/scaling.log" "$OUT/phases.log"; true
if [ -n "${SNAPSHOT:-1}" ] && [ $NGPU -ge 4 ]; then  # 64 GiB of fields a set: four GPUs
    cmd="$MPIRUN -np 4 python3 $PWD/benchmarks/results/2026-11-28-gpu-x4-messages/snapshot1024.py /tmp/snap/big.h5"
    mkdir -p /tmp/snap
    { header $NEW "$cmd"; df -h /tmp | tail -1; (cd /tmp && PYTHONPATH=/tmp/tryso/$NEW timeout 240 $cmd 2>&1 | tail -5); } > "$OUT/snapshot1024.log" 2>&1
    rm -rf /tmp/snap
    tail -2 "$OUT/snapshot1024.log"
fi
