#!/usr/bin/env python3
"""zq's DTLS 1.2 against OpenSSL's (`openssl s_server` / `s_client -dtls1_2`, ECDSA P-256) over
real UDP on 127.0.0.1: both roles, data both ways, the fingerprint pin from both sides, the
failures a pin must cause, a ClientHello fragmented over several datagrams, ChaCha20-Poly1305,
and a key log that lets tshark decrypt zq's traffic. Run it inside `unshare -n` with only
loopback up (scripts/test does): nothing here may reach another address.

Usage: test_dtls_openssl.py PATH/TO/dtls_peer
"""
import os
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

PEER = sys.argv[1]
FROM_ZQ = "hello from zq"
FROM_OPENSSL = "hello from openssl"
# zq's names (mbedTLS's, after IANA) for the OpenSSL names s_server / s_client print.
SUITES = {
    "ECDHE-ECDSA-AES128-GCM-SHA256": "TLS-ECDHE-ECDSA-WITH-AES-128-GCM-SHA256",
    "ECDHE-ECDSA-CHACHA20-POLY1305": "TLS-ECDHE-ECDSA-WITH-CHACHA20-POLY1305-SHA256",
}
WAIT = 5  # seconds: the longest any single step may take on loopback
# Every wait is also cut at this point, so the whole run ends well within a minute even if
# every peer hangs; cases that start after it fail at once.
DEADLINE = time.monotonic() + 50


def budget(timeout):
    return max(0.0, min(timeout, DEADLINE - time.monotonic()))


class Check(Exception):
    """A case's expectation did not hold."""


class Skip(Exception):
    """A case cannot run here; the reason is printed."""


class Proc:
    """A child process whose merged stdout/stderr is collected line by line, so a test can
    wait for a line with a timeout; it runs in its own process group so stop() ends it and
    anything it started."""

    def __init__(self, name, args):
        self.name = name
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        self.lines = []
        self.fingerprint = None  # zq's, from its first line
        self.cond = threading.Condition()
        self.eof = False
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in self.proc.stdout:
            with self.cond:
                self.lines.append(raw.decode(errors="replace").rstrip("\r\n"))
                self.cond.notify_all()
        with self.cond:
            self.eof = True
            self.cond.notify_all()

    def wait_line(self, pred, timeout=WAIT):
        """The first line satisfying pred, or None after timeout or end of output."""
        end = time.monotonic() + budget(timeout)
        with self.cond:
            seen = 0
            while True:
                for line in self.lines[seen:]:
                    if pred(line):
                        return line
                seen = len(self.lines)
                left = end - time.monotonic()
                if self.eof or left <= 0:
                    return None
                self.cond.wait(left)

    def write(self, text):
        self.proc.stdin.write(text.encode())
        self.proc.stdin.flush()

    def wait_exit(self, timeout=WAIT):
        """The exit code, or None if it still runs after timeout; its output is complete."""
        try:
            code = self.proc.wait(budget(timeout))
        except subprocess.TimeoutExpired:
            return None
        with self.cond:
            self.cond.wait_for(lambda: self.eof, WAIT)
        return code

    def stop(self):
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(WAIT)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(WAIT)
            except ProcessLookupError:
                pass
        with self.cond:
            self.cond.wait_for(lambda: self.eof, WAIT)

    def text(self):
        with self.cond:
            return "\n".join(self.lines)


