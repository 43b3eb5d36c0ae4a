#!/usr/bin/env bash
# A throwaway replicated PostgreSQL 15 cluster on loopback, run by Patroni: one etcd,
# three Patroni-managed servers (one primary, two standbys), for tests and local runs.
#
#   scripts/pg-ha.sh start DIR [sync|async]  # make and start the cluster in DIR
#   scripts/pg-ha.sh stop DIR                # stop exactly what start started
#   scripts/pg-ha.sh list DIR                # patronictl list: who is primary, lag
#   scripts/pg-ha.sh ctl DIR ARGS...         # any patronictl command on this cluster
#   scripts/pg-ha.sh pid DIR NODE postgres|patroni   # a process id, for fault tests
#   scripts/pg-ha.sh primary DIR             # the node that is primary now (pg0..pg2)
#   scripts/pg-ha.sh freeze|thaw DIR NODE    # SIGSTOP / SIGCONT a whole node
#
# Its ports are a free block of 30 picked at random (etcd at the base, the servers
# at base + 10..12, Patroni's REST APIs at base + 20..22); PG_HA_BASE=N takes N.
#
# start prints one libpq connection string naming all three servers with
# target_session_attrs=read-write, so a client always lands on the current primary
# and follows a failover by reconnecting (docs/operations.md, "PostgreSQL that fails
# over"). `sync` (the default) turns on Patroni's synchronous_mode: a commit is
# acknowledged only once a synchronous standby has it, so a failover loses nothing
# acknowledged. `async` is the default of most clusters: a failover may lose the last
# commits. Failover is quick here (ttl 20 s, loop_wait 2 s, a crashed primary is
# failed over at once rather than restarted in place), so that tests can watch it;
# commit timestamps are kept, so that a test can tell when each row was committed.
# PostgreSQL refuses to run as root, so as root it all runs as the "postgres" user.
set -euo pipefail

bindir=/usr/lib/postgresql/15/bin
cmd=${1:?usage: pg-ha.sh start DIR [sync|async] | stop DIR | list DIR | ctl DIR ... | pid DIR NODE WHAT | primary DIR}
dir=$(realpath -m "${2:?cluster folder}")
nodes=(pg0 pg1 pg2)

as_pg() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
# The same, replacing this process, so that $! of a background start is the program.
exec_as_pg() {
  if [ "$(id -u)" -eq 0 ]; then
    exec setpriv --reuid=postgres --regid=postgres --init-groups env HOME=/var/lib/postgresql "$@"
  fi
  exec "$@"
}

port_free() { ! ss -Hltn "sport = :$1" | grep -q .; }

block_free() {  # BASE: the ports of its block that the cluster binds are free
  local p
  for p in $1 $(($1 + 1)) $(($1 + 10)) $(($1 + 11)) $(($1 + 12)) \
    $(($1 + 20)) $(($1 + 21)) $(($1 + 22)); do
    port_free "$p" || return 1
  done
}

# A base port whose block of 30 ports is free now (etcd, the servers, the REST APIs),
# below 32768: the kernel's ephemeral ports (outgoing connections, servers on port 0)
# start there, and one of them could take a port of the block before it is bound.
# PG_HA_BASE in the environment: that base, when its block is free.
pick_base() {
  local base
  if [ -n "${PG_HA_BASE:-}" ]; then
    block_free "$PG_HA_BASE" || { echo "pg-ha.sh: ports from $PG_HA_BASE are taken" >&2; exit 1; }
    echo "$PG_HA_BASE"
    return
  fi
  for _ in $(seq 50); do
    base=$((20000 + (RANDOM % 400) * 30))
    block_free "$base" && { echo "$base"; return; }
  done
  echo "pg-ha.sh: no free block of ports" >&2
  exit 1
}

