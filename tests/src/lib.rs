//! The one test harness of the workspace, used by the end-to-end tests in
//! `tests/tests/` and by every crate's integration tests (a dev-dependency):
//! find the built mem binaries, run them in a throwaway home with a scrubbed,
//! pinned environment ([`scrub`], [`Home`]), find the project's fixtures
//! ([`fixtures`]) and, as extra coverage, `../shared` ([`shared_or_skip`]).

pub mod canonical;
pub mod corpus;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The workspace root (the parent of this crate).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// `../shared` beside the project, when present (CI has it; a user's clone
/// may not). Tests that need it call [`shared_or_skip`].
pub fn shared_dir() -> Option<PathBuf> {
    let p = std::env::var_os("MEM_SHARED_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("../shared"));
    p.is_dir().then(|| p.canonicalize().unwrap_or(p))
}

/// `../shared`, or `None` after printing a loud SKIPPED line naming the test.
/// Only tests that read the external corpus or eval sets (extra coverage)
/// use it; what the project relies on is in [`fixtures`].
pub fn shared_or_skip(test: &str) -> Option<PathBuf> {
    let d = shared_dir();
    if d.is_none() {
        eprintln!("SKIPPED {test}: ../shared is not present (set MEM_SHARED_DIR to run it)");
        println!("SKIPPED {test}: ../shared is not present");
    }
    d
}

/// The project's own test inputs: `tests/fixtures/` of the workspace
/// (`cases/` holds the field failure cases, one folder per case).
pub fn fixtures() -> PathBuf {
    workspace_root().join("tests/fixtures")
}

/// Remove every inherited variable that steers the tools from `c`: `MEM_*`,
/// `CLAUDE_*`, `CODEX_HOME` and `XDG_*` (a developer's own settings must
/// never reach a test). Set what a test needs after this call.
pub fn scrub(c: &mut Command) -> &mut Command {
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy().to_string();
        if k.starts_with("MEM_")
            || k.starts_with("CLAUDE_")
            || k == "CODEX_HOME"
            || k.starts_with("XDG_")
        {
            c.env_remove(k);
        }
    }
    c
}

/// A throwaway home for one test, removed when dropped: `HOME` is
/// `<dir>/home`, `CLAUDE_CONFIG_DIR` `<dir>/home/.claude`, `XDG_CACHE_HOME`
/// `<dir>/cache`, and commands run in `<dir>`.
pub struct Home {
    tmp: tempfile::TempDir,
}

impl Default for Home {
    fn default() -> Self {
        Self::new()
    }
}

impl Home {
    /// A new empty throwaway directory.
    pub fn new() -> Home {
        Home {
            tmp: tempfile::tempdir().expect("temp dir"),
        }
    }

    /// The throwaway directory (the commands' working directory).
    pub fn path(&self) -> &Path {
        self.tmp.path()
    }

    /// `HOME` of the commands: `<dir>/home`.
    pub fn home(&self) -> PathBuf {
        self.path().join("home")
    }

    /// Claude Code's config dir of the commands: `<dir>/home/.claude`.
    pub fn claude(&self) -> PathBuf {
        self.home().join(".claude")
    }

    /// A scrubbed command for `program` (a binary path) in this home, with
    /// `TZ=UTC`.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut c = Command::new(program);
        scrub(&mut c);
        c.env("HOME", self.home())
            .env("CLAUDE_CONFIG_DIR", self.claude())
            .env("XDG_CACHE_HOME", self.path().join("cache"))
            .env("TZ", "UTC")
            .current_dir(self.path());
        c
    }
}

/// Path of a built mem binary (`target/<profile>/NAME`), next to the test
/// executable. Panics with the command to run when it was not built
/// (`scripts/test.sh` builds every binary first).
pub fn bin(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("current exe");
    // target/<profile>/deps/<test-exe>
    let dir = exe.parent().and_then(Path::parent).expect("target dir");
    let p = dir.join(name);
    assert!(
        p.is_file(),
        "{} is not built: run `cargo build --workspace --bins` (scripts/test.sh does) first",
        p.display()
    );
    p
}

