//! Line diffs: the hunks of a unified diff (what `mem-dream --diff` and
//! `mem-index team review` print).

#[derive(Clone, Copy, PartialEq)]
enum Op {
    Eq,
    Del,
    Add,
}

/// Line edit script (LCS); a whole replacement when the files are too big
/// for the quadratic table.
fn script(a: &[&str], b: &[&str]) -> Vec<(Op, usize, usize)> {
    let (n, m) = (a.len(), b.len());
    if n.saturating_mul(m) > 4_000_000 {
        let mut v: Vec<_> = (0..n).map(|i| (Op::Del, i, 0)).collect();
        v.extend((0..m).map(|j| (Op::Add, n, j)));
        return v;
    }
    let mut t = vec![0u32; (n + 1) * (m + 1)];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            t[i * (m + 1) + j] = if a[i] == b[j] {
                t[(i + 1) * (m + 1) + j + 1] + 1
            } else {
                t[(i + 1) * (m + 1) + j].max(t[i * (m + 1) + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut v = Vec::new();
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            v.push((Op::Eq, i, j));
            i += 1;
            j += 1;
        } else if i < n && (j == m || t[(i + 1) * (m + 1) + j] >= t[i * (m + 1) + j + 1]) {
            v.push((Op::Del, i, j));
            i += 1;
        } else {
            v.push((Op::Add, i, j));
            j += 1;
        }
    }
    v
}

/// The hunks of a unified diff from the lines `a` to the lines `b` (each
/// with its line ending), each hunk `@@ -l,n +l,n @@` with `ctx` lines of
/// context; a line without a newline is followed by git's `\ No newline
/// at end of file`. Empty when the lines are equal.
pub fn hunks(a: &[&str], b: &[&str], ctx: usize) -> Vec<String> {
    let s = script(a, b);
    let changed: Vec<usize> = (0..s.len()).filter(|&k| s[k].0 != Op::Eq).collect();
    let mut out = Vec::new();
    let mut k = 0;
    while k < changed.len() {
        let start = changed[k].saturating_sub(ctx);
        let mut end = changed[k];
        while k < changed.len() && changed[k] <= end + 2 * ctx + 1 {
            end = changed[k];
            k += 1;
        }
        let end = (end + ctx + 1).min(s.len());
        let seg = &s[start..end];
        let a0 = seg.first().map_or(0, |x| x.1);
        let b0 = seg.first().map_or(0, |x| x.2);
        let na = seg.iter().filter(|x| x.0 != Op::Add).count();
        let nb = seg.iter().filter(|x| x.0 != Op::Del).count();
        let mut h = format!(
            "@@ -{},{} +{},{} @@\n",
            if na == 0 { a0 } else { a0 + 1 },
            na,
            if nb == 0 { b0 } else { b0 + 1 },
            nb
        );
        for &(o, i, j) in seg {
            let (p, l) = match o {
                Op::Eq => (' ', a[i]),
                Op::Del => ('-', a[i]),
                Op::Add => ('+', b[j]),
            };
            h.push(p);
            h.push_str(l);
            if !l.ends_with('\n') {
                h.push_str("\n\\ No newline at end of file\n");
            }
        }
        out.push(h);
    }
    out
}

/// A whole unified diff of the text `old` to `new` (None: the file is
/// absent on that side), with `--- a/REL` / `+++ b/REL` headers (or
/// `/dev/null`); empty when both are the same.
pub fn unified(rel: &str, old: Option<&str>, new: Option<&str>) -> String {
    if old == new {
        return String::new();
    }
    let a: Vec<&str> = old.unwrap_or_default().split_inclusive('\n').collect();
    let b: Vec<&str> = new.unwrap_or_default().split_inclusive('\n').collect();
    let mut out = String::new();
    out.push_str(&match old {
        Some(_) => format!("--- a/{rel}\n"),
        None => "--- /dev/null\n".into(),
    });
    out.push_str(&match new {
        Some(_) => format!("+++ b/{rel}\n"),
        None => "+++ /dev/null\n".into(),
    });
    for h in hunks(&a, &b, 3) {
        out.push_str(&h);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_line_is_one_hunk() {
        let d = unified("x.md", Some("a\nb\nc\n"), Some("a\nB\nc\n"));
        assert_eq!(
            d,
            "--- a/x.md\n+++ b/x.md\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
        );
        assert_eq!(
            unified("n.md", None, Some("x\n")),
            "--- /dev/null\n+++ b/n.md\n@@ -0,0 +1,1 @@\n+x\n"
        );
        assert_eq!(unified("s.md", Some("x"), Some("x")), "");
    }
}
