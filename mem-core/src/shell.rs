//! The one shell-command splitter: a command line as the simple commands it
//! runs (docs/extraction.md "Written for the general case", docs/hooks.md "Lessons at the
//! moment of action", docs/security.md "What a command does").
//!
//! Extraction, the PreToolUse hook and the command-risk classifier
//! ([`crate::risk`]) all read command lines through [`split`], so they agree
//! on what a line runs. It follows POSIX shell quoting and bash's operators
//! far enough to say *which* commands a line runs and with which words; it
//! does not expand anything:
//!
//! - words are split on unquoted blanks; `'…'`, `"…"`, `$'…'` and `\x`
//!   quote; [`Word::value`] is the word with its quotes removed,
//!   [`Word::raw`] the bytes as written;
//! - `&&`, `||`, `;`, `|`, `|&`, `&` and newlines end a simple command
//!   ([`Op`] says which);
//! - `( … )` and `{ …; }` groups nest ([`Simple::depth`]);
//! - `$( … )`, `` `…` ``, `<( … )` and `>( … )` are split too: their commands
//!   come before the command that holds them, marked
//!   [`Simple::substituted`], and the holding word keeps the text;
//! - redirections (`>`, `>>`, `2>&1`, `&>`, `<`, `<<<`, …) are not words:
//!   they are in [`Simple::redirects`] with their target;
//! - a here-document's body (`<<EOF` … `EOF`, `<<-`, quoted delimiters) is
//!   data of the command it feeds ([`Simple::heredocs`]), never commands;
//! - `# comments` are dropped; reserved words that only shape control flow
//!   (`if`, `then`, `do`, `!`, …) are dropped at the start of a command, and
//!   a `for`/`case`/`select` head is no command;
//! - an unterminated quote or group ends at the end of the line (a lesson
//!   is read from what ran, which a shell accepted).
//!
//! Errors: none; any input gives a result. Cost: one pass over the bytes,
//! plus one per nested substitution.

/// One word of a simple command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word<'a> {
    /// The word as written, quotes included.
    pub raw: &'a str,
    /// The word with its quotes and escapes removed (no expansion).
    pub value: String,
}

/// What follows a simple command on its line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `&&`: the next runs if this one passed.
    And,
    /// `||`: the next runs if this one failed.
    Or,
    /// `;` or a newline.
    Seq,
    /// `|` (or `|&`): this one's output is the next one's input.
    Pipe,
    /// `&`: this one runs in the background.
    Background,
    /// The end of the line (or of the group or substitution).
    End,
}

impl Op {
    /// The operator as written between two commands (`&&`, `|`, `;`, …;
    /// empty for [`Op::End`]).
    pub fn as_str(self) -> &'static str {
        match self {
            Op::And => "&&",
            Op::Or => "||",
            Op::Seq => ";",
            Op::Pipe => "|",
            Op::Background => "&",
            Op::End => "",
        }
    }
}

/// A redirection of a simple command: its operator (`>`, `>>`, `2>`, `&>`,
/// `<`, `<<<`, `>&`, …, with a leading fd number kept) and its target
/// (unquoted; `1` for `2>&1`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// The operator, e.g. `>>` or `2>`.
    pub op: String,
    /// The target word, unquoted.
    pub target: String,
}

impl Redirect {
    /// True when this redirection writes to its target (`>`, `>>`, `&>`,
    /// `>|`, `2>` …; not `>&N`, which duplicates a descriptor).
    pub fn writes(&self) -> bool {
        self.op.contains('>') && !self.op.ends_with('&') && !self.op.ends_with("&>>")
            || self.op.ends_with("&>")
            || self.op.ends_with("&>>")
    }
}

/// One simple command of a command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Simple<'a> {
    /// Its words, leading `VAR=value` assignments included.
    pub words: Vec<Word<'a>>,
    /// What follows it.
    pub next: Op,
    /// How many `( … )` / `{ … }` groups and substitutions it is inside.
    pub depth: u32,
    /// True when it runs inside `$( … )`, backticks, `<( … )` or `>( … )`.
    pub substituted: bool,
    /// Its redirections, in order.
    pub redirects: Vec<Redirect>,
    /// The bodies of the here-documents and here-strings it reads.
    pub heredocs: Vec<String>,
}

