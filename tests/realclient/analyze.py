#!/usr/bin/env python3
"""Read what run.sh left in WORK and say what worked, with the evidence.

  analyze.py WORK        -> WORK/report.txt (printed), WORK/results.json, last line: summary

Evidence comes only from what the clients and the fake model recorded:
  requests.jsonl          every request body the fake model received (what reached the model)
  NAME.out / NAME.err     the client's stdout (Claude: stream-json with hook events) and stderr
  NAME.debug              Claude Code's --debug-file log
  NAME.strace             execve/exit of every process (hook wall time, when strace was there)
  snap/NAME/              the memory directory's .md files after the session
  sessions.jsonl          per session: request range, wall time, exit code
  the clients' own records: Claude Code transcripts, Codex rollouts (in the fake HOMEs)
"""
import glob
import json
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # the harness may sit in a read-only directory
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_model import call_command, precondition_in, text_of  # noqa: E402

W = sys.argv[1]
MEM = os.environ.get("MEM_BIN_DIR", "")
OUT = []
RES = {"claude": {}, "codex": {}}
SEEN_WRITE = {}


def say(s=""):
    OUT.append(s)


def scrub(s):
    s = s.replace(W, "$WORK")
    if MEM:
        s = s.replace(MEM, "$MEM_BIN_DIR")
    return s


def cut(s, n=400):
    s = scrub(s)
    return s if len(s) <= n else s[:n] + "…"


def read(p, default=""):
    try:
        with open(p, errors="replace") as f:
            return f.read()
    except OSError:
        return default


def jsonl(p):
    out = []
    for line in read(p).splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            pass
    return out


SESSIONS = {s["name"]: s for s in jsonl(os.path.join(W, "sessions.jsonl"))}
REQS = jsonl(os.path.join(W, "requests.jsonl"))


def reqs_of(name):
    s = SESSIONS[name]
    return REQS[s["req"][0]:s["req"][1]]


def main_reqs(name):
    return [r for r in reqs_of(name) if " step " in r.get("note", "")]


# ---------------------------------------------------------------- request search

def blocks(req):
    """(where, role, text) for every piece of text in a request body."""
    b = req.get("body") or {}
    out = []
    for i, s in enumerate(b.get("system") or [] if isinstance(b.get("system"), list) else []):
        out.append(("system[%d]" % i, "system", s.get("text", "")))
    for i, m in enumerate(b.get("messages") or []):
        c = m.get("content")
        if isinstance(c, str):
            out.append(("messages[%d]" % i, m.get("role"), c))
            continue
        for j, blk in enumerate(c or []):
            t = blk.get("text")
            if t is None and blk.get("type") == "tool_result":
                t = json.dumps(blk.get("content"))
            if t is None and blk.get("type") == "tool_use":
                t = json.dumps(blk.get("input"))
            out.append(("messages[%d].content[%d] (%s)" % (i, j, blk.get("type")), m.get("role"), t or ""))
    if isinstance(b.get("instructions"), str):
        out.append(("instructions", "system", b["instructions"]))
    for i, it in enumerate(b.get("input") or []):
        if not isinstance(it, dict):
            continue
        t = it.get("type")
        if t == "message":
            c = it.get("content")
            txt = c if isinstance(c, str) else "\n".join(x.get("text", "") for x in c or [] if isinstance(x, dict))
            out.append(("input[%d] (message)" % i, it.get("role"), txt))
        elif t == "function_call":
            out.append(("input[%d] (function_call)" % i, "assistant", it.get("arguments", "")))
        elif t == "function_call_output":
            o = it.get("output")
            out.append(("input[%d] (function_call_output)" % i, "tool", o if isinstance(o, str) else json.dumps(o)))
    return out


def find(req, needle):
    return [(w, r, t) for (w, r, t) in blocks(req) if needle in t]


def excerpt(text, needle, before=0, after=500):
    i = text.find(needle)
    return cut(text[max(0, i - before):i + after], before + after + 10)


# ---------------------------------------------------------------- hook timing (strace)

def hook_procs(name):
    """[(start, end, class, cmd)] of every `sh -c <mem hook>` the client ran."""
    txt = read(os.path.join(W, name + ".strace"))
    if not txt:
        return None
    starts, ends = {}, {}
    for line in txt.splitlines():
        m = re.match(r'(\d+)\s+(\d+\.\d+)\s+execve\("/bin/(?:ba)?sh", \["/bin/(?:ba)?sh", "-c", "(.*?)"\]', line)
        if m and ("mem-hook" in m.group(3) or "mem-recall" in m.group(3) or "mem-transcript" in m.group(3)):
            starts[m.group(1)] = (float(m.group(2)), m.group(3))
            continue
        m = re.match(r"(\d+)\s+(\d+\.\d+)\s+\+\+\+ (?:exited with (-?\d+)|killed by (\w+))", line)
        if m and m.group(1) in starts and m.group(1) not in ends:
            ends[m.group(1)] = float(m.group(2))
    out = []
    for pid, (t0, cmd) in starts.items():
        cls = "compact" if "mem-extract session" in cmd else ("write" if "mem-index write" in cmd else "recall")
        out.append((t0, ends.get(pid), cls, cmd))
    return sorted(out)


