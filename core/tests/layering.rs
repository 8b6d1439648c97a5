//! The layering check: core's modules are layered, bottom to top, in the order `ARCHITECTURE.md`
//! (at the repository root) states, and a module refers only to itself and to modules below it.
//!
//! The test reads that order from the document, then every `crate::…` path in core's code
//! (comments, strings and `$crate` excluded; `use crate::{a, b::c}` groups, `super::` paths that
//! leave a top-level module, and items the crate root re-exports are resolved to their module)
//! and fails with one line per reference that points up. It also fails when the document and the
//! source disagree about which modules exist, so the document stays true.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The module order of the section "## Modules of core" in ARCHITECTURE.md: its numbered items
/// `N. `name` — …`, bottom (1) to top.
fn documented_order(doc: &str) -> Vec<String> {
    let mut in_section = false;
    let mut order = Vec::new();
    for line in doc.lines() {
        if line.starts_with("## ") {
            in_section = line.starts_with("## Modules of core");
            continue;
        }
        if !in_section {
            continue;
        }
        let trimmed = line.trim_start();
        let Some((number, rest)) = trimmed.split_once(". ") else {
            continue;
        };
        if number.is_empty() || !number.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let rest = rest.trim_start();
        if let Some(name) = rest.strip_prefix('`').and_then(|r| r.split('`').next()) {
            order.push(name.trim_end_matches('/').to_string());
        }
    }
    order
}