impl<'a> Simple<'a> {
    fn new(depth: u32, substituted: bool) -> Self {
        Simple {
            words: Vec::new(),
            next: Op::End,
            depth,
            substituted,
            redirects: Vec::new(),
            heredocs: Vec::new(),
        }
    }

    /// The leading `VAR=value` assignments, as (name, value).
    pub fn assignments(&self) -> impl Iterator<Item = (&str, &str)> {
        self.words.iter().map_while(|w| assignment(&w.value))
    }

    /// The words after the leading assignments (the program and its
    /// arguments), unquoted.
    pub fn argv(&self) -> Vec<&str> {
        let skip = self.assignments().count();
        self.words[skip..]
            .iter()
            .map(|w| w.value.as_str())
            .collect()
    }

    /// The words after the leading assignments and the wrappers that run
    /// the rest as a command (`sudo`, `env`, `time`, `exec`, `command`,
    /// `nohup`, `nice`, `timeout`, `stdbuf`, `xargs` with their options and
    /// `VAR=value` words), unquoted: `sudo -E env X=1 make test` →
    /// `["make", "test"]`. See [`strip_wrappers`].
    pub fn core(&self) -> Vec<&str> {
        strip_wrappers(&self.argv())
    }

    /// The whole command as written: its words' raw text joined by spaces.
    pub fn text(&self) -> String {
        let mut s = String::new();
        for w in &self.words {
            if !s.is_empty() {
                s.push(' ');
            }
            s.push_str(w.raw);
        }
        s
    }
}

/// `NAME=value` with a valid shell name: `(NAME, value)`.
pub fn assignment(word: &str) -> Option<(&str, &str)> {
    let (k, v) = word.split_once('=')?;
    let ok = !k.is_empty()
        && !k.as_bytes()[0].is_ascii_digit()
        && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    ok.then_some((k, v))
}

/// `words` without the wrappers that run the rest as a command (see
/// [`Simple::core`]); `VAR=value` words among them are dropped too.
pub fn strip_wrappers<'w>(words: &[&'w str]) -> Vec<&'w str> {
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        let base = w.rsplit('/').next().unwrap_or(w);
        if assignment(w).is_some() {
            i += 1;
            continue;
        }
        // options of the wrapper that take a value
        if base == "command" && words.get(i + 1).is_some_and(|o| matches!(*o, "-v" | "-V")) {
            // a look-up, not a run
            break;
        }
        let valued: &[&str] = match base {
            "sudo" | "doas" => &["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"],
            "env" => &["-u", "-C", "-S", "--unset", "--chdir"],
            "nice" => &["-n"],
            "timeout" => &["-s", "-k", "--signal", "--kill-after"],
            "stdbuf" => &[],
            "xargs" => &["-I", "-n", "-P", "-L", "-d", "-s", "-E", "-a"],
            "time" | "exec" | "command" | "nohup" | "builtin" | "setsid" => &[],
            _ => break,
        };
        i += 1;
        while i < words.len() {
            let o = words[i];
            if o == "--" {
                i += 1;
                break;
            }
            if !(o.starts_with('-') || base == "env" && assignment(o).is_some()) {
                break;
            }
            i += 1;
            if valued.contains(&o) {
                i += 1;
            }
        }
        if base == "timeout" && i < words.len() {
            // the duration
            i += 1;
        }
    }
    words[i.min(words.len())..].to_vec()
}

/// The simple commands of `line` (see the module docs), in the order they
/// start; a substitution's commands come before the command holding them.
pub fn split(line: &str) -> Vec<Simple<'_>> {
    let mut p = Parser {
        s: line,
        b: line.as_bytes(),
        i: 0,
        out: Vec::new(),
        pending: Vec::new(),
    };
    p.commands(0, false, None);
    p.out
}

