#!/usr/bin/env bash
# The device calls of 2026-11-28 (second session): MHD in single precision
# with shock viscosity, which ran at 0.90 of 74dd058 after the one parameter
# route, under three trial schedules of its own; every bench row of main
# against 74dd058; the sweep rows; the sheared rows on the H100.
# Trees: A = 74dd058 (carried as .trees/base-tree), B = main (this tree),
# V1..V3 = main with a trial row for MHD + shock in float32 (carried as
# .trees/try-tree, built with -DAC_TRY_SHOCK_ROW=1..3: the shock profile
# read together, a point ahead, or 32 x 4 tiles; the trial rows are in
# try-shock-rows.patch beside this script).  Builds go to /tmp, so that a
# call soon after another finds them.  Logs to $OUT.
#   ab:     build every tree at once; scripts/ab.py over the MHD float32 rows
#           in every tree, then over every row in A and B; bench --walls
#   sweeps: bench --sweeps --physics all in A and B, alternating; bench
#           --terms --physics mhd (rotation, rot+shear) in B (the first call
#           of this stage gave --sizes 256, which made the ensembles 256^3,
#           and 74dd058 has no --physics all: only the terms rows are kept)
#   final:  (second call: the try tree made again from main with the shear's
#           scalar and x/y splits, trial rows W1..W3 = 32 x 4 tiles with the
#           profile a point ahead, 32 x 4 at three blocks an SM, the same one
#           plane ahead) build; MHD float32 rows in A B W1 W2 W3; every row
#           in A, B and the fastest W; bench --sweeps (hydro) in A and B; the
#           shearing box's GPU tests in B
#   mri:    scripts/mri_gpu.sh in B, built by the stage before
#   carried: B's extension built elsewhere for the device's Python (carried
#           as astaroth/_core.cpython-312-x86_64-linux-gnu.so, nvcc 13.0, at
#           CARRIED_AT): the GPU-against-CPU tests of MHD with shock
#           viscosity, notebooks/mri.ipynb, the bitwise fixture
set -uo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$PWD
OUT=${OUT:-device-logs}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
header() {
    echo "# device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)"
    echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "# commit: B = ${COMMIT:-unknown} ($ROOT); A = 74dd058 (/tmp/base); V1..V3 = B (then main at the final stage) with -DAC_TRY_SHOCK_ROW=1..3 (/tmp/try1..3; the rows of try-shock-rows.patch, at the final stage try-shock-rows-w.patch)"
    echo "# command: $*"
}
declare -A TREE=([A]=/tmp/base [B]=$ROOT [V1]=/tmp/try1 [V2]=/tmp/try2 [V3]=/tmp/try3)
build_all() {
    [ -e /tmp/base/astaroth ] || cp -r .trees/base-tree /tmp/base
    for v in 1 2 3; do [ -e /tmp/try$v/astaroth ] || cp -r .trees/try-tree /tmp/try$v; done
    t0=$(date +%s)
    for k in A B V1 V2 V3; do
        stamp=/tmp/built-$k; want="${COMMIT:-unknown}"; [ $k = B ] || want=fixed
        [ -e "${TREE[$k]}"/astaroth/_core*.so ] && [ "$(cat $stamp 2>/dev/null)" = "$want" ] && { echo "$k built"; continue; }
        rm -rf "${TREE[$k]}"/build "${TREE[$k]}"/astaroth/_core*.so
        flags=""; case $k in V*) flags="-DAC_TRY_SHOCK_ROW=${k#V}";; esac
        (cd "${TREE[$k]}" && ASTAROTH_BUILD_JOBS=3 ASTAROTH_NVCC_FLAGS="$flags" python3 setup.py build_ext --inplace > /tmp/build-$k.log 2>&1; rc=$?; [ $rc = 0 ] && echo "$want" > $stamp; echo "$k rc=$rc") &
    done
    wait
    { header "python3 setup.py build_ext --inplace, in each tree at once (Vn: ASTAROTH_NVCC_FLAGS=-DAC_TRY_SHOCK_ROW=n)"
      echo "built in $(( $(date +%s) - t0 )) s"
      for k in A B V1 V2 V3; do ls -l ${TREE[$k]}/astaroth/_core*.so; grep -E " error" -A3 /tmp/build-$k.log | head -10; done
      for k in A B V1 V2 V3; do echo "== ptxas of $k, MHD + shock in float32"; grep -E -A3 "Compiling entry function '_Z25stream_substep_kernel_f32ILj35E" /tmp/build-$k.log | grep -E "spill|Used" ; done
    } > "$OUT/build.log" 2>&1
    grep -E "built|rc=|\.so|error" "$OUT/build.log" | head -12
}
ab() { # $1: rounds, $2: log name, $3...: tree keys
    local rounds=$1 name=$2; shift 2
    local trees=(); for k in "$@"; do trees+=("${TREE[$k]}"); done
    { header "AB_GROUPS=$AB_GROUPS python3 scripts/ab.py $rounds ${trees[*]} (trees $*)"
      timeout ${AB_TIMEOUT:-300} python3 scripts/ab.py "$rounds" "${trees[@]}" 2>&1; } > "$OUT/$name.log" 2>&1
    grep -v "^#" "$OUT/$name.log" | tail -22
}
case "$1" in
ab)
    build_all
    AB_GROUPS=terms:mhd:float32 AB_TIMEOUT=120 ab 3 ab-mhd-f32 A B V1 V2 V3
    AB_GROUPS=terms,19p,entropy AB_TIMEOUT=200 ab 2 ab-all A B
    for k in A B; do
        t=${TREE[$k]}
        { header "python3 -m astaroth bench --backend cuda --walls --sizes 256 (tree $k)"
          (cd "$t" && PYTHONPATH=$t timeout 60 python3 -m astaroth bench --backend cuda --walls --sizes 256 2>&1 | tail -6); } >> "$OUT/bench-walls.log" 2>&1
    done
    grep -v "^#" "$OUT/bench-walls.log"
    ;;