def event_class(ev):
    ev = ev.split(":")[0]
    return {"Stop": "write", "SessionEnd": "write", "PreCompact": "compact"}.get(ev, "recall")


def time_hooks(name, events):
    """events: hook event names in the order the client ran them -> [(event, ms)]"""
    procs = hook_procs(name)
    if procs is None:
        return None
    by_class = {}
    for p in procs:
        by_class.setdefault(p[2], []).append(p)
    out = []
    for ev in events:
        lst = by_class.get(event_class(ev), [])
        if lst:
            t0, t1, _, _ = lst.pop(0)
            out.append((ev, round((t1 - t0) * 1000, 1) if t1 else None))
        else:
            out.append((ev, None))
    for lst in by_class.values():  # hook processes the client's log did not name
        for t0, t1, cls, _ in lst:
            out.append(("(unnamed %s)" % cls, round((t1 - t0) * 1000, 1) if t1 else None))
    return out


# ---------------------------------------------------------------- transcripts

def mem_transcript(path):
    r = {"file": scrub(path)}
    v = subprocess.run([os.path.join(MEM, "mem-transcript"), "verify", path, "--format", "jsonl"],
                       capture_output=True, text=True)
    r["verify_rc"] = v.returncode
    r["verify_stderr"] = scrub(v.stderr.strip())
    try:
        vj = json.loads(v.stdout.splitlines()[0])
        r["verify_ok"] = vj.get("ok")
        r["verify_warnings"] = vj.get("warnings")
        r["verify"] = {k: vj.get(k) for k in ("lines", "entries", "torn", "malformed", "dangling", "leaf",
                                                "unreached", "warnings") if k in vj}
    except (ValueError, IndexError):
        r["verify_ok"] = None
    p = subprocess.run([os.path.join(MEM, "mem-transcript"), "replay", path, "--format", "jsonl"],
                       capture_output=True, text=True)
    r["replay_rc"] = p.returncode
    r["replay_stderr"] = scrub(p.stderr.strip())
    ev = [json.loads(x) for x in p.stdout.splitlines() if x.startswith("{")]
    r["events"] = len(ev)
    kinds = {}
    for e in ev:
        kinds["%s/%s" % (e.get("role"), e.get("kind"))] = kinds.get("%s/%s" % (e.get("role"), e.get("kind")), 0) + 1
    r["kinds"] = kinds
    # a tool result whose text says the command failed, but read as a success
    wrong = []
    for e in ev:
        if e.get("kind") != "tool_result":
            continue
        t = e.get("text") or ""
        m = re.search(r"Process exited with code (\d+)", t) or re.match(r"Exit code (\d+)", t)
        if m and int(m.group(1)) != 0 and not e.get("is_error"):
            wrong.append({"line": e.get("line"), "text": cut(t, 160)})
    r["failed_read_as_success"] = wrong
    return r


def memories(name):
    out = {}
    for p in sorted(glob.glob(os.path.join(W, "snap", name, "*.md"))):
        out[os.path.basename(p)] = read(p)
    return out


def rule_of(text):
    m = re.search(r'^rule: "?([^"\n]+)"?', text, re.M)
    return m.group(1) if m else None


# ---------------------------------------------------------------- Claude Code

def claude_hooks(name):
    """hook runs of one Claude Code session: the stream-json hook events (every version
    that has --include-hook-events), then what only the debug log names (SessionEnd and
    PreCompact run outside the stream); `ms` is Claude Code's own timing where its debug
    log gives one"""
    runs = []
    for e in jsonl(os.path.join(W, name + ".out")):
        if e.get("type") == "system" and e.get("subtype") == "hook_response":
            runs.append({"event": e.get("hook_name"), "outcome": e.get("outcome"), "exit": e.get("exit_code"),
                         "stdout": e.get("stdout", ""), "stderr": e.get("stderr", "")})
    dbg = []
    for line in read(os.path.join(W, name + ".debug")).splitlines():
        m = re.search(r"\[DEBUG\] (?:Hooks: )?([A-Za-z]+(?::[A-Za-z]+)?) \[(.*?)\] (finished|completed) with status (-?\d+)"
                      r"(?: \((\d+)ms\))?", line)
        if m:
            dbg.append({"event": m.group(1), "cmd": m.group(2), "status": int(m.group(4)),
                        "ms": int(m.group(5)) if m.group(5) else None})
    events = []
    pool = list(dbg)
    for r in runs:
        d = next((d for d in pool if d["event"] == r["event"]), None)
        if d:
            pool.remove(d)
        events.append({"event": r["event"], "status": r["exit"] if r["exit"] is not None else 0,
                       "ms": d["ms"] if d else None})
    for d in pool:  # not in the stream: SessionEnd, PreCompact
        events.append({"event": d["event"], "status": d["status"], "ms": d["ms"]})
    return runs, events


