#!/usr/bin/env bash
# trix-demo's --bot_binary in the fault tests. A person's seat (TRIX_BOT_TABLE set)
# is played by trix-bot itself (exec). A bot account's process (TRIX_BOT_MATCHMAKING
# set) runs under a supervisor, as a deployment's process manager would run it:
# when it dies of SIGKILL it is started again a second later with the same
# settings (its key included, from the environment), and it takes its live
# assignments back from matchmaking. The pid of the running trix-bot is kept in
# $FAULT_BOT_DIR/<this supervisor's pid>.pid and each restart is noted in
# $FAULT_BOT_DIR/restarts; SIGTERM stops the bot (it drains) and the supervisor.
set -uo pipefail
bot=${FAULT_TRIX_BOT:-$(dirname "$0")/../../build/bin/trix-bot}
[ -n "${TRIX_BOT_MATCHMAKING:-}" ] || exec "$bot" "$@"
dir=${FAULT_BOT_DIR:?FAULT_BOT_DIR must name a folder}
child=""
stopping=0
trap 'stopping=1; [ -n "$child" ] && kill -TERM "$child" 2>/dev/null' TERM INT
while :; do
  "$bot" "$@" &
  child=$!
  echo "$child" >"$dir/$$.pid"
  status=0
  wait "$child" || status=$?
  while kill -0 "$child" 2>/dev/null; do  # a trap ended the wait early
    status=0
    wait "$child" || status=$?
  done
  [ "$stopping" = 0 ] && [ "$status" -eq 137 ] || exit "$status"
  echo "$$ $(date -u +%T) restarted after SIGKILL" >>"$dir/restarts"
  sleep 1
done
