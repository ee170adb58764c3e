//! docs/openapi.md against a real `mediaops` process: the
//! OpenAPI 3.1 document (`/openapi.json`, `/openapi.yaml`) lists every route
//! of the route table and validates against the 3.1 meta-schema
//! (openapi-spec-validator); `/docs` renders the operations offline in a
//! headless Chromium; schemathesis fuzzes every operation from the document
//! and finds no undocumented status and no 5xx but a documented 502/503.
//!
//! The Python tools are installed by `.ci/run` (pip: openapi-spec-validator,
//! schemathesis, playwright; apt: chromium). A missing tool fails the test
//! with its name, never skips it.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use common::KEY;
use common::process::{Process, Spawn};
use mediaops_proto::spec_names::SpecName;
use serde_json::{Value, json};

/// `tests/openapi/` and `tests/schemathesis/`.
fn script(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join(path)
}

/// Runs `python3 <script> <args>` and returns its stdout; panics with the
/// script's own words when a package is missing (exit 2) or it fails.
fn python(script_path: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let output = Command::new("python3")
        .arg(script_path)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .unwrap_or_else(|e| panic!("python3 cannot run ({e}); .ci/run installs it"));
    let (out, err) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "{} failed ({}):\n{err}\n{out}", script_path.display(), output.status);
    out.into_owned()
}

/// Every `(METHOD, path)` of the route table, from the descriptors.
fn route_table() -> BTreeSet<(String, String)> {
    rest_gateway::routes::routes(mediaops_proto::descriptor_pool())
        .unwrap()
        .into_iter()
        .map(|r| (r.method.as_str().to_owned(), r.path))
        .collect()
}

/// Every operation of `document` as `((METHOD, path), operation)`.
fn operations(document: &Value) -> Vec<((String, String), &Value)> {
    let mut out = Vec::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            out.push(((method.to_ascii_uppercase(), path.clone()), operation));
        }
    }
    out
}

fn spawn(dir: &Path, points: i64) -> Process {
    Process::spawn(dir, Spawn { args: vec![], env: vec![("MEDIAOPS_BOOTSTRAP_POINTS", points.to_string())] })
}

