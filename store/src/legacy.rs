//! The files of the file-backed state of earlier releases, imported once
//! into the state stores when the store opens (docs/state.md "Upgrading"). Earlier releases kept, in the data dir:
//!
//! | directory | files |
//! |---|---|
//! | `charters/` | `<account>/<profile>.json`: a `StoredCharter` in proto JSON |
//! | `article-themes/` | `<account>/default.json` `{"themeId"}`; `<account>/custom/<id>.json` `{id, name, description, css, updatedAt}` (the id is the file's) |
//! | `banned-words/` | `<account>.json`: `{"lists": {<scope>: {add, allow, updatedAt}}}` |
//! | `wechat/` | `state.json`: `{verifyTicket, verifyTicketAt, authorizers: {<appid>: …}, pending: […]}` |
//!
//! `<account>` is the account id when it is made of `A-Z a-z 0-9 _ -`, else
//! `x` and the hex of its bytes. Each directory found is read whole, every
//! entry the database does not have yet is written (what the database has
//! wins, so a repeated import changes nothing), and the directory is then
//! renamed to `<name>.imported` (kept as a backup; never read again). A file
//! that does not read is logged and skipped, and stays in the renamed
//! directory. A database error stops the import and the start; the
//! directory stays in place and is imported at the next start.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mediaops_proto::mediaops::studio::v1::CustomTheme;
use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::Opened;
use crate::wechat::{PendingAuthorization, StoredAuthorizer};
use crate::word_list::AccountLists;
use mediaops_proto::error::ServiceError;

/// What an import found.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Imported {
    /// Entries written (charters, themes and defaults, word lists by scope,
    /// WeChat ticket, authorizers and pending codes).
    pub written: usize,
    /// Entries the database already had (left as they are).
    pub kept: usize,
    /// Files that did not read (logged; left in the renamed directory).
    pub unreadable: usize,
}

/// The directories of the file-backed state, in the data dir.
pub const DIRECTORIES: [&str; 4] = ["charters", "article-themes", "banned-words", "wechat"];

/// Suffix of an imported directory.
pub const IMPORTED_SUFFIX: &str = ".imported";

/// Imports every legacy directory of `data_dir` into `opened` (see the
/// module docs); per directory name, what was found.
///
/// # Errors
/// A database error (the start fails; nothing is renamed), or a directory
/// that cannot be read or renamed.
pub async fn import(data_dir: &Path, opened: &Opened) -> Result<BTreeMap<&'static str, Imported>, ServiceError> {
    let mut report = BTreeMap::new();
    for name in DIRECTORIES {
        let dir = data_dir.join(name);
        if !dir.is_dir() {
            continue;
        }
        let mut found = Imported::default();
        match name {
            "charters" => charters(&dir, opened, &mut found).await?,
            "article-themes" => themes(&dir, opened, &mut found).await?,
            "banned-words" => words(&dir, opened, &mut found).await?,
            _ => wechat(&dir, opened, &mut found).await?,
        }
        let renamed = retire(&dir)?;
        tracing::info!(
            directory = %dir.display(),
            renamed = %renamed.display(),
            written = found.written,
            kept = found.kept,
            unreadable = found.unreadable,
            "imported file-backed state into the {} store",
            opened.content.backend()
        );
        report.insert(name, found);
    }
    Ok(report)
}