def claude_errors(name):
    dbg = read(os.path.join(W, name + ".debug")).splitlines()
    settings = [l for l in dbg if "Invalid setting" in l or ("settings" in l.lower() and "[ERROR]" in l)]
    hookerr = [l for l in dbg if re.search(r"hook", l, re.I) and re.search(r"\[(ERROR|WARN)\]|failed|timed out|cancel", l, re.I)
               and "cc-plugin" not in l]
    errors = [l for l in dbg if "[ERROR]" in l]
    return settings, hookerr, errors, read(os.path.join(W, name + ".err")).strip()


def analyze_claude():
    R = RES["claude"]
    names = [n for n in ("c1", "c1b", "c2", "c2b", "c3", "c4", "c5") if n in SESSIONS]
    if not names:
        return
    say("=" * 78)
    say("CLAUDE CODE  %s" % os.environ.get("CLAUDE_VERSION", ""))
    say("=" * 78)
    say("install: " + cut(read(os.path.join(W, "claude-install.log")).strip().splitlines()[-2] if
                          read(os.path.join(W, "claude-install.log")).strip() else "", 300))
    fired, settings_errs, hook_fail, user_err = set(), [], [], []
    timing = {}
    for n in names:
        s = SESSIONS[n]
        runs, dbg = claude_hooks(n)
        settings, hookerr, errors, stderr = claude_errors(n)
        settings_errs += settings
        for r in runs:
            if r["outcome"] != "success" or r["exit"] not in (0, None):
                hook_fail.append((n, r))
        for d in dbg:
            fired.add(d["event"].split(":")[0])
            if d["status"] != 0:
                hook_fail.append((n, d))
        if stderr:
            user_err.append((n, stderr))
        say()
        say("--- %s: `%s`  rc=%d, %.2f s, %d requests" % (n, scrub(s["cmd"]).split(" -p ")[-1][:90], s["rc"],
                                                         s["wall_s"], s["req"][1] - s["req"][0]))
        say("hooks run (stream-json events + debug log; ms = Claude Code's own timing): " +
            ", ".join("%s %s%s" % (d["event"], "ok" if d["status"] == 0 else "status %d" % d["status"],
                                   " %dms" % d["ms"] if d["ms"] is not None else "") for d in dbg))
        t = time_hooks(n, [d["event"] for d in dbg])
        if t is not None:
            say("hooks (strace, process wall time): " + ", ".join("%s %s" % (e, "%.0fms" % ms if ms is not None else "?")
                                                                 for e, ms in t))
            timing[n] = t
        for r in runs:
            if r["stdout"].strip():
                say("  %s stdout: %s" % (r["event"], cut(r["stdout"].strip(), 300)))
            if r["stderr"].strip():
                say("  %s stderr: %s" % (r["event"], cut(r["stderr"].strip().replace("\n", " ⏎ "), 400)))
        if settings:
            say("SETTINGS ERRORS: " + "; ".join(cut(x, 300) for x in settings))
        if stderr:
            say("client stderr (what the user saw): " + cut(stderr, 600))
        other = [e for e in errors if "hook" in e.lower()]
        if other:
            say("debug-log errors naming hooks: " + "; ".join(cut(x, 200) for x in other))
    R["hooks_fired"] = sorted(fired)
    R["settings_errors"] = [scrub(x) for x in settings_errs]
    R["hook_failures"] = [[n, {k: scrub(str(v)) for k, v in r.items()}] for n, r in hook_fail]
    R["client_stderr"] = [[n, scrub(e)] for n, e in user_err]
    R["timing_ms"] = timing
    expected = {"SessionStart", "UserPromptSubmit", "PreToolUse", "Stop", "SessionEnd", "PreCompact"}
    say()
    say("events that ran mem's hooks: %s; installed but never ran: %s" % (", ".join(sorted(fired)),
                                                                      ", ".join(sorted(expected - fired)) or "none"))
    R["hooks_accepted"] = not settings_errs and not hook_fail and {"SessionStart", "UserPromptSubmit"} <= fired

    # transcripts
    say()
    home = SESSIONS[names[0]]["home"]
    R["transcripts"] = []
    for p in sorted(glob.glob(os.path.join(home, ".claude", "projects", "*", "*.jsonl"))):
        t = mem_transcript(p)
        R["transcripts"].append(t)
        say("transcript %s: verify ok=%s warnings=%s rc=%d; replay rc=%d, %d events %s%s" % (
            os.path.basename(p), t.get("verify_ok"), t.get("verify_warnings"), t["verify_rc"], t["replay_rc"],
            t["events"], json.dumps(t["kinds"]), (" stderr: " + cut(t["replay_stderr"], 200)) if t["replay_stderr"] else ""))
        if t["failed_read_as_success"]:
            say("  FAILED COMMANDS READ AS SUCCESS: %s" % json.dumps(t["failed_read_as_success"]))
    R["transcript_read"] = bool(R["transcripts"]) and all(
        t.get("verify_ok") and t["replay_rc"] == 0 and t["events"] > 0 and not t["failed_read_as_success"]
        for t in R["transcripts"])

    # memory written by the hooks
    say()
    m1 = memories("c1")
    lesson = {k: v for k, v in m1.items() if rule_of(v) == "lesson/fail-fix-succeed"}
    R["memory_written"] = bool(lesson)
    R["memories_after"] = {n: {k: rule_of(v) for k, v in memories(n).items()} for n in names}
    say("memory dir after each session (file: rule): " + json.dumps(R["memories_after"]))
    for k, v in lesson.items():
        say("memory written by session c1's hooks, %s:" % k)
        for line in v.strip().splitlines():
            say("    " + scrub(line))
    if "c1b" in SESSIONS:
        pref = {k: v for k, v in memories("c1b").items() if k not in m1}
        for k, v in pref.items():
            say("memory added by c1b (the user's instruction), %s: %s" % (k, cut(v.strip().replace("\n", " ⏎ "), 500)))

    # session 2: injected? PreToolUse lesson in the next request?
    say()
    inj, pre = analyze_session2("c2", "claude")
    R["injected"], R["pretool"] = inj, pre
    analyze_action("c2", "claude")
    R["extra"] = claude_extras(names)