async fn get(url: &str, headers: &[(&str, &str)]) -> reqwest::Response {
    let mut request = reqwest::Client::new().get(url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.unwrap()
}

#[tokio::test]
async fn the_document_lists_every_route_validates_and_is_cached_by_etag() {
    let dir = tempfile::tempdir().unwrap();
    let process = spawn(dir.path(), common::BOOTSTRAP_POINTS);
    let base = process.rest();

    // Public: no key.
    let answer = get(&format!("{base}/openapi.json"), &[]).await;
    assert_eq!(answer.status(), 200);
    let headers = answer.headers().clone();
    assert_eq!(headers["content-type"], "application/json");
    assert_eq!(headers["cache-control"], "public, max-age=0, must-revalidate");
    let etag = headers["etag"].to_str().unwrap().to_owned();
    let bytes = answer.bytes().await.unwrap();
    let document: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(document["openapi"], "3.1.0");

    // Complete: one operation per route, nothing else.
    let table = route_table();
    let listed: BTreeSet<(String, String)> = operations(&document).into_iter().map(|(k, _)| k).collect();
    assert_eq!(operations(&document).len(), table.len());
    assert_eq!(listed, table);
    let metas: BTreeMap<String, _> = mediaops_proto::options::operations(mediaops_proto::descriptor_pool())
        .into_iter()
        .map(|(_, meta)| (meta.operation_key.clone(), meta))
        .collect();
    let mut ids = BTreeSet::new();
    for ((method, path), op) in operations(&document) {
        let at = format!("{method} {path}");
        let id = op["operationId"].as_str().unwrap_or_else(|| panic!("{at}: no operationId"));
        assert!(ids.insert(id.to_owned()), "{at}: operationId {id} is not unique");
        let key = op["x-operation-key"].as_str().unwrap();
        assert!(id == key || op["x-alias-of"] == key, "{at}: operationId {id} is not its operationKey {key}");
        let meta = &metas[key];
        assert_eq!(op["x-price"], meta.unit_price, "{at}");
        assert_eq!(op["x-price-class"], meta.price_class().spec_name(), "{at}");
        assert_eq!(op["summary"], meta.title.as_str(), "{at}");
        assert_eq!(op["security"], json!([{"bearer": []}]), "{at}");
        assert_eq!(op["tags"].as_array().map(Vec::len), Some(1), "{at}");
        let responses = op["responses"].as_object().unwrap();
        let data = op["responses"]["200"]["content"]["application/json"]["schema"]["properties"]["data"]["$ref"]
            .as_str()
            .unwrap_or_else(|| panic!("{at}: no data schema"));
        let schema = data.trim_start_matches("#/components/schemas/");
        assert!(document["components"]["schemas"][schema].is_object(), "{at}: {data} is not in the components");
        for status in ["400", "401", "408", "409", "429", "502", "503"] {
            assert!(responses.contains_key(status), "{at}: {status} is not documented");
        }
        let charged = mediaops_proto::options::is_charged(meta);
        assert_eq!(responses.contains_key("402"), charged, "{at}: 402 iff charged (x-price {})", meta.unit_price);
        // GET and DELETE take parameters, not a body.
        let body = method != "GET" && method != "DELETE";
        assert_eq!(responses.contains_key("415"), body, "{at}: 415 iff a body");
        assert_eq!(responses.contains_key("304"), method == "GET", "{at}: 304 iff GET");
        assert_eq!(op.get("requestBody").is_some(), body, "{at}: GET and DELETE take parameters, not a body");
        assert!(!responses.contains_key("500"), "{at}: 500 is a bug, never documented");
    }

    // The request bodies are the catalogs' request schemas.
    let catalog: Value =
        get(&format!("{base}/api/apis"), &[("authorization", &format!("Bearer {KEY}"))]).await.json().await.unwrap();
    let entries = catalog["data"]["items"].as_array().unwrap();
    assert!(!entries.is_empty());
    for entry in entries {
        let path = entry["path"].as_str().unwrap();
        let body = &document["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"];
        let request = &entry["requestSchema"];
        assert_eq!(body["required"], request["required"], "{path}");
        let names = |schema: &Value| schema["properties"].as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        let (mut ours, mut theirs) = (names(body), names(request));
        ours.sort();
        theirs.sort();
        assert_eq!(ours, theirs, "{path}");
    }

    // The YAML form is the same document.
    let answer = get(&format!("{base}/openapi.yaml"), &[]).await;
    assert_eq!(answer.status(), 200);
    assert_eq!(answer.headers()["content-type"], "application/yaml");
    let yaml: Value = serde_norway::from_str(&answer.text().await.unwrap()).unwrap();
    assert_eq!(yaml, document);

    // ETag and 304, compressed or not.
    let again = get(&format!("{base}/openapi.json"), &[("if-none-match", &etag)]).await;
    assert_eq!(again.status(), 304);
    assert_eq!(again.headers()["etag"], etag.as_str());
    assert!(again.bytes().await.unwrap().is_empty());
    let client = reqwest::Client::builder().no_gzip().build().unwrap();
    let gzip = client.get(format!("{base}/openapi.json")).header("accept-encoding", "gzip").send().await.unwrap();
    assert_eq!(gzip.headers()["content-encoding"], "gzip");
    let gzip_tag = gzip.headers()["etag"].to_str().unwrap().to_owned();
    assert_eq!(gzip_tag, format!("{}-gzip\"", etag.trim_end_matches('"')));
    let revalidated =
        client.get(format!("{base}/openapi.json")).header("if-none-match", &gzip_tag).send().await.unwrap();
    assert_eq!(revalidated.status(), 304);

    // Valid against the OpenAPI 3.1 meta-schema; every example matches its schema.
    let file = dir.path().join("openapi.json");
    std::fs::write(&file, &bytes).unwrap();
    let verdict: Value = serde_json::from_str(&python(&script("openapi/validate.py"), &[file.to_str().unwrap()], &[]))
        .expect("validate.py prints JSON");
    assert_eq!(verdict["valid"], true);
    assert!(verdict["examples"].as_u64().unwrap() >= table.len() as u64, "{verdict}");
    let summary = format!(
        "openapi: {} bytes JSON ({} gzip), {} paths, {} operations, {} schemas, {} examples checked",
        bytes.len(),
        gzip.bytes().await.unwrap().len(),
        document["paths"].as_object().unwrap().len(),
        table.len(),
        document["components"]["schemas"].as_object().unwrap().len(),
        verdict["examples"]
    );
    println!("{summary}");
    std::fs::write(Path::new(env!("CARGO_TARGET_TMPDIR")).join("openapi-summary.txt"), format!("{summary}\n")).unwrap();
    assert!(verdict["schemaExamples"].as_u64().unwrap() > 0, "{verdict}");

    // A count of paths or operations written in the docs is the document's.
    let counts = [("paths", document["paths"].as_object().unwrap().len()), ("operations", table.len())];
    for page in ["README.md", "docs/openapi.md"] {
        let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(page)).unwrap();
        for (noun, actual) in counts {
            for stated in stated_counts(&text, noun) {
                assert_eq!(stated, actual, "{page} says {stated} {noun}; the document has {actual}");
            }
        }
    }
}