class Case:
    """What one case started, so finally can end all of it."""

    def __init__(self):
        self.procs = []
        self.zq = None

    def start(self, name, args):
        p = Proc(name, args)
        self.procs.append(p)
        return p

    def zq_peer(self, role, port, remote_fp, *extra, send=FROM_ZQ, expect=FROM_OPENSSL):
        where = ["--connect", f"127.0.0.1:{port}"] if role == "client" else \
            ["--listen", f"127.0.0.1:{port}"]
        args = [PEER, "--role", role, *where, "--remote-fingerprint", remote_fp, "--send", send,
                "--expect", expect, "--timeout", "8000", *extra]
        self.zq = self.start("zq", args)
        first = self.zq.wait_line(lambda line: True)
        if first is None or not first.startswith("fingerprint sha-256 "):
            raise Check(f"zq's first line is {first!r}, not its fingerprint")
        self.zq.fingerprint = first[len("fingerprint "):]
        if role == "server" and self.zq.wait_line(lambda l: l.startswith("listening")) is None:
            raise Check(f"zq server did not start: {self.zq.text()}")
        return self.zq

    def s_server(self, port, *extra):
        srv = self.start("s_server", ["openssl", "s_server", "-dtls1_2", "-accept",
                                      f"127.0.0.1:{port}", "-cert", CERT, "-key", KEY,
                                      "-naccept", "1", *extra])
        if srv.wait_line(lambda line: line == "ACCEPT") is None:
            raise Check(f"s_server did not start: {srv.text()}")
        return srv

    def s_client(self, port, *extra):
        return self.start("s_client", ["openssl", "s_client", "-dtls1_2", "-connect",
                                       f"127.0.0.1:{port}", *extra])

    def end(self):
        for p in self.procs:
            p.stop()


# ---- helpers ----------------------------------------------------------------------------------

def openssl(*args, stdin=None):
    return subprocess.run(["openssl", *args], input=stdin, capture_output=True, check=True,
                          timeout=WAIT).stdout.decode()


def fingerprint_of(pem):
    """"sha256 Fingerprint=AB:..." as RFC 8122 writes it: "sha-256 AB:..."."""
    out = openssl("x509", "-fingerprint", "-sha256", "-noout", stdin=pem.encode()).strip()
    return "sha-256 " + out.split("=", 1)[1]


def pem_after(text, heading):
    """The PEM certificate that follows the line `heading` in s_client / s_server output."""
    lines = text.splitlines()
    if heading not in lines:
        return None
    start = lines.index(heading) + 1
    end = lines.index("-----END CERTIFICATE-----", start)
    return "\n".join(lines[start:end + 1]) + "\n"


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def openssl_suite(text):
    for line in text.splitlines():
        for marker in ("Cipher is ", "CIPHER is "):
            if marker in line:
                return line.split(marker, 1)[1].strip()
    return None


def zq_suite(zq):
    line = zq.wait_line(lambda l: l.startswith("connected "), 0)
    return line.split(" ", 1)[1] if line else None


def exchange(zq, other, detail):
    """zq sent FROM_ZQ once connected: the OpenSSL side must show it; then OpenSSL sends
    FROM_OPENSSL, which zq expects, and zq exits 0 after close_notify."""
    if other.wait_line(lambda l: FROM_ZQ in l) is None:
        raise Check(f"{other.name} never showed {FROM_ZQ!r}; zq: {zq.text()}")
    other.write(FROM_OPENSSL + "\n")
    code = zq.wait_exit()
    if code != 0 or zq.wait_line(lambda l: l == "recv " + FROM_OPENSSL, 0) is None:
        raise Check(f"zq exit {code}: {zq.text()}")
    other.wait_exit()  # it exits on zq's close_notify; its status lines are then complete
    theirs, ours = openssl_suite(other.text()), zq_suite(zq)
    if theirs is None or SUITES.get(theirs) != ours:
        raise Check(f"suites differ: {other.name} {theirs}, zq {ours}")
    detail.append(f"suite {ours}")
    stats = zq.wait_line(lambda l: l.startswith("stats"), 0)
    detail.append(f"zq {stats}")


def expect_failure(zq, reason, detail):
    code = zq.wait_exit()
    if code != 1 or zq.wait_line(lambda l: l == "failed " + reason, 0) is None:
        raise Check(f"zq exit {code}, wanted 'failed {reason}': {zq.text()}")
    detail.append(f"zq: failed {reason}")


# ---- cases ------------------------------------------------------------------------------------

