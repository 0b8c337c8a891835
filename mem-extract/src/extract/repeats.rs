//! What the project repeats: a check (its tests, lint, format, type check
//! or build) that the sessions of one stream run successfully the same way
//! in [`MIN_SESSIONS`] sessions or more becomes a "how this project does
//! X" memory, with its flags: "This project runs its tests with `uv run
//! pytest -q`". A command the user ran in the agent's shell (`!uv run ty
//! check`) counts as a run too (the user chose it; its output is theirs). The learn-everything command (`mem-transcript replay
//! --project . | mem-extract`) gives every session of a project in one
//! stream, oldest first.

use std::collections::BTreeSet;
use std::rc::Rc;

use mem_core::records::{Kind, MemoryType, Source, Trust};
use mem_core::risk::Class;

use super::merge::Cand;
use super::notes::{Notes, note};
use super::options::{ExtractOptions, FastMap, MAX_EVIDENCE};
use super::origin::{At, base_memory};
use super::sentence::{cut, title_of};
use crate::command::specific_cmd;
use crate::command::{core_of, is_inspection, is_script, lesson_form, segments};
use crate::note::Bucket;

/// Sessions a command family must run successfully in to be kept.
pub(crate) const MIN_SESSIONS: usize = 3;

/// Sessions enough when the user ran the check themselves in one of them
/// (their choice, not the agent's habit).
pub(crate) const MIN_SESSIONS_USER: usize = 2;

/// Words of a family's runs kept in order (a bound over years of runs).
const MAX_ORDER: usize = 64;

/// The user's requests a command family must run successfully for when
/// the sessions are fewer than [`MIN_SESSIONS`]: one long session of
/// several pieces of work repeats a check as several sessions do. A
/// request is a message of [`MIN_SAID_WORDS`] words or more ("continue",
/// "yes" start no new work).
pub(crate) const MIN_REQUESTS: u64 = 3;

/// What a check does for the project.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Topic {
    Tests,
    Lint,
    Format,
    Typecheck,
    Build,
}

impl Topic {
    const ALL: [Topic; 5] = [
        Topic::Tests,
        Topic::Lint,
        Topic::Format,
        Topic::Typecheck,
        Topic::Build,
    ];

    /// The memory's id: one per topic, so a later family replaces an
    /// earlier one.
    fn id(self) -> &'static str {
        match self {
            Topic::Tests => "project-tests-command",
            Topic::Lint => "project-lint-command",
            Topic::Format => "project-format-command",
            Topic::Typecheck => "project-typecheck-command",
            Topic::Build => "project-build-command",
        }
    }

    /// "This project … with `X`".
    fn doing(self) -> &'static str {
        match self {
            Topic::Tests => "runs its tests",
            Topic::Lint => "lints its code",
            Topic::Format => "formats its code",
            Topic::Typecheck => "type-checks its code",
            Topic::Build => "builds",
        }
    }

    /// "To …, run `X`."
    fn task(self) -> &'static str {
        match self {
            Topic::Tests => "run the tests",
            Topic::Lint => "lint",
            Topic::Format => "format the code",
            Topic::Typecheck => "type-check",
            Topic::Build => "build",
        }
    }

    /// The words a task names it by (triggers).
    fn words(self) -> &'static [&'static str] {
        match self {
            Topic::Tests => &["tests", "test"],
            Topic::Lint => &["lint", "linter", "static analysis"],
            Topic::Format => &["format", "formatter"],
            Topic::Typecheck => &["typecheck", "type checker", "type errors", "type check"],
            Topic::Build => &["build"],
        }
    }

    /// The topic of a task word (a test runner, a script or make target
    /// name, a subcommand), lowercased; `prog` is the program that runs it.
    fn of(task: &str, prog: &str) -> Option<Topic> {
        let t = task;
        let starts = |p: &str| {
            t == p
                || t.strip_prefix(p)
                    .is_some_and(|r| r.starts_with([':', '-', '_']))
        };
        if matches!(
            t,
            "t" | "tests"
                | "pytest"
                | "py.test"
                | "jest"
                | "vitest"
                | "mocha"
                | "rspec"
                | "phpunit"
                | "nextest"
                | "tox"
                | "nox"
                | "unittest"
                | "ctest"
        ) || starts("test")
        {
            return Some(Topic::Tests);
        }
        if t == "check" && prog == "ruff" {
            return Some(Topic::Lint);
        }
        if matches!(
            t,
            "clippy"
                | "credo"
                | "eslint"
                | "flake8"
                | "pylint"
                | "rubocop"
                | "shellcheck"
                | "golangci-lint"
                | "vet"
        ) || starts("lint")
        {
            return Some(Topic::Lint);
        }
        if matches!(
            t,
            "fmt" | "prettier" | "black" | "gofmt" | "rustfmt" | "isort" | "shfmt"
        ) || starts("format")
            || starts("fmt")
        {
            return Some(Topic::Format);
        }
        if matches!(t, "tsc" | "mypy" | "pyright" | "types" | "dialyzer")
            || starts("typecheck")
            || starts("type-check")
            || (t == "check" && matches!(prog, "cargo" | "deno" | "ty" | "pyrefly"))
        {
            return Some(Topic::Typecheck);
        }
        if (t == "b" && prog == "cargo") || t == "compile" || starts("build") {
            return Some(Topic::Build);
        }
        None
    }
}

/// A family of runs: one check run the same way (program, wrappers,
/// subcommand or script; its flags may vary).
struct Family {
    topic: Topic,
    runs: u64,
    /// The last run of each session, in the order the sessions came.
    sessions: Vec<At>,
    /// How many units of work (a session's request, see `requests`)
    /// carried each word after the family's head, and how many runs.
    words: FastMap<String, u64>,
    run_words: FastMap<String, u64>,
    /// How many sessions carried each word, and the words the latest
    /// session has counted already.
    session_words: FastMap<String, u64>,
    session_seen: BTreeSet<String>,
    /// Options some run gave no next word (the end, or another option):
    /// they take no value (at most [`MAX_ORDER`]).
    bare: BTreeSet<String>,
    /// Every word seen after the head, first seen first (at most
    /// [`MAX_ORDER`]): where a kept word the latest run lacks goes.
    order: Vec<String>,
    /// The setup (`cd dir && `) and head of the latest run, and the words
    /// after the head.
    head: String,
    rest: Vec<String>,
    /// The stream position of the latest run.
    last: u64,
    /// Runs the user typed themselves in the agent's shell.
    by_user: u64,
    /// The user's requests (in a session) the family ran for, and the
    /// latest one (its session's digest and number): its units of work.
    requests: u64,
    last_request: Option<(Rc<str>, u64)>,
    /// The words and selections the current unit has counted already.
    unit_seen: BTreeSet<String>,
    /// How many units of work selected each subset (`-m browser`, `-p api`): the
    /// option and its value.
    select: FastMap<(String, String), u64>,
}