def labelled(text, needle, n=900):
    """the text from the hook label (Claude: 'X hook additional context:') or the
    '# Recalled memories' header before needle, n characters"""
    i = text.find(needle)
    j = max(text.rfind("hook additional context", 0, i), text.rfind("# Recalled memories", 0, i)
            if "hook additional context" not in text[:i] else -1)
    if j < 0:
        j = i
    j = text.rfind("\n", 0, j) + 1
    return cut(text[j:i + n - (i - j) if i - j < n else i + 300], n + 10)


LESSON_HEAD = "## Run node src/setup.mjs before node src/build-token.mjs"


def analyze_session2(name, client):
    if name not in SESSIONS:
        return None, None
    mr = main_reqs(name)
    say("session %s: %d main-loop requests reached the fake model" % (name, len(mr)))
    if not mr:
        return False, False
    first = mr[0]
    hits = find(first, LESSON_HEAD)
    for w, role, text in hits:
        say("  request 1 %s (role %s):\n%s" % (w, role, labelled(text, LESSON_HEAD, 1100)))
    if client == "claude":
        for w, role, text in find(first, "auto-memory"):
            say("  request 1 also carries Claude Code's own auto-memory, %s: %s"
                % (w, excerpt(text, "Contents of", 0, 420)))
    injected = bool(hits)
    ss = find(first, "## User role")
    for w, role, text in ss:
        say("  request 1 %s (role %s), the seeded `type: user` memory:\n%s" % (w, role, labelled(text, "## User role", 520)))
    RES[client]["sessionstart_injected"] = bool(ss)
    pre = False
    needle = "Lessons from memory for the command about to run"
    if len(mr) > 1:
        before = find(first, needle)
        after = find(mr[1], needle)
        for w, role, text in after:
            say("  request 2 %s (role %s):\n%s" % (w, role, labelled(text, needle, 520)))
        pre = bool(after) and not before
        if not after:
            say("  request 2 has no PreToolUse lesson")
    return injected, pre


# ---------------------------------------------------------------- moment of action

BUILD, SETUP = "node src/build-token.mjs", "node src/setup.mjs"
BUILD_FAILED = re.compile(r"build-token: error|cannot read")  # what the seed's build-token prints on failure
BUILD_OK = "build-token: ok"


