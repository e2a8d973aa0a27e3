#!/usr/bin/env bash
# Measures the CPU ticks (utime+stime, 1 tick = 10 ms) of ttnn-tui's main thread and of the
# whole process over 10 s, in a real terminal (tmux): idle, while the pass over buffers runs,
# and after it ended.
set -euo pipefail
BIN=${1:?binary}; REPORT=${2:?report}
tmux kill-session -t idle 2>/dev/null || true
tmux new-session -d -s idle -x 120 -y 40 "$BIN $REPORT"
sleep 3
PID=$(pgrep -f "^$BIN $REPORT" | head -1)
ticks() { awk '{print $14+$15}' "$1"; }
measure() {
  local label=$1
  local m0 p0 m1 p1
  m0=$(ticks /proc/$PID/task/$PID/stat); p0=$(ticks /proc/$PID/stat)
  sleep 10
  m1=$(ticks /proc/$PID/task/$PID/stat); p1=$(ticks /proc/$PID/stat)
  echo "$label: main thread $((m1-m0)) ticks, process $((p1-p0)) ticks in 10 s"
}
measure "idle on tab 1"
tmux send-keys -t idle 5
sleep 0.5
measure "tab 5, the pass over buffers running then done"
measure "tab 5, after the pass"
tmux send-keys -t idle q
sleep 1
tmux kill-session -t idle 2>/dev/null || true
