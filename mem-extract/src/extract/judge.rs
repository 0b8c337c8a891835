//! Is a candidate worth injecting in a later session? A memory must stand
//! alone (its "it" and "that test" named), a decision about one moment
//! expires soon, and a reason comes from the statement itself.

use std::sync::OnceLock;

use chrono::{Days, NaiveDate};
use regex::Regex;

/// Days a one-off decision stays: long enough for the work it was about.
pub(super) const ONE_OFF_DAYS: u64 = 14;

/// What the turns before a user message name: the context its "it" and
/// "that" point into.
#[derive(Default, Debug, Clone)]
pub(super) struct Context {
    /// The names (files, identifiers) the agent's last message named, in
    /// order, each once.
    pub(super) names: Vec<String>,
    /// The file of the agent's last write or edit, by its file name.
    pub(super) last_file: Option<String>,
    /// The user stopped the agent (an interrupt, a rejected tool call) and
    /// has not written since: the next message is about the stopped call.
    pub(super) stopped: bool,
    /// The file the user has open in the IDE, by its file name: the last
    /// `<ide_opened_file>` or `<ide_selection>` wrapper of the user's turns
    /// (Claude Code's IDE integration adds them to the user's message).
    pub(super) ide_file: Option<String>,
}

impl Context {
    /// Read an assistant message: its named things become the referents.
    pub(super) fn assistant(&mut self, text: &str) {
        self.names = names_in(text);
    }

    /// A tool call writes `path`.
    pub(super) fn wrote(&mut self, path: &str) {
        let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
        if !name.is_empty() && name.len() <= 80 {
            self.last_file = Some(name.to_string());
        }
    }

    /// Read a wrapper Claude Code's IDE integration puts in the user's
    /// message: "The user opened the file /p/x.py in the IDE", "The user
    /// selected the lines 5 to 9 from /p/x.py: …". The file becomes what
    /// "the py file" may name.
    pub(super) fn ide_wrapper(&mut self, text: &str) {
        static RE: OnceLock<Regex> = OnceLock::new();
        let re = RE.get_or_init(|| {
            Regex::new(r"^<ide_(?:opened_file|selection)>The user (?:opened the file (?P<a>[^\n]{1,400}?) in the IDE|selected the lines \d+ to \d+ from (?P<b>[^\n]{1,400}?\.[A-Za-z0-9]{1,10}):)")
                .expect("ide wrapper regex")
        });
        // every wrapper says what is open now: one that names no plain
        // file leaves nothing open, never the file before
        self.ide_file = None;
        if let Some(c) = re.captures(text)
            && let Some(p) = c.name("a").or_else(|| c.name("b"))
        {
            let name = p.as_str().rsplit(['/', '\\']).next().unwrap_or("");
            // a file name, not text that would read as markup or a command
            let plain = name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
            self.ide_file =
                (plain && !name.is_empty() && name.len() <= 80).then(|| name.to_string());
        }
    }

    /// What "it", "that test" most likely names: the file of the stopped
    /// call, else the one thing the agent's last message named. `None` when
    /// nothing or more than one thing is named.
    pub(super) fn referent(&self) -> Option<&str> {
        if self.stopped
            && let Some(f) = self.last_file.as_deref().filter(|f| plain_name(f))
        {
            return Some(f);
        }
        match self.names.as_slice() {
            [one] if plain_name(one) => Some(one),
            _ => None,
        }
    }

    /// What "the py file" names: a file of that extension (`ext`, lowercase,
    /// `py` for "py" and "python") — the stopped call's, else the one such
    /// file the agent's last message named, else the one open in the IDE.
    pub(super) fn typed_referent(&self, ext: &[&str]) -> Option<&str> {
        let is = |f: &str| {
            plain_name(f)
                && f.rsplit_once('.')
                    .is_some_and(|(_, e)| ext.iter().any(|x| e.eq_ignore_ascii_case(x)))
        };
        if self.stopped
            && let Some(f) = self.last_file.as_deref().filter(|f| is(f))
        {
            return Some(f);
        }
        let mut named = self.names.iter().filter(|n| is(n));
        match (named.next(), named.next()) {
            (Some(one), None) => return Some(one),
            (Some(_), Some(_)) => return None,
            _ => {}
        }
        self.ide_file.as_deref().filter(|f| is(f))
    }
}