def tool_calls(reqs):
    """the model's tool calls in one session's main-loop requests, in order:
    id, cmd, asked (index of the request whose answer made the call), seen (index of
    the first request that carries its result), result (its text, as the model got it)"""
    calls = {}

    def call(cid, cmd, j):
        calls.setdefault(cid, {"id": cid, "cmd": cmd, "asked": j - 1})

    def result(cid, text, j):
        c = calls.get(cid)
        if c is not None and "seen" not in c:
            c.update(seen=j, result=text)

    for j, r in enumerate(reqs):
        b = r.get("body") or {}
        for m in b.get("messages") or []:
            for blk in m.get("content") if isinstance(m.get("content"), list) else []:
                if isinstance(blk, dict) and blk.get("type") == "tool_use":
                    call(blk.get("id"), (blk.get("input") or {}).get("command"), j)
                elif isinstance(blk, dict) and blk.get("type") == "tool_result":
                    result(blk.get("tool_use_id"), text_of(blk.get("content")), j)
        for it in b.get("input") if isinstance(b.get("input"), list) else []:
            t = it.get("type") if isinstance(it, dict) else None
            if t in ("function_call", "local_shell_call", "custom_tool_call"):
                call(it.get("call_id"), call_command(it), j)
            elif t in ("function_call_output", "local_shell_call_output", "custom_tool_call_output"):
                o = it.get("output")
                result(it.get("call_id"), o if isinstance(o, str) else text_of(o) if isinstance(o, list)
                       else json.dumps(o), j)
    return list(calls.values())


def client_record(client, home, cid):
    """what the client's own record (Claude Code transcript, Codex rollout) says about
    tool call cid: (found, ran: True / False / None, how)"""
    if client == "claude":
        for p in sorted(glob.glob(os.path.join(home, ".claude", "projects", "*", "*.jsonl"))):
            for line in read(p).splitlines():
                if cid not in line or '"toolUseResult"' not in line:
                    continue
                try:
                    e = json.loads(line)
                except ValueError:
                    continue
                c = (e.get("message") or {}).get("content")
                if not any(isinstance(b, dict) and b.get("tool_use_id") == cid for b in c if isinstance(c, list)):
                    continue
                tur, pd = e.get("toolUseResult"), e.get("permissionDecision") or {}
                if pd.get("decision") in ("reject", "deny"):
                    return True, False, "not run: permissionDecision %s from %s (%s)" % (
                        pd.get("decision"), pd.get("source"), pd.get("reasonCode") or pd.get("reasonType"))
                if isinstance(tur, dict) and ("stdout" in tur or "stderr" in tur):
                    return True, True, "ran: stdout/stderr recorded"
                if isinstance(tur, str) and re.match(r"Error: Exit code \d+", tur):
                    return True, True, "ran: " + tur.splitlines()[0][len("Error: "):]
                return True, False, "no process output recorded: " + cut(str(tur), 160)
        return False, None, "not in the transcripts"
    found = None
    for p in sorted(glob.glob(os.path.join(home, ".codex", "sessions", "**", "rollout-*.jsonl"), recursive=True)):
        for line in read(p).splitlines():
            if cid not in line:
                continue
            try:
                pl = json.loads(line).get("payload") or {}
            except ValueError:
                continue
            item = pl.get("item") or {}
            if pl.get("type") == "item_completed" and item.get("type") == "CommandExecution" and item.get("id") == cid:
                return True, True, "ran: CommandExecution, exit code %s" % item.get("exit_code")
            if pl.get("type") == "exec_command_end" and pl.get("call_id") == cid:
                return True, True, "ran: exec_command_end, exit code %s" % pl.get("exit_code")
            if pl.get("type") == "function_call_output" and pl.get("call_id") == cid:
                found = pl.get("output")
    if found is not None:
        return True, False, "no command execution recorded; output: " + cut(str(found), 160)
    return False, None, "not in the rollouts"


def lesson_arrivals(reqs):
    """[(request index, where, role, text)]: pieces of text naming the lesson's precondition
    that no earlier request of the session carried (the model's own calls and answers left out)"""
    seen, out = set(), []
    for j, r in enumerate(reqs):
        for w, role, t in blocks(r):
            if role != "assistant" and SETUP in t and t not in seen:
                out.append((j, w, role, t))
            seen.add(t)
    return out


