//! Which sources answer each operation (docs/vendors.md "Default chains";
//! `mediaops sources`; docs/data-sources.md): the chains of
//! `[vendors.sources]`, and for every other operation an enabled pack maps,
//! the default chain of its [`Kind`].

use std::collections::BTreeMap;
use std::time::Duration;

use super::mapping::VendorFile;
use super::settings::VendorSettings;
use super::vendor::SYNC_RECEIPT;
use mediaops_platform::registry::{OperationInfo, Registry};
use mediaops_proto::mediaops::options::v1::{MetadataKind, PriceClass};
use mediaops_store::rules::platforms::PLATFORM_ORDER;

/// Seconds a stored record answers a lookup without asking the vendor when
/// the mapping gives no `max_age_secs`: 6 hours.
pub const DEFAULT_MAX_AGE_SECS: u64 = 6 * 3600;

/// What kind of operation decides its default chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Kind {
    /// Keyword searches: the vendor first (fresh answers), the store when
    /// the vendor fails or finds nothing.
    Search,
    /// Realtime data (`realtimeData` price class, tag 实时): as a search.
    Realtime,
    /// One account, work or its lists by id: the store while its newest
    /// record is younger than `max_age_secs`, else the vendor, else the
    /// older stored record.
    Lookup,
    /// Boards, rankings and feeds (tags 排行, 热榜, 热门, 热点, 爆款, 内容流):
    /// the store (fed by write-back, imports and tracking), the vendor when
    /// the store has nothing.
    Board,
    /// Sync operations (their answer is our receipt): the first pack that
    /// maps them, alone (docs/sync.md).
    Sync,
}

impl Kind {
    /// The kind's name in docs and `mediaops sources`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Search => "search",
            Kind::Realtime => "realtime",
            Kind::Lookup => "lookup",
            Kind::Board => "board",
            Kind::Sync => "sync",
        }
    }
}

/// Tags (substrings of the catalog's `tags`) that make an operation a board.
const BOARD_TAGS: [&str; 6] = ["排行", "热榜", "热门", "热点", "爆款", "内容流"];

/// The kind of `info`, from its catalog metadata, first rule that applies:
/// a sync receipt answer → sync; price class `realtimeData` or a tag 实时 →
/// realtime; a tag holding 排行, 热榜, 热门, 热点, 爆款 or 内容流 → board; a
/// tag 搜索 → search; anything else → lookup.
pub fn kind(info: &OperationInfo) -> Kind {
    let tags = &info.meta.tags;
    if info.method.output().full_name() == SYNC_RECEIPT {
        Kind::Sync
    } else if info.meta.price_class() == PriceClass::RealtimeData || tags.iter().any(|t| t == "实时") {
        Kind::Realtime
    } else if tags.iter().any(|t| BOARD_TAGS.iter().any(|b| t.contains(b))) {
        Kind::Board
    } else if tags.iter().any(|t| t == "搜索") {
        Kind::Search
    } else {
        Kind::Lookup
    }
}

/// One step of a chain, as written in `[vendors.sources]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Word {
    /// `store`: the content store.
    Store,
    /// `store:fresh`: the store while its newest record is younger than
    /// this (first only).
    FreshStore(Duration),
    /// `upstream:<vendor>`.
    Upstream(String),
}

impl std::fmt::Display for Word {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Word::Store => f.write_str("store"),
            Word::FreshStore(_) => f.write_str("store:fresh"),
            Word::Upstream(name) => write!(f, "upstream:{name}"),
        }
    }
}

/// The sources of one operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// `videosite.search-work`.
    pub operation_key: String,
    /// Its kind ([`kind`]).
    pub kind: Kind,
    /// Its steps, in order.
    pub chain: Vec<Word>,
    /// The enabled packs that map it, in `packs` order.
    pub packs: Vec<String>,
    /// Given in `[vendors.sources]` (else the kind's default).
    pub configured: bool,
}

impl Route {
    /// The chain as written: `store:fresh,upstream:tikhub`.
    pub fn chain_text(&self) -> String {
        self.chain.iter().map(Word::to_string).collect::<Vec<_>>().join(",")
    }
}

