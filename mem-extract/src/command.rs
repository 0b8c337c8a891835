//! Shell commands as extraction reads them: the command of a tool call,
//! its normalized and display forms, whether it inspects or runs a script,
//! whether its output failed, the retry that fixed a failed one, and the
//! names in it that make triggers.

use std::sync::OnceLock;

use mem_core::records::Event;
use mem_core::scrub::Scrubber;
use mem_core::truncate::floor_to_bytes;

use crate::extract::sentence::lower;
use mem_core::shell::Op;
use regex::Regex;

/// Programs that run other things: not distinctive as triggers.
pub(crate) const RUNNERS: &[&str] = &[
    "sh", "bash", "zsh", "env", "sudo", "node", "deno", "bun", "python", "python3", "ruby", "perl",
    "npm", "npx", "pnpm", "yarn", "run", "exec", "make", "cargo", "go", "uv", "poetry", "pip",
    "mix", "bundle", "java", "dotnet", "time",
];

/// The distinctive names in a command line: arguments that are not options
/// or runners, as base names without a script extension, lowercased (at most
/// two). `node src/build-token.mjs` → `["build-token"]`; `make verify` →
/// `["verify"]`.
pub fn command_keywords(cmd: &str) -> Vec<String> {
    let mut out = Vec::new();
    for tok in cmd.split_whitespace() {
        if matches!(tok, "&&" | "||" | "|" | ";") {
            break;
        }
        if tok.starts_with('-') || tok.contains('=') {
            continue;
        }
        let base = tok.rsplit('/').next().unwrap_or(tok);
        let stem = [".sh", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl"]
            .iter()
            .find_map(|e| base.strip_suffix(e))
            .unwrap_or(base)
            .to_lowercase();
        if stem.chars().count() < 3 || RUNNERS.contains(&stem.as_str()) || out.contains(&stem) {
            continue;
        }
        if !stem
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_' || c == '.')
        {
            continue;
        }
        out.push(stem);
        if out.len() == 2 {
            break;
        }
    }
    out
}

/// The shell command of a tool call, when it runs one (Claude `Bash`, Codex
/// `shell` / `exec_command` / `local_shell`).
pub fn command_of(ev: &Event) -> Option<String> {
    let input = ev.input.as_ref()?;
    command_in(ev.tool.as_deref().unwrap_or(""), |k| input.get(k))
}

/// The shell command of a call of `tool` whose input has the keys `get`
/// looks up (see [`command_of`]).
pub fn command_in<'v>(
    tool: &str,
    get: impl Fn(&str) -> Option<&'v serde_json::Value>,
) -> Option<String> {
    if !matches!(
        tool,
        "Bash"
            | "bash"
            | "shell"
            | "exec_command"
            | "local_shell"
            | "shell_command"
            | "container.exec"
    ) {
        return None;
    }
    let v = get("command").or_else(|| get("cmd"))?;
    let s = match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(a) => {
            let parts: Vec<&str> = a.iter().filter_map(|x| x.as_str()).collect();
            match parts.as_slice() {
                [sh, flag, rest @ ..] if sh.ends_with("sh") && flag.starts_with('-') => {
                    rest.join(" ")
                }
                _ => parts.join(" "),
            }
        }
        _ => return None,
    };
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_string())
}

/// A command as compared between runs: whitespace collapsed, a leading
/// `cd DIR &&` removed.
pub(crate) fn norm_cmd(c: &str) -> String {
    let mut s = c.split_whitespace().collect::<Vec<_>>().join(" ");
    while let Some(rest) = s.strip_prefix("cd ") {
        match rest.find("&& ") {
            Some(i) => s = rest[i + 3..].to_string(),
            None => break,
        }
    }
    s
}