sweeps)
    build_all
    for k in ${SWEEP_TREES:-A B}; do
        t=${TREE[$k]}
        { header "python3 -m astaroth bench --backend cuda --sweeps --physics all --dtype float32 --methods 55p --sizes 256 (tree $k)"
          (cd "$t" && PYTHONPATH=$t timeout 170 python3 -m astaroth bench --backend cuda --sweeps --physics all --dtype float32 --methods 55p --sizes 256 2>&1 | tail -45); } >> "$OUT/bench-sweeps.log" 2>&1
    done
    grep -v "^# [dc]" "$OUT/bench-sweeps.log" | tail -100
    { header "python3 -m astaroth bench --backend cuda --terms --physics mhd --dtype float32 float64 --sizes 256 (tree B)"
      timeout 120 python3 -m astaroth bench --backend cuda --terms --physics mhd --dtype float32 float64 --sizes 256 2>&1 | tail -20; } > "$OUT/bench-terms-mhd.log" 2>&1
    cat "$OUT/bench-terms-mhd.log"
    ;;
final)
    build_all
    AB_GROUPS=terms:mhd:float32 AB_TIMEOUT=120 ab 3 ab-mhd-f32-w A B V1 V2 V3
    best=$(python3 - "$OUT/ab-mhd-f32-w.log" <<'PY'
import sys
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) > 12 and f[0] == "mhd" and f[4] == "shock":
        r = [float(x) for x in f[-3:]]  # C/A D/A E/A: V1 V2 V3
        print("V%d" % (1 + r.index(max(r))))
PY
)
    echo "fastest trial: ${best:-none}"
    AB_GROUPS=terms,19p,entropy AB_TIMEOUT=160 ab 2 ab-all-w A B ${best:-V3}
    for k in A B; do
        t=${TREE[$k]}
        { header "python3 -m astaroth bench --backend cuda --sweeps --dtype float32 --methods 55p --seconds 0.5 (tree $k)"
          (cd "$t" && PYTHONPATH=$t timeout 60 python3 -m astaroth bench --backend cuda --sweeps --dtype float32 --methods 55p --seconds 0.5 2>&1 | tail -12); } >> "$OUT/bench-sweeps-hydro.log" 2>&1
    done
    grep -v "^# [dc]" "$OUT/bench-sweeps-hydro.log"
    { header "python3 -m pytest -q -rs tests/test_mpi_gpu.py tests/test_shear_gpu.py tests/test_instances.py tests/test_configurations_gpu.py (tree B)"
      PYTHONPATH=$ROOT OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 150 python3 -m pytest -q -rs -p no:cacheprovider tests/test_mpi_gpu.py tests/test_shear_gpu.py tests/test_instances.py tests/test_configurations_gpu.py 2>&1 | tail -25
    } > "$OUT/gpu-tests-shear.log" 2>&1
    tail -8 "$OUT/gpu-tests-shear.log"
    ;;
carried)
    { header "python3 -m pytest -q tests/test_configurations_gpu.py -k shock (tree B, extension built at ${CARRIED_AT:-?} and carried)"
      PYTHONPATH=$ROOT timeout 60 python3 -m pytest -q -rs -p no:cacheprovider tests/test_configurations_gpu.py -k shock 2>&1 | tail -4
    } > "$OUT/gpu-tests-shock.log" 2>&1
    tail -2 "$OUT/gpu-tests-shock.log"
    COMMIT=${COMMIT:-unknown} ASTAROTH_BUILT=1 ASTAROTH_MRI_WALL=${ASTAROTH_MRI_WALL:-160} bash scripts/mri_gpu.sh "$OUT" | grep -vE "^\s+n = " | tail -16
    { header "python3 scripts/make_bitwise_fixture.py cuda --compare tests/data/bitwise_cuda.npz (tree B)"
      PYTHONPATH=$ROOT timeout ${BITWISE_TIMEOUT:-40} python3 scripts/make_bitwise_fixture.py cuda --compare tests/data/bitwise_cuda.npz 2>&1 | tail -4
    } > "$OUT/bitwise-cuda.log" 2>&1
    tail -3 "$OUT/bitwise-cuda.log"
    ;;
mri)
    build_all
    COMMIT=${COMMIT:-unknown} ASTAROTH_BUILT=1 ASTAROTH_MRI_WALL=${ASTAROTH_MRI_WALL:-240} bash scripts/mri_gpu.sh "$OUT" | grep -vE "^\s+n = " | tail -30
    ;;
esac
