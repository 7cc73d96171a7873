#!/bin/sh
# The broker commands as separate processes meeting through `zq signal` on loopback: one
# function per rule, each in its own room. Usage: broker_cli.sh path/to/zq. Run it where only
# loopback is up (`unshare -n`): the nodes gather candidates on every interface. Timeouts here
# only stop a hung run; nothing asserts on time.
set -u
zq=${1:?usage: broker_cli.sh path/to/zq}
out=$(mktemp -d)
pids=
fail() {
    echo "FAIL: $*" >&2
    for f in "$out"/*; do [ -s "$f" ] && { echo "--- $f" >&2; cat "$f" >&2; }; done
    [ -n "$pids" ] && kill $pids 2>/dev/null
    rm -rf "$out"
    exit 1
}
ok() {
    echo "ok: $*"
}
# A background zq whose pid is kept, killed at the end if the check fails.
spawn() {
    name=$1
    shift
    "$zq" "$@" >"$out/$name.out" 2>"$out/$name.err" &
    pids="$pids $!"
    last=$!
}
# Waits (at most 10 s: a hang, not a measure) for a line matching $2 in file $1.
wait_for() {
    for _ in $(seq 100); do
        grep -q "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

# Waits (at most 60 s) for a background zq to exit; returns its exit status.
wait_exit() {
    for _ in $(seq 600); do
        kill -0 "$1" 2>/dev/null || break
        sleep 0.1
    done
    kill -0 "$1" 2>/dev/null && fail "pid $1 did not exit"
    wait "$1"
}

# ---- The command line -----------------------------------------------------------------------

every_command_has_help_and_exits_0() {
    for cmd in pub sub put work req rep dlq; do
        "$zq" $cmd --help >"$out/help" 2>&1 || fail "zq $cmd --help exited $?"
        grep -q "^usage: zq $cmd " "$out/help" || fail "no usage line in zq $cmd --help"
    done
    for cmd in sub work req rep dlq; do
        "$zq" $cmd --help >"$out/help" 2>&1
        if ! grep -q '^  --json  .*(default: as text)$' "$out/help" ||
            ! grep -q '^A payload comes out as text: a JSON string as its' "$out/help"; then
            fail "zq $cmd --help does not say how payloads come out"
        fi
    done
    ok "--help of pub, sub, put, work, req, rep and dlq exits 0 with a usage line; that of" \
        "sub, work, req, rep and dlq says payloads come out as text, or JSON with --json"
}

a_bad_signal_url_is_a_usage_error() {
    for cmd in "pub t 1" "sub t" "put q 1" "work q" "req s 1" "rep s --exec true" "dlq q"; do
        # $cmd is words on purpose.
        # shellcheck disable=SC2086
        "$zq" $cmd --signal 'http://x' 2>"$out/badurl.err"
        rc=$?
        [ $rc -eq 2 ] || fail "zq $cmd with a non-ws URL exited $rc, not 2"
        grep -q "a WebSocket URL starts with ws://" "$out/badurl.err" ||
            fail "unclear bad URL message: $(cat "$out/badurl.err")"
    done
    ok "a bad --signal URL exits 2 for every command"
}

an_unreachable_server_exits_1_and_says_why() {
    "$zq" sub t --signal ws://127.0.0.1:1/ws 2>"$out/unreachable.err"
    rc=$?
    [ $rc -eq 1 ] || fail "an unreachable server must exit 1, not $rc"
    grep -q '^zq sub: cannot reach ws://127.0.0.1:1/ws: connection refused' \
        "$out/unreachable.err" || fail "unclear message: $(cat "$out/unreachable.err")"
    ok "an unreachable server exits 1: $(grep '^zq sub:' "$out/unreachable.err")"
}

usage_mistakes_exit_2() {
    for args in "pub onlytopic" "sub 'a.#.b'" "rep svc" "dlq q --requeue --purge" \
        "pub t 1 --qos 2" "work q --credit 0" "sub t --nope" "pub t 1 --json" \
        "put q 1 --json"; do
        eval "\"\$zq\" $args" 2>/dev/null
        rc=$?
        [ $rc -eq 2 ] || fail "zq $args exited $rc, not 2"
    done
    ok "a missing MSG, a bad pattern, rep without --exec, two dlq ops, bad numbers, --json" \
        "on pub or put exit 2"
}

a_misplaced_wildcard_exits_2_and_says_how_to_write_it() {
    "$zq" sub 'sensors#' 2>"$out/wild.err"
    rc=$?
    [ $rc -eq 2 ] || fail "zq sub 'sensors#' exited $rc, not 2"
    grep -q "^zq sub: 'sensors#' is not a topic pattern: .* write 'sensors/#'" "$out/wild.err" ||
        fail "unclear message: $(cat "$out/wild.err")"
    ok "$(head -1 "$out/wild.err")"
    "$zq" pub 'sensors/#' 21.5 2>"$out/wild.err"
    rc=$?
    [ $rc -eq 2 ] || fail "zq pub 'sensors/#' exited $rc, not 2"
    grep -q "^zq pub: cannot publish on 'sensors/#': '+' and '#' are wildcards" "$out/wild.err" ||
        fail "unclear message: $(cat "$out/wild.err")"
    ok "$(head -1 "$out/wild.err")"
}

# ---- Topics ---------------------------------------------------------------------------------

a_subscriber_prints_each_matching_message_once_in_order() {
    spawn sub sub 'news.#' --count 3 --signal "$url" --room news
    sub=$last
    timeout 60 "$zq" pub news.eu hello --signal "$url" --room news || fail "pub 1 exited $?"
    timeout 60 "$zq" pub sports.eu '"not for news"' --signal "$url" --room news ||
        fail "pub (unmatched) exited $?"
    timeout 60 "$zq" pub news.eu '{"a":1}' --qos 1 --signal "$url" --room news ||
        fail "pub 2 exited $?"
    echo 21.5 | timeout 60 "$zq" pub news.eu - --signal "$url" --room news ||
        fail "pub from stdin exited $?"
    wait_exit "$sub" || fail "sub --count 3 exited $?"
    printf '%s\n' 'news.eu hello' 'news.eu {"a":1}' 'news.eu 21.5' >"$out/sub.want"
    cmp -s "$out/sub.out" "$out/sub.want" || fail "sub printed: $(cat "$out/sub.out")"
    ok "sub 'news.#' --count 3 printed exactly:"
    sed 's/^/    /' "$out/sub.out"
}

# ---- Payloads out: as text, or JSON text with --json (issue 16 §2) ---------------------------

# MSGs one pub each, in order, to $2 peers of room $1 on topic $1.t.
pub_each() {
    room=$1
    peers=$2
    shift 2
    for msg in "$@"; do
        timeout 60 "$zq" pub "$room.t" "$msg" --wait-peers "$peers" --signal "$url" \
            --room "$room" || fail "pub '$msg' exited $?"
    done
}

# Fails unless file $1 holds exactly what file $1.want does.
same_as_wanted() {
    cmp -s "$1" "$1.want" || fail "$(basename "$1") is not as wanted: $(od -c "$1" | head -20)"
}

text_and_json_come_out_as_they_went_in_and_json_keeps_the_value() {
    spawn text sub 'form.#' --count 5 --signal "$url" --room form
    text=$last
    spawn json sub 'form.#' --count 5 --json --signal "$url" --room form
    json=$last
    pub_each form 2 hi '{"t":21.5}' 21.5 '"21.5"' 'say "hi"'
    wait_exit "$text" || fail "sub exited $?"
    wait_exit "$json" || fail "sub --json exited $?"
    printf 'form.t %s\n' hi '{"t":21.5}' 21.5 21.5 'say "hi"' >"$out/text.out.want"
    printf 'form.t %s\n' '"hi"' '{"t":21.5}' 21.5 '"21.5"' '"say \"hi\""' >"$out/json.out.want"
    same_as_wanted "$out/text.out"
    same_as_wanted "$out/json.out"
    ok "pub hi, {\"t\":21.5}, 21.5, '\"21.5\"', 'say \"hi\"': sub prints" \
        "$(cut -d' ' -f2- "$out/text.out" | paste -sd' ' -); sub --json prints" \
        "$(cut -d' ' -f2- "$out/json.out" | paste -sd' ' -)"
}

text_with_newlines_control_characters_or_escapes_prints_as_its_bytes() {
    spawn edge sub edge.t --count 4 --signal "$url" --room edge
    edge=$last
    pub_each edge 1 "$(printf 'line 1\nline 2')" "$(printf 'tab\there\001')" \
        '"caf\u00e9 \ud83d\ude00"' '""'
    wait_exit "$edge" || fail "sub exited $?"
    printf 'edge.t %b\n' 'line 1\nline 2' 'tab\there\0001' 'caf\0303\0251 \0360\0237\0230\0200' '' \
        >"$out/edge.out.want"
    same_as_wanted "$out/edge.out"
    ok "a newline, a tab and \\u0001, \\u escapes (UTF-8 out) and an empty string print as" \
        "their bytes: $(wc -l <"$out/edge.out") lines for 4 messages"
}

a_payload_as_long_as_a_frame_carries_comes_out_whole() {
    spawn big sub big.t --count 2 --signal "$url" --room big
    big=$last
    long=$(printf 'x%.0s' $(seq 7000))
    escaped=$(printf '\\u00e9%.0s' $(seq 1200))
    pub_each big 1 "$long" "\"$escaped\""
    wait_exit "$big" || fail "sub exited $?"
    { printf 'big.t %s\n' "$long"; printf 'big.t '; printf '\303\251%.0s' $(seq 1200); echo; } \
        >"$out/big.out.want"
    cmp -s "$out/big.out" "$out/big.out.want" ||
        fail "a long payload came out as $(wc -c <"$out/big.out") bytes, not" \
            "$(wc -c <"$out/big.out.want")"
    ok "7,000 bytes of text and a 7,202-byte string of \\u00e9 escapes came out whole" \
        "($(wc -c <"$out/big.out") bytes)"
}

an_exec_command_reads_the_text_or_with_json_the_json() {
    spawn wtext work jobs --exec "cat >> $out/wtext.got" --count 3 --signal "$url" --room wtext
    wtext=$last
    spawn wjson work jobs --exec "cat >> $out/wjson.got" --count 3 --json --signal "$url" \
        --room wjson
    wjson=$last
    spawn wprint work jobs --count 3 --signal "$url" --room wprint
    wprint=$last
    for room in wtext wjson wprint; do
        for msg in job-1 '{"n":[1,"x"]}' '"21.5"'; do
            timeout 60 "$zq" put jobs "$msg" --signal "$url" --room "$room" ||
                fail "put '$msg' in $room exited $?"
        done
    done
    for pid in "$wtext" "$wjson" "$wprint"; do wait_exit "$pid" || fail "work exited $?"; done
    printf '%s\n' job-1 '{"n":[1,"x"]}' 21.5 >"$out/wtext.got.want"
    printf '%s\n' '"job-1"' '{"n":[1,"x"]}' '"21.5"' >"$out/wjson.got.want"
    same_as_wanted "$out/wtext.got"
    same_as_wanted "$out/wjson.got"
    cut -d' ' -f2- "$out/wprint.out" >"$out/wprint.got"
    cp "$out/wtext.got.want" "$out/wprint.got.want"
    same_as_wanted "$out/wprint.got"
    ok "put job-1, {\"n\":[1,\"x\"]}, '\"21.5\"': work --exec reads" \
        "$(paste -sd' ' "$out/wtext.got"), with --json $(paste -sd' ' "$out/wjson.got");" \
        "work prints them as --exec reads them"
}

# MQTT's names (PROTOCOL.md §3): levels at '/', '#' also matching its parent level.
a_slashed_pattern_gets_slashed_topics_as_mqtt_has_it() {
    spawn mqtt sub 'sensors/#' --count 3 --signal "$url" --room mqtt
    sub=$last
    for t in sensors/kitchen sensors.kitchen sensors/kitchen/temp sensors; do
        timeout 60 "$zq" pub "$t" 21.5 --signal "$url" --room mqtt || fail "pub $t exited $?"
    done
    wait_exit "$sub" || fail "sub --count 3 exited $?"
    printf '%s 21.5\n' sensors/kitchen sensors/kitchen/temp sensors >"$out/mqtt.want"
    cmp -s "$out/mqtt.out" "$out/mqtt.want" || fail "sub printed: $(cat "$out/mqtt.out")"
    ok "sub 'sensors/#' got sensors/kitchen, sensors/kitchen/temp and sensors, not sensors.kitchen"
}

# ---- Work queues ----------------------------------------------------------------------------

each_job_is_done_exactly_once_across_two_workers() {
    spawn work1 work jobs --exec "cat >> $out/jobs1" --signal "$url" --room work
    w1=$last
    spawn work2 work jobs --exec "cat >> $out/jobs2" --signal "$url" --room work
    w2=$last
    for i in 1 2 3 4 5 6 7; do
        timeout 60 "$zq" put jobs "job $i" --signal "$url" --room work || fail "put $i exited $?"
    done
    printf 'job 8\njob 9\n"job 10"\n' | timeout 60 "$zq" put jobs - --signal "$url" --room work ||
        fail "put from stdin exited $?"
    kill "$w1" "$w2"
    wait "$w1" || fail "worker 1 exited $? on SIGTERM"
    wait "$w2" || fail "worker 2 exited $? on SIGTERM"
    touch "$out/jobs1" "$out/jobs2"
    cat "$out/jobs1" "$out/jobs2" | sort >"$out/jobs.got"
    for i in 1 2 3 4 5 6 7 8 9 10; do echo "job $i"; done | sort >"$out/jobs.want"
    cmp -s "$out/jobs.got" "$out/jobs.want" || fail "jobs done: $(cat "$out/jobs.got")"
    ok "10 jobs (7 puts, 3 lines of stdin), each done once: worker 1 did" \
        "$(wc -l <"$out/jobs1"), worker 2 did $(wc -l <"$out/jobs2")"
}

a_job_failed_three_times_is_dead_lettered_listed_and_requeued() {
    spawn bad work jobs --exec "echo \$ZQ_JOB_ID \$ZQ_JOB_ATTEMPT >> $out/attempts; false" \
        --signal "$url" --room dlq
    bad=$last
    timeout 60 "$zq" put jobs poison --signal "$url" --room dlq 2>"$out/put-nokeep.err"
    rc=$?
    [ $rc -eq 1 ] || fail "put of a job that always fails exited $rc, not 1"
    grep -q "dead-lettered after 3 attempts" "$out/put-nokeep.err" ||
        fail "put did not say the job was dead-lettered"
    spawn put put jobs '{"p":"poison"}' --keep-dead --signal "$url" --room dlq
    put=$last
    wait_for "$out/put.err" "dead-lettered after 3 attempts; kept" ||
        fail "the job was not dead-lettered"
    id=$(sed -n 's/^zq put: job \([^ ]*\) of .*/\1/p' "$out/put.err")
    printf '%s\n' "$id 0" "$id 1" "$id 2" >"$out/attempts.want"
    grep "^$id " "$out/attempts" | cmp -s - "$out/attempts.want" ||
        fail "the failing command saw ZQ_JOB_ID ZQ_JOB_ATTEMPT: $(cat "$out/attempts")"
    timeout 60 "$zq" dlq jobs --signal "$url" --room dlq >"$out/dlq.out" || fail "dlq exited $?"
    [ "$(cat "$out/dlq.out")" = "$id 3 {\"p\":\"poison\"}" ] ||
        fail "dlq listed: $(cat "$out/dlq.out")"
    kill "$bad"
    wait "$bad"
    spawn good work jobs --exec "cat >> $out/requeued" --signal "$url" --room dlq
    good=$last
    timeout 60 "$zq" dlq jobs --requeue --signal "$url" --room dlq >"$out/requeue.out" ||
        fail "dlq --requeue exited $?"
    wait_exit "$put" || fail "put --keep-dead exited $? after the requeue"
    [ "$(cat "$out/requeued")" = '{"p":"poison"}' ] || fail "the requeued job was not done once"
    timeout 60 "$zq" dlq jobs --signal "$url" --room dlq >"$out/dlq-after.out" ||
        fail "dlq exited $?"
    [ -s "$out/dlq-after.out" ] && fail "the dead-letter queue is not empty after the requeue"
    kill "$good"
    wait "$good"
    ok "a job nacked 3 times (ZQ_JOB_ATTEMPT 0, 1, 2): put exits 1; with --keep-dead, dlq" \
        "lists '$(cat "$out/dlq.out")', dlq --requeue hands it to a good worker, put exits 0"
}

