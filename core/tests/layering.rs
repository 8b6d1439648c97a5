//! The layering checks: core's modules are layered, bottom to top, in the order `ARCHITECTURE.md`
//! (at the repository root) states, and a module refers only to itself and to modules below it.
//!
//! The module check reads that order from the document, then every `crate::…` path in core's code
//! (comments, strings and `$crate` excluded; `use crate::{a, b::c}` groups and `super::` paths
//! that leave a top-level module resolved to their module) and fails with one line per reference
//! that points up, or that goes through the crate root (`crate::Error`: the root holds re-exports
//! only, so a module names the module that defines the item). It also fails when the document and
//! the source disagree about which modules exist, so the document stays true.
//!
//! The file check goes one level down: inside each module of core, and inside extype-shape and
//! extype-kernels (whose files form one module each), no two files import each other, directly
//! or around a circle; each circle is reported with its files and the lines of its imports.
//! Crate roots are checked to be doors: re-exports and docs, no item with a body.

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

/// The references of one file (`at`, in top-level module `module`, nested `depth` deep) that point
/// up the order `rank`, or that go through the crate root: one line each.
fn module_problems(
    at: &str,
    code: &str,
    depth: usize,
    module: &str,
    rank: &BTreeMap<&str, usize>,
) -> String {
    let mut problems = String::new();
    let own = rank[module];
    for (line, name) in references(&strip(code), depth) {
        let Some(&theirs) = rank.get(name.as_str()) else {
            writeln!(
                problems,
                "{at}:{line}: `crate::{name}` goes through the crate root, which holds \
                 re-exports only: name the module ARCHITECTURE.md lists that defines it \
                 (another crate by its own name: `extype_shape::…`)"
            )
            .unwrap();
            continue;
        };
        if theirs > own {
            writeln!(
                problems,
                "{at}:{line}: `{module}` (layer {}) refers to `crate::{name}` in `{name}` \
                 (layer {}), above it",
                own + 1,
                theirs + 1
            )
            .unwrap();
        }
    }
    problems
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
        if !rank.contains_key(module) {
            continue;
        }
        let last = parts[parts.len() - 1];
        let depth = if last == "mod.rs" {
            parts.len() - 1
        } else {
            parts.len()
        };
        let text = fs::read_to_string(file).expect("source file");
        let at = format!("core/src/{}", rel.display());
        problems.push_str(&module_problems(&at, &text, depth, module, &rank));
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
    let rank: BTreeMap<&str, usize> = [("dtype", 0), ("error", 1), ("ops", 2)].into();
    let found = module_problems(
        "x.rs",
        "use crate::dtype::DType;\nuse crate::Error;\nfn f() { crate::ops::add(); }",
        1,
        "error",
        &rank,
    );
    assert_eq!(
        found
            .lines()
            .map(|l| l.split(": ").next().unwrap())
            .collect::<Vec<_>>(),
        ["x.rs:2", "x.rs:3"],
        "a root alias and an upward reference, each on its line: {found}"
    );
    assert!(found.contains("`crate::Error` goes through the crate root"));
    assert!(
        found.contains("`error` (layer 2) refers to `crate::ops` in `ops` (layer 3), above it")
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

/// The `members` of the root manifest's `[workspace]` table.
fn workspace_members(manifest: &str) -> Vec<String> {
    let line = manifest
        .lines()
        .find(|l| l.trim_start().starts_with("members"))
        .expect("the root manifest lists its workspace members on one line");
    line.split('"')
        .skip(1)
        .step_by(2)
        .map(String::from)
        .collect()
}

/// The crate graph of ARCHITECTURE.md, every crate of the workspace placed: the leaf crate
/// depends on no other crate of the workspace, the macros only on the leaf (never on the
/// runtime, so the derive builds beside it), the kernels on none, core on the leaf and the
/// kernels, the facade on core, the macros and the kernels (never on Arrow), the Arrow crate on
/// core, the command line and the DataFusion crate on core and the Arrow crate (the command line
/// reaches Arrow's own crates only through it); the Ballista crate on core and the DataFusion
/// crate, which nothing else depends on, and nothing depends on the Ballista crate. The tour and the compile-fail suite are packages of their own that only use the facade (and, for
/// the SIMD seals, the kernels). Every member of the workspace is placed.
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
        "extype-cli",
        "extype-arrow",
        "extype-datafusion",
        "extype-ballista",
        "extype-tour",
        "extype-ui-tests",
    ]
    .into();
    let allowed: [(&str, &[&str]); 11] = [
        ("shape/Cargo.toml", &[]),
        ("macros/Cargo.toml", &["extype-shape"]),
        ("kernels/Cargo.toml", &[]),
        ("core/Cargo.toml", &["extype-shape", "extype-kernels"]),
        (
            "Cargo.toml",
            &["extype-core", "extype-macros", "extype-kernels"],
        ),
        ("cli/Cargo.toml", &["extype-core", "extype-arrow"]),
        ("arrow/Cargo.toml", &["extype-core"]),
        ("datafusion/Cargo.toml", &["extype-core", "extype-arrow"]),
        ("ballista/Cargo.toml", &["extype-core", "extype-datafusion"]),
        ("tour/Cargo.toml", &["extype"]),
        ("tests/ui/Cargo.toml", &[]),
    ];
    let mut problems = String::new();
    for member in workspace_members(&read("Cargo.toml")) {
        let manifest = format!("{member}/Cargo.toml");
        if !allowed.iter().any(|(placed, _)| *placed == manifest) {
            writeln!(
                problems,
                "workspace member {member} is not placed in the crate graph"
            )
            .unwrap();
        }
    }
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
    // Arrow's crates stay out of the facade and core; the command line reaches them only
    // through the Arrow crate.
    for manifest in ["Cargo.toml", "core/Cargo.toml", "cli/Cargo.toml"] {
        for dep in dependencies(&read(manifest)) {
            if dep.starts_with("arrow") || dep == "parquet" || dep == "datafusion" {
                writeln!(problems, "{manifest} depends on {dep}").unwrap();
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

// ---------------------------------------------------------------------------------------------
// File by file: no two files of a module import each other, and crate roots are doors

/// The crate roots that hold re-exports and docs only (no item with a body).
const DOORS: &[&str] = &["core/src/lib.rs", "shape/src/lib.rs", "kernels/src/lib.rs"];

/// Tokens of stripped code (see [`strip`]): identifiers (`$crate` as `crate`), `::`, and single
/// punctuation characters, each with its line.
fn tokens(code: &str) -> Vec<(String, usize)> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if is_ident(c) || (c == '$' && chars.get(i + 1).is_some_and(|&n| is_ident(n))) {
            let start = if c == '$' { i + 1 } else { i };
            i = start;
            while i < chars.len() && is_ident(chars[i]) {
                i += 1;
            }
            out.push((chars[start..i].iter().collect(), line));
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            out.push(("::".to_string(), line));
            i += 2;
        } else {
            out.push((c.to_string(), line));
            i += 1;
        }
    }
    out
}

fn is_name(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// One `use` leaf: the path as written (`self` leaves end at their module), the name it binds
/// (`None` for a glob), and whether it is a `pub` re-export.
struct UseLeaf {
    scope: Vec<String>,
    path: Vec<String>,
    binding: Option<String>,
    reexport: bool,
    line: usize,
}

/// What one file says: the modules it opens inline, the names it defines, its `use` leaves and
/// the `crate::` / `super::` / `self::` / child-module paths in its code.
#[derive(Default)]
struct FileScan {
    inline_modules: Vec<Vec<String>>,
    defs: Vec<(Vec<String>, String)>,
    uses: Vec<UseLeaf>,
    paths: Vec<(Vec<String>, Vec<String>, usize)>,
    /// `macro_rules!` names: `#[macro_export]` ones are reached as `crate::name!`.
    macros: Vec<String>,
}

const DEFINING: [&str; 8] = [
    "fn", "struct", "enum", "trait", "type", "const", "static", "union",
];

fn tok(toks: &[(String, usize)], i: usize) -> &str {
    toks.get(i).map_or("", |t| t.0.as_str())
}

/// Parses a use tree at `toks[*i]` under `prefix`, pushing its leaves as `(path, binding)`.
fn use_tree(
    toks: &[(String, usize)],
    i: &mut usize,
    prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>)>,
) {
    let mut path = prefix;
    if tok(toks, *i) == "::" {
        *i += 1;
    }
    while *i < toks.len() {
        let t = tok(toks, *i).to_string();
        if t == "{" {
            *i += 1;
            while *i < toks.len() && tok(toks, *i) != "}" {
                let before = *i;
                use_tree(toks, i, path.clone(), out);
                if tok(toks, *i) == "," {
                    *i += 1;
                }
                if *i == before {
                    *i += 1;
                }
            }
            *i += 1;
            return;
        }
        if t == "*" {
            *i += 1;
            out.push((path, None));
            return;
        }
        if !is_name(&t) {
            return;
        }
        *i += 1;
        if tok(toks, *i) == "::" {
            path.push(t);
            *i += 1;
            continue;
        }
        let mut binding = if t == "self" && !path.is_empty() {
            path.last().cloned().unwrap_or_default()
        } else {
            path.push(t.clone());
            t
        };
        if tok(toks, *i) == "as" {
            binding = tok(toks, *i + 1).to_string();
            *i += 2;
        }
        out.push((path, Some(binding)));
        return;
    }
}

/// Scans one file whose module path is `module`; `modules` are the crate's file modules (to
/// recognise paths that start with a child module's name).
fn scan(code: &str, module: &[String], modules: &BTreeSet<Vec<String>>) -> FileScan {
    let toks = tokens(code);
    let mut scan = FileScan::default();
    let mut stack: Vec<Option<String>> = Vec::new();
    let mut pending_mod: Option<String> = None;
    let scope_of = |stack: &[Option<String>]| -> Vec<String> {
        let mut s = module.to_vec();
        s.extend(stack.iter().flatten().cloned());
        s
    };
    let mut i = 0;
    while i < toks.len() {
        let (t, line) = (toks[i].0.as_str(), toks[i].1);
        let prev = if i == 0 { "" } else { tok(&toks, i - 1) };
        match t {
            "{" => {
                stack.push(pending_mod.take());
                i += 1;
            }
            "}" => {
                stack.pop();
                i += 1;
            }
            ";" => {
                pending_mod = None;
                i += 1;
            }
            "mod" if is_name(tok(&toks, i + 1)) => {
                if tok(&toks, i + 2) == "{" {
                    let name = tok(&toks, i + 1).to_string();
                    let mut inner = scope_of(&stack);
                    inner.push(name.clone());
                    scan.inline_modules.push(inner);
                    pending_mod = Some(name);
                }
                i += 2;
            }
            "use" => {
                let reexport = prev == "pub"
                    || (prev == ")"
                        && (0..i)
                            .rev()
                            .find(|&j| tok(&toks, j) == "(")
                            .is_some_and(|j| j > 0 && tok(&toks, j - 1) == "pub"));
                let scope = scope_of(&stack);
                let mut leaves = Vec::new();
                i += 1;
                use_tree(&toks, &mut i, Vec::new(), &mut leaves);
                for (path, binding) in leaves {
                    scan.uses.push(UseLeaf {
                        scope: scope.clone(),
                        path,
                        binding,
                        reexport,
                        line,
                    });
                }
            }
            "macro_rules" if tok(&toks, i + 1) == "!" => {
                let name = tok(&toks, i + 2).to_string();
                scan.defs.push((scope_of(&stack), name.clone()));
                scan.macros.push(name);
                i += 3;
            }
            t if DEFINING.contains(&t)
                && is_name(tok(&toks, i + 1))
                && !DEFINING.contains(&tok(&toks, i + 1)) =>
            {
                scan.defs
                    .push((scope_of(&stack), tok(&toks, i + 1).to_string()));
                i += 2;
            }
            t if is_name(t) && prev != "::" && tok(&toks, i + 1) == "::" => {
                let scope = scope_of(&stack);
                let mut child = scope.clone();
                child.push(t.to_string());
                let starts_path = matches!(t, "crate" | "super" | "self")
                    || modules.contains(&child)
                    || scan.inline_modules.contains(&child);
                let mut segs = vec![t.to_string()];
                i += 1;
                while tok(&toks, i) == "::" && is_name(tok(&toks, i + 1)) {
                    segs.push(tok(&toks, i + 1).to_string());
                    i += 2;
                }
                if starts_path {
                    scan.paths.push((scope, segs, line));
                }
            }
            _ => i += 1,
        }
    }
    scan
}

/// `segs` (as written in module `scope`) from the crate root, or `None` for a path into another
/// crate (or one this check cannot follow).
fn absolute(
    scope: &[String],
    segs: &[String],
    modules: &BTreeMap<Vec<String>, usize>,
) -> Option<Vec<String>> {
    let first = segs.first()?;
    match first.as_str() {
        "crate" => Some(segs[1..].to_vec()),
        "super" | "self" => {
            let mut base = scope.to_vec();
            let mut k = 0;
            while k < segs.len() && (segs[k] == "super" || segs[k] == "self") {
                if segs[k] == "super" {
                    base.pop()?;
                }
                k += 1;
            }
            base.extend_from_slice(&segs[k..]);
            Some(base)
        }
        _ => {
            let mut p = scope.to_vec();
            p.push(first.clone());
            modules.contains_key(&p).then(|| {
                p.extend_from_slice(&segs[1..]);
                p
            })
        }
    }
}

/// A crate's files, modules and names, to resolve a path to the file that defines its item.
struct CrateMap {
    /// Module path (file modules and inline ones) → index of its file.
    modules: BTreeMap<Vec<String>, usize>,
    defs: BTreeMap<Vec<String>, BTreeSet<String>>,
    /// Per module, each `use` binding → its absolute path (`None`: another crate).
    imports: BTreeMap<Vec<String>, BTreeMap<String, Option<Vec<String>>>>,
    globs: BTreeMap<Vec<String>, Vec<Vec<String>>>,
    /// Macro name → the file whose `macro_rules!` defines it.
    macros: BTreeMap<String, usize>,
}

impl CrateMap {
    fn module_of(&self, path: &[String]) -> (usize, usize) {
        let mut k = path.len();
        while !self.modules.contains_key(&path[..k]) {
            k -= 1;
        }
        (self.modules[&path[..k]], k)
    }

    /// The file that defines `path`'s item: `Some(None)` for another crate, `None` when the
    /// name is not found.
    fn find(&self, path: &[String], fuel: usize) -> Option<Option<usize>> {
        if fuel == 0 {
            return None;
        }
        let (file, k) = self.module_of(path);
        let module = &path[..k];
        let Some(name) = path.get(k) else {
            return Some(Some(file));
        };
        if self.defs.get(module).is_some_and(|d| d.contains(name)) {
            return Some(Some(file));
        }
        if let Some(target) = self.imports.get(module).and_then(|m| m.get(name)) {
            let Some(target) = target else {
                return Some(None);
            };
            let mut p = target.clone();
            p.extend_from_slice(&path[k + 1..]);
            return Some(
                self.find(&p, fuel - 1)
                    .unwrap_or(Some(self.module_of(&p).0)),
            );
        }
        for glob in self.globs.get(module).into_iter().flatten() {
            let mut p = glob.clone();
            p.extend_from_slice(&path[k..]);
            if let Some(found) = self.find(&p, fuel - 1) {
                return Some(found);
            }
        }
        None
    }

    /// The file `path` leads to (its module's file when the name is not found), or `None` for
    /// another crate.
    fn target(&self, path: &[String]) -> Option<usize> {
        if let [name] = path
            && let Some(&file) = self.macros.get(name)
        {
            return Some(file);
        }
        self.find(path, 16).unwrap_or(Some(self.module_of(path).0))
    }
}

/// The module path of a file under `src/` (`a/b.rs` and `a/b/mod.rs` are `[a, b]`, `lib.rs` is
/// the root).
fn module_path(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_string)
        .collect();
    if parts.last().is_some_and(|p| p == "mod") || parts == ["lib"] {
        parts.pop();
    }
    parts
}

/// One import circle: its files, and each import between two of them as `(from, lines, to)`.
#[derive(Debug, PartialEq)]
struct Cycle {
    files: Vec<String>,
    imports: Vec<(String, Vec<usize>, String)>,
}

/// The import circles among the files of one module (`per_module`: core's top-level modules,
/// each on its own) or of the whole crate (shape and kernels, whose files form one module).
/// `files` are `(path under src/, code)`. A `pub use` re-export is no import (a door); a path
/// through one is resolved to the file that defines the item.
fn file_cycles(files: &[(String, String)], per_module: bool) -> Vec<Cycle> {
    let paths: Vec<Vec<String>> = files.iter().map(|(rel, _)| module_path(rel)).collect();
    let file_modules: BTreeSet<Vec<String>> = paths.iter().cloned().collect();
    let scans: Vec<FileScan> = files
        .iter()
        .zip(&paths)
        .map(|((_, code), m)| scan(&strip(code), m, &file_modules))
        .collect();
    let mut map = CrateMap {
        modules: paths.iter().cloned().zip(0..).collect(),
        defs: BTreeMap::new(),
        imports: BTreeMap::new(),
        globs: BTreeMap::new(),
        macros: BTreeMap::new(),
    };
    for (f, s) in scans.iter().enumerate() {
        for m in &s.inline_modules {
            map.modules.insert(m.clone(), f);
        }
        for name in &s.macros {
            map.macros.insert(name.clone(), f);
        }
        for (scope, name) in &s.defs {
            map.defs
                .entry(scope.clone())
                .or_default()
                .insert(name.clone());
        }
    }
    for s in &scans {
        for u in &s.uses {
            let abs = absolute(&u.scope, &u.path, &map.modules).or_else(|| {
                // A name defined beside the `use` (`use {a_macro, b_macro};`).
                let local = map
                    .defs
                    .get(&u.scope)
                    .is_some_and(|d| u.path.first().is_some_and(|f| d.contains(f)));
                local.then(|| [u.scope.clone(), u.path.clone()].concat())
            });
            match &u.binding {
                Some(b) => {
                    map.imports
                        .entry(u.scope.clone())
                        .or_default()
                        .insert(b.clone(), abs);
                }
                None => map.globs.entry(u.scope.clone()).or_default().extend(abs),
            }
        }
    }
    let unit = |f: usize| -> &str {
        if per_module {
            paths[f].first().map_or("", String::as_str)
        } else {
            ""
        }
    };
    // from → to → lines
    let mut edges: BTreeMap<usize, BTreeMap<usize, BTreeSet<usize>>> = BTreeMap::new();
    for (f, s) in scans.iter().enumerate() {
        let refs = s
            .uses
            .iter()
            .filter(|u| !u.reexport)
            .map(|u| (&u.scope, &u.path, u.line))
            .chain(
                s.paths
                    .iter()
                    .map(|(scope, segs, line)| (scope, segs, *line)),
            );
        for (scope, segs, line) in refs {
            let Some(abs) = absolute(scope, segs, &map.modules) else {
                continue;
            };
            if let Some(t) = map.target(&abs)
                && t != f
                && unit(t) == unit(f)
            {
                edges
                    .entry(f)
                    .or_default()
                    .entry(t)
                    .or_default()
                    .insert(line);
            }
        }
    }
    let mut cycles = strongly_connected(files.len(), &edges)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|component| {
            let inside: BTreeSet<usize> = component.iter().copied().collect();
            let mut imports = Vec::new();
            for &from in &inside {
                for (to, lines) in edges.get(&from).into_iter().flatten() {
                    if inside.contains(to) {
                        imports.push((
                            files[from].0.clone(),
                            lines.iter().copied().collect(),
                            files[*to].0.clone(),
                        ));
                    }
                }
            }
            let mut names: Vec<String> = inside.iter().map(|&f| files[f].0.clone()).collect();
            names.sort();
            imports.sort();
            Cycle {
                files: names,
                imports,
            }
        })
        .collect::<Vec<_>>();
    cycles.sort_by(|a, b| a.files.cmp(&b.files));
    cycles
}