/// The simple commands of `line` that run at its top level or in groups
/// (not in substitutions), as their [`Simple::core`] words: what the hook
/// and extraction compare.
pub fn core_commands(line: &str) -> Vec<Vec<String>> {
    split(line)
        .into_iter()
        .map(|s| s.core().into_iter().map(str::to_string).collect::<Vec<_>>())
        .filter(|c| !c.is_empty())
        .collect()
}

struct Parser<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
    out: Vec<Simple<'a>>,
    /// Here-documents whose bodies start at the next newline: (index in
    /// `out` of the command, delimiter, strip leading tabs).
    pending: Vec<(usize, String, bool)>,
}

/// Nesting of groups and substitutions followed at most; deeper text is
/// read as plain word bytes (a hostile line cannot exhaust the stack).
pub const MAX_DEPTH: u32 = 32;

const RESERVED: &[&str] = &[
    "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "esac",
];

impl<'a> Parser<'a> {
    fn peek(&self, k: usize) -> Option<u8> {
        self.b.get(self.i + k).copied()
    }

    /// Commands until the end, or `close` (`)` for groups and
    /// substitutions, `` ` `` for backticks).
    fn commands(&mut self, depth: u32, substituted: bool, close: Option<u8>) {
        let mut cur = Simple::new(depth, substituted);
        loop {
            self.skip_blanks();
            let Some(c) = self.peek(0) else { break };
            if Some(c) == close {
                self.i += 1;
                break;
            }
            match c {
                b'\n' => {
                    self.i += 1;
                    self.finish(&mut cur, Op::Seq, depth, substituted);
                    self.heredoc_bodies();
                }
                b';' => {
                    self.i += 1;
                    if self.peek(0) == Some(b';') {
                        self.i += 1;
                    }
                    self.finish(&mut cur, Op::Seq, depth, substituted);
                }
                b'&' if self.peek(1) == Some(b'&') => {
                    self.i += 2;
                    self.finish(&mut cur, Op::And, depth, substituted);
                }
                b'&' if self.peek(1) != Some(b'>') => {
                    self.i += 1;
                    self.finish(&mut cur, Op::Background, depth, substituted);
                }
                b'|' if self.peek(1) == Some(b'|') => {
                    self.i += 2;
                    self.finish(&mut cur, Op::Or, depth, substituted);
                }
                b'|' => {
                    self.i += 1;
                    if self.peek(0) == Some(b'&') {
                        self.i += 1;
                    }
                    self.finish(&mut cur, Op::Pipe, depth, substituted);
                }
                b'(' if cur.words.is_empty() && depth < MAX_DEPTH => {
                    self.i += 1;
                    if self.peek(0) == Some(b'(') {
                        // `(( arithmetic ))`: no command
                        self.skip_to_arith_end();
                        continue;
                    }
                    self.finish(&mut cur, Op::Seq, depth, substituted);
                    self.commands(depth + 1, substituted, Some(b')'));
                }
                b')' => {
                    // a stray `)` (e.g. of `case` patterns) ends the command
                    self.i += 1;
                    self.finish(&mut cur, Op::Seq, depth, substituted);
                }
                b'#' => {
                    while self.peek(0).is_some_and(|c| c != b'\n') {
                        self.i += 1;
                    }
                }
                _ => {
                    if let Some(r) = self.redirect(depth) {
                        match r {
                            Redir::Plain(r) => cur.redirects.push(r),
                            Redir::Heredoc(delim, strip) => {
                                cur.redirects.push(Redirect {
                                    op: "<<".into(),
                                    target: delim.clone(),
                                });
                                self.pending.push((usize::MAX, delim, strip));
                            }
                            Redir::HereString(text) => {
                                cur.redirects.push(Redirect {
                                    op: "<<<".into(),
                                    target: text.clone(),
                                });
                                cur.heredocs.push(text);
                            }
                        }
                        continue;
                    }
                    let w = self.word(depth, close);
                    if cur.words.is_empty() && RESERVED.contains(&w.raw) {
                        continue;
                    }
                    cur.words.push(w);
                }
            }
        }
        self.finish(&mut cur, Op::End, depth, substituted);
        if close.is_none() {
            self.heredoc_bodies();
        }
    }

