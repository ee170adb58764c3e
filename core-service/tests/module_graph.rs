//! No import loops between modules ("dependencies point one way").
//!
//! Reads the sources of every crate of the workspace (`mediaops-proto`, `mediaops-listener`,
//! `mediaops-store`, `mediaops-platform`, `mediaops-connectors`, `mediaops-ops`, `core-service`,
//! `rest-gateway`, the root `mediaops`), parses each file with `syn`,
//! and builds two graphs of each crate:
//!
//! - the **top-level** graph: an edge `a → b` when a file of module `a` names `crate::b…`
//!   (or reaches `b` through `super::`, or through a re-export such as `crate::ServiceError`);
//! - the **second-level** graph inside each top-level module: an edge `a/x → a/y` when a file
//!   of `a::x` names an item of `a::y`.
//!
//! Paths are found in `use` items and anywhere in item bodies, macro bodies included (the
//! token stream of each item is scanned for `crate::…`, `self::…`, `super::…` and `$crate::…`).
//! Items under `#[cfg(test)]` are left out: unit tests may reach anywhere. A path that names a
//! re-exported item counts as a dependency on the module that defines it when the re-export is a
//! facade (`pub use self::child::Name`, or a re-export at the crate root); a path through a
//! module that re-exports another module's item (`pub use crate::other::Name`) depends on the
//! module it goes through.
//!
//! Every strongly connected component with more than one module is a loop. The test fails
//! listing each loop that is not in [`ALLOWED`], with one example file and path per edge, and
//! fails on an entry of [`ALLOWED`] that is no longer a loop (shrink the list when a loop is
//! removed). The goal is an empty list.
//!
//! Between crates Cargo refuses a loop by itself; [`LAYERS`] states the order the crates are
//! meant to stack in, and `crates_depend_only_on_lower_layers` fails on a manifest that names a
//! crate of its own layer or above (e.g. `mediaops-connectors` depending on `mediaops-ops`).

#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use quote::ToTokens;

/// Loops known today, each `"<crate>: <level>: <modules, sorted, space separated>"`.
/// Shrink this list as loops are removed; the goal is an empty list.
const ALLOWED: &[&str] = &[];

/// The crate roots of the workspace, relative to the workspace root.
const ROOTS: &[(&str, &str)] = &[
    ("core-service", "core-service/src/lib.rs"),
    ("mediaops-proto", "proto/src/lib.rs"),
    ("mediaops-listener", "listener/src/lib.rs"),
    ("mediaops-store", "store/src/lib.rs"),
    ("mediaops-platform", "platform/src/lib.rs"),
    ("mediaops-connectors", "connectors/src/lib.rs"),
    ("mediaops-ops", "ops/src/lib.rs"),
    ("rest-gateway", "rest-gateway/src/lib.rs"),
    ("rest-gateway (bin)", "rest-gateway/src/main.rs"),
    ("mediaops", "src/lib.rs"),
    ("mediaops (bin)", "src/main.rs"),
];

/// The workspace's crates from the bottom up (docs/architecture.md "Crates"): each may depend
/// on crates listed before it only. Crates on one line of the picture (`mediaops-listener`
/// beside `mediaops-proto`) are still ordered here; that order is the one to keep.
const LAYERS: &[(&str, &str)] = &[
    ("mediaops-proto", "proto"),
    ("mediaops-listener", "listener"),
    ("mediaops-store", "store"),
    ("mediaops-platform", "platform"),
    ("mediaops-connectors", "connectors"),
    ("mediaops-ops", "ops"),
    ("core-service", "core-service"),
    ("rest-gateway", "rest-gateway"),
    ("mediaops", "."),
];

type ModPath = Vec<String>;

/// One module's own items (a file, or the body of an inline `mod x { … }`).
struct Unit {
    module: ModPath,
    file: PathBuf,
    items: Vec<syn::Item>,
}