/// Tarjan's strongly connected components of a graph on `0..n`.
fn strongly_connected(
    n: usize,
    edges: &BTreeMap<usize, BTreeMap<usize, BTreeSet<usize>>>,
) -> Vec<Vec<usize>> {
    struct State<'a> {
        edges: &'a BTreeMap<usize, BTreeMap<usize, BTreeSet<usize>>>,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State<'_>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        let targets: Vec<usize> = s
            .edges
            .get(&v)
            .into_iter()
            .flat_map(|m| m.keys().copied())
            .collect();
        for w in targets {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            component.sort_unstable();
            s.out.push(component);
        }
    }
    let mut s = State {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}

/// The `.rs` files under `dir` (from the repository root) as `(path under dir, code)`.
fn sources(dir: &str) -> Vec<(String, String)> {
    let base = root().join(dir);
    let mut files = Vec::new();
    rust_files(&base, &mut files);
    files
        .iter()
        .map(|f| {
            let rel = f.strip_prefix(&base).expect("under the directory");
            let rel = rel
                .components()
                .map(|c| c.as_os_str().to_str().expect("utf-8 path"))
                .collect::<Vec<_>>()
                .join("/");
            (rel, fs::read_to_string(f).expect("source file"))
        })
        .collect()
}

#[test]
fn no_two_files_of_a_module_import_each_other() {
    let mut problems = String::new();
    for (dir, per_module) in [
        ("core/src", true),
        ("shape/src", false),
        ("kernels/src", false),
        ("src", true),
        ("macros/src", true),
        ("cli/src", false),
        ("arrow/src", false),
        ("datafusion/src", false),
    ] {
        for cycle in file_cycles(&sources(dir), per_module) {
            let files: Vec<String> = cycle.files.iter().map(|f| format!("{dir}/{f}")).collect();
            writeln!(problems, "import circle among {}:", files.join(", ")).unwrap();
            for (from, lines, to) in &cycle.imports {
                let lines: Vec<String> = lines.iter().map(usize::to_string).collect();
                writeln!(
                    problems,
                    "  {dir}/{from}:{} imports from {dir}/{to}",
                    lines.join(",")
                )
                .unwrap();
            }
        }
    }
    assert!(
        problems.is_empty(),
        "files of one module import each other (each module's files must form a one-way \
         order; move the shared item down, or import it from the file that defines it):\n{problems}"
    );
}

