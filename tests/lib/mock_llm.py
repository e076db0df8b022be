#!/usr/bin/env python3
"""tests/lib/mock_llm.py - a loopback teacher for the tests: speaks Anthropic's
Messages API (POST /v1/messages) and OpenAI's Chat Completions
(POST /chat/completions, /v1/chat/completions), plain JSON and server-sent
events, and injects faults on request.

usage: mock_llm.py PORTFILE [--latency SECONDS] [--batch-seconds SECONDS]
                   [--prompt-cache MIN_TOKENS] [--answer-pad BYTES]
                   [--propose-dir DIR] [--propose-plant invalid=P,twin=P,near=P]
       mock_llm.py --ctl PORTFILE script JSON | batch_script JSON | requests | count | inflight |
                   batches | billed | reset

Listens on 127.0.0.1 on a free port and writes the port to PORTFILE.
Control (JSON bodies):
  POST /_mock/script    [step, ...]: each API request takes the next step;
                        with none left, it gets a normal answer
  GET  /_mock/requests  every API request so far: path, headers, body, time
  GET  /_mock/inflight  the most API requests that were in flight at once
  GET  /_mock/billed    what the mock bills, as a provider would: one
                        {provider, tier, usage} per billed request (usage
                        as the API reports it)
  POST /_mock/reset     forget requests, steps, batches and files

Steps: {"status": N, "headers": {...}, "body": <json or string>} an error
reply; {"reset": true} drop the connection; {"delay": S} answer after S
seconds; {"malformed": true} a 200 whose body is not JSON;
{"truncate": true} a stream cut before its end; {"stream_error": TYPE} an
error event after HTTP 200; {"blank_lines": true} leading blank lines
before the JSON (as DeepSeek sends under load); {"text": "..."} this answer;
{"fault": KIND} one of the faults below, in the request's API family;
{"drip": S} a stream sent event by event, S seconds apart, its text in
pieces of 64 characters (plain: the answer after S seconds). A
step with "match": "TEXT" is taken only by a request whose body (as JSON)
holds TEXT: the first step a request may take is its step.

Proposal requests (tasks/prompts/propose.md) get proposals:
tests/lib/mock_propose.py says which (--propose-dir, --propose-plant).

Fault kinds: 429 (retry-after: 1), 429ms (retry-after-ms: 300), 429date
(retry-after as an HTTP date 2 s ahead), 503noretry (x-should-retry: false),
400retry (x-should-retry: true), quota (429 insufficient_quota), credit (400
"credit balance is too low"), 401echo (the message echoes the key header),
html502 (an HTML 502), reset (the connection closed, no reply), rst (a TCP
RST), resetmid (half the promised body, then closed), timeout (nothing for
8 s), stall (half the body, then 8 s of silence), badjson (a 200 whose JSON
is cut), wrongshape (valid JSON of the wrong shape; a stream of message_start
and message_stop alone), truncstream (a stream cut before its end), errevent
(a server-side error event), nonutf8 (a raw 0xff byte in the text), midjunk
(a cut data line in the middle of a stream), nofinish (no stop_reason /
finish_reason), nodone (a stream that ends after its finish_reason: no
usage chunk, no [DONE] or message_stop), finishusage (OpenAI: the usage
in the finish_reason chunk and no [DONE], as transformers serve ends a
stream), slow (0.3 s, then the answer). Stream-only kinds (truncstream,
errevent, midjunk, nodone, finishusage) leave a plain JSON answer alone.

Batch APIs: Anthropic's Message Batches (POST /v1/messages/batches, GET
/v1/messages/batches[/ID[/results]]) and OpenAI's (POST /v1/files multipart,
POST /v1/batches, GET /v1/batches[/ID], GET /v1/files/ID/content). A batch
ends --batch-seconds (default 0.5) after it was made, its answers as the
plain API gives them (usage with service_tier batch). Each batch made
takes the next batch step (POST /_mock/batch_script [step, ...]):
  {"seconds": S}      this one ends after S seconds
  {"expire": true}    it ends expired: no request answered
  {"expire_after": K} it ends expired after answering its first K
  {"errors": {TYPE: N, ...}}  its first requests errored, N of each TYPE
                      (overloaded_error: a server error, status 529 for
                      OpenAI; invalid_request_error: the client's, 400)
  {"create_delay": S} the batch exists at once, its id is sent S s later
  {"garble": K}       the result lines of its first K answers are cut in
                      half (not JSON; their custom_id kept)
  {"garble_tail": K}  the same, the lines' second halves (custom_id lost)
GET /_mock/batches lists the batches made: id, provider, requests.

Billing (GET /_mock/billed): an answer is billed whole once it is made,
however it reaches the client (cut, stalled, malformed, wrong-shaped); a
stream the client leaves is billed its input and the text sent, plus the
piece being made (nothing of the answer when it left before the answer
began); a request timed out before its first byte is billed its
input (a stream: the provider stops at the disconnect) or its whole answer
(plain: the provider finishes it); error replies and connections dropped
before a reply are not billed; a batch bills every succeeded request once
it has ended, garbled result lines included. (With --prompt-cache the
usage follows the prompt and the text, 4 bytes a token; else it is fixed.)

Prompt caching (--prompt-cache MIN_TOKENS; else every answer reports the
same fixed usage, 50 of an OpenAI answer's completion tokens reasoning): tokens are counted as 4 bytes each. Anthropic: the
prompt is its blocks in cache order (system blocks, then each message's
content blocks; cache_control left out of what is compared), a breakpoint
at each block with cache_control (the top-level one: the last block); a
request reads the longest prefix ending at a block, at most 20 blocks
before a breakpoint, that an earlier request wrote and that has not
expired (5m or 1h, refreshed by each read), and writes the prefix up to
each later breakpoint of at least MIN_TOKENS. OpenAI: automatic, the
longest common prefix with an earlier prompt of the same model, in
128-token steps from 1,024. Both decide hits when the request arrives and
write when the answer starts (after --latency), as a cache entry is only
usable once the first response begins: requests sent at once all miss.
"""
import email.utils
import hashlib
import json
import re
import select
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import mock_propose