a_dead_letter_list_gives_a_string_as_text_or_with_json_quoted() {
    spawn bad2 work jobs --exec false --signal "$url" --room dlqtext
    bad2=$last
    spawn put2 put jobs 'poison "pill"' --keep-dead --signal "$url" --room dlqtext
    put2=$last
    wait_for "$out/put2.err" "dead-lettered after 3 attempts; kept" ||
        fail "the job was not dead-lettered"
    kill "$bad2"
    wait "$bad2"
    id=$(sed -n 's/^zq put: job \([^ ]*\) of .*/\1/p' "$out/put2.err")
    timeout 60 "$zq" dlq jobs --signal "$url" --room dlqtext >"$out/dlqtext.out" ||
        fail "dlq exited $?"
    timeout 60 "$zq" dlq jobs --json --purge --signal "$url" --room dlqtext >"$out/dlqjson.out" ||
        fail "dlq --json --purge exited $?"
    wait_exit "$put2"
    rc=$?
    [ $rc -eq 1 ] || fail "put --keep-dead exited $rc, not 1, after its job was purged"
    printf '%s\n' "$id 3 poison \"pill\"" >"$out/dlqtext.out.want"
    printf '%s\n' "$id 3 \"poison \\\"pill\\\"\"" >"$out/dlqjson.out.want"
    same_as_wanted "$out/dlqtext.out"
    same_as_wanted "$out/dlqjson.out"
    ok "dlq lists '$(cat "$out/dlqtext.out")', dlq --json --purge '$(cat "$out/dlqjson.out")'"
}

