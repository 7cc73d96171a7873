#!/bin/sh
# Decodes what run.sh captured with ZQ_AIORTC_CAPTURE=DIR: DIR/lo.pcapng (lo, UDP) and
# DIR/aiortc.keys (aiortc's DTLS keys, NSS key-log format). tshark decrypts DTLS with the key
# log and reads the application data as SCTP through its DTLS decrypt table, whose entries need
# a key file: a throwaway RSA key (DIR/unused.key) that decrypts nothing. It prints each DTLS
# session's DCEP messages and a count of its SCTP chunks, and fails when a session that
# completed its handshake shows no SCTP at all. Usage: decode.sh DIR
set -u
dir=${1:?usage: decode.sh DIR}
pcap=$dir/lo.pcapng
keys=$dir/aiortc.keys
[ -s "$pcap" ] && [ -s "$keys" ] || { echo "decode: no capture or key log in $dir" >&2; exit 1; }
[ -s "$dir/unused.key" ] || openssl genrsa -out "$dir/unused.key" 2048 2>/dev/null

# DTLS servers are the UDP ports that sent a ServerHello.
servers=$(tshark -r "$pcap" -o udp.try_heuristic_first:TRUE -Y 'dtls.handshake.type == 2' \
    -T fields -e udp.srcport 2>/dev/null | sort -u)
[ -n "$servers" ] || { echo "decode: no DTLS handshake in $pcap" >&2; exit 1; }

set -- -r "$pcap" -o udp.try_heuristic_first:TRUE -o "tls.keylog_file:$keys"
for p in $servers; do
    set -- "$@" -o "uat:dtlsdecrypttablefile:\"127.0.0.1\",\"$p\",\"sctp\",\"$dir/unused.key\",\"\""
done

status=0
for p in $servers; do
    echo "decode: DTLS server port $p"
    tshark "$@" -Y "udp.port == $p && rtcdc" -T fields -e frame.time_relative -e udp.srcport \
        -e sctp.data_sid -e rtcdc.message_type -e rtcdc.label 2>/dev/null |
        awk -v p="$p" '{ type = $4 == 3 ? "DATA_CHANNEL_OPEN" : $4 == 2 ? "DATA_CHANNEL_ACK" : $4;
                         printf "  %8.4f s  %s  stream %d  %s %s\n", $1,
                                ($2 == p ? "server->client" : "client->server"), $3, type,
                                $5 == "" ? "" : "label " $5 }'
    chunks=$(tshark "$@" -Y "udp.port == $p && sctp" -T fields -e sctp.chunk_type 2>/dev/null |
        tr ',' '\n' | sort -n | uniq -c |
        awk 'BEGIN { n[0] = "DATA"; n[1] = "INIT"; n[2] = "INIT_ACK"; n[3] = "SACK";
                     n[4] = "HEARTBEAT"; n[5] = "HEARTBEAT_ACK"; n[6] = "ABORT";
                     n[7] = "SHUTDOWN"; n[8] = "SHUTDOWN_ACK"; n[9] = "ERROR";
                     n[10] = "COOKIE_ECHO"; n[11] = "COOKIE_ACK"; n[14] = "SHUTDOWN_COMPLETE";
                     n[130] = "RE-CONFIG"; n[192] = "FORWARD-TSN" }
             { printf "%s %s, ", $1, ($2 in n) ? n[$2] : "type " $2 }')
    if [ -z "$chunks" ]; then
        echo "  no SCTP decoded" >&2
        status=1
    else
        echo "  SCTP chunks: ${chunks%, }"
    fi
done
uat="uat:dtlsdecrypttablefile:\"127.0.0.1\",\"PORT\",\"sctp\",\"$dir/unused.key\",\"\""
echo "decode: everything, with one -o per DTLS server port ($(echo $servers)):"
echo "  tshark -r $pcap -o udp.try_heuristic_first:TRUE -o tls.keylog_file:$keys -o '$uat' -Y 'sctp || rtcdc'"
exit "$status"