node_config() {  # NAME INDEX BASE MODE
  local name=$1 i=$2 base=$3 mode=$4 sync=false
  [ "$mode" = sync ] && sync=true
  cat <<EOF
scope: mamlaka
name: $name
log:
  dir: $dir/$name-log
  level: INFO
restapi:
  listen: 127.0.0.1:$((base + 20 + i))
  connect_address: 127.0.0.1:$((base + 20 + i))
etcd:
  host: 127.0.0.1:$base
bootstrap:
  dcs:
    ttl: 20
    loop_wait: 2
    retry_timeout: 5
    primary_start_timeout: 0
    maximum_lag_on_failover: 1048576
    synchronous_mode: $sync
    synchronous_mode_strict: false
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
        wal_level: replica
        hot_standby: "on"
        wal_log_hints: "on"
        max_wal_senders: 10
        max_replication_slots: 10
        max_connections: 200
        wal_keep_size: 256MB
        track_commit_timestamp: "on"
  initdb:
    - encoding: UTF8
    - locale: C
    - auth: trust
  pg_hba:
    - local all all trust
    - host all all 127.0.0.1/32 trust
    - host replication all 127.0.0.1/32 trust
postgresql:
  listen: 127.0.0.1:$((base + 10 + i))
  connect_address: 127.0.0.1:$((base + 10 + i))
  data_dir: $dir/$name
  bin_dir: $bindir
  pgpass: $dir/$name.pgpass
  basebackup:
    - checkpoint: fast
  authentication:
    superuser: {username: postgres, password: mamlaka}
    replication: {username: replicator, password: mamlaka}
    rewind: {username: postgres, password: mamlaka}
  parameters:
    unix_socket_directories: $dir
tags:
  nofailover: false
  noloadbalance: false
EOF
}

ctl() { as_pg patronictl -c "$dir/pg0.yml" "$@"; }

wait_for_primary() {
  local base=$1 port
  for _ in $(seq 120); do
    for i in 0 1 2; do
      port=$((base + 10 + i))
      if as_pg "$bindir/psql" -h 127.0.0.1 -p "$port" -U postgres -tAc \
        "SELECT NOT pg_is_in_recovery()" postgres 2>/dev/null | grep -q t; then
        echo "$port"
        return
      fi
    done
    sleep 0.5
  done
  echo "pg-ha.sh: no primary after 60 s (logs in $dir)" >&2
  exit 1
}

wait_for_standbys() {  # until both standbys stream (and, in sync mode, one is synchronous)
  local port=$1 mode=$2 want=streaming
  for _ in $(seq 120); do
    local n sync
    n=$(as_pg "$bindir/psql" -h 127.0.0.1 -p "$port" -U postgres -tAc \
      "SELECT count(*) FROM pg_stat_replication WHERE state = '$want'" postgres)
    sync=$(as_pg "$bindir/psql" -h 127.0.0.1 -p "$port" -U postgres -tAc \
      "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'" postgres)
    if [ "$n" = 2 ] && { [ "$mode" = async ] || [ "$sync" -ge 1 ]; }; then return; fi
    sleep 0.5
  done
  echo "pg-ha.sh: the standbys did not catch up in 60 s (logs in $dir)" >&2
  exit 1
}

