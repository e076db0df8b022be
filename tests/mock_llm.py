#!/usr/bin/env python3
"""tests/mock_llm.py - a loopback teacher for the tests: speaks Anthropic's
Messages API (POST /v1/messages) and OpenAI's Chat Completions
(POST /chat/completions, /v1/chat/completions), plain JSON and server-sent
events, and injects faults on request.

usage: mock_llm.py PORTFILE [--latency SECONDS]
       mock_llm.py --ctl PORTFILE script JSON | requests | count | inflight | reset

Listens on 127.0.0.1 on a free port and writes the port to PORTFILE.
Control (JSON bodies):
  POST /_mock/script    [step, ...]: each API request takes the next step;
                        with none left, it gets a normal answer
  GET  /_mock/requests  every API request so far: path, headers, body, time
  GET  /_mock/inflight  the most API requests that were in flight at once
  POST /_mock/reset     forget requests and steps

Steps: {"status": N, "headers": {...}, "body": <json or string>} an error
reply; {"reset": true} drop the connection; {"delay": S} answer after S
seconds; {"malformed": true} a 200 whose body is not JSON;
{"truncate": true} a stream cut before its end; {"stream_error": TYPE} an
error event after HTTP 200; {"blank_lines": true} leading blank lines
before the JSON (as DeepSeek sends under load); {"text": "..."} this answer.
"""
import hashlib
import json
import re
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
STEPS = []
REQUESTS = []
LATENCY = 0.0
INFLIGHT = [0, 0]  # now, most at once


