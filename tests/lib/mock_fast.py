#!/usr/bin/env python3
"""tests/lib/mock_fast.py - the loopback teacher of tests/lib/mock_llm.py at little
CPU, for benchmarks: one asyncio thread instead of a thread per
connection, and nothing but answers (no steps, faults, batches, prompt
cache or request log), so that what a benchmark measures is the tools and
not the mock.

usage: mock_fast.py PORTFILE [--latency SECONDS]

Listens on 127.0.0.1 on a free port and writes the port to PORTFILE, as
mock_llm.py does. Answers POST /v1/messages (Anthropic) and POST
/chat/completions, /v1/chat/completions (OpenAI), plain JSON or
server-sent events as the request's "stream" asks, with mock_llm.py's
own answer building: the same bytes mock_llm.py sends for a request
without steps, request-id included (t0310 compares the two). Each answer starts --latency
seconds after its request arrived; every reply closes its connection
(query-llm sends one request a process). GET /_mock/inflight: the most
API requests that were in flight at once, as mock_llm.py says it.
"""
import asyncio
import json
import os
import sys

import mock_llm

LATENCY = 0.0
INFLIGHT = [0, 0]  # now, most at once
ASKED = [0]  # API requests so far: a plain answer's request-id, as mock_llm.py numbers them
APIS = ("/v1/messages", "/chat/completions", "/v1/chat/completions")


def reply(status, ctype, data, rid="req_mock_0", length=True):
    head = "HTTP/1.1 %d %s\r\ncontent-type: %s\r\nrequest-id: %s\r\n" % (
        status, "OK" if status == 200 else "Error", ctype, rid)
    if length:
        head += "content-length: %d\r\n" % len(data)
    return (head + "connection: close\r\n\r\n").encode() + data


def answer(path, body):
    """What mock_llm.py answers to body at path with no step, as bytes on
    the wire after the status line's headers."""
    anthropic = path.endswith("/messages")
    h = mock_llm.Handler.__new__(mock_llm.Handler)  # its answer building only: no socket
    h.usage, h.path = None, path
    if body.get("stream"):
        text = mock_llm.answer_text(body)
        events = h.anthropic_events(body, text, {}) if anthropic else h.openai_events(body, text, {})
        return reply(200, "text/event-stream", b"".join(events), "req_mock_stream", length=False)
    return reply(200, "application/json", json.dumps(h.message(body, anthropic, {})).encode(),
                 "req_mock_%d" % ASKED[0])


async def serve(reader, writer):
    try:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, path = lines[0].split(" ")[:2]
        n = 0
        for line in lines[1:]:
            if line.lower().startswith("content-length:"):
                n = int(line.split(":", 1)[1])
        raw = await reader.readexactly(n) if n else b""
        if method == "GET" and path == "/_mock/inflight":
            writer.write(reply(200, "application/json", json.dumps(INFLIGHT[1]).encode()))
        elif method == "POST" and path in APIS:
            ASKED[0] += 1
            INFLIGHT[0] += 1
            INFLIGHT[1] = max(INFLIGHT)
            try:
                body = json.loads(raw)
                if LATENCY:
                    await asyncio.sleep(LATENCY)
                writer.write(answer(path, body))
            finally:
                INFLIGHT[0] -= 1
        else:
            writer.write(reply(404, "application/json", b'{"error": "no such path"}'))
        await writer.drain()
    except (OSError, ValueError, asyncio.IncompleteReadError):
        pass  # a client that went away: nothing to answer
    finally:
        writer.close()


async def main():
    global LATENCY
    if "--latency" in sys.argv:
        LATENCY = float(sys.argv[sys.argv.index("--latency") + 1])
    srv = await asyncio.start_server(serve, "127.0.0.1", 0, backlog=256)
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write(str(srv.sockets[0].getsockname()[1]))
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    async with srv:
        await srv.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