def analyze_action(name, client):
    """moment of action: was the first `node src/build-token.mjs` stopped before it ran,
    with the lesson as the reason (then setup, then a passing build-token)?"""
    R = RES[client]
    if name not in SESSIONS:
        return
    mr = main_reqs(name)
    calls = tool_calls(mr)
    first = next((c for c in calls if BUILD in (c.get("cmd") or "")), None)
    say("moment of action, session %s:" % name)
    ev = {"session": name}
    if first is None:
        verdict, text = None, "n/a (no `%s` call)" % BUILD
        say("  no `%s` call reached the fake model" % BUILD)
    else:
        res, seen = first.get("result"), first.get("seen")
        found, ran_rec, how = client_record(client, SESSIONS[name]["home"], first["id"])
        output = res is not None and bool(BUILD_FAILED.search(res) or BUILD_OK in res)
        ran = output or bool(ran_rec)
        names = res is not None and SETUP in res
        later = calls[calls.index(first) + 1:]
        setup = next((c for c in later if SETUP in (c.get("cmd") or "") and c.get("result") is not None
                      and not precondition_in(c["cmd"], c["result"])), None)
        passed = next((c for c in later if BUILD in (c.get("cmd") or "") and BUILD_OK in (c.get("result") or "")),
                      None)
        arrivals = lesson_arrivals(mr)
        before = [a for a in arrivals if a[0] <= first["asked"]]
        at = [a for a in arrivals if seen is not None and a[0] == seen]
        after = [a for a in arrivals if seen is not None and a[0] > seen]
        ev.update(call=first["id"], asked_in_request=first["asked"] + 1,
                  result_in_request=None if seen is None else seen + 1,
                  result=None if res is None else cut(res, 400), failure_output_in_result=bool(output),
                  result_names_precondition=names, client_record=how, ran=ran,
                  lesson_before=[[a[0] + 1, a[1], a[2]] for a in before],
                  lesson_with_result=[[a[0] + 1, a[1], a[2]] for a in at],
                  lesson_later=[[a[0] + 1, a[1], a[2]] for a in after],
                  setup_ran_after_in_request=setup["seen"] + 1 if setup else None,
                  build_token_passed_after_in_request=passed["seen"] + 1 if passed else None)
        say("  the first `%s` (call %s) was asked for in request %d; its result reached the model in request %s:"
            % (BUILD, first["id"], first["asked"] + 1, "-" if seen is None else seen + 1))
        say("    " + (cut(res, 400).replace("\n", " ⏎ ") if res is not None else "(none)"))
        say("  the %s's own record: %s" % ("transcript" if client == "claude" else "rollout", how))
        for label, lst in (("before the command (with the prompt)", before), ("with its result", at),
                           ("after its result", after)):
            for j, w, role, t in lst:
                i = t.find(SETUP)
                say("  the lesson reached the model %s, request %d %s (role %s): %s"
                    % (label, j + 1, w, role, cut(t[max(0, t.rfind("\n", 0, i) + 1):i + 160], 240).replace("\n", " ⏎ ")))
        say("  then: `%s` %s; `%s` %s" % (
            SETUP, "ran (result in request %d)" % (setup["seen"] + 1) if setup else "did not run",
            BUILD, "passed (result in request %d)" % (passed["seen"] + 1) if passed else "did not pass"))
        if res is None:
            verdict, text = None, "n/a (its result never reached the model)"
        elif not ran and names:
            if setup and passed and calls.index(setup) < calls.index(passed):
                verdict, text = True, "yes"
            else:
                verdict, text = False, "no (refused, but %s)" % ("setup did not run" if not setup else
                                                               "build-token did not pass after setup")
        elif not ran:
            verdict, text = False, "no (refused without naming the lesson)"
        elif at or after:
            verdict, text = False, "no (reminder after the command)"
        elif before:
            verdict, text = False, "no (command ran; the lesson came only with the prompt)"
        else:
            verdict, text = False, "no (command ran; no lesson reached the model)"
    R["action_before"], R["action_before_text"], R["action_before_evidence"] = verdict, text, ev
    say("  action-before %s" % text)