/// A name a pointing word may stand for: a file of the checkout or an
/// identifier as written (`src/app.ts`, `group.visible`, `ci.yml`) — not a
/// URL, an option (`--index-url=…`), an absolute or home path or one that
/// climbs out (`..`): those name what is outside the project, and a
/// memory would tell a later session to run or use it.
fn plain_name(n: &str) -> bool {
    !n.is_empty()
        && n.len() <= 120
        && !n.starts_with(['-', '/', '~'])
        && !n.contains("..")
        && !n.starts_with(".git/")
        && !looks_like_host(n)
        && n.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b'/'))
}

/// A host, or a path on one: `get.example.test/i.sh`, `pypi.example.com`
/// — a first part with a dot that goes on with a path, or that ends in a
/// top-level domain, where a file's name ends in its extension.
fn looks_like_host(n: &str) -> bool {
    const TLDS: &[&str] = &[
        "com", "org", "net", "io", "dev", "test", "xyz", "ai", "co", "info", "biz", "cloud",
        "site", "online", "tech", "me", "example", "invalid", "local", "internal",
    ];
    let (first, rest) = n.split_once('/').unwrap_or((n, ""));
    let dotted = first.len() > 1 && first[1..].contains('.');
    dotted
        && (!rest.is_empty()
            || first
                .rsplit('.')
                .next()
                .is_some_and(|tld| TLDS.contains(&tld.to_ascii_lowercase().as_str())))
}

/// The extensions a typed file noun ("the py file", "the yaml file") names.
fn extensions_of(word: &str) -> &'static [&'static str] {
    match word {
        "py" | "python" => &["py"],
        "js" | "javascript" => &["js", "mjs", "cjs"],
        "ts" | "typescript" => &["ts", "tsx", "mts"],
        "rs" | "rust" => &["rs"],
        "go" => &["go"],
        "rb" | "ruby" => &["rb"],
        "sh" | "shell" => &["sh", "bash"],
        "yaml" | "yml" => &["yaml", "yml"],
        "json" => &["json"],
        "toml" => &["toml"],
        "md" | "markdown" => &["md"],
        "css" => &["css"],
        "html" => &["html", "htm"],
        "sql" => &["sql"],
        _ => &[],
    }
}

/// The named things of a text: backticked spans and bare words that name a
/// file or identifier (a `.`, `/` or `_` inside), each once, at most 8.
pub(super) fn names_in(text: &str) -> Vec<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"`([^`\n]{2,60})`|(?:^|[\s(])((?:[A-Za-z0-9_-]+/)*[A-Za-z0-9_-]+[._][A-Za-z0-9_.]*[A-Za-z0-9])(?:[\s,.:;)]|$)")
            .expect("names regex")
    });
    let mut out: Vec<String> = Vec::new();
    for c in re.captures_iter(text) {
        let Some(m) = c.get(1).or_else(|| c.get(2)) else {
            continue;
        };
        let s = m.as_str().trim();
        // a name, not a phrase or a number (`3.12`)
        let named = s.contains(['.', '/', '_']) && !s.contains(' ');
        if !named || s.len() < 4 || s.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
            continue;
        }
        if !out.iter().any(|o| o == s) {
            out.push(s.to_string());
        }
        if out.len() >= 8 {
            break;
        }
    }
    out
}