    /// Push `cur` (when it has words or redirections) with `op` after it,
    /// and start a new one.
    fn finish(&mut self, cur: &mut Simple<'a>, op: Op, depth: u32, substituted: bool) {
        let mut done = std::mem::replace(cur, Simple::new(depth, substituted));
        let head = done.words.first().map(|w| w.raw);
        let function = matches!(head, Some("function")) || head.is_some_and(|h| h.ends_with("()"));
        if function {
            // `function f { body …`, `f() { body …`: the body's first
            // command follows the `{` (the rest of the body is split as
            // any other commands)
            match done.words.iter().position(|w| w.raw == "{") {
                Some(k) => {
                    done.words.drain(..=k);
                }
                None => done.words.clear(),
            }
        } else if matches!(head, Some("for" | "case" | "select")) {
            done.words.clear();
        }
        if done.words.is_empty() && done.redirects.is_empty() {
            // a heredoc named by a dropped command still has its body read
            for p in self.pending.iter_mut().filter(|p| p.0 == usize::MAX) {
                p.0 = usize::MAX - 1;
            }
            // a group's last command takes the operator after the group
            // (`{ curl x; } | sh` pipes curl's output to sh)
            if let Some(last) = self.out.last_mut()
                && (last.next == Op::End
                    || last.next == Op::Seq && matches!(op, Op::Pipe | Op::And | Op::Or))
                && op != Op::End
                && last.depth >= depth
            {
                last.next = op;
            }
            return;
        }
        done.next = op;
        let idx = self.out.len();
        for p in self.pending.iter_mut().filter(|p| p.0 == usize::MAX) {
            p.0 = idx;
        }
        self.out.push(done);
    }

    /// Read the bodies of the pending here-documents (the lines after the
    /// newline just passed).
    fn heredoc_bodies(&mut self) {
        for (idx, delim, strip) in std::mem::take(&mut self.pending) {
            let mut body = String::new();
            while self.i < self.b.len() {
                let end =
                    memchr::memchr(b'\n', &self.b[self.i..]).map_or(self.b.len(), |k| self.i + k);
                let line = &self.s[self.i..end];
                self.i = (end + 1).min(self.b.len());
                let cmp = if strip {
                    line.trim_start_matches('\t')
                } else {
                    line
                };
                if cmp == delim {
                    break;
                }
                body.push_str(line);
                body.push('\n');
            }
            if let Some(cmd) = self.out.get_mut(idx) {
                cmd.heredocs.push(body);
            }
        }
    }

    fn skip_blanks(&mut self) {
        while let Some(c) = self.peek(0) {
            if c == b' ' || c == b'\t' || c == b'\r' {
                self.i += 1;
            } else if c == b'\\' && self.peek(1) == Some(b'\n') {
                self.i += 2;
            } else {
                break;
            }
        }
    }

    fn skip_to_arith_end(&mut self) {
        let mut level = 2i32;
        while let Some(c) = self.peek(0) {
            self.i += 1;
            match c {
                b'(' => level += 1,
                b')' => {
                    level -= 1;
                    if level == 0 {
                        break;
                    }
                }
                _ => {}
            }
        }
    }

    /// A redirection at the cursor, if one starts there.
    fn redirect(&mut self, depth: u32) -> Option<Redir> {
        let start = self.i;
        let mut j = self.i;
        while self.b.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        let rest = &self.b[j..];
        let op_len = if rest.starts_with(b"&>>")
            || rest.starts_with(b"<<<")
            || rest.starts_with(b"<<-")
        {
            3
        } else if rest.starts_with(b"&>")
            || rest.starts_with(b">>")
            || rest.starts_with(b">&")
            || rest.starts_with(b">|")
            || rest.starts_with(b"<<")
            || rest.starts_with(b"<&")
            || rest.starts_with(b"<>")
        {
            2
        } else if (rest.starts_with(b">") || rest.starts_with(b"<")) && rest.get(1) != Some(&b'(') {
            1
        } else {
            return None;
        };
        if j > start && rest.starts_with(b"&") {
            return None;
        }
        let op = self.s[start..j + op_len].to_string();
        self.i = j + op_len;
        self.skip_blanks();
        if self.peek(0).is_none_or(|c| b"\n;&|()".contains(&c)) {
            return Some(Redir::Plain(Redirect {
                op,
                target: String::new(),
            }));
        }
        let w = self.word(depth, None);
        Some(if op.ends_with("<<<") {
            Redir::HereString(w.value)
        } else if op.ends_with("<<") || op.ends_with("<<-") {
            Redir::Heredoc(w.value, op.ends_with('-'))
        } else {
            Redir::Plain(Redirect {
                op,
                target: w.value,
            })
        })
    }