# ---- Services -------------------------------------------------------------------------------

a_request_is_answered_by_the_responder() {
    spawn rep rep math.double --exec 'awk "{ print \$1 * 2 }"' --signal "$url" --room rpc
    rep=$last
    answer=$(timeout 60 "$zq" req math.double 21 --signal "$url" --room rpc) ||
        fail "req exited $?"
    [ "$answer" = 42 ] || fail "req math.double 21 printed '$answer'"
    ok "req math.double 21 printed $answer"
}

a_request_nobody_serves_fails_after_its_tries() {
    timeout 60 "$zq" req nobody 1 --timeout 500 --retries 1 --signal "$url" --room rpc \
        >"$out/nobody.out" 2>"$out/nobody.err"
    rc=$?
    [ $rc -eq 1 ] || fail "req nobody exited $rc, not 1"
    grep -q '^zq req: no reply from nobody in 500 ms after 2 tries$' "$out/nobody.err" ||
        fail "unclear message: $(cat "$out/nobody.err")"
    ok "req nobody: $(cat "$out/nobody.err")"
}

a_refusal_exits_1_with_the_responders_reason() {
    spawn refuse rep math.sqrt --exec 'echo "negative input" >&2; exit 3' --signal "$url" \
        --room rpc
    timeout 60 "$zq" req math.sqrt -4 --signal "$url" --room rpc 2>"$out/refused.err"
    rc=$?
    [ $rc -eq 1 ] || fail "a refused request exited $rc, not 1"
    grep -q '^zq req: math.sqrt refused: negative input$' "$out/refused.err" ||
        fail "unclear refusal: $(cat "$out/refused.err")"
    ok "a refusal: $(cat "$out/refused.err")"
}