/// A crate's modules, read from its files.
struct CrateSource {
    units: Vec<Unit>,
    modules: BTreeSet<ModPath>,
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("cfg")
            && matches!(&attr.meta, syn::Meta::List(list) if list.tokens.to_string().trim() == "test")
    })
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::ExternCrate(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::ForeignMod(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::TraitAlias(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Union(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

/// Reads the file of `module` and, recursively, the files of the modules it declares.
/// `dir` is where the files of its child modules live.
fn read_module(source: &mut CrateSource, module: ModPath, file: &Path, dir: &Path) {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
    let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("cannot parse {}: {e}", file.display()));
    add_items(source, module, file, dir, parsed.items);
}

fn add_items(source: &mut CrateSource, module: ModPath, file: &Path, dir: &Path, items: Vec<syn::Item>) {
    source.modules.insert(module.clone());
    let mut own = Vec::new();
    for item in items {
        if is_cfg_test(item_attrs(&item)) {
            continue;
        }
        let syn::Item::Mod(declared) = item else {
            own.push(item);
            continue;
        };
        let name = declared.ident.to_string();
        let mut child = module.clone();
        child.push(name.clone());
        let child_dir = dir.join(&name);
        match declared.content {
            Some((_, inner)) => add_items(source, child, file, &child_dir, inner),
            None => {
                let flat = dir.join(format!("{name}.rs"));
                let nested = dir.join(&name).join("mod.rs");
                let child_file = if flat.exists() { flat } else { nested };
                read_module(source, child, &child_file, &child_dir);
            }
        }
    }
    source.units.push(Unit { module, file: file.to_path_buf(), items: own });
}

fn read_crate(root_file: &Path) -> CrateSource {
    let mut source = CrateSource { units: Vec::new(), modules: BTreeSet::new() };
    let dir = root_file.parent().unwrap().to_path_buf();
    read_module(&mut source, Vec::new(), root_file, &dir);
    source
}

/// A path as written: its first segment (`crate`, `self`, `super`, or a name) and the rest.
#[derive(Clone, Debug)]
struct Written {
    segments: Vec<String>,
    /// The name it is bound to, for `use` items (`as` or the last segment); `*` for a glob.
    bound: Option<String>,
}

fn collect_use_tree(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<Written>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            collect_use_tree(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            if name == "self" {
                out.push(Written { segments: prefix.clone(), bound: prefix.last().cloned() });
            } else {
                let mut segments = prefix.clone();
                segments.push(name.clone());
                out.push(Written { segments, bound: Some(name) });
            }
        }
        syn::UseTree::Rename(r) => {
            let mut segments = prefix.clone();
            if r.ident != "self" {
                segments.push(r.ident.to_string());
            }
            out.push(Written { segments, bound: Some(r.rename.to_string()) });
        }
        syn::UseTree::Glob(_) => out.push(Written { segments: prefix.clone(), bound: Some("*".to_owned()) }),
        syn::UseTree::Group(g) => {
            for tree in &g.items {
                collect_use_tree(tree, prefix, out);
            }
        }
    }
}

fn is_path_sep(tokens: &[TokenTree], i: usize) -> bool {
    matches!(
        (tokens.get(i), tokens.get(i + 1)),
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
            if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':'
    )
}

/// Scans a token stream (an item, macro bodies included) for paths starting with `crate`,
/// `$crate`, `self` or `super`, expanding `{…}` groups after `::` as `use` does.
fn scan_tokens(stream: TokenStream, out: &mut Vec<Written>) {
    let tokens: Vec<TokenTree> = stream.into_iter().collect();
    let mut i = 0;
    while i < tokens.len() {
        if let TokenTree::Group(g) = &tokens[i] {
            scan_tokens(g.stream(), out);
            i += 1;
            continue;
        }
        let starts_path = matches!(&tokens[i], TokenTree::Ident(id)
            if id == "crate" || id == "self" || id == "super")
            && !(i >= 2 && is_path_sep(&tokens, i - 2));
        if !starts_path || !is_path_sep(&tokens, i + 1) {
            i += 1;
            continue;
        }
        let mut segments = vec![tokens[i].to_string()];
        let mut j = i + 1;
        while is_path_sep(&tokens, j) {
            match tokens.get(j + 2) {
                Some(TokenTree::Ident(id)) => {
                    segments.push(id.to_string());
                    j += 3;
                }
                Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => {
                    scan_group(g.stream(), &segments, out);
                    j += 3;
                    segments.clear();
                    break;
                }
                _ => {
                    j += 2;
                    break;
                }
            }
        }
        if !segments.is_empty() {
            out.push(Written { segments, bound: None });
        }
        i = j.max(i + 1);
    }
}

/// The inside of `crate::a::{b, c::{d, e}}`: comma-separated continuations of `prefix`.
fn scan_group(stream: TokenStream, prefix: &[String], out: &mut Vec<Written>) {
    let tokens: Vec<TokenTree> = stream.into_iter().collect();
    for part in tokens.split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ',')) {
        let mut segments = prefix.to_vec();
        let mut k = 0;
        while k < part.len() {
            match &part[k] {
                TokenTree::Ident(id) if id == "as" => break,
                TokenTree::Ident(id) if id != "self" => segments.push(id.to_string()),
                TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => {
                    scan_group(g.stream(), &segments, out);
                    segments.clear();
                    break;
                }
                _ => {}
            }
            k += 1;
        }
        if !segments.is_empty() {
            out.push(Written { segments, bound: None });
        }
    }
}