/// Commands that only look around (never the fix in a lesson).
pub(crate) fn is_inspection(c: &str) -> bool {
    let first = c.split_whitespace().next().unwrap_or("");
    let first = first.rsplit('/').next().unwrap_or(first);
    matches!(
        first,
        "ls" | "cat"
            | "head"
            | "tail"
            | "grep"
            | "rg"
            | "find"
            | "echo"
            | "pwd"
            | "which"
            | "wc"
            | "less"
            | "more"
            | "file"
            | "stat"
            | "tree"
            | "du"
            | "df"
            | "env"
            | "printenv"
            | "type"
            | "whoami"
            | "date"
            | "sleep"
            | "true"
            | "diff"
            | "awk"
            | "sed"
            | "jq"
    ) || c.starts_with("git status")
        || c.starts_with("git diff")
        || c.starts_with("git log")
        || c.starts_with("git show")
}

/// Inline scripts and long one-offs are not steps a lesson can name.
pub(crate) fn is_script(c: &str) -> bool {
    let b = c.as_bytes();
    // one pass over the bytes that can start a mark: a newline, `<<`,
    // ` -c ` or ` -e ` (the `-` after a space)
    b.len() > 160
        || memchr::memchr3_iter(b'\n', b'<', b'-', b).any(|i| match b[i] {
            b'\n' => true,
            b'<' => b.get(i + 1) == Some(&b'<'),
            _ => {
                i > 0
                    && b[i - 1] == b' '
                    && matches!(b.get(i + 1), Some(b'c' | b'e'))
                    && b.get(i + 2) == Some(&b' ')
            }
        })
}

pub(crate) fn looks_failed(text: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r#"(?i)exit(?:ed)?[ _]?(?:code|status)"?\s*[:=]?\s*"?[1-9]|process exited with code [1-9]"#)
            .expect("exit regex")
    });
    re.is_match(floor_to_bytes(text, 4096))
}

/// A short display form of a command: first line, without `2>&1` and a
/// trailing `| tail …` / `| head …` / `| grep …`, at most 80 bytes.
pub(crate) fn short_cmd(c: &str) -> String {
    let first = c.lines().next().unwrap_or("").trim();
    // (the searches below only when their first byte occurs)
    let mut first = if first.contains('>') {
        first.replace(" 2>&1", "")
    } else {
        first.to_string()
    };
    if first.contains('|') {
        for pager in [
            "| tail", "| head", "| grep", "| less", "| cat", "|tail", "|head",
        ] {
            if let Some(i) = first.find(pager) {
                first.truncate(i);
            }
        }
    }
    let first = first.trim();
    floor_to_bytes(first, 80).trim().to_string()
}

/// The error's first line as a lesson may quote it: the first line of
/// `window` (a prefix of the failing output) that names an error, else its
/// first non-blank line; trimmed, scrubbed; cut at `budget` bytes on a
/// character boundary with `…` after the cut. `Ok(None)` when the output is
/// blank.
///
/// Errors: the name of the [`crate::instruction::PATTERNS`] entry the line
/// matches when it reads as an instruction to the agent; it is then not
/// quoted at all (tool output is never a memory's voice).
pub(crate) fn error_line(
    window: &str,
    budget: usize,
    scrubber: &Scrubber,
) -> Result<Option<String>, &'static str> {
    static RE: OnceLock<Regex> = OnceLock::new();
    // ASCII case-insensitive, like lowercasing each line
    let re = RE.get_or_init(|| {
        Regex::new(r"(?i-u)error|not found|fail|missing|cannot|no such|denied")
            .expect("error-line regex")
    });
    let line = window
        .lines()
        .find(|l| re.is_match(l))
        .or_else(|| window.lines().find(|l| !l.trim().is_empty()))
        .map(str::trim);
    let Some(line) = line.filter(|l| !l.is_empty()) else {
        return Ok(None);
    };
    if let Some(pattern) = crate::instruction::instruction_shaped(line) {
        return Err(pattern);
    }
    // scrub a little past the budget so a secret cut at the edge is still seen
    let scrubbed = scrubber.scrub(floor_to_bytes(line, budget + 512)).text;
    let scrubbed = scrubbed.trim();
    if scrubbed.len() <= budget && line.len() <= budget + 512 {
        return Ok(Some(scrubbed.to_string()));
    }
    Ok(Some(format!("{}…", floor_to_bytes(scrubbed, budget))))
}