/// Where `l` (a lowercased fact) points at something it does not name: a
/// bare "it"/"that" as the object or the subject of the instruction, "that
/// test", "this one". The byte range of the pointing words.
pub(super) fn deictic(l: &str) -> Option<(usize, usize)> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(concat!(
            // that test, this one, the same file
            r"(?:^|[^a-z'])((?:that|this|these|those|the same) (?:one|ones|test|tests|file|files|function|functions|thing|things|change|changes|check|checks|script|scripts|command|commands|approach|method|fix|bit|version|option|part|step|case|way|stuff|code|logic|pattern)s?|the (?:py|python|js|javascript|ts|typescript|rs|rust|go|rb|ruby|sh|shell|yaml|yml|json|toml|md|markdown|css|html|sql) (?:file|script|module)s?)(?:[^a-z]|$)",
            // the object of the instruction's verb: run it on…, keep that.
            r"|(?:^|[^a-z'])(?:run|use|keep|fix|reuse|re-use|do|try|move|add|remove|change|test|save|put|call|push|commit|delete|drop|revert|rename|apply|merge|ship|store|leave|skip|mock|update|wrap|split|replace|copy|check|ignore|disable|enable|undo|follow|want|love|like|need|prefer)(?: (?:it|them)()|(?: (?:that|this|these|those))((?: (?:one|ones))?)(?:\s*[.,;:!?]|\s*$|\s+(?:on|for|in|to|with|again|now|too|instead|as|at|by|from|into|only|always|everywhere|here|there|all|every|before|after|when|if|so|and|but|or|a|an|the|up|out|back|away|saved|kept|removed)(?:[^a-z]|$)))",
            // the subject: "it should…", "this must…"
            r"|^(it|this|that|these|those|they) (?:should|must|needs?|has to|have to|is|are|was|can|could|would|will|doesn't|don't|does not|do not|isn't|aren't|shouldn't|can't|won't|breaks|fails|works)(?:[^a-z]|$)",
        ))
        .expect("deictic regex")
    });
    let c = re.captures(l)?;
    if let Some(m) = c.get(1).or_else(|| c.get(4)) {
        return Some((m.start(), m.end()));
    }
    // the object form: the pronoun is the word before group 2 or 3
    let g = c.get(2).or_else(|| c.get(3))?;
    let head = &l[..g.start()];
    let start = head.rfind(' ').map_or(0, |i| i + 1);
    Some((start, g.end()))
}

/// A trailing "for that" / "for it": the instruction says everything
/// before it; the pointing tail goes.
pub(super) fn without_pointing_tail(s: &str) -> &str {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?i)\s+(?:for|with|on|in|to|there|here)(?: (?:that|this|it|them|these|those))?(?: too| as well)?\s*[.!?]*\s*$")
            .expect("tail regex")
    });
    match re.find(s) {
        // only a tail that points (`for that`), not `in the repo`
        Some(m) if m.as_str().split_whitespace().count() >= 2 || is_place(m.as_str()) => {
            s[..m.start()].trim_end()
        }
        _ => s,
    }
}

fn is_place(tail: &str) -> bool {
    matches!(
        tail.trim()
            .trim_end_matches(['.', '!', '?'])
            .to_ascii_lowercase()
            .as_str(),
        "there" | "here"
    )
}

/// The outcome of [`stand_alone`].
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Standing {
    /// Stands alone: the fact as it is, or with its referent named.
    Keep(String),
    /// Points at something no turn around names.
    ContextFree,
}