def claude_extras(names):
    ex = {}
    if "c2b" in SESSIONS:
        rs = [r for r in reqs_of("c2b") if r.get("note", "").startswith("anthropic") and " side" not in r["note"]]
        if rs:
            last = rs[-1]
            head = "## Run node src/setup.mjs before node src/build-token.mjs"
            hits = find(last, head)
            ex["c2b_lesson_copies"] = sum(t.count(head) for _, _, t in hits)
            say("c2b (same conversation as c2, one more prompt): the lesson appears %d time(s) in the request"
                % ex["c2b_lesson_copies"])
            for w, role, text in hits:
                i = text.find(head)
                why = re.search(r"Why: .*", text[i:])
                say("  %s (role %s): %s" % (w, role, cut(why.group(0) if why else text[i:i + 200], 200)))
    # re-injection of an unchanged lesson in a resumed session (c1 -> c1b: first injection is fine)
    if "c5" in SESSIONS:
        runs, dbg = claude_hooks("c4")
        ex["c4_events"] = [d["event"] for d in dbg]
        say("c4 (/compact of c3): hooks %s" % ", ".join("%s(%s)" % (d["event"], d["status"]) for d in dbg))
        rs = [r for r in reqs_of("c5") if r.get("note", "").startswith("anthropic") and " side" not in r["note"]]
        hits = find(rs[0], "# Session memory") if rs else []
        ex["session_memory_injected"] = bool(hits)
        ex["session_memory_stale"] = False
        for w, role, text in hits[:1]:
            i = text.find("# Session memory")
            end = text.find("~~~\n", text.find("~~~markdown", i) + 12)
            body = text[i:end + 3]
            say("c5 (first prompt after the compaction) %s (role %s):\n%s" % (w, role, labelled(text, "# Session memory", len(body) + 60)))
            # c3's last build-token run passed: an open error for it is stale
            ex["session_memory_stale"] = "### Open errors" in body and "node src/build-token.mjs" in body.split("### Open errors")[1]
        if not hits:
            say("c5: no `# Session memory` in the first request after the compaction")
        else:
            say("c5: session memory %s" % ("STALE: lists `node src/build-token.mjs` as an open error, but its last run "
                                           "in c3 passed" if ex["session_memory_stale"] else "matches the session"))
    return ex


# ---------------------------------------------------------------- Codex

def codex_hooks(name):
    err = read(os.path.join(W, name + ".err")).splitlines()
    starts = [m.group(1) for m in (re.match(r"^hook: (\w+)$", l) for l in err) if m]
    ends = [(m.group(1), m.group(2)) for m in (re.match(r"^hook: (\w+) (\w+)$", l) for l in err) if m]
    warnings = [l for l in err if l.startswith("warning:")]
    errors = [l for l in err if re.match(r"^(ERROR|error)\b", l) or " ERROR " in l[:40]]
    return starts, ends, warnings, errors


def analyze_codex():
    R = RES["codex"]
    names = [n for n in ("x0", "x1", "x1b", "x2") if n in SESSIONS]
    if not names:
        return
    say()
    say("=" * 78)
    say("CODEX  %s" % os.environ.get("CODEX_VERSION", ""))
    say("=" * 78)
    inst = read(os.path.join(W, "codex-install.log")).strip().splitlines()
    say("install: " + " / ".join(cut(l, 200) for l in inst if not l.startswith("added ")))
    bypass = read(os.path.join(W, "codex-bypass")).strip()
    R["trust"] = "bypass flag" if bypass else "trusted via app-server hooks/list (what /hooks stores)"
    say("trust: " + R["trust"] + "; " + " / ".join(cut(l, 120) for l in read(os.path.join(W, "codex-trust.log")).splitlines()[-1:]))
    fired, fails, warn_all, timing = set(), [], set(), {}
    for n in names:
        s = SESSIONS[n]
        starts, ends, warnings, errors = codex_hooks(n)
        fired |= set(starts) if n != "x0" else set()
        fails += [(n, e) for e in ends if e[1] != "Completed" and e != ("PreToolUse", "Blocked")]
        warn_all |= set(warnings)
        say()
        say("--- %s: `%s`  rc=%d, %.2f s, %d requests" % (n, scrub(s["cmd"]).split(" exec ")[-1][:90], s["rc"], s["wall_s"],
                                                         s["req"][1] - s["req"][0]))
        say("hooks run: %s" % (", ".join("%s %s" % e for e in ends) or "NONE"))
        t = time_hooks(n, starts)
        if t:
            t = [("SessionEnd (not printed by codex)" if e == "(unnamed write)" else e, ms) for e, ms in t]
            say("hooks (strace, process wall time): " + ", ".join("%s %s" % (e, "%.0fms" % ms if ms is not None else "?")
                                                                 for e, ms in t))
            timing[n] = t
        for w in warnings:
            say("  user saw: " + cut(w, 300))
        for e in errors:
            say("  user saw error: " + cut(e, 300))
        if n == "x0":
            R["untrusted_hooks_run"] = len(starts)
    R["hooks_fired"] = sorted(fired)
    R["hook_failures"] = fails
    R["warnings"] = sorted(scrub(w) for w in warn_all)
    R["timing_ms"] = timing
    R["hooks_accepted"] = bool(fired) and not fails and {"SessionStart", "UserPromptSubmit"} <= fired

    say()
    home = SESSIONS[names[0]]["home"]
    R["rollouts"] = []
    for p in sorted(glob.glob(os.path.join(home, ".codex", "sessions", "**", "rollout-*.jsonl*"), recursive=True)):
        t = mem_transcript(p)
        R["rollouts"].append(t)
        say("rollout %s: verify ok=%s warnings=%s rc=%d; replay rc=%d, %d events %s" % (
            os.path.basename(p)[:40] + "…", t.get("verify_ok"), t.get("verify_warnings"), t["verify_rc"],
            t["replay_rc"], t["events"], json.dumps(t["kinds"])))
        if t["failed_read_as_success"]:
            say("  FAILED COMMANDS READ AS SUCCESS (is_error false): %s" % json.dumps(t["failed_read_as_success"][:2]))
    R["rollout_parsed"] = bool(R["rollouts"]) and all(t.get("verify_ok") and t["replay_rc"] == 0 and t["events"] > 0
                                                      for t in R["rollouts"])
    R["rollout_failures_seen"] = bool(R["rollouts"]) and not any(t["failed_read_as_success"] for t in R["rollouts"])

    say()
    R["memories_after"] = {n: {k: rule_of(v) for k, v in memories(n).items()} for n in names}
    say("memory dir after each session (file: rule): " + json.dumps(R["memories_after"]))
    m1 = memories("x1")
    R["memory_written"] = any(rule_of(v) == "lesson/fail-fix-succeed" for v in m1.values())
    R["preference_written"] = any(rule_of(v) == "feedback/always" for v in memories("x1b").values())
    for k, v in memories("x1b").items():
        if rule_of(v) == "feedback/always":
            say("memory written from the Codex rollout by x1b's hooks, %s: %s" % (k, cut(v.strip().replace("\n", " ⏎ "), 400)))
    seeded = read(os.path.join(W, "codex-seeded")).strip()
    R["seeded"] = scrub(seeded) if seeded else None
    if seeded:
        say("x2 runs with the lesson SEEDED from %s (Codex's own session wrote none)" % scrub(seeded))
    say()
    inj, pre = analyze_session2("x2", "codex")
    R["injected"], R["pretool"] = inj, pre
    analyze_action("x2", "codex")