/// True when the failing output (`out_l`, lowercased) names command `cmd`
/// as a command: its short form at word boundaries, and for a one-word
/// command without `/` or `.` only after `run`, `try`, `execute`, `$ ` or a
/// backtick (so `make: *** Error 2` does not name `make`).
pub(crate) fn named_in_output(out_l: &str, cmd: &str) -> bool {
    let c = lower(&short_cmd(cmd));
    if c.is_empty() {
        return false;
    }
    let one_word = !c.contains([' ', '/', '.']);
    let word = |b: Option<char>| b.is_none_or(|b| !(b.is_alphanumeric() || b == '_' || b == '-'));
    // the same non-overlapping matches as `match_indices`, found by memmem
    memchr::memmem::find_iter(out_l.as_bytes(), c.as_bytes()).any(|i| {
        let before = out_l[..i].chars().next_back();
        let after = out_l[i + c.len()..].chars().next();
        if !(word(before) && word(after)) {
            return false;
        }
        if !one_word {
            return true;
        }
        let head = out_l[..i].trim_end_matches([' ', ':']);
        head.ends_with('`')
            || head.ends_with('$')
            || ["run", "try", "execute", "please"]
                .iter()
                .any(|w| head.ends_with(w))
    })
}

/// True when `text_l` (lowercased) names command `cmd` with other flags or
/// another way of running it: the program of its first simple command (a
/// script run through an interpreter counts as the script: `bash x.sh`,
/// `sh ./x.sh` and `./x.sh` are one) and up to two of its arguments that
/// are not options, as whole words, in order, within 300 bytes. A command
/// of one short word (under 4 bytes) is never found this way, nor one whose
/// words are all words of `failed` (the failing command's own words are in
/// its output: they name it, not the fix).
pub(crate) fn named_loosely(text_l: &str, cmd: &str, failed: &str) -> bool {
    let Some(first) = mem_core::shell::split(cmd)
        .into_iter()
        .find(|s| !s.core().is_empty())
    else {
        return false;
    };
    let core = first.core();
    let strip = |w: &str| w.trim_start_matches("./").to_lowercase();
    let mut key: Vec<String> = Vec::new();
    let args: Vec<&str> = core[1..]
        .iter()
        .copied()
        .filter(|w| !w.starts_with('-'))
        .collect();
    let prog = core[0].rsplit('/').next().unwrap_or(core[0]);
    let interp = RUNNERS.contains(&prog) || prog.starts_with("python");
    match args.first() {
        Some(script) if interp && (script.contains('/') || script.contains('.')) => {
            key.push(strip(script));
            key.extend(args.iter().skip(1).take(1).map(|w| strip(w)));
        }
        _ => {
            key.push(strip(core[0]));
            key.extend(args.iter().take(2).map(|w| strip(w)));
        }
    }
    if key.len() == 1 && key[0].len() < 4 {
        return false;
    }
    let failed_words: Vec<String> = failed
        .split_whitespace()
        .flat_map(|w| {
            let w = strip(w);
            let b = w.rsplit('/').next().unwrap_or(&w).to_string();
            [w, b]
        })
        .collect();
    if key.iter().all(|k| failed_words.contains(k)) {
        return false;
    }
    let is_word = |b: Option<char>| {
        b.is_none_or(|b| !(b.is_alphanumeric() || matches!(b, '_' | '-' | '.' | '/')))
    };
    let found = |from: usize, w: &str| -> Option<usize> {
        let mut at = from;
        while let Some(i) = memchr::memmem::find(&text_l.as_bytes()[at..], w.as_bytes()) {
            let s = at + i;
            let e = s + w.len();
            // a script is found by its path's end too (`scripts/x.sh`)
            let before = text_l[..s].chars().next_back();
            let before_ok = is_word(before) || (before == Some('/') && w.contains('.'));
            if before_ok && is_word(text_l[e..].chars().next()) {
                return Some(e);
            }
            at = e;
        }
        None
    };
    let mut from = 0;
    while let Some(start) = found(from, &key[0]) {
        let mut end = start;
        let mut ok = true;
        for w in &key[1..] {
            match found(end, w) {
                Some(e) if e - start <= 300 => end = e,
                _ => {
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            return true;
        }
        from = start;
    }
    false
}

/// A command line up to its core command (see [`core_of`]): the `cd`,
/// `source` and env segments before it kept, the segments after it dropped;
/// each joined to the next by the operator that joined them (`&&`, `|`,
/// `;`), so the text is the command that ran.
pub(crate) fn lesson_form(c: &str) -> String {
    let segs = segments_ops(c);
    let mut out = String::new();
    let mut in_core = false;
    for (s, op) in &segs {
        out.push_str(&s.join(" "));
        let i = s
            .iter()
            .position(|w| !w.contains('=') || w.starts_with('-'));
        let setup =
            i.is_none_or(|i| matches!(s[i], "cd" | "source" | "." | "export" | "set" | "pushd"));
        // the core command goes on through its pipeline
        if !setup && !in_core {
            in_core = true;
        }
        if in_core && *op != Op::Pipe {
            break;
        }
        out.push(' ');
        out.push_str(if *op == Op::End { "&&" } else { op.as_str() });
        out.push(' ');
    }
    out.trim_end().to_string()
}

/// The program and subcommand of a general command (`git push`, `pytest`,
/// `node assets/build.js`): the words before the first flag or placeholder,
/// at most three.
pub(crate) fn head_of(c: &str) -> String {
    c.split_whitespace()
        .take_while(|w| !w.starts_with(['-', '<']) && *w != "&&")
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Successful commands at most between a failure and its modified retry.
pub(crate) const MAX_RETRY_GAP: usize = 8;

/// The simple commands of a command line as their words as written
/// ([`mem_core::shell::split`]: quotes kept, redirections and the commands
/// of substitutions left out), a leading `time`/`exec`/`command` dropped.
pub(crate) fn segments(c: &str) -> Vec<Vec<&str>> {
    segments_ops(c).into_iter().map(|(s, _)| s).collect()
}

/// [`segments`], each with the operator that follows it.
pub(crate) fn segments_ops(c: &str) -> Vec<(Vec<&str>, Op)> {
    mem_core::shell::split(c)
        .into_iter()
        .filter(|s| !s.substituted)
        .map(|s| {
            let mut words: Vec<&str> = s.words.iter().map(|w| w.raw).collect();
            while words
                .first()
                .is_some_and(|w| matches!(*w, "time" | "exec" | "command"))
            {
                words.remove(0);
            }
            (words, s.next)
        })
        .filter(|(w, _)| !w.is_empty())
        .collect()
}

/// The step of an `A && B …` line that failed, as written: the steps
/// before it ran (a step that fails stops the line), and a staging step
/// like `git add -A` prints nothing when it passes, so the failure is the
/// last step's — unless the failing output (`output_l`, lowercased) names
/// an earlier step's program or subcommand. `None` for a single command,
/// a line joined otherwise (`;`, `|`, `||`) or one that starts with a
/// setup step (`cd`, `source`, `export`: [`lesson_form`] keeps those).
pub(crate) fn failing_step(c: &str, output_l: &str) -> Option<String> {
    let segs = segments_ops(c);
    if segs.len() < 2
        || segs[..segs.len() - 1].iter().any(|(_, op)| *op != Op::And)
        || core_of(&segs[..1].iter().map(|(s, _)| s.clone()).collect::<Vec<_>>())
            .is_none_or(|core| core.len() != segs[0].0.len())
    {
        return None;
    }
    let said: std::collections::HashSet<&str> = output_l
        .split(|c: char| !c.is_alphanumeric() && c != '-' && c != '_')
        .filter(|w| w.len() >= 2)
        .collect();
    let head = |s: &[&str]| -> Vec<String> {
        s.iter()
            .filter(|w| !w.starts_with('-'))
            .take(2)
            .map(|w| lower(w))
            .collect()
    };
    let last = segs.len() - 1;
    let last_head = head(&segs[last].0);
    // the last earlier step whose own words (not the last step's) the
    // output says, else the last step
    let i = (0..last)
        .rev()
        .find(|&i| {
            head(&segs[i].0)
                .iter()
                .any(|w| !last_head.contains(w) && said.contains(w.as_str()))
        })
        .unwrap_or(last);
    Some(segs[i].0.join(" "))
}

/// The command a line runs for its effect: the first segment that is not a
/// `cd`, `source`/`.`, `export` or env assignment (leading `VAR=x` words
/// dropped from it).
pub(crate) fn core_of<'a>(segs: &'a [Vec<&'a str>]) -> Option<&'a [&'a str]> {
    segs.iter().find_map(|s| {
        let i = s
            .iter()
            .position(|w| !w.contains('=') || w.starts_with('-'))?;
        let s = &s[i..];
        (!matches!(s[0], "cd" | "source" | "." | "export" | "set" | "pushd")).then_some(s)
    })
}

/// How `retry` (which passed) is a modified retry of `tried` (which failed), in
/// words, or `None`: the same command wrapped (`poetry run pytest`), with an
/// activated environment or an env prefix, with flags added (`git push
/// --set-upstream …`), from another directory (`cd assets && node build.js`,
/// `make -C backend test`), or with a versioned program (`python3`).
pub fn retry_of(tried: &str, retry: &str) -> Option<&'static str> {
    if tried == retry || is_script(tried) || is_script(retry) || is_inspection(tried) {
        return None;
    }
    let (sa, sb) = (segments(tried), segments(retry));
    let (ca, cb) = (core_of(&sa)?, core_of(&sb)?);
    let flags = |c: &[&str]| c.iter().filter(|w| w.starts_with('-')).count();
    let plain = |c: &[&str]| -> Vec<String> {
        c.iter()
            .filter(|w| !w.starts_with('-'))
            .map(|w| w.rsplit('/').next().unwrap_or(w).to_string())
            .collect()
    };
    let has = |segs: &[Vec<&str>], first: &[&str]| {
        segs.iter()
            .any(|s| s.first().is_some_and(|w| first.contains(w)))
    };
    // wrapped: a's whole core appears inside b's, after a runner
    if cb.len() > ca.len() && cb.windows(ca.len()).skip(1).any(|w| w == ca) {
        return Some("through a wrapper");
    }
    if ca == cb {
        if has(&sb, &["source", "."]) && !has(&sa, &["source", "."]) {
            return Some("with the environment activated");
        }
        if has(&sb, &["cd", "pushd"]) && !has(&sa, &["cd", "pushd"]) {
            return Some("from another directory");
        }
        let env = |segs: &[Vec<&str>]| {
            segs.iter()
                .flatten()
                .filter(|w| w.contains('=') && !w.starts_with('-'))
                .count()
        };
        if env(&sb) > env(&sa) {
            return Some("with an environment variable set");
        }
        return None;
    }
    let (pa, pb) = (ca[0].rsplit('/').next()?, cb[0].rsplit('/').next()?);
    // a versioned program: python → python3, pip → pip3
    if pb != pa
        && pb.starts_with(pa)
        && pb[pa.len()..]
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.')
        && ca[1..] == cb[1..]
    {
        return Some("with the versioned program");
    }
    if pa != pb {
        return None;
    }
    // another directory: `node assets/build.js` → `cd assets && node build.js`
    if has(&sb, &["cd", "pushd"]) && plain(ca).len() == plain(cb).len() && plain(ca) == plain(cb) {
        return Some("from another directory");
    }
    if cb
        .iter()
        .any(|w| *w == "-C" || *w == "--directory" || w.starts_with("--manifest-path"))
    {
        return Some("from another directory");
    }
    // flags added to the same program and subcommand (not ones that only
    // print help or change nothing)
    fn sub<'w>(c: &[&'w str]) -> Option<&'w str> {
        c.get(1).copied().filter(|w| !w.starts_with('-'))
    }
    let idle = [
        "--help",
        "-h",
        "--version",
        "-V",
        "--dry-run",
        "-n",
        "--check",
        "--list",
    ];
    if cb.iter().any(|w| idle.contains(w)) && !ca.iter().any(|w| idle.contains(w)) {
        return None;
    }
    if sub(ca) == sub(cb) && flags(cb) > flags(ca) {
        return Some("with a flag added");
    }
    None
}