/// Removes comments (line, nested block, doc) and the contents of string and char literals,
/// keeping line breaks so that line numbers stay right.
fn strip(src: &str) -> String {
    let s: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    let blank = |c: char, out: &mut String| out.push(if c == '\n' { '\n' } else { ' ' });
    while i < s.len() {
        let c = s[i];
        let next = s.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < s.len() && s[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0usize;
            while i < s.len() {
                if s[i] == '/' && s.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if s[i] == '*' && s.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(s[i], &mut out);
                    i += 1;
                }
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && (i == 0 || !(s[i - 1].is_alphanumeric() || s[i - 1] == '_'))
        {
            // A raw string r"…" or r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while s.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if s.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= s.len() {
                    break;
                }
                if s[j] == '"' && (0..hashes).all(|h| s.get(j + 1 + h) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                blank(s[j], &mut out);
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < s.len() && s[i] != '"' {
                if s[i] == '\\' {
                    i += 1;
                }
                if i < s.len() {
                    blank(s[i], &mut out);
                }
                i += 1;
            }
            out.push_str("\"\"");
            i += 1;
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{..}'), or a lifetime ('a), which is kept.
            if next == Some('\\') {
                let mut j = i + 2;
                while j < s.len() && s[j] != '\'' {
                    j += 1;
                }
                out.push_str("' '");
                i = j + 1;
            } else if s.get(i + 2) == Some(&'\'') {
                out.push_str("' '");
                i += 3;
            } else {
                out.push(c);
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The first path segments named after `crate::` at `at` (which points just past `crate::`):
/// one for `crate::a::…`, several for `crate::{a::x, b}`.
fn first_segments(code: &[char], mut at: usize) -> Vec<String> {
    while at < code.len() && code[at].is_whitespace() {
        at += 1;
    }
    if code.get(at) == Some(&'{') {
        let mut names = Vec::new();
        let mut depth = 0usize;
        let mut expect_name = true;
        while at < code.len() {
            let c = code[at];
            match c {
                '{' => {
                    depth += 1;
                    expect_name = depth == 1;
                }
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                ',' if depth == 1 => expect_name = true,
                c if is_ident(c) && expect_name && depth == 1 => {
                    let start = at;
                    while at < code.len() && is_ident(code[at]) {
                        at += 1;
                    }
                    names.push(code[start..at].iter().collect());
                    expect_name = false;
                    continue;
                }
                _ => {}
            }
            at += 1;
        }
        names
    } else {
        let start = at;
        while at < code.len() && is_ident(code[at]) {
            at += 1;
        }
        // `crate::name!` is a `#[macro_export]` macro at the crate root: not a module reference.
        if code.get(at) == Some(&'!') || start == at {
            return Vec::new();
        }
        vec![code[start..at].iter().collect()]
    }
}

/// The `crate::`-relative first segments a file refers to, with their line numbers. `depth` is
/// the file's nesting below `src/` as a module (a top-level file or a folder's `mod.rs` is 1,
/// a file in a folder 2, …): `super::` chains that climb to the crate root count as `crate::`.
fn references(code: &str, depth: usize) -> Vec<(usize, String)> {
    let chars: Vec<char> = code.chars().collect();
    let mut refs = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '\n' {
            line += 1;
            i += 1;
            continue;
        }
        let boundary = i == 0 || !(is_ident(chars[i - 1]) || chars[i - 1] == '$');
        let rest = &chars[i..];
        if boundary && rest.starts_with(&['c', 'r', 'a', 't', 'e', ':', ':']) {
            for name in first_segments(&chars, i + 7) {
                refs.push((line, name));
            }
            i += 7;
            continue;
        }
        if boundary && rest.starts_with(&['s', 'u', 'p', 'e', 'r', ':', ':']) {
            let mut j = i;
            let mut climbs = 0;
            while chars[j..].starts_with(&['s', 'u', 'p', 'e', 'r', ':', ':']) {
                climbs += 1;
                j += 7;
            }
            if climbs >= depth {
                for name in first_segments(&chars, j) {
                    refs.push((line, name));
                }
            }
            i = j;
            continue;
        }
        i += 1;
    }
    refs
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn core_modules_import_only_downward() {
    let root = root();
    let doc_path = root.join("ARCHITECTURE.md");
    let doc = fs::read_to_string(&doc_path)
        .unwrap_or_else(|e| panic!("read {}: {e}", doc_path.display()));
    let order = documented_order(&doc);
    assert!(
        !order.is_empty(),
        "ARCHITECTURE.md has no numbered list under a heading \"## Modules of core\""
    );
    let rank: BTreeMap<&str, usize> = order
        .iter()
        .enumerate()
        .map(|(i, m)| (m.as_str(), i))
        .collect();

    let src = root.join("core/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let present: BTreeSet<String> = files
        .iter()
        .filter_map(|f| {
            let rel = f.strip_prefix(&src).ok()?;
            let first = rel.components().next()?.as_os_str().to_str()?;
            let name = first.trim_end_matches(".rs");
            (name != "lib").then(|| name.to_string())
        })
        .collect();
    let documented: BTreeSet<String> = order.iter().cloned().collect();
    let mut problems = String::new();
    for m in present.difference(&documented) {
        writeln!(
            problems,
            "core/src/{m}: a module ARCHITECTURE.md does not list"
        )
        .unwrap();
    }
    for m in documented.difference(&present) {
        writeln!(
            problems,
            "ARCHITECTURE.md lists `{m}`, which core/src does not have"
        )
        .unwrap();
    }

    for file in &files {
        let rel = file.strip_prefix(&src).expect("under src");
        let parts: Vec<&str> = rel
            .components()
            .map(|c| c.as_os_str().to_str().expect("utf-8 path"))
            .collect();
        if parts == ["lib.rs"] {
            continue;
        }
        let module = parts[0].trim_end_matches(".rs");
        let Some(&own) = rank.get(module) else {
            continue;
        };
        let last = parts[parts.len() - 1];
        let depth = if last == "mod.rs" {
            parts.len() - 1
        } else {
            parts.len()
        };
        let text = fs::read_to_string(file).expect("source file");
        for (line, name) in references(&strip(&text), depth) {
            let Some(&theirs) = rank.get(name.as_str()) else {
                writeln!(
                    problems,
                    "core/src/{}:{line}: `crate::{name}` goes through the crate root, which holds \
                     re-exports only: name the module ARCHITECTURE.md lists that defines it \
                     (another crate by its own name: `extype_shape::…`)",
                    rel.display()
                )
                .unwrap();
                continue;
            };
            let target = &name;
            if theirs > own {
                writeln!(
                    problems,
                    "core/src/{}:{line}: `{module}` (layer {}) refers to `crate::{name}` in \
                     `{target}` (layer {}), above it",
                    rel.display(),
                    own + 1,
                    theirs + 1
                )
                .unwrap();
            }
        }
    }
    assert!(
        problems.is_empty(),
        "core's layering (ARCHITECTURE.md, \"Modules of core\") is broken:\n{problems}"
    );
}

#[test]
fn the_checker_sees_what_it_must() {
    let code = strip(
        "use crate::{dtype::DType, error::{Error, Result}};\n\
         // crate::hidden in a comment\n\
         /* crate::block /* nested */ */ let s = \"crate::in_string\"; let c = 'x';\n\
         fn f<'a>(x: &'a str) { crate::ops::add(); $crate::not_this::x; crate::declare_op!(); }\n\
         use super::super::registry::Registry;",
    );
    let refs: Vec<String> = references(&code, 2).into_iter().map(|r| r.1).collect();
    assert_eq!(refs, ["dtype", "error", "ops", "registry"]);
    let refs: Vec<String> = references(&code, 3).into_iter().map(|r| r.1).collect();
    assert_eq!(
        refs,
        ["dtype", "error", "ops"],
        "super::super stays inside at depth 3"
    );
    let order = documented_order(
        "# A\n## Modules of core, bottom to top\n1. `dtype` — x\n2. `field/` — y\n## Other\n3. `no`",
    );
    assert_eq!(order, ["dtype", "field"]);
}

/// The names in a manifest's `[dependencies]` table (build and dev dependencies are not part of
/// the crate graph a user's build sees).
fn dependencies(manifest: &str) -> BTreeSet<String> {
    let mut in_deps = false;
    let mut names = BTreeSet::new();
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = line == "[dependencies]"
                || (line.starts_with("[target.") && line.ends_with(".dependencies]"));
            continue;
        }
        if in_deps && !line.is_empty() && !line.starts_with('#') {
            let name: String = line
                .chars()
                .take_while(|&c| is_ident(c) || c == '-')
                .collect();
            names.insert(name);
        }
    }
    names
}

/// The crate graph of ARCHITECTURE.md: the leaf crate depends on no other crate of the
/// workspace, the macros only on the leaf (never on the runtime, so the derive builds beside it),
/// the kernels on none, core on the leaf and the kernels.
#[test]
fn crate_graph_points_one_way() {
    let root = root();
    let read =
        |p: &str| fs::read_to_string(root.join(p)).unwrap_or_else(|e| panic!("read {p}: {e}"));
    let workspace: BTreeSet<&str> = [
        "extype",
        "extype-core",
        "extype-macros",
        "extype-kernels",
        "extype-shape",
    ]
    .into();
    let allowed: [(&str, &[&str]); 4] = [
        ("shape/Cargo.toml", &[]),
        ("macros/Cargo.toml", &["extype-shape"]),
        ("kernels/Cargo.toml", &[]),
        ("core/Cargo.toml", &["extype-shape", "extype-kernels"]),
    ];
    let mut problems = String::new();
    for (manifest, ok) in allowed {
        for dep in dependencies(&read(manifest)) {
            if workspace.contains(dep.as_str()) && !ok.contains(&dep.as_str()) {
                writeln!(
                    problems,
                    "{manifest} depends on {dep}; ARCHITECTURE.md allows only {ok:?}"
                )
                .unwrap();
            }
        }
    }
    let macros = dependencies(&read("macros/Cargo.toml"));
    for heavy in ["ndarray", "rayon", "serde_json", "inventory"] {
        if macros.contains(heavy) {
            writeln!(problems, "macros/Cargo.toml depends on {heavy}").unwrap();
        }
    }
    assert!(
        problems.is_empty(),
        "the crate graph is broken:\n{problems}"
    );
}