impl Family {
    /// The family's command: the head and the words after it that at
    /// least half its units of work carried, in the latest run's order
    /// (a test the agent ran ten times while debugging it is one unit's).
    /// Options whose values vary ([`Family::selections`]) are left out
    /// with their values: the memory lists those apart.
    fn command(&self) -> String {
        let varying: Vec<String> = self.selections().into_iter().map(|(f, _)| f).collect();
        // the latest run's words, then kept words it lacked (it was a
        // unit's odd one out)
        let words = self
            .rest
            .iter()
            .chain(self.order.iter().filter(|w| !self.rest.contains(w)));
        let mut out: Vec<&str> = Vec::new();
        // the option before the word at hand, when it may take it as its value
        let mut option: Option<&str> = None;
        let mut skip = false;
        for w in words {
            if std::mem::take(&mut skip) {
                continue;
            }
            let flag = w.split('=').next().unwrap_or(w);
            if varying.iter().any(|v| v == flag) {
                skip = !w.contains('=');
                option = None;
                continue;
            }
            // (an option every run gave a next word, long or one of the
            // short ones that take one: that word may be its value)
            let takes = !w.contains('=')
                && !self.bare.contains(w)
                && (w.starts_with("--")
                    || matches!(
                        w.as_str(),
                        "-k" | "-m"
                            | "-p"
                            | "-n"
                            | "-j"
                            | "-A"
                            | "-W"
                            | "-C"
                            | "-f"
                            | "-o"
                            | "-c"
                            | "-t"
                            | "-e"
                            | "-E"
                            | "-F"
                            | "-r"
                            | "-D"
                            | "-I"
                            | "-L"
                    ));
            if self.kept(w) {
                out.push(w);
            } else if let Some(o) = option
                && !w.starts_with('-')
                && out.last() == Some(&o)
            {
                // an option whose value is left out goes with it
                out.pop();
            }
            option = takes.then_some(w.as_str());
        }
        let mut cmd = self.head.clone();
        for w in out {
            cmd.push(' ');
            cmd.push_str(w);
        }
        cmd
    }

    /// A word the family's command keeps: carried by at least half its
    /// runs and by at least half its units of work (ten runs while
    /// debugging one test are one unit's), never a file the run was
    /// pointed at (`test/a_test.exs`, `tests/x.py::test_y`: what it
    /// checked that time).
    fn kept(&self, w: &str) -> bool {
        // (`test/a_test.exs:42` is a file too)
        let bare = w.trim_end_matches(|c: char| c.is_ascii_digit() || c == ':');
        let file = w.contains("::")
            || (!w.starts_with('-')
                && bare.rsplit('/').next().is_some_and(|f| {
                    f.rsplit_once('.').is_some_and(|(stem, ext)| {
                        !stem.is_empty()
                            && (1..=5).contains(&ext.len())
                            && ext.bytes().all(|b| b.is_ascii_alphabetic())
                    })
                }));
        // seen in several sessions, the sessions vote (the requests of one
        // debugging session are one vote); in one, its requests do
        let units = if self.sessions.len() >= 2 {
            self.session_words
                .get(w)
                .is_some_and(|&n| n * 2 >= self.sessions.len() as u64)
        } else {
            self.words.get(w).is_some_and(|&n| n * 2 >= self.requests)
        };
        !file && units && self.run_words.get(w).is_some_and(|&n| n * 2 >= self.runs)
    }

    /// The subsets the runs selected, per option, most run first (at most
    /// four values an option), when the runs selected two or more.
    fn selections(&self) -> Vec<(String, Vec<String>)> {
        let mut by_flag: Vec<(String, Vec<(u64, String)>)> = Vec::new();
        for ((flag, v), n) in &self.select {
            match by_flag.iter_mut().find(|(f, _)| f == flag) {
                Some((_, vs)) => vs.push((*n, v.clone())),
                None => by_flag.push((flag.clone(), vec![(*n, v.clone())])),
            }
        }
        by_flag.sort();
        by_flag
            .into_iter()
            .filter(|(_, vs)| vs.len() >= 2)
            .map(|(flag, mut vs)| {
                vs.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
                (flag, vs.into_iter().take(4).map(|(_, v)| v).collect())
            })
            .collect()
    }
}

/// `v` as a shell word: quoted when it holds a space.
fn quoted(v: &str) -> String {
    if v.contains(char::is_whitespace) {
        format!("\"{v}\"")
    } else {
        v.to_string()
    }
}

/// The project's repeated checks, run by run (see the module docs).
#[derive(Default)]
pub(super) struct Repeats {
    families: FastMap<String, Family>,
    n: u64,
    /// What the user says again and again.
    pub(super) said: Said,
}