/// The route of every operation that is not answered by the store alone:
/// each of `[vendors.sources]`, and each operation an enabled pack maps
/// (`files` as [`super::packs::resolve`] gives them, the packs first), by
/// operation key. A mapping that refreshes the store (`refresh`,
/// docs/vendors.md "Several calls") gets the vendors, then the store,
/// whatever its kind.
///
/// # Errors
/// A chain naming an unknown operation or vendor, a vendor that does not
/// map the operation, other words than `store`, `store:fresh` and
/// `upstream:<vendor>`, `store:fresh` not first, `store` twice, an empty
/// chain, or a sync chain other than `upstream:<vendor>`.
pub fn routes(settings: &VendorSettings, files: &[VendorFile], registry: &Registry) -> anyhow::Result<Vec<Route>> {
    let by_name: BTreeMap<&str, &VendorFile> = files.iter().map(|f| (f.name.as_str(), f)).collect();
    let packs_of = |key: &str| -> Vec<String> {
        settings
            .packs
            .iter()
            .filter(|p| by_name.get(p.as_str()).is_some_and(|f| f.operations.contains_key(key)))
            .cloned()
            .collect()
    };
    let mut routes = BTreeMap::new();
    for (key, text) in &settings.sources {
        let info = operation(registry, key)?;
        let chain = parse(key, text, &by_name)?;
        let kind = kind(info);
        if kind == Kind::Sync {
            anyhow::ensure!(
                matches!(chain.as_slice(), [Word::Upstream(_)]),
                "sources.{key}: a sync operation fetches from one vendor: upstream:<vendor>, not {text:?}"
            );
        }
        let route = Route { operation_key: key.clone(), kind, chain, packs: packs_of(key), configured: true };
        routes.insert(key.clone(), route);
    }
    for pack in &settings.packs {
        let Some(file) = by_name.get(pack.as_str()) else { continue };
        for key in file.operations.keys() {
            if routes.contains_key(key) {
                continue;
            }
            let info = operation(registry, key)?;
            let packs = packs_of(key);
            let kind = kind(info);
            let vendors = packs.iter().map(|p| Word::Upstream(p.clone()));
            let refresh = packs
                .iter()
                .any(|p| by_name.get(p.as_str()).and_then(|f| f.operations.get(key)).is_some_and(|m| m.refresh));
            let chain: Vec<Word> = match kind {
                Kind::Sync => vendors.take(1).collect(),
                _ if refresh => vendors.chain([Word::Store]).collect(),
                Kind::Search | Kind::Realtime => vendors.chain([Word::Store]).collect(),
                Kind::Board => [Word::Store].into_iter().chain(vendors).collect(),
                Kind::Lookup => [Word::FreshStore(max_age(key, &packs, &by_name))].into_iter().chain(vendors).collect(),
            };
            routes.insert(key.clone(), Route { operation_key: key.clone(), kind, chain, packs, configured: false });
        }
    }
    Ok(routes.into_values().collect())
}

/// One operation's sources.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Line {
    /// `videosite.search-work`.
    pub operation_key: String,
    /// `search`, `realtime`, `lookup`, `board` or `sync` (docs/vendors.md
    /// "Default chains").
    pub kind: Kind,
    /// Its steps in order: `store`, `store:fresh`, `upstream:<vendor>`;
    /// empty when nothing answers it (not built).
    pub chain: Vec<String>,
    /// The enabled packs that map it.
    pub packs: Vec<String>,
}

/// The lines of every data API, and of every other operation a vendor
/// answers, under `settings` over the handlers of `registry` (a core opened
/// without vendors: [`Registry::is_sourced`] tells which operations the
/// store answers through a chain), in the catalog's order.
///
/// # Errors
/// What the core would refuse at start: an unknown pack, a file that does
/// not parse, a chain that cannot be honoured. Keys are not needed.
pub fn lines(settings: &VendorSettings, registry: &Registry) -> anyhow::Result<Vec<Line>> {
    let files = super::packs::resolve(settings)?;
    let routes = routes(settings, &files, registry)?;
    let mut operations: Vec<_> = registry.operations().collect();
    operations.sort_by_key(|op| {
        // A platform token of ours (`history`) after the spec's.
        (op.meta.kind, PLATFORM_ORDER.iter().position(|p| *p == op.meta.platform).unwrap_or(PLATFORM_ORDER.len()))
    });
    let mut lines = Vec::new();
    for op in operations {
        let key = op.key();
        let route = routes.iter().find(|r| r.operation_key == key);
        if route.is_none() && op.meta.kind() != MetadataKind::DataApi {
            continue;
        }
        let sourced = registry.is_sourced(key);
        let implemented = registry.is_implemented(&op.grpc_path);
        let chain = match route {
            Some(route) => settle(route, sourced, implemented)?,
            None => None,
        };
        let chain = match chain {
            Some(chain) => chain.iter().map(Word::to_string).collect(),
            None if implemented => vec!["store".to_owned()],
            None => Vec::new(),
        };
        lines.push(Line {
            operation_key: key.to_owned(),
            kind: kind(op),
            chain,
            packs: route.map(|r| r.packs.clone()).unwrap_or_default(),
        });
    }
    Ok(lines)
}

