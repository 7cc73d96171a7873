#!/usr/bin/python3
"""aiortc (Debian python3-aiortc) as a ZeroQ signalling client against `zq echo`.

It joins ROOM on a `zq signal` server, connects to the one other member (a `zq echo`) over a
WebRTC data channel and checks what comes back:

  open     the channel opens with label ROOM
  burst    1,000 text messages come back, all of them, in order
  size     0, 1, 1000, 16384, 65535 and 65536 bytes, as text and as binary, come back byte for
           byte with the same type (65536 is aiortc's own a=max-message-size)
  close    text "zq-echo close" makes zq close the channel: aiortc's channel emits "close"

Modes (in ZeroQ the room's EXISTING member dials the newcomer, on peer_joined):
  aiortc-dials  start this first; it prints "aiortc: joined" and then waits for a peer, to
                which it sends the offer (aiortc's legacy DTLS/SCTP 5000 + a=sctpmap form)
  zq-dials      start `zq echo` first; zq sends the offer and aiortc answers

aiortc runs exactly as Debian ships it: nothing in it is patched. (aiortc 1.4 takes its
channels' stream-id parity from its ICE role, not its DTLS role as RFC 8832 §6 asks; zq answers
a=setup:active, so when aiortc dials it is both ICE controlling and DTLS server, and its odd ids
are the RFC's.) It gathers the address of the namespace's documentation-range interface, which
run.sh sets up, and zq echo reports no refused channel (run.sh checks).

It prints one PASS/FAIL line per check and the measured figures, and exits 1 on any failure.
Timings are reported, never asserted. Run it with /usr/bin/python3, on loopback only
(tests/interop/aiortc/run.sh does both).

Usage: aiortc_echo.py --signal ws://127.0.0.1:PORT/ws --room ROOM --mode aiortc-dials|zq-dials
                      [--timeout S] [--message-timeout S] [--debug]
With SSLKEYLOGFILE=path set, aiortc's DTLS keys are appended to path in NSS key-log format.
"""
import argparse
import asyncio
import json
import logging
import os
import re
import subprocess
import sys
import time

import websockets
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription
from aiortc.rtcdtlstransport import RTCCertificate
from aiortc.sdp import candidate_from_sdp

BURST = 1000
SIZES = (0, 1, 1000, 16384, 65535, 65536)
CLOSE_COMMAND = "zq-echo close"

log = logging.getLogger("aiortc_echo")


def install_keylog(path):
    """aiortc 1.4 ignores SSLKEYLOGFILE; pyOpenSSL's keylog callback gives the same lines."""
    create = RTCCertificate._create_ssl_context

    def create_with_keylog(self):
        ctx = create(self)

        def write(_conn, line):
            with open(path, "ab") as f:
                f.write(line + b"\n")

        ctx.set_keylog_callback(write)
        return ctx

    RTCCertificate._create_ssl_context = create_with_keylog


def end_udp_loss():
    """aiortc 1.4 sends a RE-CONFIG once and never again (RFC 6525 §5.1.1 says retransmit it),
    so a lost stream reset leaves its channel "closing" for good, whatever the other side does.
    Under run.sh's random loss the close is therefore checked with the loss ended."""
    rules = subprocess.run(["nft", "list", "table", "inet", "zq_loss"], check=True,
                           capture_output=True, text=True).stdout
    dropped = re.search(r"counter packets (\d+)", rules)
    subprocess.run(["nft", "delete", "table", "inet", "zq_loss"], check=True)
    print(f"UDP loss ended for the close after {dropped.group(1) if dropped else '?'} "
          "datagrams dropped", flush=True)


def ms(seconds):
    return f"{seconds * 1000:.1f}"