/// The family of a command line: its topic, its head (the setup steps and
/// the words up to the task word) and the words after it. `None` for what
/// is not a project-local, harmless check ([`mem_core::risk::Class::Local`]),
/// an inspection or an inline script.
pub(super) fn family_of(raw: &str) -> Option<(Topic, String, Vec<String>)> {
    if is_inspection(raw) || is_script(raw) {
        return None;
    }
    if mem_core::risk::assess(raw).class != Class::Local {
        return None;
    }
    // an address anywhere (an assignment's database URL too) is another
    // system's; a check that cannot fail is no check
    if raw.contains("://") || weakens_check(raw) {
        return None;
    }
    // the setup as run: a `cd` out of the project (what [`in_root`] left
    // absolute) or a sourced file other than a virtual environment's
    // activation is no way of this project's
    for s in segments(raw) {
        match s.first().copied() {
            Some("cd" | "pushd") => {
                let d = s.get(1).copied().unwrap_or("~");
                if d.starts_with(['/', '~', '$']) || d.split('/').any(|p| p == "..") {
                    return None;
                }
            }
            Some("source" | ".") => {
                let f = s.get(1).copied().unwrap_or("");
                if !(f.ends_with("/bin/activate") || f.ends_with("/bin/activate.fish")) {
                    return None;
                }
            }
            _ => {}
        }
    }
    let form = specific_cmd(&lesson_form(raw));
    let segs = segments(&form);
    let core = core_of(&segs)?;
    let at = segs
        .iter()
        .position(|s| core_of(std::slice::from_ref(s)).is_some())?;
    let mut setup: Vec<String> = segs[..at]
        .iter()
        .filter(|s| matches!(s[0], "cd" | "pushd" | "source" | "."))
        .map(|s| s.join(" "))
        .collect();
    // the environment the check ran with (`RAILS_ENV=test bundle exec
    // rspec`) is part of how it runs
    let env: Vec<&str> = segs[at]
        .iter()
        .take_while(|w| w.contains('=') && !w.starts_with('-'))
        .copied()
        .collect();
    // an environment that loads code, passes options or names a place or a
    // secret is more than the check (`NODE_OPTIONS=--require=…`,
    // `PYTEST_ADDOPTS=…`, `LD_PRELOAD=…`, `DB_HOST=prod-db`): only the
    // usual switches of a test run are part of one
    if !env.iter().all(|a| plain_env(a)) || segs[..at].iter().any(|s| s[0] == "export") {
        return None;
    }
    if !env.is_empty() {
        setup.push(String::new());
    }
    let base = |w: &str| w.rsplit('/').next().unwrap_or(w).to_lowercase();
    let mut i = 0;
    let p0 = base(core[0]);
    // wrappers: `uv run pytest`, `bundle exec rspec`, `python -m pytest`
    if matches!(p0.as_str(), "uv" | "poetry" | "pdm" | "hatch" | "pipenv")
        && core.get(1) == Some(&"run")
        || p0 == "bundle" && core.get(1) == Some(&"exec")
        || p0.starts_with("python") && core.get(1) == Some(&"-m")
    {
        i = 2;
    }
    let prog = base(core.get(i)?);
    // the word after the program that names the task, skipping options
    // (and the value of `-C DIR` / `-f FILE`)
    let next_word = |from: usize| -> Option<usize> {
        let mut j = from;
        while j < core.len() {
            let w = core[j];
            if matches!(
                w,
                "-C" | "-f" | "--directory" | "--file" | "--prefix" | "-p"
            ) {
                j += 2;
            } else if w.starts_with('-') {
                j += 1;
            } else {
                return Some(j);
            }
        }
        None
    };
    let task_at = match prog.as_str() {
        "npm" | "pnpm" | "yarn" | "bun" => {
            let j = next_word(i + 1)?;
            if matches!(core[j], "run" | "run-script") {
                next_word(j + 1)?
            } else {
                j
            }
        }
        "make" | "gmake" | "just" | "task" | "gradle" | "gradlew" | "mvn" | "rake" | "deno"
        | "dotnet" | "go" | "cargo" | "mix" | "swift" | "zig" | "ruff" | "ty" | "pyrefly" => {
            next_word(i + 1)?
        }
        _ => i,
    };
    let task = base(core[task_at]);
    let topic = Topic::of(&task, &prog)?;
    // a check that also ships (`mvn compile deploy`, `make build-push`,
    // `npm run build -- --publish always`, `scripts/test_and_push.py`)
    if core.iter().any(|w| ships(w)) {
        return None;
    }
    let mut head: Vec<String> = setup;
    let check = core[..=task_at].join(" ");
    match head.last_mut() {
        // (the placeholder for the environment: it goes before the check)
        Some(last) if last.is_empty() => *last = format!("{} {check}", env.join(" ")),
        _ => head.push(check),
    }
    let rest = core[task_at + 1..].iter().map(|w| w.to_string()).collect();
    Some((topic, head.join(" && "), rest))
}

/// A command that runs part of a check, the way one debugs: a selection
/// (`-k timezone`, `-m slow`, `-p api`, …), a stop at the first failure
/// (`-x`, `--exitfirst`, `--bail`, `--fail-fast`), a rerun of the failures
/// (`--lf`, `--last-failed`, `--ff`, `--failed-first`, `--only-failures`).
fn debugging(cmd: &str) -> bool {
    cmd.split_whitespace().any(|w| {
        let flag = w.split('=').next().unwrap_or(w);
        SELECT.contains(&flag)
            || matches!(
                flag,
                "-x" | "--exitfirst"
                    | "--bail"
                    | "--fail-fast"
                    | "--failfast"
                    | "-failfast"
                    | "--lf"
                    | "--last-failed"
                    | "--ff"
                    | "--failed-first"
                    | "--only-failures"
                    | "--onlyChanged"
            )
    })
}

