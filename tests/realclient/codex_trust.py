#!/usr/bin/env python3
"""Trust the mem hooks of a Codex home the way Codex's own `/hooks` review does:
ask `codex app-server` (JSON-RPC on stdio) for `hooks/list`, then store each
mem hook's `currentHash` as `hooks.state."<key>".trusted_hash` in config.toml
through `config/value/write`. Prints one line per hook: event, status before.

  codex_trust.py PROJECT_DIR [--list] [--also TEXT]   (CODEX_HOME / HOME from the environment)

--also TEXT trusts hooks whose command contains TEXT too.
"""
import json
import subprocess
import sys


def main():
    cwd = sys.argv[1]
    only_list = "--list" in sys.argv
    mine = ["mem-"] + [sys.argv[i + 1] for i, a in enumerate(sys.argv[:-1]) if a == "--also"]
    p = subprocess.Popen(["codex", "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, cwd=cwd)
    n = [0]

    def call(method, params):
        n[0] += 1
        p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": n[0], "method": method, "params": params}) + "\n")
        p.stdin.flush()
        while True:
            line = p.stdout.readline()
            if not line:
                raise SystemExit("codex app-server closed its output")
            msg = json.loads(line)
            if msg.get("id") == n[0]:
                if "error" in msg:
                    raise SystemExit("%s: %s" % (method, msg["error"]))
                return msg.get("result")

    call("initialize", {"clientInfo": {"name": "realclient", "title": None, "version": "1"}})
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "initialized"}) + "\n")
    p.stdin.flush()
    res = call("hooks/list", {"cwds": [cwd]})
    state = {}
    for group in res.get("data", []):
        for h in group.get("hooks", []) if isinstance(group, dict) and "hooks" in group else [group]:
            cmd = h.get("command") or ""
            print("%s %s %s" % (h.get("eventName"), h.get("trustStatus"), cmd[:60]))
            if any(m in cmd for m in mine) and h.get("trustStatus") != "trusted":
                state[h["key"]] = {"trusted_hash": h["currentHash"]}
    if state and not only_list:
        call("config/value/write", {"keyPath": "hooks.state", "value": state, "mergeStrategy": "upsert"})
        print("trusted %d hook(s)" % len(state))
    p.stdin.close()
    p.terminate()
    p.wait(timeout=10)


if __name__ == "__main__":
    main()