def text_payload(n):
    """n bytes of ASCII (so n UTF-8 bytes) that differ along the message."""
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    return "".join(alphabet[(i * 7 + i // 61) % len(alphabet)] for i in range(n))


def binary_payload(n):
    """n bytes covering every byte value, zero included."""
    return bytes((i * 31 + (i >> 8)) & 0xFF for i in range(n))


def describe(data):
    kind = "text" if isinstance(data, str) else "binary"
    size = len(data.encode()) if isinstance(data, str) else len(data)
    return f"{kind} {size} B"


def sdp_summary(sdp):
    """The lines of an SDP that matter for a data channel, for the log."""
    keep = ("m=", "a=sctp", "a=max-message-size", "a=setup", "a=ice-lite", "a=candidate",
            "a=end-of-candidates", "a=fingerprint")
    return [line for line in sdp.splitlines() if line.startswith(keep)]


class Checks:
    def __init__(self):
        self.failed = 0
        self.passed = 0

    def report(self, ok, name, detail=""):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)
        return ok


class Session:
    """One ZeroQ signalling connection and the one peer connection the test needs."""

    def __init__(self, args):
        self.args = args
        self.ws = None
        self.peer_id = None  # the remote member's id
        self.pc = None
        self.channel = None
        self.channel_ready = asyncio.get_running_loop().create_future()
        self.channel_closed = asyncio.Event()
        self.messages = asyncio.Queue()
        self.pending_candidates = []
        self.remote_set = False
        self.t_start = None  # when the pair could start: our join, or peer_joined
        self.t_open = None
        self.ice_states = []

    async def send(self, frame):
        await self.ws.send(json.dumps(frame))

    # ---- peer connection ------------------------------------------------------------------

    def new_pc(self):
        pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))

        @pc.on("iceconnectionstatechange")
        def on_ice():
            self.ice_states.append(pc.iceConnectionState)
            log.info("ICE %s", pc.iceConnectionState)

        @pc.on("connectionstatechange")
        def on_conn():
            log.info("connection %s", pc.connectionState)
            if pc.connectionState == "failed" and not self.channel_ready.done():
                self.channel_ready.set_exception(RuntimeError("peer connection failed"))

        @pc.on("datachannel")
        def on_datachannel(channel):
            # aiortc emits this after it has acknowledged zq's DCEP OPEN: the channel is open.
            self.attach(channel)
            self.opened()

        self.pc = pc
        return pc

    def attach(self, channel):
        self.channel = channel
        channel.on("message", self.messages.put_nowait)
        channel.on("close", self.channel_closed.set)

    def opened(self):
        if not self.channel_ready.done():
            self.t_open = time.monotonic()
            self.channel_ready.set_result(self.channel)

    async def dial(self, peer_id):
        self.peer_id = peer_id
        self.t_start = time.monotonic()
        pc = self.new_pc()
        channel = pc.createDataChannel(self.args.room)
        self.attach(channel)
        channel.on("open", self.opened)  # on zq's DCEP ACK
        offer = await pc.createOffer()
        await pc.setLocalDescription(offer)  # gathers: every candidate is in the offer
        sdp = pc.localDescription.sdp
        log.info("offer to %s:\n  %s", peer_id, "\n  ".join(sdp_summary(sdp)))
        await self.send({"type": "offer", "peerId": peer_id,
                         "sdp": {"type": "offer", "sdp": sdp}})

    async def answer(self, peer_id, sdp):
        if self.pc is not None:
            log.warning("ignoring a second offer, from %s", peer_id)
            return
        self.peer_id = peer_id
        if self.t_start is None:
            self.t_start = time.monotonic()
        log.info("offer from %s:\n  %s", peer_id, "\n  ".join(sdp_summary(sdp["sdp"])))
        pc = self.new_pc()
        await pc.setRemoteDescription(RTCSessionDescription(sdp["sdp"], sdp["type"]))
        await self.remote_description_set()
        answer = await pc.createAnswer()
        await pc.setLocalDescription(answer)
        sdp_out = pc.localDescription.sdp
        log.info("answer:\n  %s", "\n  ".join(sdp_summary(sdp_out)))
        await self.send({"type": "answer", "peerId": peer_id,
                         "sdp": {"type": "answer", "sdp": sdp_out}})

    async def answered(self, peer_id, sdp):
        if self.pc is None or peer_id != self.peer_id:
            log.warning("ignoring an answer from %s", peer_id)
            return
        log.info("answer from %s:\n  %s", peer_id, "\n  ".join(sdp_summary(sdp["sdp"])))
        await self.pc.setRemoteDescription(RTCSessionDescription(sdp["sdp"], sdp["type"]))
        await self.remote_description_set()

    async def remote_description_set(self):
        self.remote_set = True
        for cand in self.pending_candidates:
            await self.pc.addIceCandidate(cand)
        self.pending_candidates.clear()

    async def remote_candidate(self, peer_id, c):
        text = (c or {}).get("candidate") or ""
        if not text:
            return  # end of candidates
        cand = candidate_from_sdp(text.split(":", 1)[1] if text.startswith("candidate:") else text)
        if cand.ip.endswith(".local"):
            log.info("dropping mDNS candidate %s", cand.ip)  # else aioice sends multicast
            return
        cand.sdpMid = c.get("sdpMid")
        cand.sdpMLineIndex = c.get("sdpMLineIndex")
        log.info("remote candidate from %s: %s", peer_id, text)
        if self.pc is not None and self.remote_set:
            await self.pc.addIceCandidate(cand)
        else:
            self.pending_candidates.append(cand)

    # ---- signalling -----------------------------------------------------------------------

    async def signalling(self):
        async for raw in self.ws:
            try:
                frame = json.loads(raw)
            except ValueError:
                log.warning("non-JSON signalling frame: %r", raw[:200])
                continue
            kind, peer = frame.get("type"), frame.get("peerId")
            log.info("<< %s %s", kind, peer or "")
            if kind == "welcome":
                print(f"aiortc: joined room {self.args.room} as {peer}", flush=True)
            elif kind == "peer_joined" and self.pc is None:
                await self.dial(peer)
            elif kind == "offer":
                await self.answer(peer, frame["sdp"])
            elif kind == "answer":
                await self.answered(peer, frame["sdp"])
            elif kind == "ice_candidate":
                await self.remote_candidate(peer, frame.get("candidate"))
            elif kind == "peer_left" and peer == self.peer_id:
                log.info("peer %s left", peer)


