# shellcheck shell=sh
# A throwaway P-256 root and a leaf it signed, for tests that put TLS in front of a peer
# (tests/web/tls.sh's zq signal, tests/cluster's nats-server, tests/bridge's mosquitto):
#
#   . tests/support/test_ca.sh
#   test_ca_make DIR [SAN]      # DIR/ca.pem ca.key, leaf.pem leaf.key (a server's),
#                               # client.pem client.key (a client's, for servers that ask),
#                               # other-ca.pem (a root that signed nothing here: for
#                               # "refused" checks)
#
# SAN is the leaf's subjectAltName (default DNS:localhost,IP:127.0.0.1). OpenSSL's output goes
# to DIR/ca.log; returns non-zero (after printing that log) if OpenSSL failed.
test_ca_make() {
    (
        cd "$1" &&
        printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' \
            "${2:-DNS:localhost,IP:127.0.0.1}" >leaf.cnf &&
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key \
            -out ca.pem -days 30 -subj "/CN=zq test root" &&
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout leaf.key \
            -out leaf.csr -subj "/CN=localhost" &&
        openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out leaf.pem \
            -days 30 -extfile leaf.cnf &&
        printf 'basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n' >client.cnf &&
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout client.key \
            -out client.csr -subj "/CN=zq test client" &&
        openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial \
            -out client.pem -days 30 -extfile client.cnf &&
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout other-ca.key \
            -out other-ca.pem -days 30 -subj "/CN=zq test root nobody uses"
    ) >"$1/ca.log" 2>&1 || { cat "$1/ca.log" >&2; return 1; }
}