def zq_client_to_s_server(case, detail, *server_args):
    port = free_port()
    srv = case.s_server(port, "-Verify", "1", *server_args)  # -Verify: require a client cert
    zq = case.zq_peer("client", port, OPENSSL_FP)
    exchange(zq, srv, detail)
    # The pin from OpenSSL's side: the certificate zq presented is the one it announced.
    pem = pem_after(srv.text(), "Client certificate")
    if pem is None or fingerprint_of(pem) != zq.fingerprint:
        raise Check(f"s_server saw a client certificate that is not zq's: {srv.text()}")
    detail.append("s_server saw zq's certificate")


def zq_server_from_s_client(case, detail, *client_args):
    port = free_port()
    zq = case.zq_peer("server", port, OPENSSL_FP)
    cli = case.s_client(port, "-cert", CERT, "-key", KEY, *client_args)
    exchange(zq, cli, detail)
    pem = pem_after(cli.text(), "Server certificate")
    if pem is None or fingerprint_of(pem) != zq.fingerprint:
        raise Check(f"s_client saw a server certificate that is not zq's: {cli.text()}")
    detail.append("s_client saw zq's certificate")


def what_openssl_saw(other, detail):
    """The alert OpenSSL reports receiving (it ends once zq's alert arrives, or is stopped)."""
    code = other.wait_exit(2)
    alert = next((l.strip() for l in other.text().splitlines() if "alert" in l.lower()),
                 "no alert line")
    detail.append(f"{other.name} (exit {code}): {alert}")


def wrong_fp_zq_client(case, detail):
    port = free_port()
    srv = case.s_server(port, "-Verify", "1")
    zq = case.zq_peer("client", port, WRONG_FP)
    expect_failure(zq, "peer certificate does not match its fingerprint", detail)
    what_openssl_saw(srv, detail)


def wrong_fp_zq_server(case, detail):
    port = free_port()
    zq = case.zq_peer("server", port, WRONG_FP)
    cli = case.s_client(port, "-cert", CERT, "-key", KEY)
    expect_failure(zq, "peer certificate does not match its fingerprint", detail)
    what_openssl_saw(cli, detail)


def no_client_cert(case, detail):
    port = free_port()
    zq = case.zq_peer("server", port, OPENSSL_FP)
    cli = case.s_client(port)
    expect_failure(zq, "peer sent no certificate", detail)
    what_openssl_saw(cli, detail)


class Relay:
    """A UDP relay between s_client and zq that parses every DTLS record the client sends and
    records each ClientHello fragment (RFC 6347 §4.2.3: message_seq, fragment offset and
    length), to prove the ClientHello really arrived in pieces. With reorder, it holds back
    the datagram that starts each ClientHello until the one that ends it has gone through."""

    def __init__(self, target_port, reorder=False):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.target = ("127.0.0.1", target_port)
        self.client = None
        self.hello = {}  # message_seq -> (total length, [(datagram no, offset, length)])
        self.datagrams = 0
        self.reorder = reorder
        self.held = None
        self.reordered = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stop.is_set():
            ready, _, _ = select.select([self.sock], [], [], 0.1)
            if not ready:
                continue
            data, src = self.sock.recvfrom(65535)
            if src == self.target:
                if self.client is not None:
                    self.sock.sendto(data, self.client)
                continue
            self.client = src
            self.datagrams += 1
            frags = self._note(data)
            starts = any(off == 0 and flen < total for total, off, flen in frags)
            if self.reorder and starts and self.held is None:
                self.held = data
                continue
            self.sock.sendto(data, self.target)
            ends = any(off > 0 and off + flen == total for total, off, flen in frags)
            if ends and self.held is not None:
                self.sock.sendto(self.held, self.target)
                self.held = None
                self.reordered += 1

    def _note(self, data):
        """Records the ClientHello fragments in @data; returns them as (total, offset, len)."""
        found, at = [], 0
        while at + 13 <= len(data):
            ctype, epoch, length = data[at], struct.unpack("!H", data[at + 3:at + 5])[0], \
                struct.unpack("!H", data[at + 11:at + 13])[0]
            body = data[at + 13:at + 13 + length]
            if ctype == 22 and epoch == 0 and len(body) >= 12 and body[0] == 1:
                total = int.from_bytes(body[1:4], "big")
                seq = struct.unpack("!H", body[4:6])[0]
                off, flen = int.from_bytes(body[6:9], "big"), int.from_bytes(body[9:12], "big")
                entry = self.hello.setdefault(seq, (total, []))
                if (self.datagrams, off, flen) not in entry[1]:
                    entry[1].append((self.datagrams, off, flen))
                found.append((total, off, flen))
            at += 13 + length
        return found

    def close(self):
        self.stop.set()
        self.thread.join(WAIT)
        self.sock.close()

    def summary(self):
        parts = []
        for seq, (total, frags) in sorted(self.hello.items()):
            pieces = sorted({(off, flen) for _, off, flen in frags})
            grams = len({n for n, _, _ in frags})
            parts.append(f"ClientHello seq {seq} ({total} B): {len(pieces)} fragments "
                         f"{['%d+%d' % p for p in pieces]} in {grams} datagrams")
        return "; ".join(parts)

    def fragmented(self):
        return any(len({(o, l) for _, o, l in f}) > 1 and len({n for n, _, _ in f}) > 1
                   for _, f in self.hello.values())