/// What becomes of `route` once every handler is registered, given whether
/// its operation is answered through a chain with the store in it
/// (`sourced`, [`Registry::is_sourced`]) or has another handler
/// (`implemented`): its chain; the vendors alone for an operation without a
/// store source; `None` for a default route of an operation answered
/// otherwise (its packs' mapping is not used). Sync routes stand as they are.
///
/// # Errors
/// A configured chain for an operation answered otherwise, or with `store`
/// for an operation without a store source.
pub fn settle(route: &Route, sourced: bool, implemented: bool) -> anyhow::Result<Option<Vec<Word>>> {
    let key = &route.operation_key;
    if sourced || route.kind == Kind::Sync {
        return Ok(Some(route.chain.clone()));
    }
    if implemented {
        anyhow::ensure!(
            !route.configured,
            "sources.{key}: this operation is not answered through a source chain, so it cannot take one"
        );
        return Ok(None);
    }
    let vendors: Vec<Word> = route.chain.iter().filter(|w| matches!(w, Word::Upstream(_))).cloned().collect();
    anyhow::ensure!(
        !route.configured || vendors.len() == route.chain.len(),
        "sources.{key}: this operation has no store source; use upstream:<vendor> alone"
    );
    Ok(Some(vendors))
}

fn operation<'r>(registry: &'r Registry, key: &str) -> anyhow::Result<&'r OperationInfo> {
    registry
        .operations()
        .find(|op| op.key() == key)
        .map(|op| op.as_ref())
        .ok_or_else(|| anyhow::anyhow!("sources: operation {key} does not exist"))
}

/// The shortest `max_age_secs` of the vendors' mappings of `key`, else
/// [`DEFAULT_MAX_AGE_SECS`].
fn max_age(key: &str, vendors: &[String], by_name: &BTreeMap<&str, &VendorFile>) -> Duration {
    let secs = vendors
        .iter()
        .filter_map(|v| by_name.get(v.as_str())?.operations.get(key)?.max_age_secs)
        .min()
        .unwrap_or(DEFAULT_MAX_AGE_SECS);
    Duration::from_secs(secs)
}

/// Parses one `[vendors.sources]` chain.
fn parse(key: &str, text: &str, by_name: &BTreeMap<&str, &VendorFile>) -> anyhow::Result<Vec<Word>> {
    let mut chain = Vec::new();
    for (i, word) in text.split(',').map(str::trim).enumerate() {
        let word = match word {
            "store" => {
                anyhow::ensure!(
                    !chain.iter().any(|w| matches!(w, Word::Store | Word::FreshStore(_))),
                    "sources.{key}: the store comes once ({text:?})"
                );
                Word::Store
            }
            "store:fresh" => {
                anyhow::ensure!(i == 0, "sources.{key}: store:fresh comes first ({text:?})");
                let vendors: Vec<String> =
                    text.split(',').filter_map(|w| w.trim().strip_prefix("upstream:")).map(str::to_owned).collect();
                Word::FreshStore(max_age(key, &vendors, by_name))
            }
            other => {
                let name = other.strip_prefix("upstream:").ok_or_else(|| {
                    anyhow::anyhow!("sources.{key}: {other:?} is neither store, store:fresh nor upstream:<vendor>")
                })?;
                let file =
                    by_name.get(name).ok_or_else(|| anyhow::anyhow!("sources.{key}: no vendor file names {name}"))?;
                anyhow::ensure!(
                    file.operations.contains_key(key),
                    "sources.{key}: vendor {name} does not map this operation"
                );
                Word::Upstream(name.to_owned())
            }
        };
        chain.push(word);
    }
    anyhow::ensure!(
        chain.iter().any(|w| matches!(w, Word::Upstream(_) | Word::Store)),
        "sources.{key}: the chain is empty"
    );
    Ok(chain)
}