# ---------------------------------------------------------------- summary

def yn(v):
    return "n/a" if v is None else ("yes" if v else "no")


def per_session_ms(t):
    vals = [sum(ms for _, ms in sess if ms) for sess in t.values()]
    return "%.0f-%.0f ms/session" % (min(vals), max(vals)) if vals else "n/a"


def main():
    analyze_claude()
    analyze_codex()
    parts = []
    c, x = RES["claude"], RES["codex"]
    if c:
        dup = c.get("extra", {}).get("c2b_lesson_copies")
        sm = c.get("extra", {})
        smtxt = ", session-memory %s%s" % (yn(sm.get("session_memory_injected")),
                                           " (stale)" if sm.get("session_memory_stale") else "")
        parts.append("claude hooks-accepted %s, memory-written %s, injected %s, reminder-after %s, action-before %s, "
                     "sessionstart %s, transcript-read %s%s%s, hooks %s"
                     % (yn(c.get("hooks_accepted")), yn(c.get("memory_written")), yn(c.get("injected")),
                        yn(c.get("pretool")), c.get("action_before_text", "n/a"),
                        yn(c.get("sessionstart_injected")), yn(c.get("transcript_read")),
                        ", lesson re-injected (%dx in one conversation)" % dup if dup and dup > 1 else "", smtxt,
                        per_session_ms(c.get("timing_ms") or {})))
    if x:
        star = "*" if x.get("seeded") else ""
        warn = [w for w in x.get("warnings", []) if "hooks.json" in w]
        parts.append("codex hooks-accepted %s%s (untrusted: %d ran), memory-written %s (user preference %s), "
                     "injected %s%s, reminder-after %s%s, action-before %s%s, sessionstart %s, rollout-read %s%s, hooks %s%s"
                     % (yn(x.get("hooks_accepted")), " +%d warning" % len(warn) if warn else "",
                        x.get("untrusted_hooks_run", -1), yn(x.get("memory_written")),
                        yn(x.get("preference_written")), yn(x.get("injected")), star, yn(x.get("pretool")), star,
                        x.get("action_before_text", "n/a"), star,
                        yn(x.get("sessionstart_injected")), yn(x.get("rollout_parsed")),
                        "" if x.get("rollout_failures_seen") else " (failed commands read as success)",
                        per_session_ms(x.get("timing_ms") or {}),
                        "; *lesson seeded, Codex's own sessions wrote none" if star else ""))
    summary = "realclient: " + " | ".join(parts)
    say()
    say(summary)
    with open(os.path.join(W, "report.txt"), "w") as f:
        f.write("\n".join(OUT) + "\n")
    with open(os.path.join(W, "results.json"), "w") as f:
        json.dump(RES, f, indent=1, default=str)
    print("\n".join(OUT))


if __name__ == "__main__":
    main()