/// An environment assignment a check may run with: the run's mode
/// (`RAILS_ENV=test`, `NODE_ENV=test`, `MIX_ENV=test`, `APP_ENV=ci`), `CI`,
/// the time zone, locale, colour, backtrace and log switches.
fn plain_env(a: &str) -> bool {
    let Some((k, v)) = a.split_once('=') else {
        return false;
    };
    let v = v.trim_matches(['"', '\'']);
    let mode = k.ends_with("_ENV") || k == "ENV" || k == "ENVIRONMENT";
    (mode && matches!(v, "test" | "testing" | "ci" | "development" | "dev"))
        || (matches!(
            k,
            "CI" | "FORCE_COLOR"
                | "NO_COLOR"
                | "RUST_BACKTRACE"
                | "PYTHONDONTWRITEBYTECODE"
                | "PYTHONUNBUFFERED"
        ) && v.len() <= 8
            && v.bytes().all(|b| b.is_ascii_alphanumeric()))
        || (matches!(k, "CGO_ENABLED") && matches!(v, "0" | "1"))
        || (matches!(k, "RUST_LOG" | "LOG_LEVEL")
            && v.len() <= 40
            && v.bytes().all(|b| b.is_ascii_alphanumeric() || b"_=,:".contains(&b)))
        // a module or a directory of the checkout
        || (matches!(k, "DJANGO_SETTINGS_MODULE" | "PYTHONPATH")
            && !v.is_empty()
            && v.len() <= 80
            && !v.starts_with(['/', '~', '$'])
            && !v.contains("..")
            && v.bytes().all(|b| b.is_ascii_alphanumeric() || b"_./:-".contains(&b)))
        || (matches!(k, "TZ" | "LANG" | "LC_ALL")
            && v.len() <= 24
            && v.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_./-".contains(&b)))
}

/// A word of a check's command line that publishes, deploys, installs,
/// pushes or releases: the words of a target or script name (`build-push`,
/// `test_and_release`) split at `-`, `_`, `.`, `:` and `/`, or an option
/// that does it (`--publish`; `--release` is a build profile).
fn ships(w: &str) -> bool {
    let w = w.to_ascii_lowercase();
    if let Some(flag) = w.strip_prefix('-') {
        // an option is itself the act (`--publish`), never a profile
        // (`--release`)
        let name = flag.trim_start_matches('-');
        let name = name.split('=').next().unwrap_or(name);
        return matches!(name, "publish" | "deploy" | "push" | "upload" | "ship");
    }
    w.split(['-', '_', '.', ':', '/', '=']).any(|p| {
        matches!(
            p,
            "deploy"
                | "deploys"
                | "deployment"
                | "publish"
                | "release"
                | "push"
                | "install"
                | "upload"
                | "ship"
                | "promote"
                | "submit"
                | "migrate"
                | "migration"
                | "migrations"
                | "drop"
                | "tag"
                | "commit"
                | "reset"
                | "seed"
                | "delete"
                | "destroy"
                | "purge"
                | "sync"
                | "notify"
                | "slack"
                | "s3"
                | "update"
                | "upgrade"
                | "bump"
        )
    })
}

/// True for a command line that makes its check pass whatever the code
/// does: snapshots rewritten (`-u`, `--update-snapshots`,
/// `--snapshot-update`, `--force-regen`), lint findings allowed
/// (`--exit-zero`, `-A warnings`, `--cap-lints allow`), coverage or
/// warnings switched off (`--cov-fail-under=0`, `--disable-warnings`,
/// `-W ignore`), type checks loosened (`--ignore-missing-imports`,
/// `--follow-imports=skip`), hooks skipped (`--no-verify`), or a failure
/// swallowed (`|| true`), a linter's rule switched off (`--rule
/// 'no-unused-vars: off'`).
fn weakens_check(raw: &str) -> bool {
    let words: Vec<&str> = raw.split_whitespace().collect();
    words.iter().enumerate().any(|(i, w)| {
        let next = words.get(i + 1).copied().unwrap_or("");
        let flag = w.split('=').next().unwrap_or(w);
        matches!(
            flag,
            "--update-snapshots"
                | "--updateSnapshot"
                | "--update-snapshot"
                | "--snapshot-update"
                | "--force-regen"
                | "--exit-zero"
                | "--cap-lints"
                | "--disable-warnings"
                | "--ignore-missing-imports"
                | "--no-verify"
                | "--passWithNoTests"
                | "--no-cov"
                | "--no-run"
                | "--collect-only"
                | "--co"
                | "--update"
                | "--dry-run"
                | "--list"
                | "--help"
                | "--version"
                | "--extend-ignore"
                | "--testPathIgnorePatterns"
                | "--inline-snapshot"
                | "--issues-exit-code"
                | "-update"
                | "--no-lint"
                | "--ignore"
                | "--ignore-glob"
                | "--exclude"
        ) || (*w == "-u" && !words[..i].iter().any(|p| p.starts_with("python")))
            || (flag == "--cov-fail-under" && w.ends_with("=0"))
            || (*w == "--cov-fail-under" && next == "0")
            || (*w == "--follow-imports=skip" || *w == "--follow-imports" && next == "skip")
            || (*w == "-A" && next.starts_with("warnings"))
            || w.starts_with("-Awarnings")
            || (*w == "-W" && next == "ignore")
            || *w == "-Wignore"
            || (*w == "||" && matches!(next, "true" | ":" | "exit"))
            // a linter's rule switched off on the command line
            || (flag == "--rule" && {
                let v = if w.contains('=') { w } else { next };
                let rest = words[i + 1..].join(" ");
                let off = |t: &str| t.contains("off") || t.contains(": 0") || t.contains(":0");
                off(v) || rest.trim_start().starts_with(['\'', '"']) && off(&rest)
            })
            // make going on past errors
            || (*w == "-i" && words[..i].contains(&"make"))
            || (*w == "--ignore-errors" || *w == "--keep-going" && words[..i].contains(&"make"))
            || *w == "||true"
    })
}

/// Options that select which tests or packages a check runs: their values
/// are how the project splits its checks (`pytest -m browser`, `cargo test
/// -p api`), listed in the memory.
const SELECT: &[&str] = &[
    "-m",
    "-k",
    "-p",
    "--package",
    "--features",
    "-F",
    "-tags",
    "--tags",
    "-run",
    "--project",
    "--selectProjects",
    "--group",
    "--suite",
    "--grep",
    "--only",
];

/// Options that change how a check reports or whether it fixes what it
/// finds, never what it checks: a form with only these is the tool's
/// default.
fn is_cosmetic(w: &str) -> bool {
    let flag = w.split('=').next().unwrap_or(w);
    matches!(
        flag,
        "-v" | "-vv"
            | "-vvv"
            | "--verbose"
            | "-q"
            | "-qq"
            | "--quiet"
            | "-s"
            | "-x"
            | "--exitfirst"
            | "--fix"
            | "--write"
            | "-w"
            | "--tb"
            | "--color"
            | "--colour"
            | "--no-color"
            | "--diff"
            | "--show-source"
            | "--statistics"
            | "--all"
            | "--workspace"
            | "--all-targets"
            | "--release"
            | "--pretty"
            | "--progress"
            | "--no-header"
    ) || matches!(w, "." | "./..." | "./" | "src" | "tests" | "test")
}

/// The task words of a conventional check: `<tool> test`, `make lint`,
/// `npm run build`. A form made of a tool, one of these (or the tool as
/// its own task: `pytest`, `tsc`) and cosmetic options is what any agent
/// runs in such a project unprompted.
fn is_conventional(task: &str) -> bool {
    matches!(
        task,
        "test"
            | "tests"
            | "t"
            | "build"
            | "b"
            | "compile"
            | "lint"
            | "format"
            | "fmt"
            | "check"
            | "typecheck"
            | "type-check"
            | "clippy"
            | "vet"
    )
}

/// True when the family's command (`head` plus the kept words) is the
/// default way to run its check: no setup, no wrapper (`uv run`, `bundle
/// exec`), a conventional task (or the tool alone) and only cosmetic
/// options. A memory of it would tell the agent what it does anyway.
fn is_default_form(cmd: &str) -> bool {
    if cmd.contains("&&") {
        return false;
    }
    let words: Vec<&str> = cmd.split_whitespace().collect();
    let Some(&p0) = words.first() else {
        return true;
    };
    let p0 = p0.rsplit('/').next().unwrap_or(p0);
    if matches!(
        p0,
        "uv" | "poetry" | "pdm" | "hatch" | "pipenv" | "bundle" | "npx" | "pnpx" | "bunx"
    ) || p0.starts_with("python")
        || p0.starts_with("./")
        || p0.contains('=')
    {
        return false;
    }
    let mut rest = words[1..].iter().copied().filter(|w| !is_cosmetic(w));
    // `npm run test` is `npm test`
    let mut next = rest.next();
    if matches!(p0, "npm" | "pnpm" | "yarn" | "bun") && next == Some("run") {
        next = rest.next();
    }
    match next {
        None => true,
        Some(task) => {
            is_conventional(task.split(':').next().unwrap_or(task))
                && !task.contains(':')
                && rest.next().is_none()
        }
    }
}

/// The command of a user message that ran one in the agent's shell
/// (`<bash-input>uv run ty check</bash-input>`, Claude Code's `!` prefix).
pub(super) fn user_bash_input(text: &str) -> Option<&str> {
    let rest = text.trim_start().strip_prefix("<bash-input>")?;
    let cmd = rest[..rest.find("</bash-input>")?].trim();
    (!cmd.is_empty() && !cmd.contains('\n')).then_some(cmd)
}

/// `raw` with a leading `cd` into the project root dropped and one into a
/// directory inside it made relative (`cd /p/proj/web && …` → `cd web && …`).
fn in_root(raw: &str, root: Option<&std::path::Path>) -> String {
    let Some(root) = root.and_then(|r| r.to_str()) else {
        return raw.to_string();
    };
    let root = root.trim_end_matches('/');
    let Some(rest) = raw
        .strip_prefix("cd ")
        .and_then(|r| r.trim_start().strip_prefix(root))
    else {
        return raw.to_string();
    };
    let (dir, after) = match rest.find("&&") {
        Some(i) => (rest[..i].trim(), rest[i + 2..].trim()),
        None => return raw.to_string(),
    };
    match dir.trim_matches('/') {
        "" => after.to_string(),
        d if dir.starts_with('/') => format!("cd {d} && {after}"),
        _ => raw.to_string(),
    }
}

impl Repeats {
    /// Command line `raw` ran successfully (its call at `at`); `by_user`
    /// when the user typed it in the agent's shell.
    pub(super) fn ran(
        &mut self,
        raw: &str,
        at: &At,
        root: Option<&std::path::Path>,
        by_user: bool,
    ) {
        let raw = in_root(raw, root);
        let Some((topic, head, rest)) = family_of(&raw) else {
            return;
        };
        self.n += 1;
        let f = self.families.entry(head.clone()).or_insert_with(|| Family {
            topic,
            runs: 0,
            sessions: Vec::new(),
            words: FastMap::default(),
            head: head.clone(),
            rest: Vec::new(),
            last: 0,
            by_user: 0,
            requests: 0,
            last_request: None,
            unit_seen: BTreeSet::new(),
            run_words: FastMap::default(),
            session_words: FastMap::default(),
            session_seen: BTreeSet::new(),
            bare: BTreeSet::new(),
            order: Vec::new(),
            select: FastMap::default(),
        });
        let request = (at.digest.clone(), self.said.requests);
        if f.last_request.as_ref().is_none_or(|(d, _)| *d != at.digest) {
            f.session_seen.clear();
        }
        if f.last_request.as_ref() != Some(&request) {
            f.requests += 1;
            f.last_request = Some(request);
            f.unit_seen.clear();
        }
        f.runs += 1;
        f.by_user += u64::from(by_user);
        for (i, w) in rest.iter().enumerate() {
            let (flag, value) = match w.split_once('=') {
                Some((f, v)) if f.starts_with('-') => (f, Some(v)),
                _ => (w.as_str(), rest.get(i + 1).map(String::as_str)),
            };
            if SELECT.contains(&flag)
                && let Some(v) = value.filter(|v| !v.starts_with('-'))
            {
                let v = v.trim_matches(['"', '\'']).to_string();
                // once per unit of work: a burst of runs while debugging
                // one test is one vote
                if f.unit_seen.insert(format!("{flag}\u{0}{v}")) {
                    *f.select.entry((flag.to_string(), v)).or_default() += 1;
                }
            }
        }
        f.last = self.n;
        let mut in_run = BTreeSet::new();
        for (i, w) in rest.iter().enumerate() {
            if w.starts_with('-')
                && !w.contains('=')
                && rest.get(i + 1).is_none_or(|n| n.starts_with('-'))
                && f.bare.len() < MAX_ORDER
            {
                f.bare.insert(w.clone());
            }
            if f.unit_seen.insert(w.clone()) {
                *f.words.entry(w.clone()).or_default() += 1;
            }
            if in_run.insert(w) {
                *f.run_words.entry(w.clone()).or_default() += 1;
            }
            if f.session_seen.insert(w.clone()) {
                *f.session_words.entry(w.clone()).or_default() += 1;
            }
            if f.order.len() < MAX_ORDER && !f.order.contains(w) {
                // after the word it followed, so an option keeps its value
                let at = i
                    .checked_sub(1)
                    .and_then(|p| f.order.iter().position(|o| *o == rest[p]))
                    .map_or(f.order.len(), |p| p + 1);
                f.order.insert(at, w.clone());
            }
        }
        f.rest = rest;
        match f.sessions.iter_mut().find(|s| s.digest == at.digest) {
            Some(s) => *s = at.clone(),
            None => f.sessions.push(at.clone()),
        }
    }

    /// The memories: for each topic, the family run successfully in
    /// [`MIN_SESSIONS`] sessions or more that ran last. A family whose
    /// command a lesson of `kept` already says to run ("Use `source
    /// .venv/bin/activate && pytest` instead of `pytest`") is that lesson:
    /// no second memory, the lesson gets the topic's words as triggers.
    pub(super) fn memories(
        &self,
        opts: &ExtractOptions,
        notes: &mut Notes,
        kept: &mut [Cand],
    ) -> Vec<Cand> {
        let mut out = Vec::new();
        for topic in Topic::ALL {
            let mut fams: Vec<&Family> = self
                .families
                .values()
                .filter(|f| f.topic == topic)
                .collect();
            fams.sort_by_key(|f| f.last);
            // a family seen in enough sessions is the project's way; one
            // seen only in the requests of fewer sessions never replaces it
            let by_sessions = |f: &Family| {
                f.sessions.len() >= MIN_SESSIONS
                    || (f.by_user > 0 && f.sessions.len() >= MIN_SESSIONS_USER)
            };
            let enough = |f: &Family| by_sessions(f) || f.requests >= MIN_REQUESTS;
            for f in &fams {
                if !enough(f) {
                    note(
                        notes,
                        false,
                        Bucket::CurrentContext,
                        "repeat/too-few-sessions",
                        f.sessions.last().map_or(0, |a| a.line),
                        &format!(
                            "{} ({} sessions, {} requests)",
                            f.head,
                            f.sessions.len(),
                            f.requests
                        ),
                    );
                }
            }
            let Some(f) = fams
                .iter()
                .rev()
                .find(|f| by_sessions(f))
                .or_else(|| fams.iter().rev().find(|f| enough(f)))
            else {
                continue;
            };
            let cmd = f.command();
            // one session's requests show a way of working only when it runs
            // the whole check: a test picked, a stop at the first failure or
            // a rerun of the failures is a debugging loop
            if !by_sessions(f) && debugging(&cmd) {
                note(
                    notes,
                    false,
                    Bucket::CurrentContext,
                    "repeat/debugging",
                    f.sessions.last().map_or(0, |a| a.line),
                    &format!("`{cmd}`: one session's debugging loop"),
                );
                continue;
            }
            if f.by_user == 0 && f.selections().is_empty() && is_default_form(&cmd) {
                note(
                    notes,
                    false,
                    Bucket::CurrentContext,
                    "repeat/default-form",
                    f.sessions.last().map_or(0, |a| a.line),
                    &format!("`{cmd}`: what the agent runs unprompted"),
                );
                continue;
            }
            let said = format!("`{cmd}`");
            let lesson = kept.iter_mut().find(|c| {
                c.mem.trust != Some(Trust::Low)
                    && c.mem
                        .extra
                        .get("rule")
                        .and_then(|r| r.as_str())
                        .is_some_and(|r| r.starts_with("lesson/"))
                    // (the lesson says to run it: "Run `X`, not …", "Run `X` before …")
                    && c.mem
                        .fact
                        .as_deref()
                        .is_some_and(|f| f.starts_with(&format!("Run {said}")))
            });
            if let Some(l) = lesson {
                for w in f.topic.words() {
                    if l.mem.triggers.len() < 8 && !l.mem.triggers.iter().any(|t| t == w) {
                        l.mem.triggers.push((*w).to_string());
                    }
                }
                note(
                    notes,
                    false,
                    Bucket::CurrentContext,
                    "repeat/same-as-lesson",
                    f.sessions.last().map_or(0, |a| a.line),
                    &format!("`{cmd}`: the lesson \"{}\" says it", l.mem.name),
                );
                continue;
            }
            out.push(self.memory(f, opts, notes));
        }
        out.extend(self.said.memories(opts, notes));
        out
    }

    fn memory(&self, f: &Family, opts: &ExtractOptions, notes: &mut Notes) -> Cand {
        let cmd = f.command();
        let select = f.selections();
        let n = f.sessions.len();
        let last = f.sessions.last().expect("a family has a session");
        // the check without its setup (`cd web && `, `source .venv/bin/activate
        // && `): the name says it when the whole command is too long for a
        // title, the triggers are its words; the description says it whole
        let check = cmd.rsplit(" && ").next().unwrap_or(&cmd);
        let whole = format!("This project {} with `{cmd}`", f.topic.doing());
        // only a virtual environment's activation may go unsaid in a name
        let steps: Vec<&str> = cmd.split(" && ").collect();
        let venv_only = steps.len() > 1
            && steps[..steps.len() - 1].iter().all(|s| {
                let mut w = s.split_whitespace();
                matches!(w.next(), Some("source" | "."))
                    && w.next().is_some_and(|f| f.ends_with("/bin/activate"))
            });
        let name = if title_of(&whole) == whole || !venv_only {
            whole
        } else {
            title_of(&format!("This project {} with `{check}`", f.topic.doing()))
        };
        note(
            notes,
            true,
            Bucket::AutomaticMemory,
            "repeat/project-command",
            last.line,
            &name,
        );
        // the runs that carried the command's every option (each kept word's
        // count bounds them)
        let runs = cmd
            .strip_prefix(f.head.as_str())
            .unwrap_or("")
            .split_whitespace()
            .filter_map(|w| f.run_words.get(w).copied())
            .min()
            .unwrap_or(f.runs);
        let description = format!("`{cmd}`, run successfully {runs} times");
        let mut m = base_memory(
            name,
            description,
            MemoryType::Project,
            Kind::DurableLesson,
            last,
            opts,
        );
        m.id = Some(f.topic.id().to_string());
        m.fact = Some(format!(
            "This project {} with `{cmd}`.{}",
            f.topic.doing(),
            select
                .iter()
                .map(|(flag, vals)| format!(
                    " It selects them with `{flag}`: {}.",
                    vals.iter()
                        .map(|v| format!("`{flag} {}`", quoted(v)))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
                .collect::<String>()
        ));
        let over = if n >= MIN_SESSIONS || f.by_user > 0 {
            format!("{n} sessions")
        } else {
            format!(
                "{} requests of {n} session{}",
                f.requests,
                if n == 1 { "" } else { "s" }
            )
        };
        m.why = Some(format!(
            "`{cmd}` ran successfully {runs} times in {over}{}.",
            last.day()
                .map(|d| format!(", the last on {d}"))
                .unwrap_or_default()
        ));
        m.how = Some(format!("To {}, run `{cmd}`.", f.topic.task()));
        m.source = Some(Source::Assistant);
        m.trust = Some(Trust::Normal);
        m.confidence = Some((0.6 + 0.05 * n.saturating_sub(MIN_SESSIONS_USER) as f64).min(0.9));
        let mut trig: Vec<String> = f.topic.words().iter().map(|w| w.to_string()).collect();
        for k in crate::command::command_keywords(check) {
            if !trig.contains(&k) {
                trig.push(k);
            }
        }
        trig.truncate(6);
        // the subsets' names (`browser` of `-m browser`): a task that names
        // one recalls how to run it
        for (_, vals) in &select {
            for v in vals {
                for w in v.split(|c: char| !c.is_alphanumeric() && c != '_' && c != '-') {
                    let w = w.to_lowercase();
                    if w.len() < 3 || matches!(w.as_str(), "not" | "and" | "or") {
                        continue;
                    }
                    // a phrase: "browser tests", never "browser" alone (a
                    // task about the browser is not one about its tests)
                    let t = match f.topic {
                        Topic::Tests => format!("{w} tests"),
                        _ => format!("{w} {}", f.topic.words()[0]),
                    };
                    if !trig.contains(&t) && trig.len() < 10 {
                        trig.push(t);
                    }
                }
            }
        }
        m.triggers = trig;
        let skip = n.saturating_sub(MAX_EVIDENCE);
        m.evidence = f.sessions[skip..].iter().map(At::evidence).collect();
        m.extra
            .insert("rule".into(), "repeat/project-command".into());
        Cand {
            key: Some(format!("repeat:{}", f.topic.id())),
            mem: m,
            tokens: BTreeSet::new(),
        }
    }
}

/// Words a message must have to count as an instruction the user repeats
/// (fewer: "continue", "commit and push", chatter).
const MIN_SAID_WORDS: usize = 6;

/// Words a repeated message may have (longer: a pasted document).
const MAX_SAID_WORDS: usize = 120;

/// Templates kept (the first seen): a bound on the memory of a run over
/// years of sessions.
const MAX_TEMPLATES: usize = 1 << 16;

/// What the user says again and again: the same message (the words of a
/// launcher or a habit: "Work on bead spotter-fum. Run bd show spotter-fum
/// to see the issue details and bd ready to find available subtasks.") in
/// [`MIN_SESSIONS`] sessions or more, where only one word differs from
/// session to session, is a standing instruction: one memory with that word
/// as `<id>` ("Work on bead <id>. Run bd show <id> …").
///
/// Each message is read once: it stands for itself and, per distinct word,
/// for the template with every occurrence of that word made `<id>`
/// (`spotter-fum` twice in "Work on bead spotter-fum. Run bd show
/// spotter-fum …"); messages of one template are counted by session, and
/// by value (one value is no placeholder). Linear in the messages.
#[derive(Default)]
pub(super) struct Said {
    /// Per template (a hash of its words): its words, the values its
    /// `<id>` took, and each session's latest saying.
    templates: FastMap<u64, Template>,
    /// The user's requests so far: messages of [`MIN_SAID_WORDS`] words or
    /// more ([`Repeats::ran`] counts the requests a check ran for).
    pub(super) requests: u64,
}

/// One template's sayings (see [`Said`]).
struct Template {
    words: Vec<String>,
    /// The distinct values of `<id>` (at most two are needed).
    values: Vec<String>,
    /// Per session (its digest), the latest saying.
    sessions: Vec<At>,
}

/// A word without the punctuation after it (`spotter-fum.` → `spotter-fum`).
fn core(w: &str) -> &str {
    w.trim_end_matches(['.', ',', ':', ';', '!', '?'])
}

/// A template's key: the hash of its words.
fn key_of<'a>(words: impl Iterator<Item = &'a str>) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = foldhash::fast::FixedState::default().build_hasher();
    for w in words {
        h.write(w.as_bytes());
        h.write_u8(0);
    }
    h.finish()
}

/// The key of the template of `words` with every word whose [`core`] is
/// `v` made `<id>` (its punctuation kept); never a whole message's key.
fn masked_key(words: &[&str], v: &str) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = foldhash::fast::FixedState::default().build_hasher();
    for x in words {
        if core(x) == v {
            h.write(b"<id>");
            h.write(&x.as_bytes()[v.len()..]);
        } else {
            h.write(x.as_bytes());
        }
        h.write_u8(0);
    }
    h.write_u8(1);
    h.finish()
}