/// Make `fact` stand alone: drop a pointing tail ("… for that"), then name
/// what a remaining "it" / "that test" points at (`` it (`ci.yml`) ``) from
/// `ctx`, or say it cannot.
pub(super) fn stand_alone(fact: &str, ctx: &Context) -> Standing {
    let fact = without_pointing_tail(fact);
    let l = fact.to_ascii_lowercase();
    let Some((start, end)) = deictic(&l) else {
        return Standing::Keep(fact.to_string());
    };
    // "we switched CI to nightly; keep that in mind": the statement before
    // names what "that" points at
    let before = &l[..start];
    if let Some(i) = before.rfind([';', ',', ':', '—'])
        && before[..i].split_whitespace().count() >= 3
    {
        return Standing::Keep(fact.to_string());
    }
    let words: Vec<&str> = l[start..end].split_whitespace().collect();
    // "the py file" names a file of its kind; "it", "that test" the one thing
    let typed = match words.as_slice() {
        ["the", kind, _] => Some(extensions_of(kind)).filter(|e| !e.is_empty()),
        _ => None,
    };
    let r = match typed {
        Some(ext) => ctx.typed_referent(ext),
        None => ctx.referent(),
    };
    let Some(r) = r else {
        return Standing::ContextFree;
    };
    // the fact already names it ("reuse `x.html` for this": "this" is x.html)
    if l.contains(&r.to_ascii_lowercase()) {
        return Standing::Keep(fact.to_string());
    }
    // the pointing words give way to the name: "run it" → "run `ci.yml`",
    // "that test" → "the test `check.py`"; offsets of the ASCII-lowercased
    // copy are the fact's
    let named = match words.as_slice() {
        [_, noun] if !matches!(*noun, "one" | "ones") && words[0] != "the" => {
            format!("the {noun} `{r}`")
        }
        [_, _, noun] => format!("the {noun} `{r}`"),
        _ => format!("`{r}`"),
    };
    Standing::Keep(format!("{}{named}{}", &fact[..start], &fact[end..]))
}

