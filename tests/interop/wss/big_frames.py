"""Two WebSocket clients of Python (OpenSSL's TLS, python3-websockets) meet in a room of
`zq signal --tls-cert`. The first sends a frame of 16,000 bytes, which OpenSSL writes as one
record, as browsers do (RFC 5246 6.2.1: up to 16 KiB of plaintext), and which the router drops
(no type it knows, and over its frame limit); then an offer of SIZE bytes (at most
ZQ_SIG_SDP_MAX, 8,192) to the second. The session must survive the full record and carry the
offer.

    big_frames.py wss://HOST:PORT/ws CA_FILE SIZE

Prints the size of the SDP the second client got, and exits 0 if it is the one sent."""
import asyncio
import json
import ssl
import sys


async def recv_type(ws, kind):
    while True:
        m = json.loads(await ws.recv())
        if m.get("type") == kind:
            return m


async def main(url, cafile, size):
    import websockets
    ctx = ssl.create_default_context(cafile=cafile)
    async with websockets.connect(url, ssl=ctx, max_size=None) as a, \
            websockets.connect(url, ssl=ctx, max_size=None) as b:
        await a.send(json.dumps({"type": "join", "topicId": "big"}))
        await asyncio.sleep(0.2)  # a is the room's first member: b's join tells a
        await b.send(json.dumps({"type": "join", "topicId": "big"}))
        joined = await recv_type(a, "peer_joined")
        await a.send(json.dumps({"type": "x-noise", "pad": "n" * 16000}))
        sdp = "v=0\r\n" + "a=x-pad:" + "z" * (size - 16) + "\r\n"
        await a.send(json.dumps({"type": "offer", "peerId": joined["peerId"],
                                 "sdp": {"type": "offer", "sdp": sdp}}))
        offer = await recv_type(b, "offer")
        got = len(offer["sdp"]["sdp"])
        print(got)
        return got == len(sdp)


ok = asyncio.run(asyncio.wait_for(main(sys.argv[1], sys.argv[2], int(sys.argv[3])), 20))
sys.exit(0 if ok else 1)