case "$cmd" in
  start)
    mode=${3:-sync}
    [ "$mode" = sync ] || [ "$mode" = async ] || { echo "pg-ha.sh: mode is sync or async" >&2; exit 2; }
    [ -f "$dir/base" ] && { echo "pg-ha.sh: $dir already holds a cluster (stop it first)" >&2; exit 1; }
    mkdir -p "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres:postgres "$dir"
    base=$(pick_base)
    echo "$base" >"$dir/base"
    echo "$mode" >"$dir/mode"
    as_pg mkdir -p "$dir/etcd"
    # Patroni speaks etcd's v2 API here: Patroni 3.0's v3 client renews a leader
    # key whose lease lapsed (a primary frozen past the TTL) with an unconditional
    # put, so a thawed old primary takes the key back from the promoted standby and
    # the commits made there meanwhile are lost; the v2 client renews with a
    # compare-and-swap on its own name, which fails, and the old primary demotes.
    (exec_as_pg etcd --name etcd0 --data-dir "$dir/etcd" --enable-v2=true \
      --listen-client-urls "http://127.0.0.1:$base" --advertise-client-urls "http://127.0.0.1:$base" \
      --listen-peer-urls "http://127.0.0.1:$((base + 1))" \
      --initial-advertise-peer-urls "http://127.0.0.1:$((base + 1))" \
      --initial-cluster "etcd0=http://127.0.0.1:$((base + 1))" \
      >"$dir/etcd.log" 2>&1) &
    echo $! >"$dir/etcd.pid"
    for _ in $(seq 60); do
      ETCDCTL_API=3 etcdctl --endpoints "127.0.0.1:$base" endpoint health >/dev/null 2>&1 && break
      sleep 0.5
    done
    for i in 0 1 2; do
      name=${nodes[$i]}
      node_config "$name" "$i" "$base" "$mode" >"$dir/$name.yml"
      chmod 644 "$dir/$name.yml"
      as_pg mkdir -p "$dir/$name-log"
      (exec_as_pg patroni "$dir/$name.yml" >"$dir/$name.out" 2>&1) &
      echo $! >"$dir/$name.patroni.pid"
      # The first node bootstraps the cluster; the others clone it once it is up.
      [ "$i" = 0 ] && primary=$(wait_for_primary "$base")
    done
    as_pg "$bindir/psql" -h 127.0.0.1 -p "$primary" -U postgres -tAc \
      "SELECT 1 FROM pg_database WHERE datname='mamlaka'" postgres | grep -q 1 ||
      as_pg "$bindir/createdb" -h 127.0.0.1 -p "$primary" -U postgres mamlaka
    wait_for_standbys "$primary" "$mode"
    echo "postgresql://postgres@127.0.0.1:$((base + 10)),127.0.0.1:$((base + 11)),127.0.0.1:$((base + 12))/mamlaka?target_session_attrs=read-write&connect_timeout=2"
    ;;
  stop)
    [ -f "$dir/base" ] || exit 0
    for name in "${nodes[@]}"; do
      f=$dir/$name.patroni.pid
      [ -f "$f" ] && kill -CONT "$(cat "$f")" 2>/dev/null && kill -TERM "$(cat "$f")" 2>/dev/null || true
    done
    for name in "${nodes[@]}"; do
      f=$dir/$name.patroni.pid
      for _ in $(seq 60); do [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null || break; sleep 0.5; done
      [ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null || true
      # A postmaster left behind (its Patroni was killed) is stopped too.
      if [ -f "$dir/$name/postmaster.pid" ]; then
        pm=$(head -1 "$dir/$name/postmaster.pid")
        kill -CONT "$pm" 2>/dev/null || true
        as_pg "$bindir/pg_ctl" -D "$dir/$name" -m immediate -w stop >/dev/null 2>&1 || true
      fi
    done
    [ -f "$dir/etcd.pid" ] && kill "$(cat "$dir/etcd.pid")" 2>/dev/null || true
    rm -f "$dir/base"
    ;;
  list) shift 2; ctl list "$@" ;;
  ctl) shift 2; ctl "$@" ;;
  pid)
    node=${3:?node}; what=${4:?postgres or patroni}
    if [ "$what" = patroni ]; then cat "$dir/$node.patroni.pid"; else head -1 "$dir/$node/postmaster.pid"; fi
    ;;
  freeze|thaw)  # SIGSTOP (SIGCONT) a node whole: its Patroni, its postmaster and children
    node=${3:?node}; sig=STOP
    [ "$cmd" = thaw ] && sig=CONT
    pm=$(head -1 "$dir/$node/postmaster.pid")
    kill -"$sig" "$(cat "$dir/$node.patroni.pid")" "$pm" $(pgrep -P "$pm") 2>/dev/null || true
    ;;
  primary)
    base=$(cat "$dir/base")
    for i in 0 1 2; do
      if curl -fs "http://127.0.0.1:$((base + 20 + i))/primary" >/dev/null 2>&1; then
        echo "${nodes[$i]}"
        exit 0
      fi
    done
    exit 1
    ;;
  *)
    echo "usage: pg-ha.sh start DIR [sync|async] | stop DIR | list DIR | ctl DIR ... | pid DIR NODE WHAT | primary DIR | freeze|thaw DIR NODE" >&2
    exit 2
    ;;
esac