impl CrateSource {
    /// The absolute path of `written`, seen from `module`; `None` for another crate's path.
    fn absolute(&self, module: &[String], written: &[String]) -> Option<ModPath> {
        let first = written.first()?;
        let (mut base, rest): (ModPath, &[String]) = match first.as_str() {
            "crate" | "$crate" => (Vec::new(), &written[1..]),
            "self" => (module.to_vec(), &written[1..]),
            "super" => {
                let mut base = module.to_vec();
                let mut k = 0;
                while written.get(k).is_some_and(|s| s == "super") {
                    base.pop();
                    k += 1;
                }
                (base, &written[k..])
            }
            _ => {
                // Uniform paths: a child module of `module` (`mod x; pub use x::Y;`).
                let mut child = module.to_vec();
                child.push(first.clone());
                if self.modules.contains(&child) {
                    (module.to_vec(), written)
                } else {
                    return None;
                }
            }
        };
        base.extend(rest.iter().filter(|s| *s != "self").cloned());
        Some(base)
    }

    /// The longest prefix of `path` that is a module.
    fn module_of(&self, path: &[String]) -> ModPath {
        (0..=path.len()).rev().map(|n| path[..n].to_vec()).find(|p| self.modules.contains(p)).unwrap_or_default()
    }
}

/// Follows re-exports: `crate::a::Name`, where `a` says `pub use b::Name`, is `crate::a::b::Name`.
fn resolve(source: &CrateSource, reexports: &HashMap<ModPath, ModPath>, mut path: ModPath) -> ModPath {
    for _ in 0..16 {
        let module = source.module_of(&path);
        if module.len() == path.len() {
            return module;
        }
        let mut named = module.clone();
        named.push(path[module.len()].clone());
        match reexports.get(&named) {
            // Only a facade is seen through: a re-export of the module's own descendant (or
            // one at the crate root). `pub use crate::other::Name` makes a path through this
            // module depend on this module.
            Some(target) if *target != named && (module.is_empty() || target.starts_with(&module)) => {
                let mut next = target.clone();
                next.extend(path[module.len() + 1..].iter().cloned());
                path = next;
            }
            _ => return module,
        }
    }
    source.module_of(&path)
}

/// An edge of a graph with one example of where it comes from.
type Graph = BTreeMap<String, BTreeMap<String, String>>;

fn add_edge(graph: &mut Graph, from: String, to: String, example: impl FnOnce() -> String) {
    let targets = graph.entry(from).or_default();
    targets.entry(to).or_insert_with(example);
}

