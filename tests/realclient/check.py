#!/usr/bin/env python3
"""What mem promises in the real clients, checked on WORK/results.json
(written by analyze.py); run.sh --check runs it.

  check.py WORK [both|claude|codex]

Prints one line per failed check and exits 1 when any failed, else prints
`realclient: checks passed` and exits 0.
"""
import json
import os
import sys


def main(work, mode="both"):
    r = json.load(open(os.path.join(work, "results.json")))
    bad = []

    def need(client, ok, what):
        if not ok:
            bad.append("%s: %s" % (client, what))

    if mode in ("both", "claude"):
        c = r.get("claude") or {}
        x = c.get("extra") or {}
        need("claude", c.get("hooks_accepted"), "the hooks were not accepted (or failed)")
        need("claude", c.get("memory_written"), "no memory written by the Stop hook (c1)")
        need("claude", c.get("sessionstart_injected"), "nothing injected at SessionStart (c2)")
        need("claude", c.get("injected"), "no recall on the prompt (c2)")
        need("claude", c.get("action_before"),
             "the lesson did not stop the command before it ran (c2): %s" % c.get("action_before_text"))
        need("claude", (x.get("c2b_lesson_copies") or 0) <= 1,
             "the lesson was injected %s times in one conversation (c2b)" % x.get("c2b_lesson_copies"))
        need("claude", x.get("session_memory_injected"), "no session memory after the compaction (c5)")
        need("claude", not x.get("session_memory_stale"),
             "the session memory after the compaction calls a passed command an open error (c5)")
        mems = (c.get("memories_after") or {}).get("c2") or {}
        need("claude", not any("fix-named-by-output" in (v or "") for v in mems.values()),
             "mem's own refusal became a lesson (c2)")
    if mode in ("both", "codex"):
        c = r.get("codex") or {}
        need("codex", c.get("untrusted_hooks_run") == 0, "a hook ran before it was trusted (x0)")
        need("codex", c.get("hooks_accepted"), "the trusted hooks did not run (x1)")
        need("codex", c.get("memory_written"), "no memory written from the rollout (x1)")
        need("codex", c.get("sessionstart_injected"), "nothing injected at SessionStart (x2)")
        need("codex", c.get("injected"), "no recall on the prompt (x2)")
        need("codex", c.get("action_before"),
             "the lesson did not stop the command before it ran (x2): %s" % c.get("action_before_text"))
    for b in bad:
        print("realclient: FAILED %s" % b)
    if bad:
        return 1
    print("realclient: checks passed")
    return 0


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