/// The check covers the facade's library types: an import planted in `src/types/` that closes a
/// circle is reported.
#[test]
fn a_circle_planted_in_the_library_types_is_caught() {
    let mut files = sources("src");
    let planted = "types/ragged/segment_extreme.rs";
    let (_, code) = files
        .iter_mut()
        .find(|(f, _)| f == planted)
        .expect("the ragged segment folds");
    code.push_str("\nuse super::reduce_outer::Reduction;\n");
    let cycles = file_cycles(&files, true);
    assert!(
        cycles.iter().any(|c| c.files.iter().any(|f| f == planted)),
        "no circle reported through {planted}: {cycles:?}"
    );
}

#[test]
fn the_file_checker_sees_what_it_must() {
    let files: Vec<(String, String)> = [
        ("lib.rs", "mod a;\nmod b;\n"),
        (
            "a/mod.rs",
            "mod x;\nmod y;\nmod z;\nmod w;\nmod u;\npub use x::X;\npub(crate) use z::g;\n",
        ),
        ("a/x.rs", "use super::y::Y;\npub struct X;\n"),
        // Through the parent's re-export, to the file that defines `X`.
        (
            "a/y.rs",
            "pub struct Y;\nfn f() -> crate::a::X {\n    super::g();\n    todo!()\n}\n",
        ),
        (
            "a/z.rs",
            "pub fn g() {}\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n",
        ),
        // An exported macro, reached as `crate::m!`: from the file that defines it.
        (
            "a/w.rs",
            "#[macro_export]\nmacro_rules! m { () => {} }\nfn k() { super::u::f() }\n",
        ),
        ("a/u.rs", "pub fn f() { crate::m!() }\n"),
        // Another module (core checks each on its own): no circle with `a`.
        ("b.rs", "use crate::a::X;\n"),
    ]
    .iter()
    .map(|(p, c)| (p.to_string(), c.to_string()))
    .collect();
    let cycles = file_cycles(&files, true);
    assert_eq!(
        cycles,
        [
            Cycle {
                files: vec!["a/u.rs".into(), "a/w.rs".into()],
                imports: vec![
                    ("a/u.rs".into(), vec![1], "a/w.rs".into()),
                    ("a/w.rs".into(), vec![3], "a/u.rs".into()),
                ],
            },
            Cycle {
                files: vec!["a/x.rs".into(), "a/y.rs".into()],
                imports: vec![
                    ("a/x.rs".into(), vec![1], "a/y.rs".into()),
                    ("a/y.rs".into(), vec![2], "a/x.rs".into()),
                ],
            }
        ]
    );
    // A three-file circle through `self::` and a child-module path in a `mod.rs`.
    let files: Vec<(String, String)> = [
        ("lib.rs", "mod p;\nfn h() { p::q::f(); }\n"),
        (
            "p/mod.rs",
            "mod q;\nmod r;\nfn top() {}\nfn f() { q::f() }\n",
        ),
        ("p/q.rs", "pub fn f() { super::r::g() }\n"),
        ("p/r.rs", "pub fn g() { crate::p::top() }\n"),
    ]
    .iter()
    .map(|(p, c)| (p.to_string(), c.to_string()))
    .collect();
    let cycles = file_cycles(&files, false);
    assert_eq!(cycles.len(), 1);
    assert_eq!(cycles[0].files, ["p/mod.rs", "p/q.rs", "p/r.rs"]);
    assert_eq!(
        cycles[0].imports,
        [
            ("p/mod.rs".into(), vec![4], "p/q.rs".into()),
            ("p/q.rs".into(), vec![1], "p/r.rs".into()),
            ("p/r.rs".into(), vec![1], "p/mod.rs".into()),
        ]
    );
}