/// The top-level graph and the second-level graphs (keyed by top-level module) of a crate.
fn graphs(source: &CrateSource, workspace: &Path) -> (Graph, BTreeMap<String, Graph>) {
    let mut reexports: HashMap<ModPath, ModPath> = HashMap::new();
    let mut references: Vec<(&Unit, String, ModPath)> = Vec::new();
    for unit in &source.units {
        for item in &unit.items {
            let mut written = Vec::new();
            if let syn::Item::Use(u) = item {
                collect_use_tree(&u.tree, &mut Vec::new(), &mut written);
                for w in &written {
                    let Some(absolute) = source.absolute(&unit.module, &w.segments) else {
                        continue;
                    };
                    if !matches!(u.vis, syn::Visibility::Inherited)
                        && let Some(bound) = &w.bound
                        && bound != "*"
                    {
                        let mut name = unit.module.clone();
                        name.push(bound.clone());
                        reexports.insert(name, absolute.clone());
                    }
                    references.push((unit, w.segments.join("::"), absolute));
                }
            } else {
                scan_tokens(item.to_token_stream(), &mut written);
                for w in &written {
                    if let Some(absolute) = source.absolute(&unit.module, &w.segments) {
                        references.push((unit, w.segments.join("::"), absolute));
                    }
                }
            }
        }
    }
    let mut top = Graph::new();
    let mut second: BTreeMap<String, Graph> = BTreeMap::new();
    for (unit, written, absolute) in references {
        let target = resolve(source, &reexports, absolute);
        let from = &unit.module;
        let file = unit.file.strip_prefix(workspace).unwrap_or(&unit.file);
        let example = || format!("{}: {written}", file.display());
        if from.is_empty() || target.is_empty() {
            continue;
        }
        if from[0] != target[0] {
            add_edge(&mut top, from[0].clone(), target[0].clone(), example);
        } else if from.len() >= 2 && target.len() >= 2 && from[1] != target[1] {
            add_edge(
                second.entry(from[0].clone()).or_default(),
                format!("{}/{}", from[0], from[1]),
                format!("{}/{}", target[0], target[1]),
                example,
            );
        }
    }
    (top, second)
}

/// Strongly connected components with more than one node (Tarjan).
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a Graph,
        index: HashMap<&'a str, usize>,
        low: HashMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        next: usize,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on_stack.insert(v);
        if let Some(targets) = s.graph.get(v) {
            for w in targets.keys() {
                let w = w.as_str();
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let low = s.low[v].min(s.low[w]);
                    s.low.insert(v, low);
                } else if s.on_stack.contains(w) {
                    let low = s.low[v].min(s.index[w]);
                    s.low.insert(v, low);
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack.remove(w);
                component.push(w.to_owned());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut state = State {
        graph,
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !state.index.contains_key(v.as_str()) {
            visit(&mut state, v);
        }
    }
    state.found.sort();
    state.found
}

/// The edges inside a loop, one line each with an example of where it comes from.
fn describe(graph: &Graph, component: &[String]) -> String {
    let members: BTreeSet<&String> = component.iter().collect();
    let mut lines = String::new();
    for from in component {
        for (to, example) in graph.get(from).into_iter().flatten() {
            if members.contains(to) {
                lines.push_str(&format!("    {from} → {to}   ({example})\n"));
            }
        }
    }
    lines
}

#[test]
fn no_import_loops_between_modules() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let allowed: BTreeSet<&str> = ALLOWED.iter().copied().collect();
    let mut seen = BTreeSet::new();
    let mut report = String::new();
    for (name, root) in ROOTS {
        let root = workspace.join(root);
        if !root.exists() {
            continue;
        }
        let source = read_crate(&root);
        let (top, second) = graphs(&source, workspace);
        // `MODULE_GRAPH=1 cargo test -p core-service --test module_graph -- --nocapture`
        // prints every top-level edge with an example, to see which one to cut.
        if std::env::var_os("MODULE_GRAPH").is_some() {
            for (from, targets) in &top {
                for (to, example) in targets {
                    println!("{name}: {from} → {to}   ({example})");
                }
            }
        }
        let mut levels = vec![("top", top)];
        levels.extend(second.into_values().map(|g| ("second", g)));
        for (level, graph) in &levels {
            for component in cycles(graph) {
                let key = format!("{name}: {level}: {}", component.join(" "));
                if !allowed.contains(key.as_str()) {
                    report.push_str(&format!("import loop {key:?}\n{}", describe(graph, &component)));
                }
                seen.insert(key);
            }
        }
    }
    for stale in allowed.iter().filter(|a| !seen.contains(**a)) {
        report.push_str(&format!("no longer a loop, remove it from ALLOWED: {stale:?}\n"));
    }
    assert!(report.is_empty(), "\n{report}");
}