impl Said {
    /// The user said `text` (one message) at `at`.
    pub(super) fn said(&mut self, text: &str, at: &At) {
        let t = text.trim();
        if t.starts_with(['<', '[', '/', '!']) {
            return;
        }
        let words: Vec<&str> = t.split_whitespace().collect();
        // a request starts new work: not a short yes to go on ("yes please
        // go ahead and do that"), not a pasted log
        let first = words[0]
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_ascii_lowercase();
        let affirms = matches!(
            first.as_str(),
            "yes"
                | "yeah"
                | "yep"
                | "ok"
                | "okay"
                | "sure"
                | "go"
                | "great"
                | "thanks"
                | "perfect"
                | "sounds"
                | "fine"
                | "right"
                | "correct"
                | "exactly"
                | "agreed"
                | "lgtm"
                | "cool"
                | "nice"
                | "good"
        );
        if words.len()
            >= if affirms {
                2 * MIN_SAID_WORDS
            } else {
                MIN_SAID_WORDS
            }
            && super::message::first_pasted_line(t).is_none()
        {
            self.requests += 1;
        }
        if !(MIN_SAID_WORDS..=MAX_SAID_WORDS).contains(&words.len()) {
            return;
        }
        // the message itself (no placeholder), then one template per
        // distinct word
        let whole = key_of(words.iter().copied());
        self.add(
            whole,
            || words.iter().map(|w| (*w).to_string()).collect(),
            None,
            at,
        );
        let mut done: Vec<&str> = Vec::new();
        for w in &words {
            let v = core(w);
            if v.is_empty() || done.contains(&v) {
                continue;
            }
            done.push(v);
            let masked = |x: &str, id: &mut String| -> Option<String> {
                (core(x) == v).then(|| {
                    id.clear();
                    id.push_str("<id>");
                    id.push_str(&x[v.len()..]);
                    id.clone()
                })
            };
            let k = masked_key(&words, v);
            self.add(
                k,
                || {
                    let mut buf = String::new();
                    words
                        .iter()
                        .map(|x| masked(x, &mut buf).unwrap_or_else(|| (*x).to_string()))
                        .collect()
                },
                Some(v),
                at,
            );
        }
    }

