# Sourced by scripts/test and scripts/bench: starts a throwaway PostgreSQL server.
#
# start_throwaway_postgres: initdb in a temp dir, start on a free loopback port, create database
# subledger_test, export SUBLEDGER_TEST_POSTGRES_URL, PG_BIN and PG_PORT, and stop it on exit.
# On Debian, as root, a missing initdb is installed with apt-get. Returns 1 if PostgreSQL is unavailable.
# PG_SERVER_OPTS adds server options to the start (e.g. "-c shared_buffers=2GB").
# PG_TLS=1 (scripts/test) also turns TLS on, with a throwaway CA and a certificate for 127.0.0.1 made
# by openssl, and exports the CA's file as SUBLEDGER_TEST_POSTGRES_CA. Clients that do not ask for TLS
# are served as before; the benchmarks leave it off, since pgbench (libpq's sslmode=prefer) would
# then pay for TLS.

pg_log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }

find_pg_bin() {
  if command -v initdb >/dev/null 2>&1; then dirname "$(readlink -f "$(command -v initdb)")"; return 0; fi
  local candidate
  candidate=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -n "$candidate" ] && [ -x "$candidate/initdb" ]; then echo "$candidate"; return 0; fi
  return 1
}

install_postgres() {
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    pg_log "initdb not found: installing postgresql with apt-get"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql postgresql-contrib openssl >/dev/null
  fi
}

free_port() {
  python3 - <<'PY' 2>/dev/null || echo $((20000 + RANDOM % 20000))
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()
PY
}

run_pg() {
  if [ "$(id -u)" = "0" ]; then
    # initdb refuses to run as root; use the postgres account the Debian package creates.
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# Makes a CA and a server certificate for 127.0.0.1 in $1 (readable by PostgreSQL) and prints the
# server options that turn TLS on with them. Returns 1 without openssl.
make_throwaway_tls() {
  local dir=$1
  command -v openssl >/dev/null 2>&1 || return 1
  mkdir -p "$dir"
  (
    cd "$dir"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3 \
      -subj "/CN=subledger throwaway test CA" -addext "basicConstraints=critical,CA:TRUE" \
      -addext "keyUsage=critical,keyCertSign,cRLSign" -keyout ca.key -out ca.pem
    openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=127.0.0.1" \
      -keyout server.key -out server.csr
    printf '%s\n' "subjectAltName=IP:127.0.0.1,DNS:localhost" "basicConstraints=critical,CA:FALSE" \
      "keyUsage=critical,digitalSignature" "extendedKeyUsage=serverAuth" >server.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 3 \
      -extfile server.ext -out server.pem
    chmod 600 server.key ca.key
  ) >"$dir/openssl.log" 2>&1 || { cat "$dir/openssl.log" >&2; return 1; }
  if [ "$(id -u)" = "0" ]; then chown -R postgres "$dir"; fi
  printf -- '-c ssl=on -c ssl_cert_file=%s -c ssl_key_file=%s' "$dir/server.pem" "$dir/server.key"
}

stop_throwaway_postgres() {
  if [ -n "${PG_DATA_ROOT:-}" ]; then
    run_pg "$PG_BIN/pg_ctl" -D "$PG_DATA_ROOT/data" -m fast stop >/dev/null 2>&1 || true
    rm -rf "$PG_DATA_ROOT"
    PG_DATA_ROOT=
  fi
}

start_throwaway_postgres() {
  PG_BIN=$(find_pg_bin || { install_postgres; find_pg_bin; } || true)
  if [ -z "$PG_BIN" ]; then
    return 1
  fi
  PG_DATA_ROOT=$(mktemp -d /tmp/subledger-pg.XXXXXX)
  if [ "$(id -u)" = "0" ]; then
    id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
    chown postgres "$PG_DATA_ROOT"
  fi
  trap stop_throwaway_postgres EXIT
  PG_PORT=$(free_port)
  run_pg "$PG_BIN/initdb" -D "$PG_DATA_ROOT/data" -U subledger --auth=trust -E UTF8 --no-locale \
    >"$PG_DATA_ROOT/initdb.log" 2>&1 || { cat "$PG_DATA_ROOT/initdb.log" >&2; return 1; }
  local tls_opts=""
  if [ "${PG_TLS:-}" = "1" ]; then
    if tls_opts=$(make_throwaway_tls "$PG_DATA_ROOT/tls"); then
      export SUBLEDGER_TEST_POSTGRES_CA="$PG_DATA_ROOT/tls/ca.pem"
    else
      tls_opts=""
      pg_log "openssl not available: PostgreSQL runs without TLS, so the test over TLS cannot run"
    fi
  fi
  # Swift Testing runs the PostgreSQL tests at once, each with its own pool (up to 10 connections)
  # and schema: a run was seen at 205 connections, past the default limit, and the tests that could
  # not connect failed with storage_unavailable. With 661 tests a run reached the 500 it then had
  # (2026-11-29, polling pg_stat_activity), so 1000 leaves room again.
  run_pg "$PG_BIN/pg_ctl" -D "$PG_DATA_ROOT/data" -l "$PG_DATA_ROOT/server.log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $PG_DATA_ROOT -c max_connections=1000 $tls_opts ${PG_SERVER_OPTS:-}" start >/dev/null \
    || { cat "$PG_DATA_ROOT/server.log" >&2; return 1; }
  run_pg "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U subledger subledger_test
  export PG_BIN PG_PORT
  export SUBLEDGER_TEST_POSTGRES_URL="postgres://subledger@127.0.0.1:$PG_PORT/subledger_test"
  pg_log "PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PG_PORT${tls_opts:+, TLS on}"
}
