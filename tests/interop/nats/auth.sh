#!/bin/sh
# zq signal's NATS credentials against Debian's nats-server, beyond user and password (which
# nats_server checks): a user nkey (--nats-nkey, nats-server's authorization.users.nkey) and a
# .creds file (--nats-creds) in operator mode (operator JWT, account preloaded in a MEMORY
# resolver). Keys and JWTs are made by tests/interop/nats/nkeys.py with Python's cryptography,
# not by zq. What CTest (nats_auth) runs:
#
#   sh tests/interop/nats/auth.sh path/to/zq
#
# Checked (PASS/FAIL lines):
#   1. --nats-nkey with the configured user's seed joins (CONNECT's nonce signature verified);
#   2. another user's seed, and no credentials, are refused (Authorization Violation);
#   3. --nats-creds with a user JWT of the preloaded account joins;
#   4. the same JWT with another user's seed is refused (the nonce signed by the wrong key).
set -u
here=$(cd "$(dirname "$0")" && pwd)
zq=$1
. "$here/../../support/echo_env.sh"
echo_env_netns NATS_AUTH "$0" "$@"
echo_env_start "$zq" "zq signal's nkeys and .creds against nats-server"
nats=${ZQ_NATS_SERVER:-/usr/sbin/nats-server}
port=4299

fail() { echo "FAIL $*"; status=1; }
pass() { echo "PASS $*"; }

python3 "$here/nkeys.py" "$out" "$port" || { fail "nkeys.py could not make the keys"; exit; }

start_nats() { # config
    "$nats" -c "$out/$1" >"$out/$1.out" 2>&1 &
    nats_pid=$!
    wait_for "$out/$1.out" "Server is ready" || { fail "nats-server $1 did not start"; exit; }
}

# name credential-options...: a zq signal with them; PASS/FAIL on whether it joined
try() {
    name=$1
    want=$2
    shift 2
    "$zq" signal --listen 127.0.0.1:0 --cluster "nats://127.0.0.1:$port" "$@" \
        >"$out/$name.out" 2>"$out/$name.err" &
    pid=$!
    if [ "$want" = joins ]; then
        if wait_for "$out/$name.err" "cluster: joined through"; then
            pass "$name: joined ($(grep -m1 'joined through' "$out/$name.err"))"
        else
            fail "$name: did not join"
        fi
    elif wait_for "$out/$name.err" "NATS says: Authorization Violation"; then
        grep -q "joined through" "$out/$name.err" && fail "$name: joined" ||
            pass "$name: refused ('Authorization Violation')"
    else
        fail "$name: not refused as it should be"
    fi
    stop "$pid"
}

start_nats nkey.conf
try "1. --nats-nkey user.seed" joins --nats-nkey "$out/user.seed"
try "2. --nats-nkey of a user nats-server does not know" refused --nats-nkey "$out/other.seed"
try "2. no credentials" refused
stop "$nats_pid"

start_nats operator.conf
try "3. --nats-creds user.creds" joins --nats-creds "$out/user.creds"
sed "s/^SU.*/$(cat "$out/other.seed")/" "$out/user.creds" >"$out/forged.creds"
try "4. --nats-creds with the JWT and another user's seed" refused --nats-creds "$out/forged.creds"
grep -q "authentication error" "$out/operator.conf.out" ||
    fail "nats-server logged no authentication error for the forged .creds"
stop "$nats_pid"
