"""Transport faults before any response: a delay, a hang until the client leaves, a close without
a response, a connection reset. (Faults inside a stream are in `sse.py`, where the stream is.)"""

from __future__ import annotations

import asyncio
import socket
import struct

from aiohttp import web

from zenmux_emulator.foundation.failures import FaultFailure

HANG_POLL_S = 0.05


async def before_response(request: web.Request, fault: FaultFailure, scale: float = 1.0) -> bool:
    """Carry the fault out; True when the connection is gone and nothing may be sent. A delay lasts
    its scripted time times `scale` (0: none); a hang lasts until the client leaves, whatever the scale."""
    if fault.kind == "delay":
        if scale:
            await asyncio.sleep(fault.delay_ms / 1000 * scale)
        return False
    transport = request.transport
    if transport is None:
        return True
    if fault.kind == "hang":
        while not transport.is_closing():  # the client gives up (its timeout), or the server stops
            await asyncio.sleep(HANG_POLL_S)
        return True
    if fault.kind == "reset":
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        transport.abort()  # linger 0: the peer gets a RST
        return True
    transport.close()
    return True
