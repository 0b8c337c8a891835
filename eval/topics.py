"""The topic files of a memory directory as the eval scripts read them.

`topics(memdir)` yields, for each `*.md` but `MEMORY.md` in name order,
`(file name, frontmatter dict, hay)`: hay is the lowercased name,
description, body and triggers, what a label's words are looked for in.
A missing directory has none; frontmatter YAML cannot parse reads as `{}`.
"""
import os

import yaml


def topics(memdir):
    if not os.path.isdir(memdir):
        return
    for name in sorted(os.listdir(memdir)):
        if not name.endswith(".md") or name == "MEMORY.md":
            continue
        text = open(os.path.join(memdir, name), encoding="utf-8").read()
        fm, body = {}, text
        if text.startswith("---\n"):
            end = text.find("\n---", 4)
            if end > 0:
                try:
                    fm = yaml.safe_load(text[4:end]) or {}
                except yaml.YAMLError:
                    fm = {}
                body = text[end + 4:]
        trig = fm.get("triggers") or []
        hay = " ".join([str(fm.get("name", "")), str(fm.get("description", "")), body,
                        " ".join(map(str, trig))]).lower()
        yield name, fm, hay