# req echo MSG [OPTION...] in room $1 must print $3.
echo_prints() {
    room=$1
    msg=$2
    want=$3
    shift 3
    got=$(timeout 60 "$zq" req echo "$msg" "$@" --signal "$url" --room "$room") ||
        fail "req echo $msg $* in $room exited $?"
    [ "$got" = "$want" ] || fail "req echo $msg $* in $room printed '$got', not '$want'"
}

a_responder_answers_text_with_that_text_and_json_with_that_json() {
    spawn echo rep echo --exec cat --signal "$url" --room rtext
    spawn echojson rep echo --exec cat --json --signal "$url" --room rjson
    echo_prints rtext hi hi
    echo_prints rtext '{"a":[1,"x"]}' '{"a":[1,"x"]}'
    echo_prints rtext '"21.5"' 21.5            # cat read 21.5: the reply is the number
    echo_prints rtext hi '"hi"' --json
    echo_prints rjson hi hi
    echo_prints rjson '"21.5"' '"21.5"' --json # cat read "21.5": the reply is the string
    echo_prints rjson '"21.5"' 21.5
    ok "rep --exec cat answers hi with hi and {\"a\":[1,\"x\"]} with itself; the string" \
        "\"21.5\" comes back as the number 21.5, unless rep has --json; req --json prints \"hi\""
}

