# Shared by bench/profile, bench/cpu-per-call and bench/instructions-per-call
# (sourced, not run): the calls they load a server with, its data, its Redis.
# Expects ROOT, BENCH_TARGET, KEY (the bootstrap key), LEDGER (redis |
# redis-socket | embedded) and RUN (the run directory) to be set, and PIDS to be the array
# its cleanup kills; wait_http and start_bound also MEDIAOPS (a mediaops
# binary, for its `probe`), start_bound BOUND and REDIS_URL.

BILIBILI_DATA=${BILIBILI_DATA:-$ROOT/../shared/data/works/bilibili}

# The load generator's target line (bench/bound/src/bin/load.rs) of one call
# on the server at http://127.0.0.1:<port>, labelled <deployment>:
#   call_target data|banned|free <port> <deployment>
call_target() {
  local base=http://127.0.0.1:$2
  case $1 in
    data) printf '%s\t%s\tcharged data call\tPOST\t%s\t%s\t%s\n' "$3" "$LEDGER" \
      "$base/api/apis/videosite/query-work/call" "$KEY" '{"bvId": "BV1cM41197ui"}' ;;
    banned) printf '%s\t%s\tcharged banned words\tPOST\t%s\t%s\t%s\n' "$3" "$LEDGER" \
      "$base/api/apis/tool/check-banned-words/call" "$KEY" '{"platform": "公众号", "content": "全网最低价，加微信领取"}' ;;
    free) printf '%s\t%s\tfree authenticated\tGET\t%s\t%s\t-\n' "$3" "$LEDGER" "$base/api/account/balance" "$KEY" ;;
    *) echo "a call is data, banned or free, not $1" >&2; exit 1 ;;
  esac
}

# Builds mediaops and the bench crate (its load generator) in release,
# unless SKIP_BUILD=1.
build_release() {
  if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
    cargo build --release --locked --bin mediaops
    cargo build --release --locked --manifest-path bench/bound/Cargo.toml --target-dir "$BENCH_TARGET"
  fi
}

# The header and rule of a Markdown table with a column per <name> after
# the first column "call".
#   table_head <name>…
table_head() {
  local header="| call |" rule="|---|" name
  for name in "$@"; do header+=" $name |"; rule+="---:|"; done
  printf '%s\n%s\n' "$header" "$rule"
}

# Kills what was started (PIDS) when the script exits.
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}

# With a Redis ledger (LEDGER, or any of LEDGERS, redis or redis-socket) and
# no REDIS_URL: a private redis-server on <port> and on the Unix socket
# $RUN/redis.sock (no persistence), REDIS_URL and REDIS_SOCKET set to them.
start_redis() {
  if [[ " ${LEDGERS:-$LEDGER} " == *" redis"* && -z "${REDIS_URL:-}" ]]; then
    redis-server --port "$1" --bind 127.0.0.1 --unixsocket "$RUN/redis.sock" --unixsocketperm 700 \
      --save '' --appendonly no --dir "$RUN" --logfile "$RUN/redis.log" &
    PIDS+=($!)
    REDIS_PID=$!
    REDIS_URL=redis://127.0.0.1:$1
    REDIS_SOCKET=$RUN/redis.sock
    for _ in $(seq 50); do [[ -S $REDIS_SOCKET ]] && break; sleep 0.1; done
  fi
}

# The environment of a `mediaops serve` on <port> (REST; gRPC on port + 1)
# over <data dir> into which the Bilibili works were imported by <binary>,
# with the Redis ledger under key prefix <prefix> when LEDGER is redis or
# redis-socket (over Redis's Unix socket): the array SERVE_ENV.
#   prepare_server <binary> <data dir> <port> <prefix>
prepare_server() {
  mkdir -p "$2"
  MEDIAOPS_DATA_DIR="$2" "$1" import bilibili-popular "$BILIBILI_DATA" >"$2.import.json" 2>/dev/null
  SERVE_ENV=(MEDIAOPS_DATA_DIR="$2" MEDIAOPS_BOOTSTRAP_KEY=$KEY MEDIAOPS_BOOTSTRAP_POINTS=1000000000000000
    MEDIAOPS_REST_ADDR=127.0.0.1:$3 MEDIAOPS_GRPC_ADDR=127.0.0.1:$(($3 + 1)))
  if [[ $LEDGER == redis* ]]; then
    local url
    url=$(redis_url_for "$LEDGER")
    SERVE_ENV+=(MEDIAOPS_REDIS_URL="$url" MEDIAOPS_REDIS_PREFIX="$4")
  fi
}