async fn charters(dir: &Path, opened: &Opened, found: &mut Imported) -> Result<(), ServiceError> {
    for (account_dir, account) in accounts(dir)? {
        for (path, profile) in json_files(&account_dir)? {
            let Some(bytes) = read(&path, found) else { continue };
            let mut stored = match crate::charter::from_json(&bytes) {
                Ok(stored) => stored,
                Err(e) => {
                    unreadable(&path, &e, found);
                    continue;
                }
            };
            stored.profile_id = profile;
            if opened.charters.get(&account, &stored.profile_id).await?.is_some() {
                found.kept += 1;
            } else {
                opened.charters.put(&account, &stored).await?;
                found.written += 1;
            }
        }
    }
    Ok(())
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DefaultFile {
    theme_id: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CustomFile {
    name: String,
    #[serde(default)]
    description: String,
    css: String,
    updated_at: String,
}

async fn themes(dir: &Path, opened: &Opened, found: &mut Imported) -> Result<(), ServiceError> {
    for (account_dir, account) in accounts(dir)? {
        let default = account_dir.join("default.json");
        if default.is_file()
            && let Some(file) = parse::<DefaultFile>(&default, found)
        {
            if opened.themes.default_theme(&account).await?.is_some() {
                found.kept += 1;
            } else {
                opened.themes.set_default_theme(&account, &file.theme_id).await?;
                found.written += 1;
            }
        }
        let custom = account_dir.join("custom");
        if !custom.is_dir() {
            continue;
        }
        for (path, id) in json_files(&custom)? {
            let Some(file) = parse::<CustomFile>(&path, found) else { continue };
            if opened.themes.custom_theme(&account, &id).await?.is_some() {
                found.kept += 1;
                continue;
            }
            let theme = CustomTheme {
                id,
                name: file.name,
                description: file.description,
                css: file.css,
                updated_at: file.updated_at,
            };
            opened.themes.put_custom_theme(&account, &theme).await?;
            found.written += 1;
        }
    }
    Ok(())
}

async fn words(dir: &Path, opened: &Opened, found: &mut Imported) -> Result<(), ServiceError> {
    for (path, name) in json_files(dir)? {
        let Some(file) = parse::<AccountLists>(&path, found) else { continue };
        let account = account_of(&name);
        let stored = opened.words.get(&account).await?;
        for (scope, list) in file.lists.into_iter().filter(|(_, list)| !list.is_empty()) {
            if stored.lists.contains_key(&scope) {
                found.kept += 1;
            } else {
                opened.words.put(&account, &scope, &list).await?;
                found.written += 1;
            }
        }
    }
    Ok(())
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct WechatFile {
    verify_ticket: Option<String>,
    authorizers: BTreeMap<String, StoredAuthorizer>,
    pending: Vec<PendingAuthorization>,
}

async fn wechat(dir: &Path, opened: &Opened, found: &mut Imported) -> Result<(), ServiceError> {
    let path = dir.join("state.json");
    if !path.is_file() {
        return Ok(());
    }
    let Some(file) = parse::<WechatFile>(&path, found) else { return Ok(()) };
    if let Some(ticket) = file.verify_ticket {
        if opened.wechat.verify_ticket().await?.is_some() {
            found.kept += 1;
        } else {
            opened.wechat.set_verify_ticket(&ticket).await?;
            found.written += 1;
        }
    }
    for authorizer in file.authorizers.into_values() {
        if opened.wechat.authorizer(&authorizer.authorizer_appid).await?.is_some() {
            found.kept += 1;
        } else {
            opened.wechat.put_authorizer(authorizer).await?;
            found.written += 1;
        }
    }
    let now = chrono::Utc::now().timestamp();
    for pending in file.pending.into_iter().filter(|p| p.expires_at > now) {
        opened.wechat.add_pending(pending, now).await?;
        found.written += 1;
    }
    Ok(())
}

/// The account directories of `dir`, with the account id each stands for.
fn accounts(dir: &Path) -> Result<Vec<(PathBuf, String)>, ServiceError> {
    let mut accounts = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| io_error(dir, e))? {
        let path = entry.map_err(|e| io_error(dir, e))?.path();
        if path.is_dir()
            && let Some(name) = path.file_name().and_then(|n| n.to_str())
        {
            let account = account_of(name);
            accounts.push((path, account));
        }
    }
    accounts.sort();
    Ok(accounts)
}

/// The `*.json` files of `dir` with their stems, skipping the temporary
/// files of an interrupted write (`.<name>.<uuid>.tmp`) and dot files.
fn json_files(dir: &Path) -> Result<Vec<(PathBuf, String)>, ServiceError> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| io_error(dir, e))? {
        let path = entry.map_err(|e| io_error(dir, e))?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else { continue };
        if let Some(stem) = name.strip_suffix(".json")
            && !name.starts_with('.')
            && path.is_file()
        {
            let stem = stem.to_owned();
            files.push((path, stem));
        }
    }
    files.sort();
    Ok(files)
}

/// The account id of a file or directory name (see the module docs): `x`
/// followed by hex that spells an id the old stores would have encoded
/// (one with a character outside `A-Z a-z 0-9 _ -`, e.g. a `.`) is that
/// id; any other name is the id itself.
pub fn account_of(name: &str) -> String {
    let file_safe =
        |id: &str| !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if let Some(hex) = name.strip_prefix('x')
        && let Ok(bytes) = hex::decode(hex)
        && let Ok(id) = String::from_utf8(bytes)
        && !file_safe(&id)
    {
        return id;
    }
    name.to_owned()
}

fn read(path: &Path, found: &mut Imported) -> Option<Vec<u8>> {
    match std::fs::read(path) {
        Ok(bytes) => Some(bytes),
        Err(e) => {
            unreadable(path, &e, found);
            None
        }
    }
}

fn parse<T: DeserializeOwned>(path: &Path, found: &mut Imported) -> Option<T> {
    let bytes = read(path, found)?;
    match serde_json::from_slice(&bytes) {
        Ok(value) => Some(value),
        Err(e) => {
            unreadable(path, &e, found);
            None
        }
    }
}

fn unreadable(path: &Path, error: &dyn std::fmt::Display, found: &mut Imported) {
    tracing::warn!(file = %path.display(), error = %error, "a file of the earlier file-backed state does not read; not imported");
    found.unreadable += 1;
}

/// Renames `dir` to `<dir>.imported` (or `<dir>.imported.<unix seconds>`
/// when that exists); returns the new path.
fn retire(dir: &Path) -> Result<PathBuf, ServiceError> {
    let mut name = dir.as_os_str().to_owned();
    name.push(IMPORTED_SUFFIX);
    let mut target = PathBuf::from(name);
    if target.exists() {
        let mut name = target.into_os_string();
        name.push(format!(".{}", chrono::Utc::now().timestamp()));
        target = PathBuf::from(name);
    }
    std::fs::rename(dir, &target).map_err(|e| io_error(dir, e))?;
    Ok(target)
}

fn io_error(path: &Path, e: std::io::Error) -> ServiceError {
    ServiceError::internal(format!("importing {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn account_names_decode_as_the_old_stores_encoded_them() {
        assert_eq!(account_of("acct_a-1"), "acct_a-1");
        assert_eq!(account_of(&format!("x{}", hex::encode("team.a"))), "team.a");
        // A safe id that starts with x stays itself, hex-looking or not.
        assert_eq!(account_of("xavier"), "xavier");
        assert_eq!(account_of(&format!("x{}", hex::encode("abc"))), "x616263");
    }
}
