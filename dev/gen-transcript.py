#!/usr/bin/env python3
"""Write a realistic Claude Code session transcript of about SIZE_MB megabytes.

Usage: gen-transcript.py SIZE_MB OUT.jsonl [SEED]
       gen-transcript.py --chain N OUT.jsonl

The first form writes a realistic session; the mix follows real sessions:
user prompts, assistant responses written as several lines sharing
message.id (thinking, text, tool_use), long tool results
with non-ASCII text, hook/bash progress entries hanging off messages, an
abandoned fork (a retried prompt), inline side-chain (sub-agent) entries,
file-history snapshots, and one compaction boundary in the middle.
The second (--chain) writes N tiny chain entries: the shape whose cost is
the index of the entries, not their content (bench/bench-transcript.sh
CHAIN=N reports the peak RSS of replay on it).
"""
import json
import random
import sys
import uuid


def chain(n, out):
    """N tiny chain entries (user and assistant in turn, each the parent of
    the next, a two-letter text each): the shape whose cost is the index of
    the entries, not their content."""
    with open(out, "w", encoding="utf-8") as f:
        parent = "null"
        for i in range(n):
            u = "%08x-0000-4000-8000-%012x" % (i >> 16, i)
            kind = "user" if i % 2 == 0 else "assistant"
            s, ms = divmod(1_768_000_000_000 + i, 1000)
            f.write('{"parentUuid":%s,"type":"%s","uuid":"%s","timestamp":"%s.%03dZ",'
                    '"message":{"role":"%s","content":"ok"}}\n'
                    % (parent, kind, u, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(s)),
                       ms, kind))
            parent = '"%s"' % u
    print(f"{out}: {n} chain entries", file=sys.stderr)


import time
if len(sys.argv) > 1 and sys.argv[1] == "--chain":
    chain(int(sys.argv[2]), sys.argv[3])
    sys.exit(0)

size = int(float(sys.argv[1]) * 1_000_000)
out = sys.argv[2]
rnd = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
SID = str(uuid.UUID(int=rnd.getrandbits(128), version=4))
CWD = "/home/user/proj"
ASCII = ("build test cargo fixture token verify parser config release workflow src/lib.rs "
         "error: warning: fn let mut impl struct pub use mod crate self return Ok(()) "
         "running passed failed compiling target/debug 0.42s --release -p the a of to "
         "in is for on with that this file line column expected found").split()
UNICODE = "naïve café 日本語 テスト données ünïcödé 🔥 🟢 — … λ→μ".split()
# Mostly ASCII like real tool output and prose; about 3% non-ASCII words.
WORDS = ASCII * 10 + UNICODE

def uid():
    return str(uuid.UUID(int=rnd.getrandbits(128), version=4))

def text(n):
    return " ".join(rnd.choice(WORDS) for _ in range(n))

class Clock:
    t = 1_768_000_000_000
    def next(self, step=1500):
        self.t += rnd.randint(1, step)
        s, ms = divmod(self.t, 1000)
        import time
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(s)) + ".%03dZ" % ms

clock = Clock()
f = open(out, "w", encoding="utf-8")
written = 0

def w(e):
    global written
    line = json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n"
    f.write(line)
    written += len(line.encode("utf-8"))

def base(kind, parent, side=False):
    return {"parentUuid": parent, "isSidechain": side, "userType": "external", "cwd": CWD,
            "sessionId": SID, "version": "2.1.39", "gitBranch": "main", "type": kind,
            "uuid": uid(), "timestamp": clock.next()}

def user(parent, content, side=False, **kw):
    e = base("user", parent, side)
    e["message"] = {"role": "user", "content": content}
    e.update(kw)
    w(e)
    return e["uuid"]

def assistant(parent, blocks, side=False):
    mid = "msg_" + uid().replace("-", "")[:24]
    usage = {"input_tokens": rnd.randint(1, 50), "output_tokens": rnd.randint(10, 900),
             "cache_creation_input_tokens": rnd.randint(0, 5000),
             "cache_read_input_tokens": rnd.randint(1000, 90000)}
    for b in blocks:  # one line per block, sharing message.id
        e = base("assistant", parent, side)
        e["requestId"] = "req_" + mid[4:]
        e["message"] = {"id": mid, "type": "message", "role": "assistant",
                        "model": "claude-opus-4-6", "content": [b], "stop_reason": None,
                        "usage": usage}
        w(e)
        parent = e["uuid"]
    return parent

def progress(parent, n):
    for _ in range(n):
        e = base("progress", parent)
        e["data"] = {"type": rnd.choice(["hook_progress", "bash_progress"]),
                     "output": text(rnd.randint(5, 40))}
        e["toolUseID"] = "toolu_" + uid()[:20]
        w(e)

def turn(parent, side=False):
    """A prompt, a response with a tool call, its (long) result, a reply."""
    p = user(parent, text(rnd.randint(5, 60)), side)
    tid = "toolu_" + uid().replace("-", "")[:22]
    blocks = [{"type": "thinking", "thinking": text(rnd.randint(20, 200)), "signature": "x" * 40},
              {"type": "text", "text": text(rnd.randint(10, 80))},
              {"type": "tool_use", "id": tid, "name": rnd.choice(["Bash", "Read", "Edit", "Grep"]),
               "input": {"command": "cargo test -p " + rnd.choice(WORDS), "description": text(6)}}]
    a = assistant(p, blocks, side)
    if not side:
        progress(a, rnd.randint(0, 6))
    body = "\n".join(text(rnd.randint(8, 20)) for _ in range(rnd.choice([5, 40, 200, 800])))
    r = user(a, [{"type": "tool_result", "tool_use_id": tid, "content": body,
                  "is_error": rnd.random() < 0.05}], side,
             toolUseResult={"stdout": body[:2000], "stderr": "", "interrupted": False})
    return assistant(r, [{"type": "text", "text": text(rnd.randint(10, 120))}], side)

head = None
compacted = False
i = 0
while written < size:
    i += 1
    if i % 50 == 0:
        e = {"type": "file-history-snapshot", "messageId": uid(), "isSnapshotUpdate": False,
             "snapshot": {"messageId": uid(), "trackedFileBackups": {}, "timestamp": clock.next()}}
        w(e)
    if i % 37 == 0 and head:
        turn(head)  # abandoned fork: a retried prompt off the same parent
    if i % 23 == 0 and head:
        s = user(head, "Sub-agent task: " + text(20), True)
        turn(s, side=True)
    if not compacted and written > size // 2:
        b = base("system", None)
        b.update({"subtype": "compact_boundary", "content": "Conversation compacted",
                  "logicalParentUuid": head, "level": "info",
                  "compactMetadata": {"trigger": "auto", "preTokens": 155000}})
        w(b)
        head = user(b["uuid"], "This session is being continued. Summary: " + text(300),
                    isCompactSummary=True, isVisibleInTranscriptOnly=True)
        compacted = True
    head = turn(head)
f.close()
print(f"{out}: {written} bytes, {i} turns, session {SID}", file=sys.stderr)
