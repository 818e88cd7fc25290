# Sourced, from the repository root, by device scripts that time prebuilt
# trees against each other (benchmarks/results/*/device*.sh): each tree
# under /tmp/tryso/NAME holds an extension built for the device's Python and
# a COMMIT file that says what it is, carried in .trees/try.tar.xz.  Every
# log entry opens with the device, date, tree and command.

# device_start TREE: logs to $OUT (default ./device-logs), Python
# unbuffered, and the carried trees unpacked unless TREE's is there already
device_start() {
    OUT=${OUT:-device-logs}
    mkdir -p "$OUT" /tmp/tryso
    export PYTHONUNBUFFERED=1
    [ -d /tmp/tryso/$1/astaroth ] || tar -xJf .trees/try.tar.xz -C /tmp/tryso
}

# header TREE COMMAND...: the lines that open a log entry
header() {
    echo "# device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | sort | uniq -c | tr -s ' ')"
    echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "# commit: $1 = $(cat /tmp/tryso/$1/COMMIT)"
    echo "# command: ${*:2}"
}

# in_tree TREE LOG SECONDS COMMAND...: COMMAND in tree TREE under a time
# limit, its last ${TAIL:-3} lines appended to $OUT/LOG after the header
in_tree() {
    local t=$1 log=$2 limit=$3
    shift 3
    { header $t "$*"; (cd /tmp/tryso/$t && PYTHONPATH=/tmp/tryso/$t timeout $limit "$@" 2>&1 | tail -${TAIL:-3}); } >> "$OUT/$log" 2>&1
}

# sweeps_ab A B: astaroth bench --sweeps --physics all (32, 64, 256) of trees
# A and B at once, one on each of two GPUs, then swapped, in each precision
# of ${DTYPES:-float32 float64}: each tree's rows from both GPUs, in
# $OUT/sweeps-DTYPE-TREE-gpuN.log
sweeps_ab() {
    local dtype gpu t
    for dtype in ${DTYPES:-float32 float64}; do
        for order in "$1 $2" "$2 $1"; do
            set -- $order
            for gpu in 0 1; do
                t=$([ $gpu = 0 ] && echo $1 || echo $2)
                TAIL=30 in_tree $t sweeps-$dtype-$t-gpu$gpu.log 280 \
                    env CUDA_VISIBLE_DEVICES=$gpu python3 -m astaroth bench --backend cuda --sweeps --physics all \
                    --sizes 32 64 256 --dtype $dtype --methods 55p &
            done
            wait
        done
    done
}

# ncu_report TREE NAME KERNEL_REGEX SKIP COMMAND...: one launch of the
# kernel under Nsight Compute (--set full) in tree TREE on GPU 0, the report
# in $OUT/NAME.ncu-rep.xz and its headline figures in $OUT/NAME.txt: the
# details lines matching $NCU_DETAILS and the raw metrics matching $NCU_RAW
ncu_report() {
    local t=$1 rep="$OUT/$2" regex=$3 skip=$4
    local details=${NCU_DETAILS:-"Duration|Registers Per|Memory Throughput|DRAM Throughput|Issue Slots Busy|Executed Instructions  |Achieved Occupancy|Warp Cycles Per Issued|L1/TEX Hit"}
    local raw=${NCU_RAW:-"issue_stalled_(long_scoreboard|lg_throttle|mio_throttle|wait)_per_issue_active.ratio|dram__bytes_(read|write).sum |l1tex__t_(requests|sectors)_pipe_lsu_mem_global_op_ld.sum "}
    shift 4
    {
        header $t "ncu --set full --kernel-name regex:$regex --launch-skip $skip --launch-count 1 $*"
        (cd /tmp/tryso/$t && PYTHONPATH=$PWD CUDA_VISIBLE_DEVICES=0 timeout 120 ncu --set full --import-source no \
            --kernel-name regex:$regex --launch-skip $skip --launch-count 1 -o "$rep" "$@" 2>&1 | tail -2)
        ncu --import "$rep.ncu-rep" --print-summary none --page details 2>&1 | grep -E "$details"
        ncu --import "$rep.ncu-rep" --print-summary none --page raw 2>&1 | grep -E "$raw"
    } > "$rep.txt" 2>&1
    xz -9 "$rep.ncu-rep"
    cat "$rep.txt"
}