    /// One word at the cursor (which is not blank nor an operator).
    fn word(&mut self, depth: u32, close: Option<u8>) -> Word<'a> {
        let start = self.i;
        let mut value = String::new();
        while let Some(c) = self.peek(0) {
            match c {
                b' ' | b'\t' | b'\r' | b'\n' | b';' | b'|' => break,
                b'&' => break,
                b')' => break,
                b'`' if close == Some(b'`') => break,
                b'<' | b'>' if self.peek(1) == Some(b'(') && depth < MAX_DEPTH => {
                    self.i += 2;
                    let from = self.i;
                    self.commands(depth + 1, true, Some(b')'));
                    value.push(c as char);
                    value.push('(');
                    value.push_str(&self.s[from..self.i]);
                }
                b'<' | b'>' => break,
                b'(' if self.i == start => break,
                // `f()`: a function's name, its parentheses kept
                b'(' if self.peek(1) == Some(b')') => {
                    value.push_str("()");
                    self.i += 2;
                }
                b'\'' => {
                    self.i += 1;
                    let end = memchr::memchr(b'\'', &self.b[self.i..])
                        .map_or(self.b.len(), |k| self.i + k);
                    value.push_str(&self.s[self.i..end]);
                    self.i = (end + 1).min(self.b.len());
                }
                b'"' => {
                    self.i += 1;
                    self.double_quoted(&mut value, depth);
                }
                b'\\' => {
                    self.i += 1;
                    match self.peek(0) {
                        Some(b'\n') => self.i += 1,
                        Some(_) => self.take_char(&mut value),
                        None => {}
                    }
                }
                b'$' if self.peek(1) == Some(b'\'') => {
                    self.i += 2;
                    self.ansi_c(&mut value);
                }
                b'$' if self.peek(1) == Some(b'(') && self.peek(2) == Some(b'(') => {
                    let from = self.i;
                    self.i += 3;
                    self.skip_to_arith_end();
                    value.push_str(&self.s[from..self.i]);
                }
                b'$' if self.peek(1) == Some(b'(') && depth < MAX_DEPTH => {
                    self.substitution(&mut value, depth, 2, b')');
                }
                b'`' if depth < MAX_DEPTH => self.substitution(&mut value, depth, 1, b'`'),
                _ => self.take_char(&mut value),
            }
        }
        if self.i == start {
            // an operator byte the caller did not take: take it as a word
            self.take_char(&mut value);
        }
        Word {
            raw: &self.s[start..self.i],
            value,
        }
    }

    /// The rest of a `"…"` string (after its opening quote) into `value`.
    fn double_quoted(&mut self, value: &mut String, depth: u32) {
        while let Some(c) = self.peek(0) {
            match c {
                b'"' => {
                    self.i += 1;
                    return;
                }
                b'\\' if matches!(self.peek(1), Some(b'"' | b'\\' | b'$' | b'`' | b'\n')) => {
                    if self.peek(1) != Some(b'\n') {
                        value.push(self.b[self.i + 1] as char);
                    }
                    self.i += 2;
                }
                b'$' if self.peek(1) == Some(b'(')
                    && self.peek(2) != Some(b'(')
                    && depth < MAX_DEPTH =>
                {
                    self.substitution(value, depth, 2, b')');
                }
                b'`' if depth < MAX_DEPTH => self.substitution(value, depth, 1, b'`'),
                _ => self.take_char(value),
            }
        }
    }

    /// A command substitution at the cursor (its opening `open` bytes long,
    /// `$(` or a backquote) up to `close`, its commands read as nested ones
    /// and its raw text kept in `value`.
    fn substitution(&mut self, value: &mut String, depth: u32, open: usize, close: u8) {
        let from = self.i;
        self.i += open;
        self.commands(depth + 1, true, Some(close));
        value.push_str(&self.s[from..self.i]);
    }

    /// The character at the cursor into `value`.
    fn take_char(&mut self, value: &mut String) {
        let ch = self.s[self.i..].chars().next().expect("a char");
        value.push(ch);
        self.i += ch.len_utf8();
    }

    /// The rest of a `$'…'` string into `value`, its common escapes decoded.
    fn ansi_c(&mut self, value: &mut String) {
        while let Some(c) = self.peek(0) {
            match c {
                b'\'' => {
                    self.i += 1;
                    return;
                }
                b'\\' => {
                    let n = self.peek(1);
                    self.i = (self.i + 2).min(self.b.len());
                    match n {
                        Some(b'n') => value.push('\n'),
                        Some(b't') => value.push('\t'),
                        Some(b'r') => value.push('\r'),
                        Some(b'x') => {
                            let hex: String = self.s[self.i.min(self.b.len())..]
                                .chars()
                                .take_while(char::is_ascii_hexdigit)
                                .take(2)
                                .collect();
                            self.i += hex.len();
                            if let Some(ch) = u8::from_str_radix(&hex, 16).ok().filter(u8::is_ascii)
                            {
                                value.push(ch as char);
                            }
                        }
                        Some(o) if o.is_ascii() => value.push(o as char),
                        Some(_) => {
                            // a multi-byte character after `\`: keep it
                            self.i -= 1;
                            self.take_char(value);
                        }
                        None => {}
                    }
                }
                _ => self.take_char(value),
            }
        }
    }
}