/// Every number written right before ` <noun>` in `text` (`113 paths`).
fn stated_counts(text: &str, noun: &str) -> Vec<usize> {
    let words: Vec<&str> = text.split_whitespace().collect();
    words
        .windows(2)
        .filter(|pair| pair[1].trim_end_matches([',', '.', ')', ';']) == noun)
        .filter_map(|pair| pair[0].trim_start_matches(['(', '#']).replace(',', "").parse().ok())
        .collect()
}

#[tokio::test]
async fn the_docs_page_renders_every_operation_from_this_origin_only() {
    let dir = tempfile::tempdir().unwrap();
    let process = spawn(dir.path(), common::BOOTSTRAP_POINTS);
    let base = process.rest();

    let page = get(&format!("{base}/docs"), &[]).await;
    assert_eq!(page.status(), 200);
    assert_eq!(page.headers()["content-type"], "text/html; charset=utf-8");
    let policy = page.headers()["content-security-policy"].to_str().unwrap().to_owned();
    assert!(policy.contains("default-src 'self'") && policy.contains("connect-src 'self'"), "{policy}");
    let html = page.text().await.unwrap();
    assert!(!html.contains("http://") && !html.contains("https://"), "the page names no other origin: {html}");
    let assets: Vec<&str> = html.split(['"']).filter(|s| s.starts_with("docs/assets/")).collect();
    assert_eq!(assets.len(), 3, "{html}");
    for asset in assets {
        let answer = get(&format!("{base}/{asset}"), &[]).await;
        assert_eq!(answer.status(), 200, "{asset}");
        assert_eq!(answer.headers()["cache-control"], "public, max-age=31536000, immutable", "{asset}");
        let kind = answer.headers()["content-type"].to_str().unwrap().to_owned();
        assert!(kind == "text/css" || kind == "text/javascript", "{asset}: {kind}");
        if asset.ends_with("init.js") {
            let init = answer.text().await.unwrap();
            assert!(init.contains("validatorUrl: null"), "{init}");
        }
    }
    let redirect = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let slash = redirect.get(format!("{base}/docs/")).send().await.unwrap();
    assert_eq!(slash.status(), 308);

    // `/` (the workbench) points at the reference and the document.
    let home = get(&format!("{base}/"), &[]).await;
    assert_eq!(home.status(), 200);
    let home = home.text().await.unwrap();
    for link in ["href=\"/docs\"", "href=\"/openapi.json\""] {
        assert!(home.contains(link), "{link}: {home}");
    }

    // A real browser: every operation is rendered, nothing is fetched
    // from another origin, no script error.
    let screenshot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("docs.png");
    let out = python(&script("openapi/render_docs.py"), &[base, screenshot.to_str().unwrap()], &[]);
    let rendered: Value = serde_json::from_str(out.trim()).expect("render_docs.py prints JSON");
    let document: Value = get(&format!("{base}/openapi.json"), &[]).await.json().await.unwrap();
    let ids: BTreeSet<String> =
        operations(&document).iter().map(|(_, op)| op["operationId"].as_str().unwrap().to_owned()).collect();
    let shown: BTreeSet<String> =
        rendered["operation_ids"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_owned()).collect();
    assert_eq!(rendered["operations"], json!(route_table().len()), "{rendered}");
    assert_eq!(shown, ids);
    assert!(rendered["title"].as_str().unwrap().starts_with("mediaops"), "{rendered}");
    for url in rendered["requests"].as_array().unwrap() {
        assert!(url.as_str().unwrap().starts_with(base), "the page fetched {url} from another origin");
    }
    assert_eq!(rendered["errors"], json!([]), "{rendered}");
    let png = std::fs::read(&screenshot).unwrap();
    assert!(png.starts_with(b"\x89PNG"), "a screenshot at {}", screenshot.display());
    println!("docs: {} operations rendered; screenshot {}", rendered["operations"], screenshot.display());
}