/// The checker itself: a loop through `super::`, a re-export and a `use` group is found.
/// The workspace crates that `manifest` (a Cargo.toml's text) depends on, dev-dependencies
/// included: every `[..dependencies]` line whose key is a crate of [`LAYERS`].
fn workspace_dependencies(manifest: &str) -> BTreeSet<String> {
    let mut in_dependencies = false;
    let mut found = BTreeSet::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_dependencies = line.ends_with("dependencies]");
            continue;
        }
        let key = line.split(['=', '.', ' ']).next().unwrap_or("");
        if in_dependencies && LAYERS.iter().any(|(name, _)| *name == key) {
            found.insert(key.to_owned());
        }
    }
    found
}

#[test]
fn crates_depend_only_on_lower_layers() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let root = std::fs::read_to_string(workspace.join("Cargo.toml")).unwrap();
    let members = root.lines().find_map(|l| l.strip_prefix("members = [")).unwrap();
    let members: BTreeSet<&str> =
        members.trim_end_matches(']').split(',').map(|m| m.trim().trim_matches('"')).collect();
    let layered: BTreeSet<&str> = LAYERS.iter().map(|(_, dir)| *dir).collect();
    assert_eq!(members, layered, "every workspace member has a place in LAYERS");

    let mut upward = Vec::new();
    for (layer, (name, dir)) in LAYERS.iter().enumerate() {
        let manifest = std::fs::read_to_string(workspace.join(dir).join("Cargo.toml")).unwrap();
        // The root manifest's [workspace.dependencies] names every crate: read its package part.
        let manifest = manifest.split_once("[package]").map_or(manifest.as_str(), |(_, package)| package);
        for dependency in workspace_dependencies(manifest) {
            let at = LAYERS.iter().position(|(n, _)| *n == dependency).unwrap();
            // A crate naming itself (in its dev-dependencies) turns on its own `test-support`
            // feature for its integration tests; Cargo refuses it anywhere else.
            if at >= layer && dependency != *name {
                upward.push(format!("{name} → {dependency}"));
            }
        }
    }
    assert!(upward.is_empty(), "dependencies on a crate of the same layer or above: {upward:?}");
}

#[test]
fn the_layer_check_reads_dependency_tables() {
    let manifest = "[package]\nname = \"x\"\n[dependencies]\nmediaops-ops.workspace = true\nserde = \"1\"\n\
        [dev-dependencies]\ncore-service = { path = \"../core-service\" }\n[features]\nmediaops-store = []\n";
    let found: Vec<String> = workspace_dependencies(manifest).into_iter().collect();
    assert_eq!(found, ["core-service", "mediaops-ops"]);
}

#[test]
fn the_checker_finds_loops() {
    let file: syn::File = syn::parse_quote! {
        pub mod a {
            pub use self::inner::Thing;
            pub mod inner { pub struct Thing; pub fn f() { let _ = crate::b::g(); } }
        }
        pub mod b {
            pub fn g() {}
            pub mod x { use super::super::c::{self, Other}; }
        }
        pub mod c {
            pub struct Other;
            pub fn h() -> crate::a::Thing { crate::a::Thing }
            #[cfg(test)]
            mod tests { use crate::d::Z; }
        }
        pub mod d { pub struct Z; pub fn z() { let _ = crate::c::h(); } }
    };
    let mut source = CrateSource { units: Vec::new(), modules: BTreeSet::new() };
    add_items(&mut source, Vec::new(), Path::new("lib.rs"), Path::new("."), file.items);
    let (top, second) = graphs(&source, Path::new("."));
    assert_eq!(cycles(&top), vec![vec!["a", "b", "c"]]);
    assert!(second.values().all(|g| cycles(g).is_empty()));
    assert!(describe(&top, &cycles(&top)[0]).contains("a → b"));
}