def fragmented_client_hello(case, detail, reorder=False):
    port = free_port()
    zq = case.zq_peer("server", port, OPENSSL_FP)
    relay = Relay(port, reorder)
    try:
        # 256 is the smallest link MTU s_client takes (about 200 bytes of handshake message
        # per datagram); a long SNI name makes both ClientHellos (before and after the
        # HelloVerifyRequest) span three datagrams, so there is a middle fragment too.
        name = ".".join(["fragment" * 7] * 4) + ".example"
        cli = case.s_client(relay.port, "-cert", CERT, "-key", KEY, "-mtu", "256",
                            "-servername", name)
        exchange(zq, cli, detail)
    finally:
        relay.close()
    detail.append(relay.summary())
    if not relay.fragmented():
        raise Check("s_client did not fragment its ClientHello: " + relay.summary())
    if reorder:
        if relay.reordered == 0:
            raise Check("the relay reordered no ClientHello")
        detail.append(f"first fragment delivered last, for {relay.reordered} ClientHellos")


def capture_probe(cap, port, payload):
    """Sends @payload to @port until tshark reports capturing it (bounded: 10 s)."""
    def seen(line):
        return f"Len={len(payload)}" in line
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        for _ in range(100):
            probe.sendto(payload, ("127.0.0.1", port))
            if cap.wait_line(seen, 0.1) or cap.proc.poll() is not None:
                break
    return cap.wait_line(seen, 0) is not None


def keylog_decrypts(case, detail):
    tshark = shutil.which("tshark")
    if tshark is None:
        raise Skip("tshark is not installed (scripts/setup test installs it)")
    port = free_port()
    pcap, keylog = os.path.join(TMP, "zq.pcap"), os.path.join(TMP, "zq.keys")
    # -l -P: a line per packet once it is written, so the test knows what the file holds.
    cap = case.start("tshark", [tshark, "-l", "-P", "-i", "lo", "-f", f"udp port {port}",
                                "-w", pcap])
    # "Capturing on" comes before the capture is live, and dumpcap hands packets over in
    # batches, so a probe seen in the file is what proves that everything sent before it is
    # there too: one before the exchange, one after.
    if not capture_probe(cap, port, b"capture started"):
        raise Skip(f"tshark cannot capture on lo here: {cap.text()}")
    srv = case.s_server(port, "-Verify", "1")
    zq = case.zq_peer("client", port, OPENSSL_FP, "--keylog", keylog)
    exchange(zq, srv, detail)
    if not capture_probe(cap, port, b"capture done"):
        raise Check(f"tshark did not capture the end of the exchange: {cap.text()}")
    cap.proc.send_signal(signal.SIGINT)  # tshark alone: it stops its dumpcap itself
    if cap.wait_exit(10) is None:
        raise Check(f"tshark did not stop: {cap.text()}")

    def plaintexts(*opts):
        out = subprocess.run([tshark, "-r", pcap, "-d", f"udp.port=={port},dtls", *opts,
                              "-Y", "dtls.app_data", "-T", "fields", "-e", "data"],
                             capture_output=True, timeout=10, check=True).stdout.decode()
        return [bytes.fromhex(h).decode(errors="replace").strip()
                for line in out.split() for h in line.split(",") if h]

    with open(keylog) as f:
        lines = f.read().splitlines()
    if len(lines) != 1 or not lines[0].startswith("CLIENT_RANDOM "):
        raise Check(f"zq's key log is {lines!r}")
    clear = plaintexts("-o", f"tls.keylog_file:{keylog}")
    if clear != [FROM_ZQ, FROM_OPENSSL]:
        raise Check(f"tshark decrypted {clear!r}")
    if plaintexts():  # without the key log the same capture must stay opaque
        raise Check("tshark shows plaintext without the key log")
    detail.append(f"tshark with zq's key log decrypted {clear!r}; without it, nothing")