/// Does `text` name something lasting: a file, a tool, a rule for every
/// time? Such a remark outlives the call it was made about.
pub(super) fn names_lasting(text: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?i)(?:^|[^a-z])(?:always|never|every ?time|whenever|from now on|going forward|in (?:this|the) (?:repo|project|codebase)|convention|by default|in general|each time|instead of|rather than|prefer|stick (?:to|with)|switch to)(?:[^a-z]|$)|, not [a-z`]")
            .expect("lasting regex")
    });
    re.is_match(text) || !names_in(text).is_empty()
}

/// A question that asks about one moment: how to go on now, about "these"
/// / "this" thing or one named file, or the agent's leave for a step of the
/// task at hand ("Should I fix the mypy warnings as well?", "Do you want me
/// to force-push the branch?"), or whether there is anything else.
pub(super) fn one_off_question(q: &str) -> bool {
    // "should I use pytest or unittest?" chooses between ways: a convention
    let choice = q.contains(" or ");
    static LEAVE: OnceLock<Regex> = OnceLock::new();
    let leave = LEAVE.get_or_init(|| {
        Regex::new(r"(?i)(?:^|[^a-z])(?:(?:should|shall|can|may|could) (?:i|we) (?:also |now |still |first |then |just )?(?:fix|add|update|remove|delete|run|skip|commit|push|force-push|squash|merge|rebase|apply|go ahead|proceed|continue|create|write|refactor|change|include|open|close|rename|move|install|upgrade|bump|revert|clean|drop|start|stop|restart|deploy|release|test|check|lint|format|try|do|make|leave|touch)|(?:do|would) you (?:want|like) me to|want me to|is it (?:ok|okay|fine|alright)(?: if| to)?|(?:ok|okay) (?:if|to) |would it be (?:ok|okay|fine|alright)|(?:do|does) (?:the same|this|it) (?:change )?(?:need to )?apply|should the same)")
            .expect("leave regex")
    });
    if !choice && leave.is_match(q) {
        return true;
    }
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?i)(?:^|[^a-z])(?:anything else|how should (?:we|i) (?:proceed|continue|go on|handle (?:this|these|that|it))|what should (?:we|i) do (?:now|here|next|about (?:this|these|that|it))|should (?:we|i) (?:now|still|go ahead|proceed|continue)|(?:this|these|that|those) (?:one|ones|file|files|issue|issues|ticket|tickets|bead|beads|warning|warnings|error|errors|pr|branch|change|changes|test|tests|case|module)|right now|for now|this time|today|today's|tonight|tomorrow|this week)(?:[^a-z]|$)")
            .expect("one-off regex")
    });
    re.is_match(q) || q.split_whitespace().any(is_file_name)
}

/// A word that names one file (`waiting_summary.ex`, `src/app.ts`).
fn is_file_name(w: &str) -> bool {
    let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '_');
    let Some((stem, ext)) = w.rsplit_once('.') else {
        return false;
    };
    const EXTS: &[&str] = &[
        "c", "cfg", "cpp", "cs", "css", "ex", "exs", "go", "h", "heex", "html", "ini", "java",
        "js", "json", "jsx", "kt", "lock", "lua", "md", "php", "py", "rb", "rs", "scss", "sh",
        "sql", "svelte", "swift", "toml", "ts", "tsx", "txt", "vue", "yaml", "yml", "zig",
    ];
    stem.len() >= 2
        && EXTS.contains(&ext)
        && !stem.bytes().any(|b| b.is_ascii_uppercase())
        && !stem.contains("..")
}

/// The day a one-off decision made on `day` expires.
pub(super) fn one_off_expiry(day: NaiveDate) -> NaiveDate {
    day.checked_add_days(Days::new(ONE_OFF_DAYS)).unwrap_or(day)
}

/// Is `s` (the sentence after an instruction) its reason? Only when it
/// says so: "because …", "otherwise …", "it breaks …", "that way …".
pub(super) fn is_reason(s: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?i)^(?:(?:also|and|but|oh|so),?\s+)?(?:because|since|as otherwise|otherwise|else|that way|this way|so that|due to|the reason|last time|we(?:'ve| have) (?:had|been bitten|seen)|(?:it|that|this)(?:'s| is| was)? (?:breaks?|broke|causes?|caused|makes?|made|fails?|failed|keeps?|slows?|leaks?|corrupts?|costs?|wastes?|hides?|takes?|won't|doesn't|can't|will|would|cannot|used to|rewrites?|overwrites?|deletes?|changes?)|(?:it|that|this)(?:'s| is| was) (?:slow|flaky|broken|expensive|dangerous|unsafe|wrong|deprecated|unmaintained|faster|safer|simpler|cheaper|the only|what)|[a-z0-9_`.-]+ (?:breaks|rewrites|overwrites|deletes|corrupts|is deprecated|is slow|is flaky|is broken|doesn't work|does not work|fails|hangs|leaks))(?:[^a-z]|$)")
            .expect("reason regex")
    });
    re.is_match(s.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(names: &[&str], file: Option<&str>, stopped: bool) -> Context {
        Context {
            names: names.iter().map(|s| s.to_string()).collect(),
            last_file: file.map(str::to_string),
            stopped,
            ide_file: None,
        }
    }

    /// A fact that points ("run it", "that test", "it should") is named
    /// from the context or reported as context-free; one that names its
    /// subject stays as it is.
    #[test]
    fn pointing_facts_are_named_or_context_free() {
        let none = Context::default();
        let ci = ctx(&[".github/workflows/ci.yml"], None, false);
        for (fact, c, want) in [
            (
                "Run it on all push",
                &ci,
                Some("Run `.github/workflows/ci.yml` on all push"),
            ),
            ("Run it on every PR", &none, None),
            ("Use that one", &ci, Some("Use `.github/workflows/ci.yml`")),
            ("Keep that test", &none, None),
            ("Keep the name of the py file", &none, None),
            ("Deploy those changes before the release", &none, None),
            ("This should live in utils", &none, None),
            ("It breaks the build", &none, None),
            (
                "Reuse templates/session_nav.html for that",
                &none,
                Some("Reuse templates/session_nav.html"),
            ),
            ("Never push to main", &none, Some("Never push to main")),
            (
                "Keep this repo free of generated files",
                &none,
                Some("Keep this repo free of generated files"),
            ),
            (
                "Use the staging database for integration tests",
                &none,
                Some("Use the staging database for integration tests"),
            ),
            ("Mock it in unit tests", &none, None),
            (
                "We switched CI to the nightly toolchain; keep that in mind",
                &none,
                Some("We switched CI to the nightly toolchain; keep that in mind"),
            ),
            (
                "I don't want to make it only work for me",
                &none,
                Some("I don't want to make it only work for me"),
            ),
        ] {
            let got = stand_alone(fact, c);
            match want {
                Some(w) => assert_eq!(got, Standing::Keep(w.to_string()), "{fact}"),
                None => assert_eq!(got, Standing::ContextFree, "{fact}"),
            }
        }
        // the stopped call's file names "that test" before the message's names
        let stopped = ctx(&["a.rs", "b.rs"], Some("check_links.py"), true);
        assert_eq!(
            stand_alone("I'd love that test saved as a unit test", &stopped),
            Standing::Keep("I'd love the test `check_links.py` saved as a unit test".into())
        );
        // "the py file" is the file of the call the user stopped
        let renamed = ctx(&[], Some("extract-feedback.py"), true);
        assert_eq!(
            stand_alone(
                "Keep the name of the py file but change the script entry",
                &renamed
            ),
            Standing::Keep(
                "Keep the name of the file `extract-feedback.py` but change the script entry"
                    .into()
            )
        );
        assert_eq!(
            stand_alone("This should live in utils", &ci),
            Standing::Keep("`.github/workflows/ci.yml` should live in utils".into())
        );
        // a URL, an option, a path out of the checkout: nothing to name
        for bad in [
            "get.example.test/i.sh",
            "pypi.example.com",
            ".git/hooks/pre-commit",
            "--index-url=https://x.test/simple/setup.py",
            "../../../home/u/.config/autostart/x.py",
            "/etc/cron.d/job.sh",
            "~/.bashrc",
        ] {
            let c = ctx(&[bad], None, false);
            assert_eq!(
                stand_alone("Run it before the dev server", &c),
                Standing::ContextFree,
                "{bad}"
            );
            assert_eq!(
                stand_alone("Use the shell script instead", &c),
                Standing::ContextFree,
                "{bad}"
            );
            assert_eq!(
                stand_alone("Always run the sh file first", &c),
                Standing::ContextFree,
                "{bad}"
            );
        }
        // two names and no stopped call: nothing to choose
        let two = ctx(&["a.rs", "b.rs"], Some("c.rs"), false);
        assert_eq!(stand_alone("Run it twice", &two), Standing::ContextFree);
    }

    /// "The py file" names a file of its kind: the agent's one `.py` name
    /// (another kind named beside it does not count), else the file open
    /// in the IDE; two of the kind, or none, leave it context-free.
    #[test]
    fn a_typed_file_noun_names_a_file_of_its_kind() {
        let fact = "Keep the name of the py file";
        let mixed = ctx(&["pyproject.toml", "tool/run_all.py"], None, false);
        assert_eq!(
            stand_alone(fact, &mixed),
            Standing::Keep("Keep the name of the file `tool/run_all.py`".into())
        );
        let two = ctx(&["a.py", "b.py"], None, false);
        assert_eq!(stand_alone(fact, &two), Standing::ContextFree);
        let mut ide = ctx(&["pyproject.toml"], None, false);
        ide.ide_wrapper(
            "<ide_selection>The user selected the lines 3 to 4 from /home/u/p/fetch-pr-notes.py:\nimport x</ide_selection>",
        );
        assert_eq!(ide.ide_file.as_deref(), Some("fetch-pr-notes.py"));
        assert_eq!(
            stand_alone(fact, &ide),
            Standing::Keep("Keep the name of the file `fetch-pr-notes.py`".into())
        );
        // the open file is of another kind: nothing names "the yaml file"
        assert_eq!(
            stand_alone("Move the yaml file to config/", &ide),
            Standing::ContextFree
        );
        // a name that is not a plain file name is no referent
        ide.ide_wrapper(
            "<ide_opened_file>The user opened the file /p/`curl|sh`.yml in the IDE.</ide_opened_file>",
        );
        assert_eq!(ide.ide_file, None);
        // a path with a space, a Windows path: the file, and never the one before
        ide.ide_wrapper(
            "<ide_opened_file>The user opened the file /home/u/My Scripts/cleanup.py in the IDE.</ide_opened_file>",
        );
        assert_eq!(ide.ide_file.as_deref(), Some("cleanup.py"));
        ide.ide_wrapper(
            "<ide_selection>The user selected the lines 1 to 2 from C:\\src\\tools\\fetch.py:\nimport os</ide_selection>",
        );
        assert_eq!(ide.ide_file.as_deref(), Some("fetch.py"));
        ide.ide_wrapper(
            "<ide_opened_file>The user opened the file Untitled-1 in the IDE.</ide_opened_file>",
        );
        assert_eq!(ide.ide_file.as_deref(), Some("Untitled-1"));
        ide.ide_wrapper(
            "<ide_opened_file>The user opened the file /home/u/p/deploy.yml in the IDE. This may or may not be related.</ide_opened_file>",
        );
        assert_eq!(
            stand_alone("Move the yaml file to config/", &ide),
            Standing::Keep("Move the file `deploy.yml` to config/".into())
        );
    }

    #[test]
    fn names_are_files_and_identifiers_not_versions() {
        assert_eq!(
            names_in(
                "The CI workflow at `.github/workflows/ci.yml` runs on Python 3.12 and 3.13, see src/app.ts."
            ),
            [".github/workflows/ci.yml", "src/app.ts"]
        );
        assert_eq!(
            names_in("Call `group.visible` or `set_visible`, not `go`"),
            ["group.visible", "set_visible"]
        );
        assert!(names_in("I'll add a GitHub Action to run tests.").is_empty());
    }

    /// Questions about one moment or one file; questions about a lasting choice.
    #[test]
    fn one_off_questions() {
        for q in [
            "The hook blocks on pre-existing issues in waiting_summary.ex. How should we proceed?",
            "Which rig do these beads belong to?",
            "Which label should this ticket get?",
            "Should we fix the warnings in this module now or later? (for now)",
            "Do you want me to retry with src/app.ts excluded?",
        ] {
            assert!(one_off_question(q), "{q}");
        }
        for q in [
            "Which tools should we set up?",
            "Which package manager do you want to use?",
            "Which tar formats should be supported?",
            "Should commits follow Conventional Commits?",
        ] {
            assert!(!one_off_question(q), "{q}");
        }
    }

    #[test]
    fn a_reason_says_it_is_one() {
        for s in [
            "Because npm rewrites the lockfile.",
            "Otherwise the cache goes stale",
            "It breaks the CI image.",
            "That way reviews stay small.",
            "npm rewrites the lockfile.",
            "We've been bitten by flaky mocks before.",
        ] {
            assert!(is_reason(s), "{s}");
        }
        for s in [
            "They don't look that bad.",
            "Also, would you mind fixing the type issues?",
            "The page looks fine now.",
            "Thanks!",
        ] {
            assert!(!is_reason(s), "{s}");
        }
    }

    #[test]
    fn lasting_remarks_name_a_thing_or_every_time() {
        assert!(names_lasting(
            "You can set group.visible using the vis library"
        ));
        assert!(names_lasting("always run the formatter"));
        assert!(!names_lasting(
            "I don't think we need to loop through all items"
        ));
        assert_eq!(
            one_off_expiry(NaiveDate::from_ymd_opt(2026, 2, 1).unwrap()),
            NaiveDate::from_ymd_opt(2026, 2, 15).unwrap()
        );
    }
}