async def expect(session, timeout):
    return await asyncio.wait_for(session.messages.get(), timeout)


async def check_burst(session, checks, timeout):
    sent = [f"burst {i:04d}" for i in range(BURST)]
    t0 = time.monotonic()
    for text in sent:
        session.channel.send(text)
    got = []
    try:
        while len(got) < BURST:
            got.append(await expect(session, timeout))
    except asyncio.TimeoutError:
        pass
    elapsed = time.monotonic() - t0
    in_order = got == sent[:len(got)]
    ok = len(got) == BURST and in_order
    detail = f"{len(got)} of {BURST} back, {'in order' if in_order else 'OUT OF ORDER'}"
    if ok:
        detail += f", round trip of all {ms(elapsed)} ms"
    elif not in_order:
        first = next(i for i, (a, b) in enumerate(zip(got, sent)) if a != b)
        detail += f" (message {first} was {got[first]!r})"
    checks.report(ok, "burst", detail)
    return (elapsed if ok else None), len(got) < BURST


async def check_sizes(session, checks, timeout, stalled):
    """One message at a time. Once one is not back, the channel is stuck: the rest are not
    sent (each would only wait out its timeout)."""
    for size in SIZES:
        for payload in (text_payload(size), binary_payload(size)):
            name = f"size {describe(payload)}"
            if stalled:
                checks.report(False, name, "not sent: the channel is stuck")
                continue
            t0 = time.monotonic()
            session.channel.send(payload)
            try:
                echo = await expect(session, timeout)
            except asyncio.TimeoutError:
                checks.report(False, name, f"no echo within {timeout} s")
                stalled = True
                continue
            elapsed = time.monotonic() - t0
            if type(echo) is not type(payload):
                checks.report(False, name, f"came back as {describe(echo)}")
            elif echo != payload:
                first = next((i for i, (a, b) in enumerate(zip(echo, payload)) if a != b),
                             min(len(echo), len(payload)))
                checks.report(False, name, f"came back as {describe(echo)}, "
                              f"first difference at byte {first}")
            else:
                checks.report(True, name, f"byte-exact, {ms(elapsed)} ms")


