//! Helpers for the end-to-end tests: find the built mem binaries, run them in
//! a throwaway directory with a pinned environment, and find `../shared`.

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
pub fn shared_or_skip(test: &str) -> Option<PathBuf> {
    let d = shared_dir();
    if d.is_none() {
        eprintln!("SKIPPED {test}: ../shared is not present (set MEM_SHARED_DIR to run it)");
        println!("SKIPPED {test}: ../shared is not present");
    }
    d
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
    c.env("HOME", home)
        .env("TZ", "UTC")
        .env("XDG_CACHE_HOME", home.join(".cache"));
    c
}

/// Run `c` with `stdin` fed from a thread; returns the output.
pub fn run(mut c: Command, stdin: &[u8]) -> Output {
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