/// Items with a body at the top level of a crate root: `(line, keyword)`.
fn root_items(code: &str) -> Vec<(usize, String)> {
    let toks = tokens(&strip(code));
    let mut depth = 0usize;
    let mut found = Vec::new();
    for (i, (t, line)) in toks.iter().enumerate() {
        match t.as_str() {
            "{" => depth += 1,
            "}" => depth = depth.saturating_sub(1),
            "fn" | "impl" | "struct" | "enum" | "trait" | "static" | "const" | "type" | "union"
            | "macro_rules"
                if depth == 0 =>
            {
                found.push((*line, t.clone()))
            }
            "mod" if depth == 0 && tok(&toks, i + 2) == "{" => found.push((*line, t.clone())),
            _ => {}
        }
    }
    found
}

#[test]
fn crate_roots_are_doors() {
    let mut problems = String::new();
    for door in DOORS {
        let code = fs::read_to_string(root().join(door)).expect("crate root");
        for (line, keyword) in root_items(&code) {
            writeln!(
                problems,
                "{door}:{line}: `{keyword}` item in a crate root, which holds re-exports and docs \
                 only: move it to the module it belongs to and re-export it"
            )
            .unwrap();
        }
    }
    assert!(problems.is_empty(), "{problems}");
    assert_eq!(
        root_items(
            "//! docs\n#![warn(x)]\npub use a::{b, c};\npub mod d;\npub fn check() {}\n\
                    #[cfg(test)]\nmod tests {\n    fn t() {}\n}\n"
        ),
        [(5, "fn".to_string()), (7, "mod".to_string())]
    );
}

/// Every crate of the workspace denies `unsafe` blocks without a `// SAFETY:` comment, so clippy
/// (`cargo clippy --workspace -- -D warnings`) holds each one to it.
#[test]
fn every_crate_denies_undocumented_unsafe_blocks() {
    let roots = [
        "src/lib.rs",
        "core/src/lib.rs",
        "shape/src/lib.rs",
        "kernels/src/lib.rs",
        "macros/src/lib.rs",
        "cli/src/main.rs",
        "arrow/src/lib.rs",
        "datafusion/src/lib.rs",
        "tour/lib.rs",
        "tests/ui/lib.rs",
    ];
    let missing: Vec<&str> = roots
        .into_iter()
        .filter(|r| {
            let code = fs::read_to_string(root().join(r)).expect("crate root");
            !strip(&code).contains("#![deny(clippy::undocumented_unsafe_blocks)]")
        })
        .collect();
    assert!(
        missing.is_empty(),
        "crate roots without `#![deny(clippy::undocumented_unsafe_blocks)]`: {missing:?}"
    );
}
