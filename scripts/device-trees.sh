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
