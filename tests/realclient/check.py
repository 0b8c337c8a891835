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

    def recalled(client, c, hooks, written, turn):
        """The promises both clients keep: the hooks ran, a memory was
        written, and in the next session (`turn`) it was injected and
        stopped the command before it ran."""
        need(client, c.get("hooks_accepted"), hooks)
        need(client, c.get("memory_written"), written)
        need(client, c.get("sessionstart_injected"), "nothing injected at SessionStart (%s)" % turn)
        need(client, c.get("injected"), "no recall on the prompt (%s)" % turn)
        need(client, c.get("action_before"), "the lesson did not stop the command before it ran (%s): %s"
             % (turn, c.get("action_before_text")))

    if mode in ("both", "claude"):
        c = r.get("claude") or {}
        x = c.get("extra") or {}
        recalled("claude", c, "the hooks were not accepted (or failed)",
                 "no memory written by the Stop hook (c1)", "c2")
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
        recalled("codex", c, "the trusted hooks did not run (x1)",
                 "no memory written from the rollout (x1)", "x2")
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
