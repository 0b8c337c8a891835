//! `mem-recall context --update` for Codex: by default the project's
//! AGENTS.override.md (kept out of git, carrying AGENTS.md's text), or the
//! user's $CODEX_HOME/AGENTS.md; the text is self-contained (memory bodies
//! inline, no links to the memory directory); a symbolic link is refused.

use std::path::PathBuf;
use std::process::{Command, Output};

use mem_tests::show;

struct World {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    memdir: PathBuf,
}

impl World {
    fn new() -> World {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().canonicalize().unwrap();
        let project = home.join("proj");
        std::fs::create_dir_all(&project).unwrap();
        let git = Command::new("git")
            .args(["init", "-q"])
            .current_dir(&project)
            .output()
            .unwrap();
        assert!(git.status.success());
        let memdir = home.join("memory");
        std::fs::create_dir_all(&memdir).unwrap();
        let fixture = mem_tests::fixtures().join("claude-memory");
        for e in std::fs::read_dir(fixture).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), memdir.join(e.file_name())).unwrap();
        }
        World {
            _tmp: tmp,
            home,
            project,
            memdir,
        }
    }

    fn context(&self, args: &[&str]) -> Output {
        let mut c = Command::new(env!("CARGO_BIN_EXE_mem-recall"));
        mem_tests::scrub(&mut c)
            .arg("context")
            .args(args)
            .env("HOME", &self.home)
            .env("XDG_CACHE_HOME", self.home.join(".cache"))
            .env("CODEX_HOME", self.home.join("codex"))
            .env("MEM_MEMORY_DIR", &self.memdir)
            .env("MEM_TODAY", "2026-07-14")
            .current_dir(&self.project);
        c.output().unwrap()
    }
}

/// The section holds every memory of the index in full, and no link.
fn self_contained(text: &str) {
    assert!(!text.contains("]("), "a link into the memory dir:\n{text}");
    for body in [
        "Frame frontend explanations in terms of backend concepts",
        "uses the docker-compose Postgres service",
        "The payments service belongs to the billing team",
    ] {
        assert!(text.contains(body), "{body:?} not inline:\n{text}");
    }
    // Claude's headings and notes stay, titles without links
    assert!(
        text.contains("## Feedback\n- Testing policy — Integration tests must hit a real database")
    );
    assert!(text.contains("never truncate it."));
}

#[test]
fn update_writes_the_uncommitted_override_with_bodies_inline() {
    let w = World::new();
    let agents = "# Project rules\n\nRun `make check` before pushing.\n";
    std::fs::write(w.project.join("AGENTS.md"), agents).unwrap();
    let o = w.context(&["--update"]);
    assert!(o.status.success(), "{}", show(&o));
    // the committed AGENTS.md is untouched
    assert_eq!(
        std::fs::read_to_string(w.project.join("AGENTS.md")).unwrap(),
        agents
    );
    let over = std::fs::read_to_string(w.project.join("AGENTS.override.md")).unwrap();
    // Codex reads the override instead of AGENTS.md: its text comes first
    assert!(
        over.starts_with(&format!(
            "{}\n{}{}\n",
            mem_recall::context::COPY_BEGIN,
            agents,
            mem_recall::context::COPY_END
        )),
        "{over}"
    );
    assert!(over.contains(mem_recall::context::BEGIN));
    self_contained(&over);
    // kept out of git
    let exclude = std::fs::read_to_string(w.project.join(".git/info/exclude")).unwrap();
    assert!(
        exclude.lines().any(|l| l == "/AGENTS.override.md"),
        "{exclude}"
    );
    let st = Command::new("git")
        .args(["status", "--porcelain"])
        .current_dir(&w.project)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&st.stdout), "?? AGENTS.md\n");
    // Again: unchanged; AGENTS.md edited: the copy follows.
    let o = w.context(&["--update"]);
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("unchanged"),
        "{}",
        show(&o)
    );
    std::fs::write(
        w.project.join("AGENTS.md"),
        "# Project rules\n\nUse just.\n",
    )
    .unwrap();
    let o = w.context(&["--update"]);
    assert!(o.status.success(), "{}", show(&o));
    let over2 = std::fs::read_to_string(w.project.join("AGENTS.override.md")).unwrap();
    assert!(
        over2.contains("Use just.") && !over2.contains("make check"),
        "{over2}"
    );
    assert_eq!(
        exclude,
        std::fs::read_to_string(w.project.join(".git/info/exclude")).unwrap()
    );
}

#[test]
fn update_target_user_and_agents_md() {
    let w = World::new();
    let o = w.context(&["--update", "--target", "user"]);
    assert!(o.status.success(), "{}", show(&o));
    let user = std::fs::read_to_string(w.home.join("codex/AGENTS.md")).unwrap();
    self_contained(&user);
    assert!(!user.contains("mem:copy"));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("Codex reads it in every project"),
        "{}",
        show(&o)
    );
    assert!(!w.project.join("AGENTS.override.md").exists());
    let o = w.context(&["--update", "--target", "agents-md"]);
    assert!(o.status.success(), "{}", show(&o));
    self_contained(&std::fs::read_to_string(w.project.join("AGENTS.md")).unwrap());
}

#[test]
fn a_symlinked_agents_md_is_refused() {
    let w = World::new();
    let shared = w.home.join("shared-agents.md");
    std::fs::write(&shared, "# Shared rules\n").unwrap();
    let link = w.project.join("AGENTS.md");
    std::os::unix::fs::symlink(&shared, &link).unwrap();
    for args in [
        vec!["--update", "AGENTS.md"],
        vec!["--update", "--target", "agents-md"],
    ] {
        let o = w.context(&args);
        assert_eq!(o.status.code(), Some(1), "{}", show(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("AGENTS.md: is a symbolic link (to ")
                && err.contains("shared-agents.md); not written"),
            "{err}"
        );
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(
            std::fs::read_to_string(&shared).unwrap(),
            "# Shared rules\n"
        );
    }
}