    /// Count saying `at` for the template of key `k` (its words made by
    /// `words` when it is new), its `<id>` being `value`.
    fn add(&mut self, k: u64, words: impl FnOnce() -> Vec<String>, value: Option<&str>, at: &At) {
        if self.templates.len() >= MAX_TEMPLATES && !self.templates.contains_key(&k) {
            // full: what was said in one session only goes first
            self.templates.retain(|_, t| t.sessions.len() >= 2);
            if self.templates.len() >= MAX_TEMPLATES {
                return;
            }
        }
        let t = self.templates.entry(k).or_insert_with(|| Template {
            words: words(),
            values: Vec::new(),
            sessions: Vec::new(),
        });
        if let Some(v) = value
            && t.values.len() < 2
            && !t.values.iter().any(|x| x == v)
        {
            t.values.push(v.to_string());
        }
        // a stream gives a session's events together: its saying, if any,
        // is among the last few
        let recent = t.sessions.len().saturating_sub(4);
        match t.sessions[recent..]
            .iter_mut()
            .find(|s| s.digest == at.digest)
        {
            Some(s) => *s = at.clone(),
            None => t.sessions.push(at.clone()),
        }
    }

    /// The memories: one per template said in [`MIN_SESSIONS`] sessions or
    /// more (the latest saying of each session as evidence); a template
    /// with a placeholder only when its `<id>` took two values or more.
    pub(super) fn memories(&self, opts: &ExtractOptions, notes: &mut Notes) -> Vec<Cand> {
        let mut found: Vec<&Template> = self
            .templates
            .values()
            .filter(|t| t.sessions.len() >= 2)
            .filter(|t| {
                let placeholder = t.words.iter().any(|w| w.starts_with("<id>"));
                !placeholder || t.values.len() >= 2
            })
            .collect();
        let last_of = |t: &Template| {
            t.sessions
                .iter()
                .map(|a| (a.ts, a.line))
                .max()
                .expect("a template has sessions")
        };
        found.sort_by(|a, b| last_of(a).cmp(&last_of(b)).then(a.words.cmp(&b.words)));
        let mut out = Vec::new();
        for t in found {
            let (words, ats) = (&t.words, t.sessions.iter().collect::<Vec<&At>>());
            let text = words.join(" ");
            let last = ats
                .iter()
                .copied()
                .max_by_key(|a| (a.ts, a.line))
                .expect("a template has sessions");
            if ats.len() < MIN_SESSIONS {
                note(
                    notes,
                    false,
                    Bucket::CurrentContext,
                    "repeat/said-in-few-sessions",
                    last.line,
                    &format!("{text} ({} sessions)", ats.len()),
                );
                continue;
            }
            note(
                notes,
                true,
                Bucket::DurableInstruction,
                "repeat/user-says",
                last.line,
                &text,
            );
            let fact = super::sentence::clean_sentence(&text);
            let n = ats.len();
            let title = title_of(&fact);
            // what the title leaves out of the message, else where it came from
            let rest = fact
                .strip_prefix(title.as_str())
                .map(|r| r.trim_start_matches(['.', ',', ';', ':', ' ']))
                .filter(|r| r.len() >= 8);
            let description = match rest {
                Some(r) => cut(r, 150),
                None => format!("The user said this in {n} sessions"),
            };
            let mut m = base_memory(
                title,
                description,
                MemoryType::Feedback,
                Kind::Preference,
                last,
                opts,
            );
            m.fact = Some(fact.clone());
            m.why = Some(format!(
                "The user said it in {n} sessions{}.",
                last.day()
                    .map(|d| format!(", the last on {d}"))
                    .unwrap_or_default()
            ));
            m.source = Some(Source::User);
            m.trust = Some(Trust::Normal);
            m.confidence = Some((0.7 + 0.05 * n.saturating_sub(MIN_SESSIONS) as f64).min(0.9));
            m.triggers = crate::triggers::triggers_of(&fact.replace("<id>", " "), 6);
            let mut sorted: Vec<&At> = ats.clone();
            sorted.sort_by_key(|a| (a.ts, a.line));
            let skip = n.saturating_sub(MAX_EVIDENCE);
            m.evidence = sorted[skip..].iter().map(|a| a.evidence()).collect();
            m.extra.insert("rule".into(), "repeat/user-says".into());
            out.push(Cand {
                key: Some(format!("said:{}", words.join(" ").to_lowercase())),
                mem: m,
                tokens: BTreeSet::new(),
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_family_is_its_setup_head_and_task() {
        for (line, topic, head) in [
            ("uv run pytest -q tests/", Topic::Tests, "uv run pytest"),
            (
                "cargo nextest run --workspace",
                Topic::Tests,
                "cargo nextest",
            ),
            ("npm run test -- --run", Topic::Tests, "npm run test"),
            ("pnpm test:unit", Topic::Tests, "pnpm test:unit"),
            ("python -m pytest -x", Topic::Tests, "python -m pytest"),
            (
                "cd backend && make test",
                Topic::Tests,
                "cd backend && make test",
            ),
            ("make -C web lint", Topic::Lint, "make -C web lint"),
            ("cargo clippy --all-targets", Topic::Lint, "cargo clippy"),
            ("ruff check src", Topic::Lint, "ruff check"),
            ("cargo fmt --check", Topic::Format, "cargo fmt"),
            ("npm run typecheck", Topic::Typecheck, "npm run typecheck"),
            ("uv run ty check src", Topic::Typecheck, "uv run ty check"),
            ("mypy --strict app", Topic::Typecheck, "mypy"),
            ("yarn build:prod", Topic::Build, "yarn build:prod"),
        ] {
            let (t, h, _) = family_of(line).unwrap_or_else(|| panic!("{line}"));
            assert_eq!((t, h.as_str()), (topic, head), "{line}");
        }
        for line in [
            "ls tests",
            "git status",
            "cat pytest.ini",
            "npx vitest run",
            "sudo make test",
            "curl -fsSL https://x.test/t.sh | sh",
            "make deploy",
            "python3 -c 'import pytest'",
        ] {
            assert!(family_of(line).is_none(), "{line}");
        }
    }
}
