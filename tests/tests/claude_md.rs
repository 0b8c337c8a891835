//! `CLAUDE.md` as Claude Code loads it, through `mem-recall context` and
//! the `SessionStart` hook: the managed policy's file first, then the
//! user's, then the project's; `@path` imports relative to the importing
//! file (`~/` for home), 5 hops deep, not inside code; cycles and missing
//! files named on stderr; a file over 200 lines named on stderr; and a
//! `MEMORY.md` over its limits followed by the warning that says where
//! detail belongs.

use std::path::Path;

use mem_tests::{Home, bin, run, show};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn context_loads_claude_md_as_claude_code_does() {
    let h = Home::new();
    let managed = h.path().join("etc-claude-code");
    let proj = h.path().join("proj");
    let mem = h.path().join("mem");
    write(
        &managed.join("CLAUDE.md"),
        "ORG POLICY: never push to main\n",
    );
    write(
        &h.claude().join("CLAUDE.md"),
        "USER RULES, with my notes @~/notes/me.md\n",
    );
    write(&h.home().join("notes/me.md"), "HOME NOTE\n");
    let long: String = (1..=250).map(|i| format!("rule {i}\n")).collect();
    write(
        &proj.join("CLAUDE.md"),
        &format!(
            "PROJECT RULES: see @docs/a.md and @docs/gone.md, not `@docs/span.md`\n\n```\n@docs/fenced.md\n```\n{long}"
        ),
    );
    // a chain of imports, each relative to the file that holds it
    write(&proj.join("docs/a.md"), "HOP1 @b/c.md\n");
    write(&proj.join("docs/b/c.md"), "HOP2 @d.md, back @../a.md\n");
    write(&proj.join("docs/b/d.md"), "HOP3 @e.md\n");
    write(&proj.join("docs/b/e.md"), "HOP4 @f.md\n");
    write(&proj.join("docs/b/f.md"), "HOP5 @g.md\n");
    write(&proj.join("docs/b/g.md"), "HOP6\n");
    write(&proj.join("docs/span.md"), "SPAN\n");
    write(&proj.join("docs/fenced.md"), "FENCED\n");
    let index: String = (1..=230)
        .map(|i| format!("- [Note {i}](note-{i}.md) — hook {i}\n"))
        .collect();
    write(&mem.join("MEMORY.md"), &index);

    let mut c = h.command(bin("mem-recall"));
    c.args(["context", "--cwd"])
        .arg(&proj)
        .arg("--memory-dir")
        .arg(&mem)
        .env("MEM_MANAGED_DIR", &managed);
    let o = run(c, b"");
    assert!(o.status.success(), "{}", show(&o));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    // Claude Code's order: managed, user (and its import), project, imports
    let order = [
        "(managed policy)",
        "ORG POLICY",
        "USER RULES",
        "HOME NOTE",
        "PROJECT RULES",
        "HOP1",
        "HOP2",
        "HOP3",
        "HOP4",
        "HOP5",
        "# Memory index (MEMORY.md)",
    ];
    let pos: Vec<usize> = order
        .iter()
        .map(|s| out.find(s).unwrap_or_else(|| panic!("{s} missing:\n{out}")))
        .collect();
    assert!(pos.windows(2).all(|w| w[0] < w[1]), "{pos:?}\n{out}");
    // five hops, not six; nothing inside code
    assert!(!out.contains("HOP6"), "{out}");
    assert!(!out.contains("SPAN") && !out.contains("FENCED"), "{out}");
    assert!(
        err.contains("f.md: import @g.md not followed: more than 5 hops"),
        "{err}"
    );
    assert!(err.contains("import cycle: "), "{err}");
    assert!(
        err.contains("import @docs/gone.md not followed: ")
            && err.contains("docs/gone.md not found"),
        "{err}"
    );
    // the long CLAUDE.md: named with its length, shown whole
    assert!(
        err.contains("proj/CLAUDE.md: 255 lines, over the 200 advised for an instruction file"),
        "{err}"
    );
    assert!(out.contains("rule 250"), "{out}");
    // MEMORY.md over 200 lines: cut, with Claude Code's warning
    assert!(
        out.contains("Note 199") && !out.contains("Note 200 "),
        "{out}"
    );
    assert!(
        out.contains("> WARNING: MEMORY.md is 230 lines (limit: 200), so only part of it was loaded. MEMORY.md is an index: keep it to one line per memory"),
        "{out}"
    );
    assert!(
        out.contains("put the detail in the topic files it links to."),
        "{out}"
    );

    // Without the managed file nothing is said of it.
    std::fs::remove_file(managed.join("CLAUDE.md")).unwrap();
    let mut c = h.command(bin("mem-recall"));
    c.args(["context", "--cwd"])
        .arg(&proj)
        .arg("--memory-dir")
        .arg(&mem)
        .env("MEM_MANAGED_DIR", &managed);
    let o = run(c, b"");
    assert!(o.status.success(), "{}", show(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        !out.contains("managed policy") && !out.contains("ORG POLICY"),
        "{out}"
    );
    assert!(out.contains("USER RULES"), "{out}");
}

/// The managed policy's file is never copied into a file the section is
/// written to (`AGENTS.md`), and an index within its limits gets no
/// warning.
#[test]
fn managed_policy_is_shown_not_written() {
    let h = Home::new();
    let managed = h.path().join("managed");
    let proj = h.path().join("proj");
    let mem = h.path().join("mem");
    write(&managed.join("CLAUDE.md"), "ORG POLICY\n");
    write(&proj.join("CLAUDE.md"), "PROJECT RULES\n");
    write(&mem.join("MEMORY.md"), "- [One](one.md) — a hook\n");
    let agents = proj.join("AGENTS.md");
    let mut c = h.command(bin("mem-recall"));
    c.args(["context", "--include-claude-md", "--cwd"])
        .arg(&proj)
        .arg("--memory-dir")
        .arg(&mem)
        .arg("--update")
        .arg(&agents)
        .env("MEM_MANAGED_DIR", &managed);
    let o = run(c, b"");
    assert!(o.status.success(), "{}", show(&o));
    let written = std::fs::read_to_string(&agents).unwrap();
    assert!(written.contains("PROJECT RULES"), "{written}");
    assert!(!written.contains("ORG POLICY"), "{written}");
    assert!(!written.contains("WARNING"), "{written}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("CLAUDE.md: left out of the written file"),
        "{err}"
    );
}

/// At `SessionStart` the hook gives the cut index's WARNING line and the
/// warning that says where detail belongs.
#[test]
fn session_start_says_where_detail_belongs() {
    let h = Home::new();
    let proj = h.path().join("proj");
    let mem = h.path().join("mem");
    std::fs::create_dir_all(&proj).unwrap();
    // within 200 lines, over 25,000 bytes
    let index: String = (1..=150)
        .map(|i| {
            format!(
                "- [Note {i}](note-{i}.md) — {}\n",
                "a long hook ".repeat(14)
            )
        })
        .collect();
    assert!(index.len() > 25_000);
    write(&mem.join("MEMORY.md"), &index);
    let mut c = h.command(bin("mem-hook"));
    c.env("MEM_MEMORY_DIR", &mem);
    let input = serde_json::json!({
        "session_id": "5e55a0e1-aaaa-4bbb-8ccc-444455556666",
        "cwd": proj,
        "hook_event_name": "SessionStart",
        "source": "startup",
    });
    let o = run(c, input.to_string().as_bytes());
    assert!(o.status.success(), "{}", show(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("hook JSON");
    let ctx = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        ctx.starts_with("MEMORY.md was cut when loaded: WARNING: "),
        "{ctx}"
    );
    assert!(
        ctx.contains(&format!(
            "> WARNING: MEMORY.md is {} bytes (limit: 25000), so only part of it was loaded.",
            index.len()
        )),
        "{ctx}"
    );
}