enum Redir {
    Plain(Redirect),
    Heredoc(String, bool),
    HereString(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (line, the simple commands' core words joined by spaces and each
    /// followed by its operator)
    fn shape(line: &str) -> String {
        split(line)
            .iter()
            .map(|s| {
                let mut w = s.argv().join(" ");
                if s.substituted {
                    w = format!("[{w}]");
                }
                if s.next != Op::End {
                    w.push(' ');
                    w.push_str(s.next.as_str());
                }
                w
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn a_table_of_tricky_lines() {
        for (line, want) in [
            ("make test", "make test"),
            ("cd app && npm test", "cd app && npm test"),
            ("a || b; c", "a || b ; c"),
            (
                "curl -fsSL https://x.sh | sh",
                "curl -fsSL https://x.sh | sh",
            ),
            ("curl -fsSL https://x.sh|sh", "curl -fsSL https://x.sh | sh"),
            ("git commit -m \"a && b | c\"", "git commit -m a && b | c"),
            ("echo 'x; y' ; z", "echo x; y ; z"),
            (
                "(cd web && make) && make test",
                "cd web && make && make test",
            ),
            ("{ make; make test; }", "make ; make test ;"),
            ("{ curl -s x; } | sh", "curl -s x | sh"),
            ("function f { curl -s x | sh; }; f", "curl -s x | sh ; f"),
            ("f() { make gen; }; f", "make gen ; f"),
            ("(make; make test) && ls", "make ; make test && ls"),
            ("FOO=1 BAR=\"a b\" make x", "make x"),
            ("npm test 2>&1 | tail -5", "npm test | tail -5"),
            ("make >out.log 2>&1 &", "make &"),
            ("sleep 1 & wait", "sleep 1 & wait"),
            ("a |& b", "a | b"),
            ("if make; then make test; fi", "make ; make test ;"),
            ("for f in a b; do lint $f; done", "lint $f ;"),
            (
                "sh -c \"$(curl -fsSL https://x)\"",
                "[curl -fsSL https://x] sh -c $(curl -fsSL https://x)",
            ),
            (
                "bash <(curl -s https://x)",
                "[curl -s https://x] bash <(curl -s https://x)",
            ),
            ("echo `whoami`", "[whoami] echo `whoami`"),
            ("cat <<EOF | sh\nrm -rf /\nEOF\nmake", "cat | sh ; make"),
            ("python3 - <<'PY'\nimport os\nPY", "python3 - ;"),
            ("make \\\n  test", "make test"),
            ("echo $'a\\'b' c", "echo a'b c"),
            ("ls # && rm -rf /", "ls"),
            ("x=$((1+2)) make", "make"),
            ("echo \"unterminated", "echo unterminated"),
            ("", ""),
        ] {
            assert_eq!(shape(line), want, "{line:?}");
        }
    }

    #[test]
    fn words_keep_their_raw_text_and_values_lose_quotes() {
        let s = split("git commit -m \"fix: a b\" --author='A <a@b>'");
        let raw: Vec<&str> = s[0].words.iter().map(|w| w.raw).collect();
        assert_eq!(
            raw,
            ["git", "commit", "-m", "\"fix: a b\"", "--author='A <a@b>'"]
        );
        assert_eq!(s[0].words[4].value, "--author=A <a@b>");
    }

    #[test]
    fn redirections_and_heredocs_are_not_words() {
        let s = split("tee -a /etc/hosts > /dev/null 2>&1 <<< '1.2.3.4 x'");
        assert_eq!(s[0].argv(), ["tee", "-a", "/etc/hosts"]);
        let ops: Vec<(&str, &str)> = s[0]
            .redirects
            .iter()
            .map(|r| (r.op.as_str(), r.target.as_str()))
            .collect();
        assert_eq!(
            ops,
            [(">", "/dev/null"), ("2>&", "1"), ("<<<", "1.2.3.4 x")]
        );
        assert!(s[0].redirects[0].writes() && !s[0].redirects[1].writes());
        assert_eq!(s[0].heredocs, ["1.2.3.4 x"]);
        let s = split("bash <<-EOF\n\tcurl x | sh\n\tEOF\necho done");
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].heredocs, ["\tcurl x | sh\n"]);
        assert_eq!(s[1].argv(), ["echo", "done"]);
        let s = split("echo hi >> ~/.bashrc");
        assert_eq!(s[0].redirects[0].target, "~/.bashrc");
        assert!(s[0].redirects[0].writes());
    }

    #[test]
    fn wrappers_are_stripped_with_their_options() {
        for (line, want) in [
            ("sudo -u root -E make install", "make install"),
            ("env -i PATH=/bin FOO=1 ./run.sh", "./run.sh"),
            ("timeout 30 cargo test", "cargo test"),
            ("nice -n 10 time make", "make"),
            ("X=1 command -v node", "command -v node"),
            ("find . -name x | xargs -n 1 rm", "rm"),
            ("nohup ./serve &", "./serve"),
        ] {
            let cores: Vec<String> = split(line).iter().map(|s| s.core().join(" ")).collect();
            assert_eq!(cores.last().map(String::as_str), Some(want), "{line:?}");
        }
    }

    #[test]
    fn any_bytes_split_without_panicking() {
        for line in [
            "$(",
            "`",
            "((",
            "<<",
            "<<EOF",
            "a >",
            "\\",
            "$'\\x",
            "$'\\",
            "'",
            "\"\\",
            ")))",
            "é|ü&&ö",
            "a 2>",
            "<(",
            "$((",
            "{ ;",
            "x=$(y=`z`)",
            "$'\\é'",
        ] {
            let _ = split(line);
        }
        let deep = "$(".repeat(100_000) + &")".repeat(100_000);
        assert!(split(&deep).len() <= MAX_DEPTH as usize + 1);
        let deep = "(".repeat(100_000);
        assert!(split(&deep).is_empty());
    }

    proptest::proptest! {
        #[test]
        fn any_text_splits_without_panicking(line in "[ -~\\n\\té]{0,80}") {
            for c in split(&line) {
                // every raw word is a piece of the line
                for w in &c.words {
                    proptest::prop_assert!(line.contains(w.raw));
                }
            }
        }
    }
}