CASES = [
    ("a. zq client -> s_server (client cert required)", zq_client_to_s_server),
    ("b. zq server <- s_client", zq_server_from_s_client),
    ("c. wrong fingerprint, zq client", wrong_fp_zq_client),
    ("d. wrong fingerprint, zq server", wrong_fp_zq_server),
    ("e. s_client without certificate -> zq server", no_client_cert),
    ("f. fragmented ClientHello (s_client -mtu 256) -> zq server", fragmented_client_hello),
    ("f2. fragmented ClientHello, first fragment arriving last -> zq server",
     lambda c, d: fragmented_client_hello(c, d, reorder=True)),
    ("g. s_client ChaCha20-Poly1305 only -> zq server",
     lambda c, d: zq_server_from_s_client(c, d, "-cipher", "ECDHE-ECDSA-CHACHA20-POLY1305")),
    ("g2. zq client -> s_server ChaCha20-Poly1305 only",
     lambda c, d: zq_client_to_s_server(c, d, "-cipher", "ECDHE-ECDSA-CHACHA20-POLY1305")),
    ("h. zq key log: tshark decrypts zq client <-> s_server", keylog_decrypts),
]


def run(name, fn):
    case, detail = Case(), []
    try:
        if budget(WAIT) < WAIT:
            raise Check("not started: the run's time budget is spent")
        fn(case, detail)
        verdict = "PASS"
    except Skip as why:
        # Under CI a case that cannot run is a failure: nothing may vanish from a CI run.
        verdict = "FAIL" if os.environ.get("CI") == "true" else "SKIP"
        detail = [str(why) + (" (CI=true: a skip fails)" if verdict == "FAIL" else "")]
    except Exception as exc:  # noqa: BLE001 - every failure is reported, then the next case runs
        verdict = "FAIL"
        detail.append(str(exc) if isinstance(exc, Check) else repr(exc))
    finally:
        case.end()
    print(f"{verdict} {name}" + "".join(f"\n    {d}" for d in detail), flush=True)
    return verdict


def main():
    global TMP, CERT, KEY, OPENSSL_FP, WRONG_FP
    with tempfile.TemporaryDirectory(prefix="zq-dtls-openssl-") as TMP:
        KEY, CERT = os.path.join(TMP, "k.pem"), os.path.join(TMP, "c.pem")
        openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", KEY)
        openssl("req", "-new", "-x509", "-key", KEY, "-subj", "/CN=openssl", "-days", "30",
                "-out", CERT)
        with open(CERT) as f:
            OPENSSL_FP = fingerprint_of(f.read())
        # The same fingerprint with one bit flipped: well-formed, and not OpenSSL's.
        WRONG_FP = OPENSSL_FP[:-1] + "%X" % (int(OPENSSL_FP[-1], 16) ^ 1)
        print(f"OpenSSL: {openssl('version').strip()}, certificate {OPENSSL_FP}", flush=True)
        started = time.monotonic()
        verdicts = [run(name, fn) for name, fn in CASES]
    failed = verdicts.count("FAIL")
    print(f"{verdicts.count('PASS')} passed, {failed} failed, {verdicts.count('SKIP')} skipped "
          f"in {time.monotonic() - started:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