LOCK = threading.Lock()
STEPS = []
BATCH_STEPS = []
BATCHES = {}  # id: {"provider", "created", "seconds", "step", "requests": [(custom_id, body)], "metadata"}
FILES = {}  # id: bytes
BATCH_SECONDS = 0.5
PROMPT_CACHE = 0  # --prompt-cache MIN: account cache reads and writes as the providers do (0: fixed usage)
CACHED = {}  # anthropic: prefix hash: expiry time; openai: prompt text: expiry time
ANSWER_PAD = 0  # --answer-pad N: N more bytes of explanation in every answer
REQUESTS = []
LATENCY = 0.0
INFLIGHT = [0, 0]  # now, most at once
BILLS = []  # single requests billed: {"provider", "tier", "usage"} (a stream's, updated as it goes)


def answer_text(body):
    """A deterministic answer that depends on the request: for the tests'
    scale-by-two tasks (x, y, n), a kernel that builds and is right, so a
    sample finishes in round 1; otherwise a stub."""
    proposal = mock_propose.answer(body)
    if proposal is not None:
        return proposal
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:12]
    if ANSWER_PAD:  # a realistic length: design paragraphs before the code
        para = ("The design maps the work onto blocks of 256 threads, each warp reading contiguous, "
                "coalesced elements; the bound is memory bandwidth (mock %s). " % digest)
        return (para * (ANSWER_PAD // len(para) + 1))[:ANSWER_PAD] + ("\n\n```cuda\nextern \"C\" void mock_%s(void) {}\n```\n" % digest)
    m = re.search(r'extern "C" void (\w+)\(const float\* x, float\* y, int n\)', json.dumps(body).replace('\\"', '"'))
    if not m:
        return ("I will use one thread per element (mock %s).\n\n```cuda\n"
                "extern \"C\" void mock_%s(void) {}\n```\n" % (digest, digest))
    return ("I will use one thread per element (mock %s).\n\n```cuda\n"
            "__global__ void twice(const float* x, float* y, int n)\n"
            "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2 * x[i]; }\n"
            "extern \"C\" void %s(const float* x, float* y, int n) { twice<<<(n + 255) / 256, 256>>>(x, y, n); }\n"
            "```\n" % (digest, m.group(1)))



def ntok(text):
    return max(1, len(text) // 4)


def prompt_blocks(body):
    """Anthropic: the prompt's blocks in cache order, as (text, ttl of its
    breakpoint or None)."""
    out = []
    system = body.get("system") or []
    if isinstance(system, str):
        system = [{"type": "text", "text": system}]
    for b in system:
        cc = b.get("cache_control")
        out.append((b.get("text", ""), (cc.get("ttl") or "5m") if cc else None))
    for m in body.get("messages", []):
        content = m["content"] if isinstance(m["content"], list) else [{"type": "text", "text": m["content"]}]
        for b in content:
            cc = b.get("cache_control")
            rest = {k: v for k, v in b.items() if k != "cache_control"}
            out.append((m["role"] + ":" + json.dumps(rest, sort_keys=True), (cc.get("ttl") or "5m") if cc else None))
    if body.get("cache_control") and out:
        out[-1] = (out[-1][0], body["cache_control"].get("ttl") or "5m")
    return out


def cache_usage(body, anthropic, now):
    """The usage of body's prompt under the cache as it is now, and what
    the request will write (applied when its answer starts)."""
    seconds = {"5m": 300, "1h": 3600}
    if anthropic:
        blocks = prompt_blocks(body)
        h, tok, acc, total = hashlib.sha256(body["model"].encode()), [], [], 0
        for text, _ in blocks:
            h.update(b"\0" + text.encode())
            acc.append(h.hexdigest())
            total += ntok(text)
            tok.append(total)
        bps = [i for i, (_, ttl) in enumerate(blocks) if ttl]
        hit = -1
        for b in bps:
            for j in range(b, max(-1, b - 20), -1):
                if CACHED.get(acc[j], 0) > now:
                    hit = max(hit, j)
                    break
        read = tok[hit] if hit >= 0 else 0
        writes = [(acc[b], seconds[blocks[b][1]]) for b in bps if b > hit and tok[b] >= PROMPT_CACHE]
        if hit >= 0:
            writes.append((acc[hit], max(seconds[blocks[b][1]] for b in bps)))  # a read refreshes it
        wrote = max([tok[b] for b in bps if b > hit and tok[b] >= PROMPT_CACHE] or [read]) - read
        usage = {"input_tokens": total - read - wrote, "cache_creation_input_tokens": wrote,
                 "cache_read_input_tokens": read}
        return usage, writes
    text = "".join(m["role"] + ":" + (m["content"] if isinstance(m["content"], str) else json.dumps(m["content"]))
                   + "\n" for m in body.get("messages", []))
    total = ntok(text)
    best = 0
    for other, until in CACHED.items():
        if until > now and other[0] == body["model"]:
            p = other[1]
            n = 0
            while n < min(len(p), len(text)) and p[n] == text[n]:
                n += 1
            best = max(best, n // 4)
    cached = 1024 + (best - 1024) // 128 * 128 if best >= 1024 else 0
    return ({"prompt_tokens": total, "prompt_tokens_details": {"cached_tokens": cached}},
            [((body["model"], text), 600)] if total >= 1024 else [])


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
        elif self.path == "/_mock/billed":
            with LOCK:
                out = [dict(b) for b in BILLS]
                for bid, b in BATCHES.items():
                    if time.time() - b["created"] >= b["seconds"]:
                        for kind, what in self.batch_outcomes(bid).values():
                            if kind == "succeeded":
                                out.append({"provider": b["provider"], "tier": "batch", "usage": what["usage"]})
                self.reply(200, out)
        elif self.path == "/_mock/batches":
            with LOCK:
                self.reply(200, [{"id": k, "provider": b["provider"], "requests": len(b["requests"])}
                                 for k, b in BATCHES.items()])
        elif self.path.startswith("/v1/messages/batches") or self.path.startswith("/v1/batches") or \
                self.path.startswith("/v1/files/"):
            with LOCK:
                REQUESTS.append({"path": self.path, "time": time.time(), "method": "GET", "body": None,
                                 "headers": {k.lower(): v for k, v in self.headers.items()}})
            self.batch_get()
        else:
            self.reply(404, {"error": "no such path"})

    # ---- batches ----

    def batch_view(self, bid):
        """The batch as the provider shows it, now."""
        b = BATCHES[bid]
        n = len(b["requests"])
        age = time.time() - b["created"]
        ended = age >= b["seconds"]
        done = n if ended else min(n, int(n * age / b["seconds"]))
        iso = lambda t: time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + (".%06dZ" % int((t % 1) * 1e6))
        outcomes = self.batch_outcomes(bid) if ended else None
        if b["provider"] == "anthropic":
            counts = {"processing": n - done, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
            if ended:
                for kind, _ in outcomes.values():
                    counts[kind] += 1
            return {"id": bid, "type": "message_batch", "processing_status": "ended" if ended else "in_progress",
                    "request_counts": counts, "created_at": iso(b["created"]),
                    "expires_at": iso(b["created"] + 86400), "ended_at": iso(b["created"] + b["seconds"]) if ended else None,
                    "results_url": ("http://127.0.0.1:%d/v1/messages/batches/%s/results" % (self.server.server_address[1], bid))
                    if ended else None}
        expired = ended and any(kind == "expired" for kind, _ in outcomes.values())
        completed = sum(1 for kind, _ in outcomes.values() if kind == "succeeded") if ended else done
        failed = sum(1 for kind, _ in outcomes.values() if kind == "errored") if ended else 0
        return {"id": bid, "object": "batch", "endpoint": "/v1/chat/completions", "input_file_id": b["file"],
                "completion_window": "24h", "status": ("expired" if expired else "completed") if ended else "in_progress",
                "output_file_id": ("file-out-" + bid) if ended else None,
                "error_file_id": ("file-err-" + bid) if ended else None, "created_at": int(b["created"]),
                "request_counts": {"total": n, "completed": completed, "failed": failed},
                "metadata": b.get("metadata")}

    def batch_outcomes(self, bid):
        """custom_id: (succeeded | errored | expired, the message or the error type)."""
        b = BATCHES[bid]
        step = b["step"]
        errors = [t for t, k in (step.get("errors") or {}).items() for _ in range(k)]
        keep = len(b["requests"]) if not step.get("expire") else 0
        if "expire_after" in step:
            keep = step["expire_after"]
        out = {}
        for i, (cid, body) in enumerate(b["requests"]):
            if i < len(errors):
                out[cid] = ("errored", errors[i])
            elif i >= keep:
                out[cid] = ("expired", None)
            else:
                out[cid] = ("succeeded", self.message(body, b["provider"] == "anthropic", {}, batch=True,
                                                      usage_now=b["usage"].get(cid)))
        return out

    def garbled(self, bid, line, kind, seen):
        """A succeeded result line (seen: a list, one item per such line
        so far in this listing), cut as the batch's step says (garble: its
        first half; garble_tail: its second half)."""
        if kind != "succeeded":
            return line
        step = BATCHES[bid]["step"]
        seen.append(1)
        if len(seen) <= step.get("garble", 0):
            return line[:len(line) // 2]
        if len(seen) <= step.get("garble", 0) + step.get("garble_tail", 0):
            return line[len(line) // 2:]
        return line

    def batch_get(self):
        path, _, query = self.path.partition("?")
        parts = path.strip("/").split("/")
        with LOCK:
            if path in ("/v1/messages/batches", "/v1/batches"):
                prov = "anthropic" if "messages" in path else "openai"
                data = [self.batch_view(k) for k, b in sorted(BATCHES.items(), key=lambda kb: -kb[1]["created"])
                        if b["provider"] == prov]
                return self.reply(200, {"data": data, "has_more": False})
            if parts[:3] == ["v1", "messages", "batches"] and len(parts) == 4 and parts[3] in BATCHES:
                return self.reply(200, self.batch_view(parts[3]))
            if parts[:2] == ["v1", "batches"] and len(parts) == 3 and parts[2] in BATCHES:
                return self.reply(200, self.batch_view(parts[2]))
            if parts[:3] == ["v1", "messages", "batches"] and len(parts) == 5 and parts[4] == "results" and \
                    parts[3] in BATCHES and self.batch_view(parts[3])["processing_status"] == "ended":
                lines, seen = [], []
                for cid, (kind, what) in self.batch_outcomes(parts[3]).items():
                    if kind == "succeeded":
                        res = {"type": "succeeded", "message": what}
                    elif kind == "errored":
                        res = {"type": "errored", "error": {"type": "error", "error": {"type": what, "message": "mock " + what}}}
                    else:
                        res = {"type": kind}
                    lines.append(self.garbled(parts[3], json.dumps({"custom_id": cid, "result": res}), kind, seen))
                return self.reply(200, "\n".join(lines) + "\n", ctype="application/binary")
            if parts[:2] == ["v1", "files"] and len(parts) == 4 and parts[3] == "content":
                fid = parts[2]
                if fid in FILES:
                    return self.reply(200, FILES[fid], ctype="application/octet-stream")
                for prefix, want in (("file-out-", "out"), ("file-err-", "err")):
                    bid = fid[len(prefix):]
                    if fid.startswith(prefix) and bid in BATCHES:
                        lines, seen = [], []
                        for cid, (kind, what) in self.batch_outcomes(bid).items():
                            if kind == "succeeded" and want == "out":
                                lines.append(self.garbled(bid, json.dumps(
                                    {"id": "batch_req_" + cid[:8], "custom_id": cid, "error": None,
                                     "response": {"status_code": 200, "request_id": "req_b", "body": what}}), kind, seen))
                            elif kind == "errored" and want == "err":
                                status = 529 if what == "overloaded_error" else 400
                                lines.append({"id": "batch_req_" + cid[:8], "custom_id": cid, "error": None,
                                              "response": {"status_code": status, "request_id": "req_b",
                                                           "body": {"error": {"type": what, "message": "mock", "code": None}}}})
                            elif kind == "expired" and want == "err":
                                lines.append({"id": "batch_req_" + cid[:8], "custom_id": cid, "response": None,
                                              "error": {"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}})
                        return self.reply(200, "".join((l if isinstance(l, str) else json.dumps(l)) + "\n" for l in lines),
                                          ctype="application/octet-stream")
        self.reply(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})

    def batch_create(self, raw):
        """POST /v1/messages/batches, /v1/files, /v1/batches."""
        with LOCK:
            REQUESTS.append({"path": self.path, "time": time.time(), "method": "POST",
                             "body": None if self.path == "/v1/files" else json.loads(raw),
                             "headers": {k.lower(): v for k, v in self.headers.items()}})
            if self.path == "/v1/files":
                m = re.search(rb'name="file"; filename="[^"]*"\r\nContent-Type: [^\r]*\r\n\r\n(.*)\r\n--', raw, re.S)
                if not m or b"purpose\"\r\n\r\nbatch" not in raw:
                    return self.reply(400, {"error": {"type": "invalid_request_error", "message": "bad upload", "code": None}})
                fid = "file-%d" % (len(FILES) + 1)
                FILES[fid] = m.group(1)
                return self.reply(200, {"id": fid, "object": "file", "bytes": len(m.group(1)), "purpose": "batch",
                                        "filename": "batch.jsonl", "status": "processed", "created_at": int(time.time())})
            body = json.loads(raw)
            step = BATCH_STEPS.pop(0) if BATCH_STEPS else {}
            if self.path == "/v1/messages/batches":
                reqs = [(r["custom_id"], r["params"]) for r in body["requests"]]
                bid = "msgbatch_mock%d" % (len(BATCHES) + 1)
                prov, fileid = "anthropic", None
            else:
                data = FILES.get(body.get("input_file_id"))
                if data is None:
                    return self.reply(400, {"error": {"type": "invalid_request_error", "message": "no such file", "code": None}})
                reqs = [(l["custom_id"], l["body"]) for l in map(json.loads, data.decode().splitlines()) if l]
                bid = "batch_mock%d" % (len(BATCHES) + 1)
                prov, fileid = "openai", body["input_file_id"]
            if len({c for c, _ in reqs}) != len(reqs):
                return self.reply(400, {"error": {"type": "invalid_request_error", "message": "custom_id not unique"}})
            usage = {}
            for cid, b in reqs:  # the batch's requests in turn, each after the one before began
                if PROMPT_CACHE:
                    usage[cid], writes = cache_usage(b, prov == "anthropic", time.time())
                    for k, ttl in writes:
                        CACHED[k] = time.time() + ttl
            BATCHES[bid] = {"provider": prov, "created": time.time(), "seconds": step.get("seconds", BATCH_SECONDS),
                            "step": step, "requests": reqs, "file": fileid, "metadata": body.get("metadata"),
                            "usage": usage}
            view = self.batch_view(bid)
        if step.get("create_delay"):
            time.sleep(step["create_delay"])
        self.reply(200, view)

    def do_POST(self):
        n = int(self.headers.get("content-length", "0"))
        raw = self.rfile.read(n)
        if self.path.startswith("/_mock/"):
            with LOCK:
                if self.path == "/_mock/script":
                    STEPS.extend(json.loads(raw))
                elif self.path == "/_mock/batch_script":
                    BATCH_STEPS.extend(json.loads(raw))
                elif self.path == "/_mock/reset":
                    STEPS.clear()
                    BATCH_STEPS.clear()
                    BATCHES.clear()
                    FILES.clear()
                    REQUESTS.clear()
                    BILLS.clear()
                    INFLIGHT[1] = 0
            return self.reply(200, {"ok": True})
        if self.path in ("/v1/messages/batches", "/v1/files", "/v1/batches"):
            return self.batch_create(raw)
        try:
            body = json.loads(raw)
        except ValueError:
            return self.reply(400, {"error": {"type": "invalid_request_error", "message": "body is not JSON"}})
        with LOCK:
            REQUESTS.append({"path": self.path, "time": time.time(), "body": body,
                             "headers": {k.lower(): v for k, v in self.headers.items()}})
            text = json.dumps(body)
            i = next((i for i, st in enumerate(STEPS) if "match" not in st or st["match"] in text), None)
            step = STEPS.pop(i) if i is not None else {}
            INFLIGHT[0] += 1
            INFLIGHT[1] = max(INFLIGHT)
        try:
            self.answer(body, step)
        finally:
            with LOCK:
                INFLIGHT[0] -= 1

    def error_body(self, anthropic, etype, message, code=None):
        if anthropic:
            return {"type": "error", "error": {"type": etype, "message": message}}
        return {"error": {"type": etype, "message": message, "code": code}}

    def fault(self, kind, body, anthropic):
        """Serve the fault KIND; returns the step to answer with when the
        fault is in the answer itself (or there is none), else None."""
        key = self.headers.get("x-api-key") or self.headers.get("authorization") or ""
        errors = {  # kind: status, headers, error type, message, code
            "429": (429, {"retry-after": "1"}, "rate_limit_error", "slow down", None),
            "429ms": (429, {"retry-after-ms": "300"}, "rate_limit_error", "slow down", None),
            "429date": (429, {"retry-after": email.utils.formatdate(time.time() + 2, usegmt=True)},
                        "rate_limit_error", "slow down", None),
            "503noretry": (503, {"x-should-retry": "false"}, "api_error", "unavailable", None),
            "400retry": (400, {"x-should-retry": "true"}, "invalid_request_error", "try again", None),
            "quota": (429, {}, "insufficient_quota", "You exceeded your current quota", "insufficient_quota"),
            "credit": (400, {}, "invalid_request_error",
                       "Your credit balance is too low to access the Anthropic API.", None),
            "401echo": (401, {}, "authentication_error", "Incorrect API key provided: %s" % key, "invalid_api_key"),
        }
        if kind.isdigit():
            return {"status": int(kind)}
        if kind in errors:
            status, headers, etype, message, code = errors[kind]
            return {"status": status, "headers": headers, "body": self.error_body(anthropic, etype, message, code)}
        if kind == "html502":
            self.reply(502, "<html><body><h1>502 Bad Gateway</h1></body></html>", ctype="text/html")
        elif kind == "reset":
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
        elif kind == "rst":
            return {"reset": True}
        elif kind == "timeout":
            full = self.bill(body, anthropic, answer_text(body))
            if body.get("stream"):  # the provider stops at the disconnect: the prompt alone
                full["usage"]["output_tokens" if anthropic else "completion_tokens"] = 0
            time.sleep(8)
            self.close_connection = True
        elif kind == "badjson":
            self.bill(body, anthropic, answer_text(body))
            self.reply(200, '{"id": "msg_1", "content": [{"type": "text", "text": "cut')
        elif kind == "slow":
            time.sleep(0.3)
            return {}
        else:
            return {kind: True}  # the answer itself is broken: resetmid, stall, wrongshape, ...
        return None

    def answer(self, body, step):
        self.usage = None
        writes = []
        if PROMPT_CACHE and self.path.endswith(("/messages", "/chat/completions")):
            with LOCK:
                self.usage, writes = cache_usage(body, self.path.endswith("/messages"), time.time())
        if LATENCY:
            time.sleep(LATENCY)
        with LOCK:  # the answer starts: what it wrote is there for the next ones
            for k, ttl in writes:
                CACHED[k] = time.time() + ttl
        if "fault" in step:
            step = self.fault(step["fault"], body, self.path.endswith("/messages"))
            if step is None:
                return
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
        anthropic = self.path.endswith("/messages")
        if step.get("malformed"):
            self.bill(body, anthropic, answer_text(body))
            return self.reply(200, "{\"id\": \"msg_1\", \"content\": [")
        if anthropic and self.path != "/v1/messages":
            return self.reply(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})
        text = step.get("text") or answer_text(body)
        if body.get("stream"):
            return self.stream(anthropic, body, text, step)
        self.bill(body, anthropic, text)
        if step.get("drip"):
            time.sleep(step["drip"])
        obj = self.message(body, anthropic, step, usage_now=self.usage)
        if step.get("wrongshape"):
            obj = {"type": "message", "id": "msg_mock"} if anthropic else {"id": "chatcmpl-mock", "choices": []}
        if step.get("nofinish"):
            (obj if anthropic else obj["choices"][0])["stop_reason" if anthropic else "finish_reason"] = None
        data = json.dumps(obj).encode()
        if step.get("nonutf8"):
            data = data.replace(b"one thread", b"one \xff thread", 1)
        if step.get("blank_lines"):
            data = b"\n\n \n" + data
        if step.get("resetmid") or step.get("stall"):
            return self.cut(data, "application/json", step)
        self.reply(200, data)

    def bill(self, body, anthropic, text):
        """Bill the whole answer text to body (the entry, to be changed
        while a stream goes)."""
        usage = self.message(body, anthropic, {"text": text}, usage_now=self.usage)["usage"]
        entry = {"provider": "anthropic" if anthropic else "openai", "tier": "standard", "usage": usage}
        with LOCK:
            BILLS.append(entry)
        return entry

    @staticmethod
    def message(body, anthropic, step, batch=False, usage_now=None):
        """The whole answer to body, as the plain (not streamed) API gives it
        (usage_now: the prompt's usage under the prompt cache)."""
        text = step.get("text") or answer_text(body)
        if anthropic:
            content = []
            if body.get("thinking"):
                content.append({"type": "thinking", "thinking": "Let me think about coalescing.",
                                "signature": "c2lnbmF0dXJl"})
            content.append({"type": "text", "text": text})
            usage = {"input_tokens": 1000, "output_tokens": 200,
                     "cache_creation_input_tokens": 300, "cache_read_input_tokens": 500}
            if usage_now:
                usage = dict(usage_now, output_tokens=ntok(text))
            if batch:
                usage["service_tier"] = "batch"
            return {"id": "msg_mock", "type": "message", "role": "assistant", "model": body["model"],
                    "content": content, "stop_reason": "end_turn", "stop_sequence": None, "usage": usage}
        usage = {"prompt_tokens": 1200, "completion_tokens": 200, "total_tokens": 1400,
                 "prompt_tokens_details": {"cached_tokens": 400},
                 "completion_tokens_details": {"reasoning_tokens": 50}}
        if usage_now:
            usage = dict(usage_now, completion_tokens=ntok(text),
                         total_tokens=usage_now["prompt_tokens"] + ntok(text))
        return {"id": "chatcmpl-mock", "object": "chat.completion", "created": 0, "model": body["model"],
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": text,
                                         "reasoning_content": "Thinking about coalescing."}}],
                "usage": usage}

    def cut(self, data, ctype, step):
        """Promise len(data) bytes, send half; then close (resetmid) or
        fall silent for 8 s (stall)."""
        self.send_response(200)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data[:len(data) // 2])
        self.wfile.flush()
        if step.get("stall"):
            time.sleep(8)
        self.connection.shutdown(socket.SHUT_RDWR)
        self.close_connection = True

    def stream(self, anthropic, body, text, step):
        events = self.anthropic_events(body, text, step) if anthropic else self.openai_events(body, text, step)
        data = b"".join(events)
        entry = self.bill(body, anthropic, text)
        if self.gone():  # the client left before the answer began: the prompt alone
            with LOCK:
                entry["usage"]["output_tokens" if anthropic else "completion_tokens"] = 0
            return
        if step.get("drip"):
            return self.drip(anthropic, events, entry, step["drip"])
        if step.get("resetmid") or step.get("stall"):
            return self.cut(data, "text/event-stream", step)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("request-id", "req_mock_stream")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True
        self.wfile.write(data)
        self.wfile.flush()

    def drip(self, anthropic, events, entry, seconds):
        """Send the stream event by event, seconds apart; a client that
        leaves is billed the prompt and the part of the answer made: what
        was sent and the event being made."""
        field = "output_tokens" if anthropic else "completion_tokens"
        whole, total, sent = entry["usage"][field], sum(map(len, events)), 0
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("request-id", "req_mock_stream")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True
        for ev in events:
            if self.gone():
                return
            with LOCK:
                entry["usage"][field] = -(-whole * (sent + len(ev)) // total)
            try:
                self.wfile.write(ev)
                self.wfile.flush()
            except OSError:
                return
            sent += len(ev)
            time.sleep(seconds)

    def gone(self):
        """Whether the client has closed the connection."""
        try:
            r, _, _ = select.select([self.connection], [], [], 0)
            return bool(r) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    @staticmethod
    def sse(name, obj):
        data = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
        return (b"event: %s\n" % name.encode() if name else b"") + b"data: " + data + b"\n\n"

    @staticmethod
    def broken(step):
        """The stream's fault, if any: where it ends early and what it
        says there (a list of events), or None for a whole stream."""
        if step.get("truncate") or step.get("truncstream"):
            return []
        if step.get("stream_error") or step.get("errevent"):
            return [step.get("stream_error") or "errevent"]
        return None

    @staticmethod
    def pieces(text, step):
        """The text's deltas: two halves, or (drip) pieces of 64 characters."""
        half = len(text) // 2
        if step.get("drip") and len(text) > 128:
            return [text[i:i + 64] for i in range(0, len(text), 64)]
        return [text[:half], text[half:]]

    def anthropic_events(self, body, text, step):
        start = {"type": "message_start", "message": {
            "id": "msg_mock", "type": "message", "role": "assistant", "model": body["model"], "content": [],
            "stop_reason": None, "usage": dict(self.usage or {"input_tokens": 1000, "cache_creation_input_tokens": 300,
                                                              "cache_read_input_tokens": 500}, output_tokens=1)}}
        if step.get("wrongshape"):
            return [self.sse("message_start", start), self.sse("message_stop", {"type": "message_stop"})]
        ev = [self.sse("message_start", start), self.sse("ping", {"type": "ping"})]
        i = 0

        def delta(index, kind, field, value):
            return self.sse("content_block_delta", {"type": "content_block_delta", "index": index,
                                                    "delta": {"type": kind, field: value}})
        if body.get("thinking"):
            ev += [self.sse("content_block_start", {"type": "content_block_start", "index": 0, "content_block":
                                                    {"type": "thinking", "thinking": "", "signature": ""}}),
                   delta(0, "thinking_delta", "thinking", "Let me think "),
                   delta(0, "thinking_delta", "thinking", "about coalescing."),
                   delta(0, "signature_delta", "signature", "c2lnbmF0dXJl"),
                   self.sse("content_block_stop", {"type": "content_block_stop", "index": 0})]
            i = 1
        pieces = self.pieces(text, step)
        ev += [self.sse("content_block_start", {"type": "content_block_start", "index": i,
                                                "content_block": {"type": "text", "text": ""}}),
               delta(i, "text_delta", "text", pieces[0])]
        if step.get("midjunk"):
            ev.append(self.sse("content_block_delta", b'{"type": "content_block_delta", "index": %d, '
                               b'"delta": {"type": "text_delta", "text": "LOST' % i))
        end = self.broken(step)
        if end is not None:
            return ev + [self.sse("error", {"type": "error", "error": {
                "type": "overloaded_error" if e == "errevent" else e, "message": "Overloaded"}}) for e in end]
        ev += [delta(i, "text_delta", "text", p) for p in pieces[1:-1]]
        last = delta(i, "text_delta", "text", pieces[-1])
        if step.get("nonutf8"):
            last = last.replace(b"```", b"\xff```", 1)
        ev += [last, self.sse("content_block_stop", {"type": "content_block_stop", "index": i})]
        if not step.get("nofinish"):
            ev.append(self.sse("message_delta", {"type": "message_delta", "delta": {
                "stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": ntok(text) if self.usage else 200}}))
        return ev + ([] if step.get("nodone") else [self.sse("message_stop", {"type": "message_stop"})])

    def openai_events(self, body, text, step):

        def chunk(delta, finish=None, usage=None, choices=True):
            c = {"id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 0, "model": body["model"],
                 "choices": [{"index": 0, "delta": delta, "finish_reason": finish}] if choices else []}
            if usage:
                c["usage"] = usage
            return self.sse(None, c)
        if step.get("wrongshape"):
            return [self.sse(None, {"id": "chatcmpl-mock", "choices": []}), b"data: [DONE]\n\n"]
        ev = [b": keep-alive\n\n", chunk({"role": "assistant", "content": ""}),
              chunk({"reasoning_content": "Thinking about coalescing."})]
        pieces = self.pieces(text, step)
        ev.append(chunk({"content": pieces[0]}))
        if step.get("midjunk"):
            ev.append(self.sse(None, b'{"id": "chatcmpl-mock", "choices": [{"index": 0, "delta": {"content": "LOST'))
        end = self.broken(step)
        if end is not None:
            return ev + [self.sse(None, {"error": {"type": "server_error" if e == "errevent" else e,
                                                   "message": "Overloaded"}}) for e in end]
        ev += [chunk({"content": p}) for p in pieces[1:-1]]
        last = chunk({"content": pieces[-1]})
        if step.get("nonutf8"):
            last = last.replace(b"```", b"\xff```", 1)
        ev.append(last)
        usage = {"prompt_tokens": 1200, "completion_tokens": 200, "total_tokens": 1400,
                 "prompt_tokens_details": {"cached_tokens": 400},
                 "completion_tokens_details": {"reasoning_tokens": 50}}
        if self.usage:
            usage = dict(self.usage, completion_tokens=ntok(text), total_tokens=self.usage["prompt_tokens"] + ntok(text))
        if step.get("finishusage"):  # as transformers serve ends a stream
            return ev + [chunk({}, "stop", usage=usage)]
        if not step.get("nofinish"):
            ev.append(chunk({}, "stop"))
        if step.get("nodone"):
            return ev
        if (body.get("stream_options") or {}).get("include_usage"):
            ev.append(chunk(None, usage=usage, choices=False))
        return ev + [b"data: [DONE]\n\n"]


def ctl(portfile, verb, arg=None):
    """The tests' side: talk to a running mock."""
    import urllib.request
    port = open(portfile).read().strip()
    url = "http://127.0.0.1:%s/_mock/%s" % (port, "requests" if verb in ("requests", "count") else verb)
    if verb in ("inflight", "batches", "billed"):
        with urllib.request.urlopen(url) as r:
            print(json.dumps(json.load(r)))
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
    global BATCH_SECONDS
    if "--latency" in sys.argv:
        LATENCY = float(sys.argv[sys.argv.index("--latency") + 1])
    if "--batch-seconds" in sys.argv:
        BATCH_SECONDS = float(sys.argv[sys.argv.index("--batch-seconds") + 1])
    global PROMPT_CACHE, ANSWER_PAD
    if "--prompt-cache" in sys.argv:
        PROMPT_CACHE = int(sys.argv[sys.argv.index("--prompt-cache") + 1])
    if "--propose-dir" in sys.argv:
        mock_propose.PROPOSE_DIR = sys.argv[sys.argv.index("--propose-dir") + 1]
    if "--propose-plant" in sys.argv:
        for kv in sys.argv[sys.argv.index("--propose-plant") + 1].split(","):
            k, v = kv.split("=")
            mock_propose.PLANT[k] = float(v)
    if "--answer-pad" in sys.argv:
        ANSWER_PAD = int(sys.argv[sys.argv.index("--answer-pad") + 1])
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