# ---- Main -----------------------------------------------------------------------------------

every_command_has_help_and_exits_0
a_bad_signal_url_is_a_usage_error
an_unreachable_server_exits_1_and_says_why
usage_mistakes_exit_2
a_misplaced_wildcard_exits_2_and_says_how_to_write_it

# The server on a port the kernel picks; its first line says which.
spawn signal signal --listen 127.0.0.1:0
for _ in $(seq 50); do
    port=$(sed -n 's|^zq signal: listening on http://127.0.0.1:\([0-9]*\) .*|\1|p' \
        "$out/signal.out" 2>/dev/null)
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || fail "zq signal did not say where it listens"
url="ws://127.0.0.1:$port/ws"

a_subscriber_prints_each_matching_message_once_in_order
text_and_json_come_out_as_they_went_in_and_json_keeps_the_value
text_with_newlines_control_characters_or_escapes_prints_as_its_bytes
a_payload_as_long_as_a_frame_carries_comes_out_whole
an_exec_command_reads_the_text_or_with_json_the_json
a_slashed_pattern_gets_slashed_topics_as_mqtt_has_it
each_job_is_done_exactly_once_across_two_workers
a_job_failed_three_times_is_dead_lettered_listed_and_requeued
a_dead_letter_list_gives_a_string_as_text_or_with_json_quoted
a_request_is_answered_by_the_responder
a_request_nobody_serves_fails_after_its_tries
a_refusal_exits_1_with_the_responders_reason
a_responder_answers_text_with_that_text_and_json_with_that_json

kill $pids 2>/dev/null
wait 2>/dev/null
rm -rf "$out"
echo "ok: the broker commands as separate processes through zq signal"
