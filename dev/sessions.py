"""Sessions of the corpus copied into a fake home (corpus-home.py,
eval/eval-precision.py).

`slug(path)`: the folder name Claude Code gives a project's sessions
(every character but ASCII letters and digits made `-`).
`rewrite(line, cwd_of)`: a transcript line with each recorded `cwd` (an
entry's, a Codex payload's) replaced by `cwd_of(old cwd)`; a line that is no
JSON object stays as it is.
"""
import json
import re


def slug(p):
    return re.sub(r"[^A-Za-z0-9]", "-", p)


def rewrite(line, cwd_of):
    try:
        v = json.loads(line)
    except ValueError:
        return line  # damaged lines stay as they are
    if not isinstance(v, dict):
        return line
    if isinstance(v.get("cwd"), str):
        v["cwd"] = cwd_of(v["cwd"])
    p = v.get("payload")
    if isinstance(p, dict) and isinstance(p.get("cwd"), str):
        p["cwd"] = cwd_of(p["cwd"])
    return json.dumps(v, ensure_ascii=False) + "\n"
