//! `mem-hook install|uninstall|show` on real files: merge and
//! idempotence, exact uninstall (the previous installer's bare-name entries
//! too), a changed bin dir, refused files, Codex's hooks.json, --project,
//! --model-cmd, permissions, backups and a symlinked settings file.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use mem_tests::show;

use serde_json::{Value, json};

const TOOLS: [&str; 4] = ["mem-hook", "mem-transcript", "mem-extract", "mem-index"];

struct Home {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Home {
    fn new() -> Home {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        Home { _tmp: tmp, root }
    }

    /// A bin dir holding an executable stub for each tool.
    fn bin_dir(&self, name: &str) -> PathBuf {
        let d = self.root.join(name);
        std::fs::create_dir_all(&d).unwrap();
        for t in TOOLS {
            let p = d.join(t);
            std::fs::write(&p, "#!/bin/sh\nexit 0\n").unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        d
    }

    fn hooks(&self, args: &[&str], cwd: &Path, env: &[(&str, &Path)]) -> Output {
        let mut c = Command::new(env!("CARGO_BIN_EXE_mem-hook"));
        mem_tests::scrub(&mut c)
            .args(args)
            .env("HOME", &self.root)
            .current_dir(cwd);
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().unwrap()
    }
}

fn read(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// Every command of one event, in order.
fn commands(v: &Value, event: &str) -> Vec<String> {
    v["hooks"][event]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|g| g["hooks"].as_array().cloned().unwrap_or_default())
        .filter_map(|h| h["command"].as_str().map(str::to_string))
        .collect()
}

fn backups(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().contains(".bak"))
        .collect();
    v.sort();
    v
}

#[test]
fn a_new_bin_dir_updates_mem_entries_in_place() {
    let h = Home::new();
    let a = h.bin_dir("bin a");
    let b = h.bin_dir("b");
    let s = h.root.join(".claude/settings.json");
    std::fs::create_dir_all(s.parent().unwrap()).unwrap();
    // the previous installer's bare-name entries between the user's hooks
    std::fs::write(
        &s,
        r#"{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"echo first"},{"type":"command","command":"mem-recall --hook"},{"type":"command","command":"echo last"}]}]},"theme":"dark"}"#,
    )
    .unwrap();
    let a_arg = a.to_str().unwrap();
    let o = h.hooks(&["install", "--bin-dir", a_arg], &h.root, &[]);
    assert!(o.status.success(), "{}", show(&o));
    let v = read(&s);
    let qa = format!("'{}/mem-hook'", a.display());
    assert_eq!(
        commands(&v, "SessionStart"),
        [
            "echo first".to_string(),
            qa.clone(),
            "echo last".to_string()
        ]
    );
    assert_eq!(v["hooks"]["SessionStart"][0]["hooks"][1]["timeout"], 10);
    assert_eq!(
        commands(&v, "Stop"),
        [
            format!(
                "'{a}/mem-transcript' replay --hook | '{a}/mem-extract' | '{a}/mem-index' write >&2",
                a = a.display()
            ),
            qa.clone()
        ]
    );
    // the keys keep their order
    assert_eq!(
        v.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["hooks", "theme"]
    );
    // Another bin dir: the same entries, in the same places, new paths.
    let o = h.hooks(&["install", "--bin-dir", b.to_str().unwrap()], &h.root, &[]);
    assert!(o.status.success(), "{}", show(&o));
    let v2 = read(&s);
    let qb = format!("{}/mem-hook", b.display());
    assert_eq!(
        commands(&v2, "SessionStart"),
        ["echo first".to_string(), qb, "echo last".to_string()]
    );
    for spec in mem_core::hooks::HOOKS {
        assert_eq!(
            commands(&v2, spec.event).len(),
            commands(&v, spec.event).len()
        );
    }
    assert!(String::from_utf8_lossy(&o.stdout).contains("updated SessionStart"));
    // `show` says which are installed
    let o = h.hooks(&["show", "--bin-dir", b.to_str().unwrap()], &h.root, &[]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(out.matches("installed ").count(), 7, "{out}");
    let o = h.hooks(&["show", "--bin-dir", a_arg], &h.root, &[]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(out.matches("differs ").count(), 7, "{out}");
    // uninstall: exactly the user's hooks are left
    let before_uninstall = std::fs::read(&s).unwrap();
    let o = h.hooks(&["uninstall"], &h.root, &[]);
    assert!(o.status.success(), "{}", show(&o));
    assert_eq!(
        read(&s),
        json!({"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"echo first"},{"type":"command","command":"echo last"}]}]},"theme":"dark"})
    );
    // one backup, the file as it was before this last change
    let b = backups(s.parent().unwrap());
    assert_eq!(b.len(), 1, "{b:?}");
    assert!(
        b[0].to_string_lossy().ends_with("settings.json.bak"),
        "{b:?}"
    );
    assert_eq!(std::fs::read(&b[0]).unwrap(), before_uninstall);
}

#[test]
fn bad_files_and_missing_tools_are_refused_untouched() {
    let h = Home::new();
    let bin = h.bin_dir("bin");
    let bin_arg = bin.to_str().unwrap();
    let dir = h.root.join("cfg");
    std::fs::create_dir_all(&dir).unwrap();
    let s = dir.join("settings.json");
    let s_arg = s.to_str().unwrap();
    for (text, why) in [
        ("[1, 2]\n", "not a JSON object"),
        ("{\"hooks\": []}\n", "\"hooks\" is not an object"),
        (
            "{\"hooks\": {\"Stop\": {\"hooks\": []}}}\n",
            "\"hooks.Stop\" is not a list",
        ),
        (
            "{\n  \"model\": \"opus\",\n}\n",
            "settings.json:3: not JSON",
        ),
    ] {
        std::fs::write(&s, text).unwrap();
        for args in [
            vec!["install", "--settings", s_arg, "--bin-dir", bin_arg],
            vec!["uninstall", "--settings", s_arg],
        ] {
            let o = h.hooks(&args, &h.root, &[]);
            assert_eq!(o.status.code(), Some(1), "{}", show(&o));
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(err.contains(why) && err.contains("left untouched"), "{err}");
            assert_eq!(std::fs::read_to_string(&s).unwrap(), text);
            assert!(backups(&dir).is_empty());
        }
    }
    // A tool missing from the bin dir is named; nothing is written.
    std::fs::write(&s, "{}\n").unwrap();
    std::fs::remove_file(bin.join("mem-extract")).unwrap();
    let o = h.hooks(
        &["install", "--settings", s_arg, "--bin-dir", bin_arg],
        &h.root,
        &[],
    );
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("mem-extract not found there") && err.contains("nothing written"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&s).unwrap(), "{}\n");
}

#[test]
fn permissions_backup_and_a_symlinked_file() {
    let h = Home::new();
    let bin = h.bin_dir("bin");
    let dotfiles = h.root.join("dotfiles");
    std::fs::create_dir_all(&dotfiles).unwrap();
    let real = dotfiles.join("claude-settings.json");
    std::fs::write(&real, "{\"model\": \"opus\"}\n").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
    let claude = h.root.join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    std::os::unix::fs::symlink(&real, claude.join("settings.json")).unwrap();
    let o = h.hooks(
        &["install", "--bin-dir", bin.to_str().unwrap()],
        &h.root,
        &[],
    );
    assert!(o.status.success(), "{}", show(&o));
    // written through the link, which stays a link
    assert!(
        std::fs::symlink_metadata(claude.join("settings.json"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let v = read(&real);
    assert_eq!(v["model"], "opus");
    assert_eq!(commands(&v, "UserPromptSubmit").len(), 1);
    let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
    let b = backups(&dotfiles);
    assert_eq!(b.len(), 1, "{b:?}");
    assert_eq!(
        std::fs::read_to_string(&b[0]).unwrap(),
        "{\"model\": \"opus\"}\n"
    );
    // Twice: unchanged, no second backup.
    let o = h.hooks(
        &["install", "--bin-dir", bin.to_str().unwrap()],
        &h.root,
        &[],
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("unchanged"));
    assert_eq!(backups(&dotfiles).len(), 1);
}

#[test]
fn codex_hooks_json_project_files_and_the_features_switch() {
    let h = Home::new();
    let bin = h.bin_dir("bin");
    let bin_arg = bin.to_str().unwrap();
    let codex = h.root.join("codex-home");
    std::fs::create_dir_all(&codex).unwrap();
    std::fs::write(
        codex.join("config.toml"),
        "model = \"gpt-5-codex\"\n\n[features]\nhooks = false\n",
    )
    .unwrap();
    let env: [(&str, &Path); 1] = [("CODEX_HOME", &codex)];
    let o = h.hooks(&["install", "--codex", "--bin-dir", bin_arg], &h.root, &env);
    assert!(o.status.success(), "{}", show(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("`/hooks`"), "{out}");
    assert!(
        out.contains(&format!(
            "{}:4: `hooks = false` turns hooks off",
            codex.join("config.toml").display()
        )),
        "{out}"
    );
    let v = read(&codex.join("hooks.json"));
    assert_eq!(
        v["hooks"]["PreToolUse"],
        json!([{"matcher": "Bash", "hooks": [{"type": "command",
            "command": format!("{bin_arg}/mem-hook"), "timeout": 5}]}])
    );
    assert!(!h.root.join(".claude").exists());
    assert!(!codex.join("config.toml.bak").exists());

    // --project: the project's files, Claude's and Codex's.
    let project = h.root.join("proj");
    std::fs::create_dir_all(project.join("src")).unwrap();
    let o = h.hooks(
        &["install", "--project", "--bin-dir", bin_arg],
        &project,
        &env,
    );
    assert!(o.status.success(), "{}", show(&o));
    let v = read(&project.join(".claude/settings.json"));
    assert_eq!(commands(&v, "SessionEnd").len(), 1);
    let o = h.hooks(
        &["install", "--project", "--codex", "--bin-dir", bin_arg],
        &project,
        &env,
    );
    assert!(o.status.success(), "{}", show(&o));
    assert_eq!(
        commands(&read(&project.join(".codex/hooks.json")), "Stop").len(),
        2
    );
    let o = h.hooks(&["uninstall", "--project", "--codex"], &project, &env);
    assert!(o.status.success(), "{}", show(&o));
    assert_eq!(read(&project.join(".codex/hooks.json")), json!({}));
}

#[test]
fn model_command_in_the_dry_run() {
    let h = Home::new();
    let bin = h.bin_dir("bin");
    let s = h.root.join("s.json");
    let o = h.hooks(
        &[
            "install",
            "--settings",
            s.to_str().unwrap(),
            "--bin-dir",
            bin.to_str().unwrap(),
            "--model-cmd",
            "claude -p --model haiku",
            "--dry-run",
        ],
        &h.root,
        &[],
    );
    assert!(o.status.success(), "{}", show(&o));
    assert!(!s.exists(), "a dry run writes nothing");
    // the change as a unified diff: every line of the new file added
    let diff = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(diff.starts_with("--- /dev/null\n+++ b/"), "{diff}");
    let added: String = diff
        .lines()
        .skip(2)
        .filter_map(|l| l.strip_prefix('+'))
        .map(|l| format!("{l}\n"))
        .collect();
    let v: Value = serde_json::from_str(&added).unwrap();
    let b = bin.display();
    let with = |secs: u32| {
        format!(
            "{b}/mem-transcript replay --hook | {b}/mem-extract --model-cmd 'claude -p --model haiku' --model-timeout {secs} | {b}/mem-index write >&2"
        )
    };
    assert_eq!(commands(&v, "Stop"), [with(25), format!("{b}/mem-hook")]);
    assert_eq!(commands(&v, "SessionEnd"), [with(55)]);
    assert_eq!(
        commands(&v, "PreCompact"),
        [format!(
            "{b}/mem-transcript replay --hook | {b}/mem-extract session --hook >&2"
        )]
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("dry run, nothing written"), "{err}");
    assert!(err.contains("added Stop: "), "{err}");
}

/// Codex's `hooks.json` gets timeouts Codex takes as written (`SessionEnd`
/// within its 3 s cap, no model there); an earlier install's 60 s is
/// updated in place.
#[test]
fn codex_timeouts_are_within_codexs_caps() {
    let h = Home::new();
    let bin = h.bin_dir("bin");
    let bin_arg = bin.to_str().unwrap();
    let codex = h.root.join("codex-home");
    std::fs::create_dir_all(&codex).unwrap();
    let env: [(&str, &Path); 1] = [("CODEX_HOME", &codex)];
    let write_path = format!(
        "{bin_arg}/mem-transcript replay --hook | {bin_arg}/mem-extract | {bin_arg}/mem-index write >&2"
    );
    std::fs::write(
        codex.join("hooks.json"),
        json!({"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": write_path, "timeout": 60}]}]}})
            .to_string(),
    )
    .unwrap();
    let o = h.hooks(
        &[
            "install",
            "--codex",
            "--bin-dir",
            bin_arg,
            "--model-cmd",
            "codex exec -",
        ],
        &h.root,
        &env,
    );
    assert!(o.status.success(), "{}", show(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("updated SessionEnd timeout: 3 s"), "{out}");
    let v = read(&codex.join("hooks.json"));
    let timeout = |event: &str| {
        v["hooks"][event][0]["hooks"][0]["timeout"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(timeout("SessionEnd"), 3);
    assert_eq!(timeout("Stop"), 30);
    assert_eq!(timeout("PreToolUse"), 5);
    assert_eq!(commands(&v, "SessionEnd"), [write_path]);
    assert!(commands(&v, "Stop")[0].contains("--model-cmd 'codex exec -' --model-timeout 25"));
    // Claude Code's settings keep 60 s
    let s = h.root.join("settings.json");
    let o = h.hooks(
        &[
            "install",
            "--settings",
            s.to_str().unwrap(),
            "--bin-dir",
            bin_arg,
        ],
        &h.root,
        &env,
    );
    assert!(o.status.success(), "{}", show(&o));
    assert_eq!(
        read(&s)["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"],
        60
    );
}

/// `hooks install --codex` says how to trust the hooks; `hooks status
/// --codex` says whether Codex trusts each, from `hooks.state` in Codex's
/// `config.toml` (trusted, changed since trusted, turned off).
#[test]
fn codex_trust_is_explained_and_reported() {
    let h = Home::new();
    let bin = h.bin_dir("bin");
    let bin_arg = bin.to_str().unwrap();
    let codex = h.root.join("codex-home");
    std::fs::create_dir_all(&codex).unwrap();
    let env: [(&str, &Path); 1] = [("CODEX_HOME", &codex)];
    let o = h.hooks(&["install", "--codex", "--bin-dir", bin_arg], &h.root, &env);
    assert!(o.status.success(), "{}", show(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("7 of mem's 7 hooks are not trusted"), "{out}");
    assert!(out.contains("enter `/hooks`"), "{out}");
    assert!(
        out.contains("codex exec --dangerously-bypass-hook-trust"),
        "{out}"
    );
    assert!(out.contains("mem-hook status --codex"), "{out}");

    let status = || {
        let o = h.hooks(&["status", "--codex", "--bin-dir", bin_arg], &h.root, &env);
        assert!(o.status.success(), "{}", show(&o));
        String::from_utf8_lossy(&o.stdout).to_string()
    };
    let out = status();
    assert_eq!(
        out.matches("codex: not trusted: Codex skips it").count(),
        7,
        "{out}"
    );
    // the lines `/hooks` would write, as status prints them
    let toml: String = out
        .lines()
        .skip_while(|l| !l.contains("to trust them (trust only hooks you have read):"))
        .skip(1)
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(toml.matches("trusted_hash = \"sha256:").count(), 7, "{out}");
    let hooks_json = codex.join("hooks.json");
    assert!(
        toml.contains(&format!(
            "[hooks.state.\"{}:pre_tool_use:0:0\"]",
            hooks_json.display()
        )),
        "{toml}"
    );
    std::fs::write(
        codex.join("config.toml"),
        format!("model = \"m\"\n\n{toml}"),
    )
    .unwrap();
    let out = status();
    assert_eq!(out.matches("codex: trusted").count(), 7, "{out}");
    assert!(
        out.contains("codex: Codex trusts all 7 of mem's hooks"),
        "{out}"
    );
    // Claude Code's status names the Codex hooks' trust in a line
    let o = h.hooks(&["status", "--bin-dir", bin_arg], &h.root, &env);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains(&format!(
            "codex ({}): 7 of mem's 7 hooks trusted\n",
            hooks_json.display()
        )),
        "{out}"
    );
    let o = h.hooks(&["install", "--codex", "--bin-dir", bin_arg], &h.root, &env);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("Codex trusts all 7"), "{out}");

    // a changed timeout needs trust again; enabled = false is off
    let mut v = read(&hooks_json);
    v["hooks"]["Stop"][0]["hooks"][0]["timeout"] = json!(20);
    std::fs::write(&hooks_json, v.to_string()).unwrap();
    // session_start's state: enabled = false instead of its hash
    let start = format!(
        "[hooks.state.\"{}:session_start:0:0\"]",
        hooks_json.display()
    );
    let mut lines = toml.lines();
    let mut config = String::from("model = \"m\"\n\n");
    while let Some(l) = lines.next() {
        if l == start {
            lines.next();
            config.push_str(&format!("{start}\nenabled = false\n"));
        } else {
            config.push_str(&format!("{l}\n"));
        }
    }
    std::fs::write(codex.join("config.toml"), &config).unwrap();
    let out = status();
    assert!(
        out.contains("codex: changed since it was trusted: Codex skips it"),
        "{out}"
    );
    assert!(out.contains("1 of mem's 7 hooks are not trusted"), "{out}");
    assert!(out.contains("are turned off"), "{config}\n{out}");
}

/// The user's formatting is kept where the file is otherwise unchanged:
/// install adds mem's hooks in the file's own indentation and leaves every
/// other line as it was; `--dry-run` shows the change as a diff; one
/// backup (`settings.json.bak`) is kept however often the file changes;
/// uninstall gives back the file as the user wrote it.
#[test]
fn install_keeps_the_users_formatting_shows_a_diff_and_one_backup() {
    let h = Home::new();
    let a = h.bin_dir("a");
    let b = h.bin_dir("b");
    let s = h.root.join(".claude/settings.json");
    std::fs::create_dir_all(s.parent().unwrap()).unwrap();
    let mine =
        "{\n    \"theme\":   \"dark\",\n    \"permissions\": {\"allow\": [\"Bash(ls)\"]}\n}\n";
    std::fs::write(&s, mine).unwrap();

    let o = h.hooks(
        &["install", "--bin-dir", a.to_str().unwrap(), "--dry-run"],
        &h.root,
        &[],
    );
    assert!(o.status.success(), "{}", show(&o));
    assert_eq!(
        std::fs::read_to_string(&s).unwrap(),
        mine,
        "a dry run writes nothing"
    );
    let diff = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(diff.starts_with("--- a/"), "{diff}");
    let removed: Vec<&str> = diff
        .lines()
        .filter(|l| l.starts_with('-') && !l.starts_with("---"))
        .collect();
    // only the line that gains a comma is taken out
    assert_eq!(
        removed,
        ["-    \"permissions\": {\"allow\": [\"Bash(ls)\"]}"],
        "{diff}"
    );
    assert!(
        diff.contains("+    \"hooks\": {\n+        \"SessionStart\": ["),
        "{diff}"
    );

    let o = h.hooks(&["install", "--bin-dir", a.to_str().unwrap()], &h.root, &[]);
    assert!(o.status.success(), "{}", show(&o));
    let text = std::fs::read_to_string(&s).unwrap();
    assert!(
        text.starts_with("{\n    \"theme\":   \"dark\",\n    \"permissions\": {\"allow\": [\"Bash(ls)\"]},\n    \"hooks\": {\n        \""),
        "{text}"
    );
    assert!(text.ends_with("\n    }\n}\n"), "{text}");
    assert_eq!(
        std::fs::read_to_string(h.root.join(".claude/settings.json.bak")).unwrap(),
        mine
    );

    // a second change: still one backup, the file before that change
    let o = h.hooks(&["install", "--bin-dir", b.to_str().unwrap()], &h.root, &[]);
    assert!(o.status.success(), "{}", show(&o));
    let baks = backups(s.parent().unwrap());
    assert_eq!(baks.len(), 1, "{baks:?}");
    assert_eq!(std::fs::read_to_string(&baks[0]).unwrap(), text);

    let o = h.hooks(&["uninstall"], &h.root, &[]);
    assert!(o.status.success(), "{}", show(&o));
    assert_eq!(
        std::fs::read_to_string(&s).unwrap(),
        mine,
        "the user's file as written"
    );
    assert_eq!(backups(s.parent().unwrap()).len(), 1);
}

#[test]
fn the_dream_command_is_installed_reported_and_removed_only_while_it_is_mems() {
    let h = Home::new();
    let a = h.bin_dir("bin a");
    let b = h.bin_dir("b");
    let cmd = h.root.join(".claude/commands/dream.md");
    // --dry-run shows it and writes nothing
    let o = h.hooks(
        &["install", "--dry-run", "--bin-dir", a.to_str().unwrap()],
        &h.root,
        &[],
    );
    assert!(o.status.success(), "{}", show(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains(&format!(
            "+    '{}/mem-dream' --force --explain --format text $ARGUMENTS",
            a.display()
        )),
        "{out}"
    );
    assert!(!cmd.exists());
    // install writes it, for the bin dir
    let o = h.hooks(&["install", "--bin-dir", a.to_str().unwrap()], &h.root, &[]);
    assert!(o.status.success(), "{}", show(&o));
    let text = std::fs::read_to_string(&cmd).unwrap();
    assert!(
        text.contains(&format!(
            "allowed-tools: Bash('{}/mem-dream' --force:*)",
            a.display()
        )),
        "{text}"
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains(&format!("wrote {}", cmd.display())));
    let status = |bin: &Path| {
        let o = h.hooks(
            &["status", "--bin-dir", bin.to_str().unwrap()],
            &h.root,
            &[],
        );
        assert!(o.status.success(), "{}", show(&o));
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .find(|l| l.starts_with("/dream command: "))
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(
        status(&a),
        format!("/dream command: {} (mem's)", cmd.display())
    );
    assert!(status(&b).ends_with("(mem's, for another bin dir; install updates it)"));
    // another bin dir updates it in place
    let o = h.hooks(&["install", "--bin-dir", b.to_str().unwrap()], &h.root, &[]);
    assert!(o.status.success(), "{}", show(&o));
    assert!(
        std::fs::read_to_string(&cmd)
            .unwrap()
            .contains(&format!("    {}/mem-dream --force", b.display()))
    );
    // uninstall removes mem's own file
    let o = h.hooks(&["uninstall"], &h.root, &[]);
    assert!(o.status.success(), "{}", show(&o));
    assert!(!cmd.exists());
    assert!(!cmd.parent().unwrap().exists());

    // a user's own dream.md is never overwritten nor removed
    let project = h.root.join("proj");
    std::fs::create_dir_all(project.join(".claude/commands")).unwrap();
    let own = project.join(".claude/commands/dream.md");
    std::fs::write(&own, "Tell me about my dreams.\n").unwrap();
    let o = h.hooks(
        &["install", "--project", "--bin-dir", b.to_str().unwrap()],
        &project,
        &[],
    );
    assert!(o.status.success(), "{}", show(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains(&format!(
            "{}: left alone (a /dream command mem did not write; mem's is not installed)",
            own.display()
        )),
        "{}",
        show(&o)
    );
    assert_eq!(
        std::fs::read_to_string(&own).unwrap(),
        "Tell me about my dreams.\n"
    );
    let o = h.hooks(&["uninstall", "--project"], &project, &[]);
    assert!(o.status.success(), "{}", show(&o));
    assert_eq!(
        std::fs::read_to_string(&own).unwrap(),
        "Tell me about my dreams.\n"
    );
    // mem's file edited by the user is theirs now: left on uninstall
    std::fs::remove_file(&own).unwrap();
    let o = h.hooks(
        &["install", "--project", "--bin-dir", b.to_str().unwrap()],
        &project,
        &[],
    );
    assert!(o.status.success(), "{}", show(&o));
    let mut edited = std::fs::read_to_string(&own).unwrap();
    edited.push_str("Then list the retired memories.\n");
    std::fs::write(&own, &edited).unwrap();
    let o = h.hooks(&["uninstall", "--project"], &project, &[]);
    assert!(o.status.success(), "{}", show(&o));
    assert_eq!(std::fs::read_to_string(&own).unwrap(), edited);
    // a link below the project is refused, nothing written through it
    std::fs::remove_dir_all(project.join(".claude/commands")).unwrap();
    let elsewhere = h.root.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, project.join(".claude/commands")).unwrap();
    let o = h.hooks(
        &["install", "--project", "--bin-dir", b.to_str().unwrap()],
        &project,
        &[],
    );
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    assert!(std::fs::read_dir(&elsewhere).unwrap().next().is_none());
}
