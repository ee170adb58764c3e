//! The files of `deploy/`, read as their tools read them: YAML documents
//! (merge keys applied, as compose applies them), the Dockerfile's
//! instructions, HAProxy's backends, `.dockerignore` patterns.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `deploy/` and below.
pub fn deploy(path: &str) -> PathBuf {
    repo().join("deploy").join(path)
}

/// Every YAML document of `path`, `<<` merge keys applied, as JSON.
pub fn yaml_documents(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_norway::Deserializer::from_str(&text)
        .map(|document| {
            let mut value = serde_norway::Value::deserialize(document)
                .unwrap_or_else(|e| panic!("{} is not YAML: {e}", path.display()));
            // A merged mapping may merge another (`x-core` merges
            // `x-mediaops`): one pass per level, as compose resolves them.
            loop {
                let before = value.clone();
                value.apply_merge().unwrap_or_else(|e| panic!("{}: bad merge key: {e}", path.display()));
                if value == before {
                    break;
                }
            }
            serde_json::to_value(value).unwrap()
        })
        .filter(|value| !value.is_null())
        .collect()
}

/// The one YAML document of `path`.
pub fn yaml(path: &Path) -> Value {
    let mut documents = yaml_documents(path);
    assert_eq!(documents.len(), 1, "{} holds one document", path.display());
    documents.remove(0)
}

/// A list of strings (`["core"]`), or an empty list when absent.
pub fn strings(value: &Value) -> Vec<String> {
    match value {
        Value::Null => Vec::new(),
        Value::Array(items) => items.iter().map(|i| i.as_str().expect("a list of strings").to_owned()).collect(),
        Value::String(line) => line.split_whitespace().map(str::to_owned).collect(),
        other => panic!("not a list of strings: {other}"),
    }
}

/// A Dockerfile as `(INSTRUCTION, arguments)`, continuation lines joined
/// and comments and parser directives dropped.
pub struct Dockerfile {
    pub instructions: Vec<(String, String)>,
}

impl Dockerfile {
    /// Reads `path`.
    pub fn read(path: &Path) -> Dockerfile {
        let text = std::fs::read_to_string(path).unwrap();
        let mut instructions = Vec::new();
        let mut pending = String::new();
        for line in text.lines() {
            let trimmed = line.trim();
            if trimmed.starts_with('#') || (pending.is_empty() && trimmed.is_empty()) {
                continue;
            }
            match trimmed.strip_suffix('\\') {
                Some(part) => {
                    pending.push_str(part);
                    pending.push(' ');
                }
                None => {
                    pending.push_str(trimmed);
                    let (keyword, rest) = pending.split_once(char::is_whitespace).expect("an instruction");
                    instructions.push((keyword.to_ascii_uppercase(), rest.trim().to_owned()));
                    pending.clear();
                }
            }
        }
        Dockerfile { instructions }
    }

    /// The arguments of every `keyword` instruction.
    pub fn all(&self, keyword: &str) -> Vec<&str> {
        self.instructions.iter().filter(|(k, _)| k == keyword).map(|(_, rest)| rest.as_str()).collect()
    }

    /// The arguments of the last `keyword` instruction (the one in force).
    pub fn last(&self, keyword: &str) -> &str {
        self.all(keyword).pop().unwrap_or_else(|| panic!("the Dockerfile has no {keyword}"))
    }

    /// The stages: `(image, name)` of every `FROM image [AS name]`.
    pub fn stages(&self) -> Vec<(String, Option<String>)> {
        self.all("FROM")
            .into_iter()
            .map(|rest| {
                let words: Vec<&str> = rest.split_whitespace().filter(|w| !w.starts_with("--")).collect();
                let name = (words.len() == 3 && words[1].eq_ignore_ascii_case("as")).then(|| words[2].to_owned());
                (words[0].to_owned(), name)
            })
            .collect()
    }

    /// `ENV` of the last stage (the image), `NAME=value` pairs.
    pub fn image_env(&self) -> Vec<(String, String)> {
        let last_from = self.instructions.iter().rposition(|(k, _)| k == "FROM").unwrap();
        self.instructions[last_from..]
            .iter()
            .filter(|(k, _)| k == "ENV")
            .flat_map(|(_, rest)| rest.split_whitespace())
            .map(|pair| {
                let (name, value) = pair.split_once('=').expect("ENV NAME=value");
                (name.to_owned(), value.to_owned())
            })
            .collect()
    }
}

/// The exec form (`["a", "b"]`) of an instruction's arguments.
pub fn exec_form(arguments: &str) -> Vec<String> {
    serde_json::from_str(arguments).unwrap_or_else(|_| panic!("not the exec form: {arguments}"))
}

/// One HAProxy backend: its lines and `server name host:port` entries.
#[derive(Default)]
pub struct Backend {
    pub lines: Vec<String>,
    pub servers: Vec<(String, String, u16)>,
}

/// Every `backend` section of an HAProxy configuration, by name.
pub fn haproxy_backends(path: &Path) -> BTreeMap<String, Backend> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut backends: BTreeMap<String, Backend> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let section = ["global", "defaults", "frontend", "backend", "listen", "resolvers"];
        if section.contains(&words[0]) {
            current = (words[0] == "backend").then(|| words[1].to_owned());
            continue;
        }
        let Some(name) = &current else { continue };
        let backend = backends.entry(name.clone()).or_default();
        backend.lines.push(line.to_owned());
        if words[0] == "server" {
            let (host, port) = words[2].rsplit_once(':').expect("server NAME HOST:PORT");
            backend.servers.push((words[1].to_owned(), host.to_owned(), port.parse().unwrap()));
        }
    }
    backends
}

/// Whether `.dockerignore`'s `patterns` leave `path` (relative to the
/// context) out: `dir/` drops that top-level directory, `**/dir/` a
/// directory of that name anywhere, `*.ext` such files at the top. Enough
/// for the patterns this repository uses; another form fails the test
/// rather than pass unread.
pub fn ignored(patterns: &[String], path: &str) -> bool {
    patterns.iter().any(|pattern| {
        if let Some(extension) = pattern.strip_prefix("*.") {
            return !path.contains('/') && path.ends_with(&format!(".{extension}"));
        }
        let dir = pattern.trim_end_matches('/');
        if let Some(name) = dir.strip_prefix("**/") {
            assert!(!name.contains(['*', '?', '[', '!', '/']), "unread pattern {pattern}");
            return path.split('/').any(|component| component == name);
        }
        assert!(!dir.contains(['*', '?', '[', '!']), "unread pattern {pattern}");
        path == dir || path.starts_with(&format!("{dir}/"))
    })
}

/// `.dockerignore`'s patterns.
pub fn dockerignore() -> Vec<String> {
    std::fs::read_to_string(repo().join(".dockerignore"))
        .expect(".dockerignore exists")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

/// Seconds of a compose duration (`35s`, `1m30s`).
pub fn compose_secs(text: &str) -> u64 {
    let mut total = 0;
    let mut number = String::new();
    for c in text.chars() {
        match c {
            '0'..='9' => number.push(c),
            'h' | 'm' | 's' => {
                let n: u64 = number.parse().unwrap_or_else(|_| panic!("bad duration {text:?}"));
                total += n * match c {
                    'h' => 3600,
                    'm' => 60,
                    _ => 1,
                };
                number.clear();
            }
            _ => panic!("bad duration {text:?}"),
        }
    }
    assert!(number.is_empty(), "duration {text:?} has no unit");
    total
}