/// Counts every `status_code` of schemathesis' NDJSON events (one per
/// response it received).
fn count_statuses(value: &Value, counts: &mut BTreeMap<u64, u64>) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                match (key.as_str(), inner.as_u64()) {
                    ("status_code", Some(status)) => *counts.entry(status).or_default() += 1,
                    _ => count_statuses(inner, counts),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| count_statuses(item, counts)),
        _ => {}
    }
}

#[tokio::test]
async fn schemathesis_finds_no_undocumented_answer_and_no_server_error() {
    let dir = tempfile::tempdir().unwrap();
    // Plenty of points: a 402 would hide the operation behind it.
    let mut process = spawn(dir.path(), 100_000_000);
    let base = process.rest().to_owned();
    let base = base.as_str();
    let reports = tempfile::tempdir().unwrap();
    let (json_report, ndjson_report) = (reports.path().join("run.json"), reports.path().join("run.ndjson"));
    let config = script("schemathesis/schemathesis.toml");
    let output = Command::new("schemathesis")
        .args(["--no-color", "--config-file", config.to_str().unwrap(), "run", &format!("{base}/openapi.json")])
        .args(["--output-truncate", "true"])
        .args(["--report", "json,ndjson", "--report-json-path", json_report.to_str().unwrap()])
        .args(["--report-ndjson-path", ndjson_report.to_str().unwrap()])
        .current_dir(reports.path())
        .env("PYTHONPATH", script("schemathesis"))
        .env("MEDIAOPS_KEY", KEY)
        .output()
        .unwrap_or_else(|e| panic!("schemathesis cannot run ({e}): pip install schemathesis (.ci/run installs it)"));
    let (out, err) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    let report: Value = serde_json::from_slice(&std::fs::read(&json_report).unwrap_or_else(|e| {
        panic!("schemathesis wrote no report ({e}):\n{err}\n{}", out.chars().take(20_000).collect::<String>())
    }))
    .unwrap();
    let mut statuses = BTreeMap::new();
    for line in std::fs::read_to_string(&ndjson_report).unwrap().lines() {
        if let Ok(event) = serde_json::from_str::<Value>(line) {
            count_statuses(&event, &mut statuses);
        }
    }
    let summary = format!(
        "schemathesis {}: seed {}, {} of {} operations tested, {} test cases, {} responses ({}), {} failures, \
         {} errors, {:.0} s",
        report["schemathesis_version"].as_str().unwrap_or("?"),
        report["seed"],
        report["operations"]["tested"],
        report["operations"]["total"],
        report["test_cases"]["generated"],
        statuses.values().sum::<u64>(),
        statuses.iter().map(|(s, n)| format!("{s}: {n}")).collect::<Vec<_>>().join(", "),
        report["test_cases"]["unique_failures"],
        report["errors"].as_array().map_or(0, Vec::len),
        report["running_time"].as_f64().unwrap_or_default()
    );
    println!("{summary}");
    std::fs::write(Path::new(env!("CARGO_TARGET_TMPDIR")).join("schemathesis-summary.txt"), format!("{summary}\n"))
        .unwrap();
    if !output.status.success() {
        let shown: String = out.chars().take(30_000).collect();
        let log = process.log();
        let tail = log[log.len().saturating_sub(60)..].join("\n");
        let exited = process.wait_exit(std::time::Duration::ZERO);
        panic!("schemathesis failed:\n{shown}\n{err}\n--- mediaops exited: {exited:?}; its last log lines:\n{tail}");
    }
    assert_eq!(report["operations"]["tested"], json!(route_table().len()), "every operation: {summary}");
    assert_eq!(report["test_cases"]["unique_failures"], 0, "{summary}");
    assert!(statuses.keys().all(|s| *s < 500 || *s == 502 || *s == 503), "{summary}");

    // Never crashed: the same process still serves.
    let health = get(&format!("{base}/healthz"), &[]).await;
    assert_eq!(health.status(), 200);
    assert!(!process.log().iter().any(|l| l.contains("panicked")), "a panic was logged");
}
