//! Options are resolved once, command line first, then the environment,
//! then the settings (docs/conventions.md "Options every tool shares"):
//! through every binary, `--memory-dir DIR` wins over each variable that
//! names a memory directory — `MEM_MEMORY_DIR`,
//! `CLAUDE_COWORK_MEMORY_PATH_OVERRIDE` and the `autoMemoryDirectory` of
//! the settings in `$CLAUDE_CONFIG_DIR`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use mem_tests::{Home, bin, run, show, stderr, stdout};

/// A home whose environment names three other memory directories, each
/// holding one expired memory named after it, and the directory `flag` for
/// `--memory-dir`, holding `in-flag`.
struct Setup {
    home: Home,
    project: PathBuf,
    flag: PathBuf,
    env_dir: PathBuf,
    cowork: PathBuf,
}

fn topic(dir: &Path, id: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join(format!("{id}.md")),
        format!(
            "---\nname: {id}\ndescription: the memory of {id}\ntype: user\n\
             expires: 2020-01-01\n---\n\nA memory that lives {id}.\n"
        ),
    )
    .unwrap();
}

impl Setup {
    fn new() -> Setup {
        let home = Home::new();
        let project = home.path().join("proj");
        std::fs::create_dir_all(&project).unwrap();
        let flag = home.path().join("flag");
        let env_dir = home.path().join("env");
        let cowork = home.path().join("cowork");
        let settings = home.path().join("settings-mem");
        topic(&flag, "in-flag");
        topic(&env_dir, "in-env");
        topic(&cowork, "in-cowork");
        topic(&settings, "in-settings");
        std::fs::create_dir_all(home.claude()).unwrap();
        std::fs::write(
            home.claude().join("settings.json"),
            format!(r#"{{"autoMemoryDirectory": "{}"}}"#, settings.display()),
        )
        .unwrap();
        Setup {
            home,
            project,
            flag,
            env_dir,
            cowork,
        }
    }

    /// `tool` in the project, every variable set.
    fn command(&self, tool: &str) -> Command {
        let mut c = self.home.command(bin(tool));
        c.current_dir(&self.project)
            .env("MEM_MEMORY_DIR", &self.env_dir)
            .env("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", &self.cowork)
            .env("MEM_TODAY", "2026-07-10");
        c
    }

    fn flag(&self) -> &str {
        self.flag.to_str().unwrap()
    }

    /// `tool ARGS… --memory-dir DIR` with every variable set, which must
    /// succeed: its output and its stdout.
    fn ok(&self, tool: &str, args: &[&str], dir: &str) -> (Output, String) {
        let mut c = self.command(tool);
        c.args(args).args(["--memory-dir", dir]);
        let o = run(c, b"");
        assert!(o.status.success(), "{tool}: {}", show(&o));
        let out = stdout(&o);
        (o, out)
    }
}

/// Only `want` among the four memories is named in `text`.
fn only(tool: &str, o: &Output, text: &str, want: &str) {
    assert!(text.contains(want), "{tool}: {}", show(o));
    for other in ["in-flag", "in-env", "in-cowork", "in-settings"] {
        assert!(
            other == want || !text.contains(other),
            "{tool}: {other}: {}",
            show(o)
        );
    }
}

/// Only `in-flag` among the four memories is named in `text`.
fn only_flag(tool: &str, o: &Output, text: &str) {
    only(tool, o, text, "in-flag");
}

#[test]
fn mem_index_memory_dir_wins() {
    let s = Setup::new();
    let path = ["path", "--explain", "--format", "text"];
    let (_, out) = s.ok("mem-index", &path, s.flag());
    assert!(
        out.starts_with(&format!("{}\nrule: --memory-dir\n", s.flag())),
        "{out}"
    );
    assert!(
        out.contains("MEM_MEMORY_DIR is set but --memory-dir wins")
            && out.contains("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE is set but --memory-dir wins"),
        "{out}"
    );
    // The same directory on the command line and in MEM_MEMORY_DIR is still
    // the command line's, so Claude Code's variable does not take over.
    let env = s.env_dir.to_str().unwrap();
    let (_, out) = s.ok("mem-index", &path, env);
    assert!(
        out.starts_with(&format!("{env}\nrule: --memory-dir\n")),
        "{out}"
    );
    let (o, out) = s.ok("mem-index", &["list", "--format", "jsonl"], s.flag());
    only_flag("mem-index list", &o, &out);
}

#[test]
fn mem_recall_memory_dir_wins() {
    let s = Setup::new();
    let args = ["--task", "anything at all", "--format", "jsonl"];
    let (o, out) = s.ok("mem-recall", &args, s.flag());
    only_flag("mem-recall", &o, &out);
    // MEM_MEMORY_DIR's own directory, typed: still the command line's
    let (o, out) = s.ok("mem-recall", &args, s.env_dir.to_str().unwrap());
    only("mem-recall", &o, &out, "in-env");
}

#[test]
fn mem_dream_memory_dir_wins() {
    let s = Setup::new();
    let args = ["--dry-run", "--force", "--format", "jsonl"];
    let (o, out) = s.ok("mem-dream", &args, s.flag());
    only_flag("mem-dream", &o, &out);
    let (o, out) = s.ok("mem-dream", &args, s.env_dir.to_str().unwrap());
    only("mem-dream", &o, &out, "in-env");
}

#[test]
fn mem_lock_memory_dir_wins() {
    let s = Setup::new();
    let (_, out) = s.ok("mem-lock", &["status", "--format", "jsonl"], s.flag());
    let lock = s.flag.join(".consolidate-lock");
    assert!(
        out.contains(&format!(r#""path":"{}""#, lock.display())),
        "{out}"
    );
}

/// mem-extract leaves out a turn in which the agent wrote into the memory
/// directory: into the one `--memory-dir` names, not `MEM_MEMORY_DIR`'s.
#[test]
fn mem_extract_memory_dir_wins() {
    let s = Setup::new();
    let events = |dir: &Path| {
        let user = serde_json::json!({
            "session": "s1", "source": "claude", "line": 1, "seq": 0,
            "ts": "2026-07-10T09:00:00Z", "role": "user", "kind": "text",
            "cwd": s.project, "text": "Never push to main directly.",
        });
        let write = serde_json::json!({
            "session": "s1", "source": "claude", "line": 2, "seq": 1,
            "ts": "2026-07-10T09:00:01Z", "role": "assistant", "kind": "tool_use",
            "cwd": s.project, "tool": "Write",
            "input": {"file_path": dir.join("x.md")},
        });
        format!("{user}\n{write}\n")
    };
    let extract = |dir: &Path| {
        let mut c = s.command("mem-extract");
        c.args(["--memory-dir", s.flag()]);
        run(c, events(dir).as_bytes())
    };
    // a turn that wrote into the directory of the command line: left out
    let o = extract(&s.flag);
    assert!(o.status.success(), "{}", show(&o));
    assert!(
        stdout(&o).is_empty() && stderr(&o).contains("wrote into the memory directory"),
        "{}",
        show(&o)
    );
    // a turn that wrote into MEM_MEMORY_DIR's: read
    let o = extract(&s.env_dir);
    assert!(o.status.success(), "{}", show(&o));
    assert!(stdout(&o).contains("push to main"), "{}", show(&o));
}

/// `replay --since-last` keeps its state in the cache folder of the memory
/// directory: the one `--memory-dir` names.
#[test]
fn mem_transcript_memory_dir_wins() {
    let s = Setup::new();
    let state_dirs = |cache: &Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(cache.join("mem"))
            .map(|d| {
                d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    };
    let replay = |cache: &Path, all_vars: bool, dir: &Path| {
        let mut c = if all_vars {
            s.command("mem-transcript")
        } else {
            let mut c = s.home.command(bin("mem-transcript"));
            c.current_dir(&s.project);
            c
        };
        c.env("XDG_CACHE_HOME", cache)
            .args(["replay", "--project", ".", "--since-last", "--memory-dir"])
            .arg(dir);
        let o = run(c, b"");
        assert!(o.status.success(), "{}", show(&o));
        state_dirs(cache)
    };
    // the directory typed, alone and with every variable set; then
    // MEM_MEMORY_DIR's own directory typed
    for (i, dir) in [&s.flag, &s.env_dir].into_iter().enumerate() {
        let alone = replay(&s.home.path().join(format!("alone-{i}")), false, dir);
        assert_eq!(alone.len(), 1, "{alone:?}");
        let with_vars = replay(&s.home.path().join(format!("vars-{i}")), true, dir);
        assert_eq!(with_vars, alone, "{}", dir.display());
    }
}
