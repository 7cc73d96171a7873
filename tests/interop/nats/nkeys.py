#!/usr/bin/env python3
"""Keys and configurations for tests/interop/nats/auth.sh, made with Python's cryptography
(Debian's python3-cryptography), not with zq: NATS's nkey text form (base32 of prefix bytes,
the Ed25519 key and a CRC-16/XMODEM, NATS's nkeys README) and its JWTs (header
{"typ":"JWT","alg":"ed25519-nkey"}, claims signed by the issuer's nkey), written here from
their documented form.

    nkeys.py DIR PORT

writes into DIR:
  user.seed, user.pub         a user nkey: nkey.conf lets it in (authorization.users.nkey)
  other.seed                  a user nkey no configuration knows
  operator.conf               operator mode: op.jwt, an account preloaded (resolver MEMORY)
  user.creds                  a user of that account: its JWT and seed, as nsc writes them
  nkey.conf                   nats-server on 127.0.0.1:PORT taking the user nkey
"""
import base64
import hashlib
import json
import os
import sys
import time

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

PREFIX = {"operator": 14 << 3, "account": 0, "user": 20 << 3}
SEED = 18 << 3


def crc16(data):
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def b32(raw):
    crc = crc16(raw)
    return base64.b32encode(raw + bytes([crc & 0xFF, crc >> 8])).decode().rstrip("=")


def b64url(raw):
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


class Key:
    def __init__(self, kind):
        self.kind = kind
        self.raw = os.urandom(32)
        self.private = Ed25519PrivateKey.from_private_bytes(self.raw)
        pub = self.private.public_key().public_bytes(serialization.Encoding.Raw,
                                                     serialization.PublicFormat.Raw)
        p = PREFIX[kind]
        self.public = b32(bytes([p]) + pub)
        self.seed = b32(bytes([SEED | (p >> 5), (p & 31) << 3]) + self.raw)


def jwt(issuer, subject, name, nats):
    claims = {"iat": int(time.time()), "iss": issuer.public, "name": name,
              "sub": subject.public, "nats": dict(nats, version=2)}
    claims["jti"] = base64.b32encode(hashlib.sha256(
        json.dumps(claims, sort_keys=True).encode()).digest()).decode().rstrip("=")
    head = b64url(json.dumps({"typ": "JWT", "alg": "ed25519-nkey"}).encode())
    body = b64url(json.dumps(claims).encode())
    sig = b64url(issuer.private.sign(f"{head}.{body}".encode()))
    return f"{head}.{body}.{sig}"


def main():
    out, port = sys.argv[1], int(sys.argv[2])
    user, other = Key("user"), Key("user")
    write = lambda name, text: open(os.path.join(out, name), "w").write(text)
    write("user.seed", user.seed + "\n")
    write("user.pub", user.public + "\n")
    write("other.seed", other.seed + "\n")
    write("nkey.conf", f"listen: 127.0.0.1:{port}\n"
          f"authorization {{ users = [ {{ nkey: {user.public} }} ] }}\n")

    operator, account, member = Key("operator"), Key("account"), Key("user")
    unlimited = {"subs": -1, "data": -1, "payload": -1}
    op_jwt = jwt(operator, operator, "zq-test-operator", {"type": "operator"})
    acc_jwt = jwt(operator, account, "zq-test-account", {
        "type": "account",
        "limits": dict(unlimited, imports=-1, exports=-1, wildcards=True, conn=-1, leaf=-1),
        "default_permissions": {"pub": {}, "sub": {}}})
    user_jwt = jwt(account, member, "zq-test-user",
                   dict(unlimited, type="user", pub={}, sub={}))
    write("op.jwt", op_jwt + "\n")
    write("operator.conf", f"listen: 127.0.0.1:{port}\n"
          f"operator: {os.path.join(out, 'op.jwt')}\n"
          "resolver: MEMORY\n"
          f"resolver_preload: {{ {account.public}: \"{acc_jwt}\" }}\n")
    write("user.creds", "-----BEGIN NATS USER JWT-----\n" + user_jwt +
          "\n------END NATS USER JWT------\n\n"
          "************************* IMPORTANT *************************\n"
          "NKEY Seed printed below can be used to sign and prove identity.\n"
          "NKEYs are sensitive and should be treated as secrets.\n\n"
          "-----BEGIN USER NKEY SEED-----\n" + member.seed +
          "\n------END USER NKEY SEED------\n\n"
          "*************************************************************\n")


if __name__ == "__main__":
    main()
