//! The two memories of the canonical example (docs/recall.md) and the
//! helpers the recall and hook tests share to write and recall them.

use std::path::Path;
use std::process::Output;

use crate::stderr;
use crate::stdout;

/// The arguments of a recall of `task` from memory directory `mem` on
/// 2026-07-11, as JSON lines.
pub fn task_args<'a>(mem: &'a str, task: &'a str) -> Vec<&'a str> {
    vec![
        "--memory-dir",
        mem,
        "--task",
        task,
        "--today",
        "2026-07-11",
        "--format",
        "jsonl",
    ]
}

/// The stdout of `o`, after asserting it succeeded (its streams shown when
/// it did not).
pub fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        stdout(o),
        stderr(o)
    );
    stdout(o)
}

/// Write `text` to `path`, its folders made first.
pub fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The canonical lesson: run setup before build-token.
pub const FIXTURE: &str = "---\nname: \"Run setup before build-token\"\ndescription: \"build-token needs data/fixture.json, which only setup creates\"\ntype: feedback\nkind: durable-lesson\ntriggers: [\"build-token\", \"verify\", \"fixture\"]\nverified_at: 2026-07-11\nexpires: never\n---\nFact: Run setup before build-token.\nWhy: data/fixture.json is generated and git-ignored; a fresh clone lacks it.\nHow to use: Before any verification, run node src/setup.mjs.\n";

/// The canonical one-time state: the package mirror is slow on 07-11.
pub const MIRROR: &str = "---\nname: \"Package mirror slow on 07-11\"\ndescription: \"the internal mirror is flaky today; setup may take minutes\"\ntype: project\nkind: one-time-state\ntriggers: [\"setup\", \"mirror\", \"build-token\"]\nverified_at: 2026-07-11\nexpires: 2026-07-12\n---\nFact: The internal package mirror is slow today; setup can take several minutes.\n";

/// A memory dir with the canonical two memories.
pub fn canonical(dir: &Path) {
    write(&dir.join("fixture-before-verify.md"), FIXTURE);
    write(&dir.join("mirror-slow-on-0711.md"), MIRROR);
}