/// A command for a mem binary with a clean, pinned environment: `HOME`
/// pointed at `home`, no inherited `MEM_*`/`CLAUDE_*` variables, `TZ=UTC`.
pub fn cmd(name: &str, home: &Path) -> Command {
    let mut c = Command::new(bin(name));
    scrub(&mut c);
    c.env("HOME", home)
        .env("TZ", "UTC")
        .env("XDG_CACHE_HOME", home.join(".cache"));
    c
}

/// Run `c` (a `Command` or `&mut Command`) with `stdin` fed from a thread;
/// returns the output.
pub fn run(mut c: impl std::borrow::BorrowMut<Command>, stdin: &[u8]) -> Output {
    let c = c.borrow_mut();
    c.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().expect("spawn");
    let mut sin = child.stdin.take().expect("stdin");
    let data = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = sin.write_all(&data);
    });
    let out = child.wait_with_output().expect("wait");
    let _ = feeder.join();
    out
}

/// Run `c` with a terminal (a pseudo-terminal's far end) as stdin, which
/// sees end of input (Ctrl-D) at once; stdout and stderr are captured.
pub fn run_on_terminal(mut c: Command) -> Output {
    use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
    let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).expect("openpt");
    grantpt(&master).expect("grantpt");
    unlockpt(&master).expect("unlockpt");
    let name = ptsname(&master, Vec::new()).expect("ptsname");
    let tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(name.to_str().expect("pty name"))
        .expect("open pty");
    c.stdin(Stdio::from(tty))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = c.spawn().expect("spawn");
    // Ctrl-D at the start of a line: end of input for the reader.
    rustix::io::write(&master, b"\x04").expect("write to pty");
    let out = child.wait_with_output().expect("wait");
    drop(master);
    out
}

/// Stdout as text (invalid UTF-8 as U+FFFD).
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Stderr as text (invalid UTF-8 as U+FFFD).
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Copy the tree `src` into `dst` (created), files byte for byte, writable
/// (the permissions of a read-only source are not copied).
pub fn copy_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).expect("create dir");
    for e in std::fs::read_dir(src).expect("read dir") {
        let e = e.expect("dir entry");
        let to = dst.join(e.file_name());
        if e.file_type().expect("file type").is_dir() {
            copy_dir(&e.path(), &to);
        } else {
            std::fs::write(&to, std::fs::read(e.path()).expect("read")).expect("write");
        }
    }
}

/// Format an output for an assertion message.
pub fn show(out: &Output) -> String {
    format!(
        "status: {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Every file under `dir`, recursively (directories followed, unreadable
/// ones skipped), sorted by path.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The pid of a process that has exited and been reaped (`true`): no live
/// process has it until the system hands it out again.
pub fn dead_pid() -> u32 {
    let mut child = Command::new("true").spawn().expect("spawn true");
    let pid = child.id();
    child.wait().expect("wait for true");
    pid
}

/// A live process that is not the test's own (`sleep 60`), killed and
/// reaped when dropped.
pub struct LiveProcess(std::process::Child);

impl Default for LiveProcess {
    fn default() -> Self {
        Self::new()
    }
}

impl LiveProcess {
    /// Start it.
    pub fn new() -> LiveProcess {
        LiveProcess(
            Command::new("sleep")
                .arg("60")
                .spawn()
                .expect("spawn sleep"),
        )
    }

    /// Its pid.
    pub fn pid(&self) -> u32 {
        self.0.id()
    }
}

impl Drop for LiveProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Every file under `dir` ([`files_under`]) with its bytes, sorted by path:
/// compare two to see that a command changed nothing.
pub fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    files_under(dir)
        .into_iter()
        .map(|p| {
            let b = std::fs::read(&p).expect("read");
            (p, b)
        })
        .collect()
}

/// The names of the topic files of the memory directory `dir` (`*.md` but
/// `MEMORY.md`, not below it), sorted; none when `dir` can not be read.
pub fn topic_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".md") && n != "MEMORY.md")
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}