/// A command written for the general case: commit messages are dropped;
/// branch names, ticket-like ids and the files of `git add`/`rm`/`restore`
/// become placeholders (`<branch>`, `<id>`, `<files>`); a `cd` into an
/// absolute directory keeps the directory's last name. A lesson is written
/// so only when its evidence holds several values (see [`specific_cmd`]).
pub fn general_cmd(command: &str) -> String {
    written_cmd(command, true)
}

/// A command as the evidence shows it: commit messages dropped (a lesson
/// never needs one), a `cd` into an absolute directory kept as the
/// directory's last name; branches, ids and files kept as they were.
pub fn specific_cmd(command: &str) -> String {
    written_cmd(command, false)
}

/// True when `-m` / `-F` of program `prog` gives a message (version
/// control), not a module or a file (`python -m pytest`).
fn takes_message(prog: &str) -> bool {
    matches!(prog, "git" | "hg" | "svn" | "jj" | "bzr" | "fossil")
}

/// [`general_cmd`] when `general`, else [`specific_cmd`].
fn written_cmd(command: &str, general: bool) -> String {
    static ID: OnceLock<Regex> = OnceLock::new();
    let id = ID.get_or_init(|| {
        Regex::new(r"^(?:[A-Za-z]+-\d+|[a-z]+-[a-z0-9]{2,4}(?:\.\d+)+)$").expect("id regex")
    });
    let mut out: Vec<String> = Vec::new();
    let mut joiner: Option<Op> = None;
    for (seg, op) in segments_ops(command) {
        if let Some(j) = joiner.replace(op) {
            out.push(if j == Op::End { "&&" } else { j.as_str() }.into());
        }
        let prog = seg[0].rsplit('/').next().unwrap_or(seg[0]);
        let sub = seg.get(1).copied().unwrap_or("");
        let branchy = prog == "git"
            && matches!(
                sub,
                "push" | "pull" | "checkout" | "switch" | "merge" | "rebase" | "branch"
            );
        let fileish = prog == "git" && matches!(sub, "add" | "rm" | "restore" | "stage");
        let branchy = branchy && general;
        let fileish = fileish && general;
        let vcs = takes_message(prog);
        let is_msg = |w: &str| w == "--message" || (vcs && matches!(w, "-m" | "-F"));
        let mut files = 0;
        let mut prev = "";
        for (i, w) in seg.iter().enumerate() {
            if is_msg(w) {
                // a lesson never needs the message: the flag and it go
                prev = w;
                continue;
            }
            if let Some(m) = w.strip_prefix("--message=") {
                // `--message="two words"`: the rest of the quote goes too
                if m.starts_with('"') && (m.len() == 1 || !m.ends_with('"')) {
                    break;
                }
                continue;
            }
            let word = if is_msg(prev) {
                prev = "";
                if w.starts_with('"') && !w.ends_with('"') {
                    break;
                }
                continue;
            } else if i == 1 && prog == "cd" && w.starts_with('/') {
                w.rsplit('/').next().unwrap_or(w).to_string()
            } else if branchy && i >= 2 && !w.starts_with('-') && prev != "--set-upstream-to" {
                // (a branch named like a ticket is a branch here)
                if matches!(*w, "origin" | "upstream") {
                    w.to_string()
                } else {
                    "<branch>".to_string()
                }
            } else if general && id.is_match(w.trim_matches(['"', '\''])) {
                "<id>".to_string()
            } else if fileish && i >= 2 && !w.starts_with('-') {
                files += 1;
                if files > 1 {
                    prev = w;
                    continue;
                }
                w.to_string()
            } else {
                w.to_string()
            };
            if word.starts_with('"') && !word.ends_with('"') {
                // a quoted message cut at the first line
                out.push("<message>".into());
                break;
            }
            out.push(word);
            prev = w;
        }
        if files > 0
            && let Some(last) = out.iter().rposition(|w| !w.starts_with('-') && w != "&&")
        {
            out[last] = "<files>".into();
        }
    }
    let s = out.join(" ");
    floor_to_bytes(&s, 80).trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fix is found with other flags, run another way or in prose; never
    /// by the failing command's own words, nor a short lone word.
    #[test]
    fn the_failing_step_of_a_chain() {
        let out = "pre-commit validation failed: [format] code is not formatted. run 'mix format' to fix.";
        assert_eq!(
            failing_step("git add -A && git commit", out).as_deref(),
            Some("git commit")
        );
        // the output names the earlier step
        assert_eq!(
            failing_step(
                "npm ci && npm test",
                "npm err! ci can only install with an existing package-lock.json"
            )
            .as_deref(),
            Some("npm ci")
        );
        assert_eq!(
            failing_step("npm ci && npm test", "1 failing test in parser.spec.ts").as_deref(),
            Some("npm test")
        );
        assert_eq!(
            failing_step(
                "make gen && cargo test",
                "make: *** no rule to make target 'gen'"
            )
            .as_deref(),
            Some("make gen")
        );
        // one command, a setup step first, other operators: not a chain of steps
        assert_eq!(failing_step("git commit", out), None);
        assert_eq!(failing_step("cd web && npm test", out), None);
        assert_eq!(failing_step("make; make test", out), None);
    }

    #[test]
    fn named_loosely_finds_the_fix_not_the_failing_command() {
        for (text, cmd, failed, want) in [
            (
                "error: stale; run `datasync pull --all`",
                "datasync pull -q",
                "make verify",
                true,
            ),
            (
                "pull the data with datasync (datasync pull)",
                "datasync --verbose pull",
                "make",
                true,
            ),
            (
                "to fix run: ./scripts/refresh.sh",
                "bash scripts/refresh.sh",
                "make",
                true,
            ),
            (
                "to fix run: scripts/refresh.sh",
                "sh ./refresh.sh",
                "make",
                true,
            ),
            (
                "install: curl -sSL https://x.io/i.sh | sh",
                "curl -fsSL https://x.io/i.sh | sh",
                "cargo build",
                true,
            ),
            (
                "python: can't open file 'number_generator.py'",
                "python3 number_generator.py",
                "python number_generator.py",
                false,
            ),
            ("datasync is not configured", "datasync pull", "make", false),
            ("run foo first", "foo", "make", false),
            (
                "error: refreshed.sh missing",
                "./scripts/refresh.sh",
                "make",
                false,
            ),
        ] {
            assert_eq!(
                named_loosely(text, cmd, failed),
                want,
                "{cmd:?} in {text:?}"
            );
        }
    }

    /// The one-pass check finds the same marks as searching for each:
    /// a newline, `<<`, ` -c `, ` -e `, or more than 160 bytes.
    #[test]
    fn is_script_finds_each_mark() {
        let plain = |c: &str| {
            c.contains('\n')
                || c.contains("<<")
                || c.contains(" -c ")
                || c.contains(" -e ")
                || c.len() > 160
        };
        let long = "x".repeat(161);
        for (c, want) in [
            ("make test", false),
            ("python3 -c 'print(1)'", true),
            ("perl -e 1", true),
            ("cat <<EOF", true),
            ("a\nb", true),
            ("git commit -m x", false),
            ("-c x", false),
            ("x -c", false),
            ("x -cx ", false),
            ("x  -e  y", true),
            ("x -- -e", false),
            ("a < b", false),
            ("<", false),
            ("", false),
            ("é -e x", true),
            (long.as_str(), true),
            (&long[..160], false),
        ] {
            assert_eq!(is_script(c), want, "{c:?}");
            assert_eq!(plain(c), want, "{c:?}");
        }
    }
}