# The MEDIAOPS_REDIS_URL of the ledger word <ledger>: REDIS_URL for redis,
# unix://REDIS_SOCKET for redis-socket (fails when that is no socket).
#   redis_url_for redis|redis-socket
redis_url_for() {
  case $1 in
    redis) echo "$REDIS_URL" ;;
    redis-socket)
      [[ -S ${REDIS_SOCKET:-} ]] || { echo "no Redis socket at '${REDIS_SOCKET:-}' (set REDIS_SOCKET)" >&2; return 1; }
      echo "unix://$REDIS_SOCKET" ;;
    *) echo "a Redis ledger is redis or redis-socket, not $1" >&2; return 1 ;;
  esac
}

# Starts <binary> as MODE says (all-in-one, the default: `serve`; split: a
# `core` and a `gateway`, one async worker each, as bench/load runs them)
# with SERVE_ENV (prepare_server: REST on <port>, gRPC on port + 1), each
# process run by the command <wrapper…> when given (valgrind and its
# options), its output in <log prefix>-<name>.log. Adds the pids to PIDS and
# sets PROCESSES to one name:pid per process (mediaops, or core and gateway).
#   start_server <binary> <port> <log prefix> [wrapper…]
start_server() {
  local bin=$1 port=$2 log=$3
  shift 3
  PROCESSES=()
  if [[ ${MODE:-all-in-one} == split ]]; then
    # SERVE_ENV names both addresses: the core takes the gRPC one, the gateway the REST one.
    env "${SERVE_ENV[@]}" MEDIAOPS_WORKER_THREADS=1 "$@" "$bin" core >"$log-core.log" 2>&1 &
    PIDS+=($!)
    PROCESSES+=("core:$!")
    env MEDIAOPS_WORKER_THREADS=1 MEDIAOPS_REST_ADDR=127.0.0.1:$port "$@" "$bin" gateway \
      --core-addr "http://127.0.0.1:$((port + 1))" >"$log-gateway.log" 2>&1 &
    PIDS+=($!)
    PROCESSES+=("gateway:$!")
  else
    env "${SERVE_ENV[@]}" "$@" "$bin" serve >"$log-mediaops.log" 2>&1 &
    PIDS+=($!)
    PROCESSES+=("mediaops:$!")
  fi
}

# Waits (up to <tries> × 0.1 s, default 300) until the server on <port> is ready.
#   wait_ready <binary> <port> [tries]
wait_ready() {
  for _ in $(seq "${3:-300}"); do "$1" probe "http://127.0.0.1:$2/readyz" >/dev/null 2>&1 && return; sleep 0.1; done
}

# Waits (30 s at most) until <url> answers 2xx; else says so and exits.
#   wait_http <url>
wait_http() {
  for _ in $(seq 300); do
    "$MEDIAOPS" probe "$1" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "$1 did not come up; logs in $RUN" >&2
  exit 1
}

# Starts the bound (bench/bound) on 127.0.0.1:<port> with the bench's key
# and REDIS_URL, its log in $RUN/bound.log, and waits until it answers.
#   start_bound <port>
start_bound() {
  BOUND_ADDR=127.0.0.1:$1 BOUND_KEY=$KEY BOUND_REDIS_URL=$REDIS_URL "$BOUND" >"$RUN/bound.log" 2>&1 &
  PIDS+=($!)
  wait_http "http://127.0.0.1:$1/healthz"
}

# The median of the numbers on stdin, one a line, written with the printf
# format <format> (default: as given).
#   median [format]
median() { sort -g | awk -v f="${1:-%s}" '{ x[NR] = $1 } END { if (NR) printf f "\n", x[int((NR + 1) / 2)] }'; }