def answer_text(body):
    """A deterministic answer that depends on the request: for the tests'
    scale-by-two tasks (x, y, n), a kernel that builds and is right, so a
    sample finishes in round 1; otherwise a stub."""
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:12]
    m = re.search(r'extern "C" void (\w+)\(const float\* x, float\* y, int n\)', json.dumps(body).replace('\\"', '"'))
    if not m:
        return ("I will use one thread per element (mock %s).\n\n```cuda\n"
                "extern \"C\" void mock_%s(void) {}\n```\n" % (digest, digest))
    return ("I will use one thread per element (mock %s).\n\n```cuda\n"
            "__global__ void twice(const float* x, float* y, int n)\n"
            "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2 * x[i]; }\n"
            "extern \"C\" void %s(const float* x, float* y, int n) { twice<<<(n + 255) / 256, 256>>>(x, y, n); }\n"
            "```\n" % (digest, m.group(1)))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, obj, headers=None, ctype="application/json"):
        data = obj if isinstance(obj, (bytes, bytearray)) else (
            obj.encode() if isinstance(obj, str) else json.dumps(obj).encode())
        self.send_response(status)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", "req_mock_%d" % len(REQUESTS))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/_mock/requests":
            with LOCK:
                self.reply(200, REQUESTS)
        elif self.path == "/_mock/inflight":
            self.reply(200, INFLIGHT[1])
        else:
            self.reply(404, {"error": "no such path"})

    def do_POST(self):
        n = int(self.headers.get("content-length", "0"))
        raw = self.rfile.read(n)
        if self.path.startswith("/_mock/"):
            with LOCK:
                if self.path == "/_mock/script":
                    STEPS.extend(json.loads(raw))
                elif self.path == "/_mock/reset":
                    STEPS.clear()
                    REQUESTS.clear()
                    INFLIGHT[1] = 0
            return self.reply(200, {"ok": True})
        try:
            body = json.loads(raw)
        except ValueError:
            return self.reply(400, {"error": {"type": "invalid_request_error", "message": "body is not JSON"}})
        with LOCK:
            REQUESTS.append({"path": self.path, "time": time.time(), "body": body,
                             "headers": {k.lower(): v for k, v in self.headers.items()}})
            step = STEPS.pop(0) if STEPS else {}
            INFLIGHT[0] += 1
            INFLIGHT[1] = max(INFLIGHT)
        try:
            self.answer(body, step)
        finally:
            with LOCK:
                INFLIGHT[0] -= 1

    def answer(self, body, step):
        if LATENCY:
            time.sleep(LATENCY)
        if step.get("reset"):
            # RST instead of FIN: SO_LINGER with a zero timeout
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True
            return
        if step.get("delay"):
            time.sleep(step["delay"])
        if "status" in step:
            b = step.get("body", {"error": {"type": "api_error", "message": "mock error"}})
            return self.reply(step["status"], b, step.get("headers"))
        if step.get("malformed"):
            return self.reply(200, "{\"id\": \"msg_1\", \"content\": [")
        anthropic = self.path.endswith("/messages")
        if anthropic and self.path != "/v1/messages":
            return self.reply(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})
        text = step.get("text") or answer_text(body)
        if body.get("stream"):
            return self.stream(anthropic, body, text, step)
        if anthropic:
            content = []
            if body.get("thinking"):
                content.append({"type": "thinking", "thinking": "Let me think about coalescing.",
                                "signature": "c2lnbmF0dXJl"})
            content.append({"type": "text", "text": text})
            obj = {"id": "msg_mock", "type": "message", "role": "assistant", "model": body["model"],
                   "content": content, "stop_reason": "end_turn", "stop_sequence": None,
                   "usage": {"input_tokens": 1000, "output_tokens": 200,
                             "cache_creation_input_tokens": 300, "cache_read_input_tokens": 500}}
        else:
            obj = {"id": "chatcmpl-mock", "object": "chat.completion", "created": 0, "model": body["model"],
                   "choices": [{"index": 0, "finish_reason": "stop",
                                "message": {"role": "assistant", "content": text,
                                            "reasoning_content": "Thinking about coalescing."}}],
                   "usage": {"prompt_tokens": 1200, "completion_tokens": 200, "total_tokens": 1400,
                             "prompt_tokens_details": {"cached_tokens": 400}}}
        data = json.dumps(obj)
        if step.get("blank_lines"):
            data = "\n\n \n" + data
        self.reply(200, data)

    def stream(self, anthropic, body, text, step):
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("request-id", "req_mock_stream")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True
        half = len(text) // 2
        if anthropic:
            ev = [("message_start", {"type": "message_start", "message": {
                "id": "msg_mock", "type": "message", "role": "assistant", "model": body["model"], "content": [],
                "stop_reason": None, "usage": {"input_tokens": 1000, "output_tokens": 1,
                                               "cache_creation_input_tokens": 300, "cache_read_input_tokens": 500}}}),
                  ("ping", {"type": "ping"})]
            i = 0
            if body.get("thinking"):
                ev += [("content_block_start", {"type": "content_block_start", "index": 0,
                                                "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
                       ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                "delta": {"type": "thinking_delta", "thinking": "Let me think "}}),
                       ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                "delta": {"type": "thinking_delta", "thinking": "about coalescing."}}),
                       ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                "delta": {"type": "signature_delta", "signature": "c2lnbmF0dXJl"}}),
                       ("content_block_stop", {"type": "content_block_stop", "index": 0})]
                i = 1
            ev += [("content_block_start", {"type": "content_block_start", "index": i,
                                            "content_block": {"type": "text", "text": ""}}),
                   ("content_block_delta", {"type": "content_block_delta", "index": i,
                                            "delta": {"type": "text_delta", "text": text[:half]}})]
            if step.get("stream_error"):
                ev.append(("error", {"type": "error", "error": {"type": step["stream_error"], "message": "Overloaded"}}))
            elif not step.get("truncate"):
                ev += [("content_block_delta", {"type": "content_block_delta", "index": i,
                                                "delta": {"type": "text_delta", "text": text[half:]}}),
                       ("content_block_stop", {"type": "content_block_stop", "index": i}),
                       ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn",
                                                                             "stop_sequence": None},
                                          "usage": {"output_tokens": 200}}),
                       ("message_stop", {"type": "message_stop"})]
            out = "".join("event: %s\ndata: %s\n\n" % (e, json.dumps(d)) for e, d in ev)
        else:
            def chunk(delta, finish=None, usage=None, choices=True):
                c = {"id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 0, "model": body["model"],
                     "choices": [{"index": 0, "delta": delta, "finish_reason": finish}] if choices else []}
                if usage:
                    c["usage"] = usage
                return "data: %s\n\n" % json.dumps(c)
            out = ": keep-alive\n\n" + chunk({"role": "assistant", "content": ""})
            out += chunk({"reasoning_content": "Thinking about coalescing."})
            out += chunk({"content": text[:half]})
            if step.get("stream_error"):
                out += "data: %s\n\n" % json.dumps({"error": {"type": step["stream_error"], "message": "Overloaded"}})
            elif not step.get("truncate"):
                out += chunk({"content": text[half:]}) + chunk({}, "stop")
                if (body.get("stream_options") or {}).get("include_usage"):
                    out += chunk(None, usage={"prompt_tokens": 1200, "completion_tokens": 200, "total_tokens": 1400,
                                              "prompt_tokens_details": {"cached_tokens": 400}}, choices=False)
                out += "data: [DONE]\n\n"
        self.wfile.write(out.encode())
        self.wfile.flush()


def ctl(portfile, verb, arg=None):
    """The tests' side: talk to a running mock."""
    import urllib.request
    port = open(portfile).read().strip()
    url = "http://127.0.0.1:%s/_mock/%s" % (port, "requests" if verb in ("requests", "count") else verb)
    if verb == "inflight":
        with urllib.request.urlopen(url) as r:
            print(json.load(r))
        return
    data = arg.encode() if arg is not None else (b"{}" if verb in ("script", "reset") else None)
    with urllib.request.urlopen(urllib.request.Request(url, data=data)) as r:
        out = json.load(r)
    if verb == "count":
        print(len(out))
    elif verb == "requests":
        print(json.dumps(out))


def main():
    global LATENCY
    if sys.argv[1] == "--ctl":
        return ctl(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)
    if "--latency" in sys.argv:
        LATENCY = float(sys.argv[sys.argv.index("--latency") + 1])
    ThreadingHTTPServer.daemon_threads = True
    # clients that time out leave broken pipes behind: not worth a traceback
    ThreadingHTTPServer.handle_error = lambda self, request, address: None
    ThreadingHTTPServer.request_queue_size = 256
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    import os
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    srv.serve_forever()


if __name__ == "__main__":
    main()