async def check_close(session, checks, timeout):
    session.channel.send(CLOSE_COMMAND)
    t0 = time.monotonic()
    try:
        await asyncio.wait_for(session.channel_closed.wait(), timeout)
    except asyncio.TimeoutError:
        checks.report(False, "close", f"channel still {session.channel.readyState} "
                      f"{timeout} s after {CLOSE_COMMAND!r}")
        return
    stray = []
    while not session.messages.empty():
        stray.append(session.messages.get_nowait())
    detail = f"'close' event {ms(time.monotonic() - t0)} ms after {CLOSE_COMMAND!r}"
    if stray:
        detail += f" (also received {[describe(m) for m in stray]})"
    checks.report(True, "close", detail)


async def wait_channel(session, reader, timeout):
    """The open channel, or an exception saying why there is none."""
    closed = asyncio.ensure_future(session.channel_closed.wait())
    try:
        done, _ = await asyncio.wait({reader, session.channel_ready, closed}, timeout=timeout,
                                     return_when=asyncio.FIRST_COMPLETED)
    finally:
        closed.cancel()
    if session.channel_ready in done:
        return session.channel_ready.result()
    if reader in done:
        reader.result()  # raises what ended signalling
        raise RuntimeError("the signalling server closed the WebSocket")
    if closed in done:
        raise RuntimeError(f"channel {session.channel.id} closed before it opened")
    raise asyncio.TimeoutError(f"no open channel within {timeout} s")


async def run(args):
    checks = Checks()
    async with websockets.connect(args.signal, max_size=None, open_timeout=10) as ws:
        session = Session(args)
        session.ws = ws
        reader = asyncio.ensure_future(session.signalling())
        t_join = time.monotonic()
        await session.send({"type": "join", "topicId": args.room})
        if args.mode == "zq-dials":
            session.t_start = t_join
        try:
            channel = await wait_channel(session, reader, args.timeout)
        except (asyncio.TimeoutError, RuntimeError, websockets.WebSocketException) as e:
            checks.report(False, "open", f"{e} (ICE states: {session.ice_states or 'none'}, "
                          f"peer {session.peer_id or 'never seen'})")
            await cleanup(session, reader)
            return checks

        join_open = session.t_open - session.t_start
        who = "zq's peer_joined" if args.mode == "aiortc-dials" else "aiortc's join"
        checks.report(channel.label == args.room and channel.readyState == "open", "open",
                      f"label {channel.label!r}, stream {channel.id}, {who} -> open "
                      f"{ms(join_open)} ms")
        burst, stuck = await check_burst(session, checks, args.message_timeout)
        await check_sizes(session, checks, args.message_timeout, stuck)
        if args.lossless_close:
            end_udp_loss()
        await check_close(session, checks, args.message_timeout)
        print(f"figures ({args.mode}): join->open {ms(join_open)} ms, {BURST}-message round "
              f"trip {ms(burst) + ' ms' if burst is not None else 'n/a'}", flush=True)
        await cleanup(session, reader)
    return checks


async def cleanup(session, reader):
    reader.cancel()
    if session.pc is not None:
        await session.pc.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--signal", required=True, help="ws://127.0.0.1:PORT/ws")
    parser.add_argument("--room", required=True)
    parser.add_argument("--mode", required=True, choices=("aiortc-dials", "zq-dials"))
    parser.add_argument("--lossless-close", action="store_true",
                        help="end run.sh's UDP loss (nftables table zq_loss) before the close")
    parser.add_argument("--timeout", type=float, default=60, help="for the channel to open")
    parser.add_argument("--message-timeout", type=float, default=20)
    parser.add_argument("--debug", action="store_true",
                        help="aiortc, aioice and this program at DEBUG")
    args = parser.parse_args()

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    log.setLevel(logging.INFO)
    if args.debug:
        for name in ("aiortc_echo", "aiortc", "aioice"):
            logging.getLogger(name).setLevel(logging.DEBUG)
    if os.environ.get("SSLKEYLOGFILE"):
        install_keylog(os.environ["SSLKEYLOGFILE"])

    checks = asyncio.run(run(args))
    print(f"aiortc ({args.mode}): {checks.passed} passed, {checks.failed} failed", flush=True)
    return 1 if checks.failed or not checks.passed else 0


if __name__ == "__main__":
    sys.exit(main())
