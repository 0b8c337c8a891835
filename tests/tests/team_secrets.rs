//! Promotion into the team tier refuses every kind of the secrets corpus
//! (mem_tests::corpus) planted in a personal memory — in the description,
//! the body, a trigger or an unknown frontmatter key — naming the memory and
//! the field and never printing the secret; one refused memory refuses the
//! whole promotion (nothing is written). A token no rule knows is refused by
//! the high-entropy check.

use std::collections::BTreeMap;

use mem_tests::corpus::corpus;
use mem_tests::{cmd, run, show};

/// Where each secret is planted: the field's name as the refusal gives it.
const FIELDS: [&str; 4] = ["description", "body", "triggers[0]", "extra.note"];

#[test]
fn every_kind_of_the_secrets_corpus_is_refused_at_promotion() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let personal = tmp.path().join("personal");
    let repo = tmp.path().join("repo");
    for d in [&home, &personal, &repo.join(".git")] {
        std::fs::create_dir_all(d).unwrap();
    }
    let secrets = corpus();
    let mut ids = Vec::new();
    let mut expect: BTreeMap<String, (&str, &str)> = BTreeMap::new();
    for (i, s) in secrets.iter().enumerate() {
        let one_line = !s.line.contains('\n');
        let field = if one_line { FIELDS[i % 4] } else { "body" };
        let esc = s.line.replace('\\', "\\\\").replace('"', "\\\"");
        let desc = if field == "description" {
            format!("Staging deploy uses {esc}")
        } else {
            "Staging deploy credential".to_string()
        };
        let trig = if field == "triggers[0]" {
            format!("triggers: [\"{esc}\"]\n")
        } else {
            String::new()
        };
        let note = if field == "extra.note" {
            format!("note: \"{esc}\"\n")
        } else {
            String::new()
        };
        let body = if field == "body" {
            format!("The staging deploy needs this credential:\n{}\n", s.line)
        } else {
            "The staging deploy needs a credential from the vault.\n".to_string()
        };
        let id = format!("secret-{i:02}");
        std::fs::write(
            personal.join(format!("{id}.md")),
            format!(
                "---\nname: \"Secret {i}\"\ndescription: \"{desc}\"\ntype: project\n{trig}{note}---\n{body}"
            ),
        )
        .unwrap();
        expect.insert(id.clone(), (s.kind, field));
        ids.push(id);
    }
    // a clean memory in the same batch: all or nothing
    std::fs::write(
        personal.join("clean.md"),
        "---\nname: \"Clean\"\ndescription: \"nothing to hide\"\ntype: project\n---\nFact: nothing.\n",
    )
    .unwrap();
    // a token no rule knows: the high-entropy check
    std::fs::write(
        personal.join("entropy.md"),
        "---\nname: \"Entropy\"\ndescription: \"the staging key\"\ntype: project\n---\nIt is Zx81kQ0pLm3vB7nR2tY6wE4uH5sJ in the vault.\n",
    )
    .unwrap();
    ids.push("clean".into());
    ids.push("entropy".into());

    let mut c = cmd("mem-index", &home);
    c.current_dir(&repo)
        .arg("promote")
        .args(&ids)
        .arg("--memory-dir")
        .arg(&personal);
    let o = run(c, b"");
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let mut missed = Vec::new();
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for (id, (kind, field)) in &expect {
        let want = format!("promote refused: {id}: field `{field}` carries ");
        if err.contains(&want) {
            *kinds.entry(kind).or_default() += 1;
        } else {
            missed.push(format!("{id} ({kind}) in {field}"));
        }
    }
    assert!(missed.is_empty(), "not refused: {missed:?}\n{err}");
    for s in &secrets {
        assert!(!err.contains(&s.mark), "{} printed:\n{err}", s.kind);
    }
    assert!(
        err.contains("promote refused: entropy: field `body` carries high-entropy token"),
        "{err}"
    );
    assert!(!err.contains("Zx81kQ0p"), "{err}");
    assert!(!err.contains("promote refused: clean"), "{err}");
    assert!(
        !repo.join(".claude/team-memory").exists(),
        "nothing written when refused"
    );
    let distinct: std::collections::BTreeSet<&str> = secrets.iter().map(|s| s.kind).collect();
    assert_eq!(kinds.len(), distinct.len(), "{kinds:?}");
    eprintln!(
        "{} secrets of {} kinds refused at promotion",
        expect.len(),
        kinds.len()
    );

    // the clean one alone goes through
    let mut c = cmd("mem-index", &home);
    c.current_dir(&repo)
        .args(["promote", "clean", "--memory-dir"])
        .arg(&personal);
    let o = run(c, b"");
    assert!(o.status.success(), "{}", show(&o));
    assert!(repo.join(".claude/team-memory/clean.md").is_file());
}
