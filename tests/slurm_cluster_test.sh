#!/usr/bin/env bash
# The cluster test: brings up a single-node Slurm cluster from Debian's
# packages (munged, slurmctld, slurmd, configured in a temporary folder),
# renders an example scene through scripts/cluster/render-on-slurm in 4
# shards, checks that the frames are byte-identical to a single-process render
# and that `fxsim verify` passes, then stops every daemon it started and checks
# that none is left. Usage: slurm_cluster_test.sh FXSIM SOURCE_DIR
# Exit 77 (skipped) only when not root or the packages are missing and
# FXSIM_REQUIRE_CLUSTER is unset; scripts/test installs them and sets it.
set -euo pipefail
FXSIM="$(realpath "$1")" SRC="$(realpath "$2")"
skip() {
  if [ -n "${FXSIM_REQUIRE_CLUSTER:-}" ]; then echo "FAIL: $1" >&2; exit 1; fi
  echo "SKIPPED: $1"; exit 77
}
[ "$(id -u)" = 0 ] || skip "the daemons run as root here"
for c in munged slurmctld slurmd sbatch squeue sinfo ffmpeg; do command -v "$c" >/dev/null || skip "$c is not installed (slurm-wlm, munge, ffmpeg)"; done

# Running (not zombie) cluster daemons.
daemons() { ps -e -o pid=,stat=,comm= | awk '$2 !~ /^Z/ && $3 ~ /^(munged|slurmctld|slurmd|slurmstepd)$/ {print $1}' | sort; }
before="$(daemons)"
tmp="$(mktemp -d /tmp/fxsim-slurm.XXXXXX)"
pids=()
cleanup() {
  local status=$?
  SLURM_CONF="$tmp/slurm.conf" scancel --quiet --user root 2>/dev/null || true
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  [ -n "${keep:-}" ] || rm -rf "$tmp"
  exit "$status"
}
trap cleanup EXIT

# munge: its own key, socket and files in the temporary folder.
mkdir -p "$tmp/munge" "$tmp/state" "$tmp/spool"
dd if=/dev/urandom of="$tmp/munge/key" bs=1024 count=1 status=none
chmod 0400 "$tmp/munge/key"
chmod 0700 "$tmp/munge"
munged --foreground --force --key-file "$tmp/munge/key" --socket "$tmp/munge/socket" --pid-file "$tmp/munge/pid" \
  --log-file "$tmp/munge/log" --seed-file "$tmp/munge/seed" > "$tmp/munged.out" 2>&1 &
pids+=($!)

host="$(hostname -s)"
port=$((20000 + RANDOM % 20000))
memory=$(( $(awk '/MemTotal/ {print int($2 / 1024)}' /proc/meminfo) / 2 ))
cat > "$tmp/slurm.conf" <<CONF
ClusterName=fxsim-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/socket
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$(nproc) RealMemory=$memory State=UNKNOWN
PartitionName=fxsim Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$tmp/slurm.conf"
for _ in $(seq 50); do [ -S "$tmp/munge/socket" ] && break; sleep 0.1; done
slurmctld -D -i > "$tmp/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D > "$tmp/slurmd.out" 2>&1 &
pids+=($!)
state=""
for _ in $(seq 100); do
  state="$(sinfo -h -o %T 2>/dev/null || true)"
  [ "$state" = idle ] && break
  sleep 0.3
done
[ "$state" = idle ] || { echo "FAIL: the node is '$state', not idle"; tail -n 20 "$tmp"/*.out "$tmp"/*.log; exit 1; }
echo "cluster: node $host idle ($(nproc) CPUs)"

# The same scene, one process and then 4 shards through the recipe.
scene="$SRC/scenes/sleet.json"
args=(--width 160 --height 90)
start=$(date +%s%N)
"$FXSIM" render "$scene" "${args[@]}" -q -o "$tmp/single/f_####.png"
single_ms=$(( ($(date +%s%N) - start) / 1000000 ))
start=$(date +%s%N)
FXSIM="$FXSIM" "$SRC/scripts/cluster/render-on-slurm" --shards 4 --wait "$scene" "$tmp/farm" -- "${args[@]}"
farm_ms=$(( ($(date +%s%N) - start) / 1000000 ))

frames=$(ls "$tmp/single" | grep -c '^f_.*\.png$')
for f in "$tmp"/single/f_*.png; do cmp "$f" "$tmp/farm/frames/$(basename "$f")"; done
[ "$(ls "$tmp/farm/frames" | grep -c '^f_.*\.png$')" = "$frames" ] || { echo "FAIL: another number of frames"; exit 1; }
"$FXSIM" verify "$tmp/farm/frames"
[ -s "$tmp/farm/video.mp4" ] || { echo "FAIL: no video"; exit 1; }
grep -h "starting from checkpoint" "$tmp"/farm/logs/shard-*.log | sed 's/^/shard log: /'
[ "$(grep -l "starting from checkpoint" "$tmp"/farm/logs/shard-*.log | wc -l)" = 3 ] || { echo "FAIL: shards 2-4 did not start from checkpoints"; exit 1; }
echo "PASS: $frames frames, byte-identical to one process; 4 shards on Slurm in $((farm_ms / 1000)).$((farm_ms % 1000 / 100)) s (submission to assembled video), one process in $((single_ms / 1000)).$((single_ms % 1000 / 100)) s"

# Two shards of an odd count of frames (the checkpoints job asked for a
# checkpoint every 4 frames up to frame 3, was refused, and the shards never
# ran), at a frame rate given after -- (the video was assembled at the
# scene's 24).
FXSIM="$FXSIM" "$SRC/scripts/cluster/render-on-slurm" --shards 2 --frames 1-7 --wait "$scene" "$tmp/odd" -- \
  --width 64 --height 36 --fps 12
[ "$(ls "$tmp/odd/frames" | grep -c '^f_.*\.png$')" = 7 ] || { echo "FAIL: not 7 frames"; exit 1; }
rate="$(ffprobe -v error -select_streams v:0 -show_entries stream=r_frame_rate -of csv=p=0 "$tmp/odd/video.mp4")"
[ "$rate" = 12/1 ] || { echo "FAIL: the video plays at $rate frames a second, not --fps 12"; exit 1; }
# Shard 2 (frames 4-7) starts from the checkpoint of frame 3, not further back.
grep -q "starting from checkpoint .*checkpoint_000003.fxck" "$tmp"/odd/logs/shard-*.log ||
  { echo "FAIL: shard 2 did not start from frame 3's checkpoint"; grep -h checkpoint "$tmp"/odd/logs/*.log; exit 1; }
echo "PASS: 2 shards of 7 frames at --fps 12, the video at $rate"

# Stop the daemons, then nothing of this cluster may be left running.
trap - EXIT
SLURM_CONF="$tmp/slurm.conf" scancel --quiet --user root 2>/dev/null || true
for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
rm -rf "$tmp"
after="$(daemons)"
[ "$after" = "$before" ] || { echo "FAIL: left running: $(comm -13 <(echo "$before") <(echo "$after") | xargs -r ps -o pid,args -p)"; exit 1; }
echo "daemons stopped; nothing left running"
