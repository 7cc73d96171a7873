#!/usr/bin/env python3
"""zq's ICE agent (lite and full, both roles) against aioice, python3-aiortc's ICE library,
and against itself, over real UDP on 127.0.0.1. Run it inside `unshare -n` with only loopback up (scripts/test
does): nothing here may reach another address.

Usage: test_ice_aioice.py PATH/TO/ice_peer
"""
import asyncio
import sys

import aioice
import aioice.ice

# aioice skips loopback when gathering; this test lives on loopback only.
aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: ["127.0.0.1"]

PEER = sys.argv[1]


class ZqPeer:
    """The ice_peer program: its credentials and candidates, and what it reports."""

    def __init__(self, proc):
        self.proc = proc
        self.ufrag = self.pwd = None
        self.candidates = []
        self.lines = []

    @classmethod
    async def start(cls, mode, role):
        proc = await asyncio.create_subprocess_exec(
            PEER, "--mode", mode, "--role", role, "--linger", "1500",
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
        peer = cls(proc)
        while True:
            line = (await proc.stdout.readline()).decode().strip()
            if line == "ready" or not line:
                break
            key, _, value = line.partition(" ")
            if key == "ufrag":
                peer.ufrag = value
            elif key == "pwd":
                peer.pwd = value
            elif line.startswith("candidate:"):
                peer.candidates.append(line[len("candidate:"):])
        return peer

    async def send_remote(self, ufrag, pwd, candidates):
        text = f"ufrag {ufrag}\npwd {pwd}\n"
        text += "".join(f"candidate:{sdp}\n" for sdp in candidates)
        text += "end\n"
        self.proc.stdin.write(text.encode())
        await self.proc.stdin.drain()

    async def wait(self):
        out, _ = await asyncio.wait_for(self.proc.communicate(), 30)
        self.lines = out.decode().splitlines()
        return self.proc.returncode

    def selected(self):
        picks = [line.split()[1:] for line in self.lines if line.startswith("selected ")]
        return picks[-1] if picks else None


async def run_case(name, zq_mode, zq_role, aioice_controlling, give_zq_candidates=True):
    conn = aioice.Connection(ice_controlling=aioice_controlling, components=1, use_ipv6=False)
    await conn.gather_candidates()
    peer = await ZqPeer.start(zq_mode, zq_role)
    conn.remote_username, conn.remote_password = peer.ufrag, peer.pwd
    conn.remote_is_lite = zq_mode == "lite"
    for sdp in peer.candidates:
        await conn.add_remote_candidate(aioice.Candidate.from_sdp(sdp))
    await conn.add_remote_candidate(None)
    mine = [c.to_sdp() for c in conn.local_candidates] if give_zq_candidates else []
    await peer.send_remote(conn.local_username, conn.local_password, mine)
    ok = True
    try:
        await asyncio.wait_for(conn.connect(), 20)
    except Exception as exc:  # noqa: BLE001 - report whatever aioice raised
        print(f"  aioice: connect failed: {exc!r}")
        ok = False
    pair = conn._nominated.get(1)  # aioice keeps the selected pair here
    code = await peer.wait()
    await conn.close()
    zq_pick = peer.selected()
    ok = ok and code == 0 and pair is not None and zq_pick is not None
    if ok:
        aio_local = f"{pair.local_candidate.host}:{pair.local_candidate.port}"
        aio_remote = f"{pair.remote_addr[0]}:{pair.remote_addr[1]}"
        ok = zq_pick == [aio_remote, aio_local]
        detail = f"zq {zq_pick[0]} <-> aioice {aio_local}"
    else:
        detail = f"zq exit {code}, zq said {peer.lines}"
    stats = next((line for line in peer.lines if line.startswith("stats")), "")
    print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}\n    {stats}")
    return ok


CASES = [
    ("zq lite (controlled) vs aioice controlling", "lite", "controlled", True),
    ("zq lite told no aioice candidates: peer-reflexive", "lite", "controlled", True, False),
    ("zq full controlled vs aioice controlling", "full", "controlled", True),
    ("zq full controlling vs aioice controlled", "full", "controlling", False),
    ("zq full controlled told no candidates: peer-reflexive", "full", "controlled", True, False),
    ("role conflict: both controlling", "full", "controlling", True),
    ("role conflict: both controlled", "full", "controlled", False),
]


async def run_zq_pair(name, a_mode, a_role, b_mode, b_role):
    """Two zq processes: each gets the other's credentials and candidates."""
    a = await ZqPeer.start(a_mode, a_role)
    b = await ZqPeer.start(b_mode, b_role)
    await a.send_remote(b.ufrag, b.pwd, b.candidates)
    await b.send_remote(a.ufrag, a.pwd, a.candidates)
    codes = await asyncio.gather(a.wait(), b.wait())
    pa, pb = a.selected(), b.selected()
    ok = codes == [0, 0] and pa is not None and pb is not None and pa == pb[::-1]
    print(f"{'PASS' if ok else 'FAIL'} {name}: {pa} / {pb}")
    return ok


ZQ_PAIRS = [
    ("zq full controlling vs zq lite", "full", "controlling", "lite", "controlled"),
    ("zq full controlling vs zq full controlled", "full", "controlling", "full", "controlled"),
]


async def main():
    results = [await run_case(*case) for case in CASES]
    print(f"{sum(results)}/{len(results)} aioice interop cases passed")
    zq_results = [await run_zq_pair(*case) for case in ZQ_PAIRS]
    print(f"{sum(zq_results)}/{len(zq_results)} zq<->zq cases passed")
    return 0 if all(results) and all(zq_results) else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
