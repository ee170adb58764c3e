//! The three catalogs (spec 2.2-2.4): data APIs, skills and skill search,
//! generated at start-up from the RPC and field options of the descriptor
//! pool. Paths (ours; the spec hides them): `GET /api/apis`,
//! `GET /api/skills`, `GET /api/skills/search?q=…&category=…`.

pub mod labels;
mod metadata_check;
pub mod search;
pub mod ui;

use std::collections::HashMap;
use std::sync::Arc;

use mediaops_proto::mediaops::catalog::v1::{
    ApiEntry, Availability, DataSources, Execution, ExecutionTarget, ListApisRequest, ListApisResponse,
    ListSkillsRequest, ListSkillsResponse, SearchSkillsRequest, SearchSkillsResponse, SkillEntry,
};
use mediaops_proto::mediaops::options::v1::{self as options, ExecutionMode, Operation};
use mediaops_proto::spec_names::SpecName;
use prost_reflect::{DescriptorPool, MethodDescriptor};

use crate::billing::Ledger;
use crate::maintenance::Maintenance;
use crate::structs::to_struct;
use mediaops_proto::error::ServiceError;
use mediaops_proto::excerpt::excerpt;
use mediaops_proto::json_schema as schema;
use mediaops_proto::value_lists::ValueLists;

/// The skill categories of spec 2.3, in catalog order.
pub const SKILL_CATEGORIES: [&str; 5] = ["数据查询", "效率工具", "作品分析", "内容安全", "公众号创作技能包"];

/// The category value that means "all" (spec 2.3).
pub const ALL_CATEGORIES: &str = "全部";

/// The built catalogs.
pub struct Catalog {
    apis: Vec<ApiEntry>,
    skills: Vec<SkillEntry>,
    ledger: Arc<dyn Ledger>,
    maintenance: Arc<Maintenance>,
    /// Each operation's `execution` when it is available (for an operation
    /// declared under maintenance and switched back at run time).
    live: HashMap<String, Execution>,
    /// Each operation's `dataSources`, once the core knows its chains
    /// ([`Catalog::set_sources`]).
    sources: std::sync::OnceLock<HashMap<String, DataSources>>,
}

impl Catalog {
    /// Builds every entry. Fails when an operation's metadata uses a value
    /// outside the enumerations of spec 2.4, so bad metadata never serves.
    ///
    /// Listings show each operation's availability as `maintenance` has it
    /// at the time of the call (declared, or switched at run time).
    pub fn build(
        pool: &DescriptorPool,
        ledger: Arc<dyn Ledger>,
        maintenance: Arc<Maintenance>,
    ) -> anyhow::Result<Catalog> {
        let lists = ValueLists::from_pool(pool);
        let mut apis = Vec::new();
        let mut skills = Vec::new();
        let mut live = HashMap::new();
        for (method, meta) in mediaops_proto::options::operations(pool) {
            metadata_check::check(&method, &meta, &lists)?;
            live.insert(meta.operation_key.clone(), live_execution(&meta));
            if mediaops_proto::options::is_data_api(&meta) {
                apis.push(api_entry(&method, &meta, &lists));
            }
            if mediaops_proto::options::is_skill(&meta) {
                skills.push(skill_entry(&method, &meta, &lists));
            }
        }
        Ok(Catalog { apis, skills, ledger, maintenance, live, sources: std::sync::OnceLock::new() })
    }

    /// Sets each operation's `dataSources` (by operation key): its chain and
    /// the packs that map it, as the core built them (docs/vendors.md
    /// "Packs"). Listings then carry it: every data API (empty until set),
    /// and a skill that has one. A second call is ignored.
    pub fn set_sources(&self, sources: HashMap<String, DataSources>) {
        let _ = self.sources.set(sources);
    }

    /// The `dataSources` of `key`, if set.
    fn sources_of(&self, key: &str) -> Option<DataSources> {
        self.sources.get().and_then(|s| s.get(key)).cloned()
    }

    /// `GET /api/apis`: every data API, or those of one platform token.
    pub async fn list_apis(&self, request: &ListApisRequest) -> ListApisResponse {
        let switched = self.maintenance.catalog_overrides().await;
        let items: Vec<_> = self
            .apis
            .iter()
            .filter(|e| request.platform.is_empty() || e.platform == request.platform)
            .map(|e| {
                let mut e = e.clone();
                self.switch(&switched, &e.operation_key, &mut e.availability, &mut e.execution);
                e.data_sources = Some(self.sources_of(&e.operation_key).unwrap_or_default());
                e
            })
            .collect();
        ListApisResponse { total: items.len() as i32, items }
    }

    /// Applies a run-time maintenance switch of `key`, if any, to an entry's
    /// `availability` and `execution` (spec 2.4: under maintenance, mode
    /// `unavailable` without a target).
    fn switch(
        &self,
        switched: &HashMap<String, Option<Availability>>,
        key: &str,
        availability: &mut Option<Availability>,
        execution: &mut Option<Execution>,
    ) {
        let Some(state) = switched.get(key) else { return };
        *availability = state.clone();
        *execution = match state {
            Some(_) => execution.take().map(|e| Execution {
                mode: ExecutionMode::Unavailable.spec_name().to_owned(),
                target: None,
                ..e
            }),
            None => self.live.get(key).cloned(),
        };
    }

    /// `GET /api/skills`: every skill of a category (全部 or empty = all).
    pub async fn list_skills(&self, request: &ListSkillsRequest) -> Result<ListSkillsResponse, ServiceError> {
        let category = parse_category(&request.category)?;
        let usage = self.ledger.usage_counts().await?;
        let switched = self.maintenance.catalog_overrides().await;
        let items: Vec<_> = self.skills_in(category).map(|e| self.live_entry(e, &usage, &switched)).collect();
        Ok(ListSkillsResponse { total: items.len() as i32, items })
    }

    /// `GET /api/skills/search`: skills of a category ranked by relevance to
    /// `q` (see [`search`]); an empty `q` lists the category unranked.
    pub async fn search_skills(&self, request: &SearchSkillsRequest) -> Result<SearchSkillsResponse, ServiceError> {
        let category = parse_category(&request.category)?;
        let usage = self.ledger.usage_counts().await?;
        let switched = self.maintenance.catalog_overrides().await;
        let terms = mediaops_store::text::terms(&request.q);
        let mut items: Vec<SkillEntry> = self
            .skills_in(category)
            .filter_map(|entry| {
                let (score, reasons) = search::score(entry, &request.q, &terms);
                if !request.q.trim().is_empty() && score == 0.0 {
                    return None;
                }
                let mut entry = self.live_entry(entry, &usage, &switched);
                entry.match_score = Some(score);
                entry.match_reasons = reasons;
                Some(entry)
            })
            .collect();
        items.sort_by(|a, b| {
            b.match_score
                .partial_cmp(&a.match_score)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(b.featured.cmp(&a.featured))
                .then(b.usage_count.cmp(&a.usage_count))
        });
        Ok(SearchSkillsResponse {
            total: items.len() as i32,
            items,
            query: request.q.clone(),
            category: category.unwrap_or(ALL_CATEGORIES).to_owned(),
            categories: SKILL_CATEGORIES.iter().map(|c| (*c).to_owned()).collect(),
        })
    }

    /// `entry` with its usage count and its run-time availability.
    fn live_entry(
        &self,
        entry: &SkillEntry,
        usage: &HashMap<String, i64>,
        switched: &HashMap<String, Option<Availability>>,
    ) -> SkillEntry {
        let mut entry = with_usage(entry, usage);
        self.switch(switched, &entry.operation_key.clone(), &mut entry.availability, &mut entry.execution);
        entry.data_sources = self.sources_of(&entry.operation_key);
        entry
    }

    fn skills_in<'a>(&'a self, category: Option<&'a str>) -> impl Iterator<Item = &'a SkillEntry> + 'a {
        self.skills.iter().filter(move |e| category.is_none_or(|c| e.category == c))
    }
}

/// `entry` with its `usageCount` (successful calls, from the ledger).
fn with_usage(entry: &SkillEntry, usage: &HashMap<String, i64>) -> SkillEntry {
    SkillEntry { usage_count: usage.get(&entry.operation_key).copied().unwrap_or(0), ..entry.clone() }
}

/// `None` for all; a category of spec 2.3; else 400 naming `category`.
fn parse_category(category: &str) -> Result<Option<&str>, ServiceError> {
    let category = category.trim();
    if category.is_empty() || category == ALL_CATEGORIES {
        return Ok(None);
    }
    if SKILL_CATEGORIES.contains(&category) {
        return Ok(Some(category));
    }
    Err(ServiceError::invalid_field(
        "category",
        format!(
            "unknown skill category {}; valid: {ALL_CATEGORIES}, {}",
            excerpt(category),
            SKILL_CATEGORIES.join(", ")
        ),
    ))
}

/// The catalog `execution` (spec 2.4) of `meta`: its declared mode and side
/// effect by their spec names, and its HTTP rule as target unless the mode
/// is `unavailable`.
fn execution(meta: &Operation) -> Execution {
    let declared = meta.execution.unwrap_or_default();
    let target = match (&meta.http, declared.mode()) {
        (_, ExecutionMode::Unavailable) | (None, _) => None,
        (Some(http), _) => Some(ExecutionTarget { method: http.method.clone(), path: http.path.clone() }),
    };
    Execution {
        mode: declared.mode().spec_name().to_owned(),
        side_effect: declared.side_effect().spec_name().to_owned(),
        target,
    }
}

/// The catalog `availability` (spec 2.2) of a declared one.
fn availability(declared: &options::Availability) -> Availability {
    Availability { status: declared.status().spec_name().to_owned(), note: declared.note.clone() }
}

/// The `execution` of an operation while available: as declared, except that
/// a mode declared `unavailable` (an operation declared under maintenance)
/// becomes `generic` for a skill and `dedicated` for another operation, with
/// its declared path as target (docs/maintenance.md).
fn live_execution(meta: &Operation) -> Execution {
    let mut live = meta.clone();
    if let Some(execution) = live.execution.as_mut().filter(|e| e.mode() == ExecutionMode::Unavailable) {
        execution.set_mode(if meta.skill.is_some() { ExecutionMode::Generic } else { ExecutionMode::Dedicated });
    }
    execution(&live)
}

fn api_entry(method: &MethodDescriptor, meta: &Operation, lists: &ValueLists) -> ApiEntry {
    let http = meta.http.clone().unwrap_or_default();
    ApiEntry {
        platform: meta.platform.clone(),
        slug: meta.slug.clone(),
        operation_key: meta.operation_key.clone(),
        title: meta.title.clone(),
        method: http.method,
        path: http.path,
        summary: meta.summary.clone(),
        unit_price: meta.unit_price,
        tags: meta.tags.clone(),
        request_schema: Some(to_struct(schema::request_schema(&method.input(), lists))),
        response_example: Some(to_struct(schema::example(&method.output()))),
        availability: meta.availability.as_ref().map(availability),
        price_class: meta.price_class().spec_name().to_owned(),
        input_ui_schema: Some(ui::input_descriptor(&method.input(), lists)),
        output_ui_schema: Some(ui::output_descriptor(meta, &method.output())),
        execution: Some(execution(meta)),
        task_ui: meta.task_ui.clone(),
        data_sources: None,
    }
}

fn skill_entry(method: &MethodDescriptor, meta: &Operation, lists: &ValueLists) -> SkillEntry {
    let skill = meta.skill.clone().unwrap_or_default();
    SkillEntry {
        slug: meta.slug.clone(),
        operation_key: meta.operation_key.clone(),
        title: meta.title.clone(),
        summary: meta.summary.clone(),
        hero_description: skill.hero_description,
        category: skill.category,
        featured: skill.featured,
        hot: skill.hot,
        tags: meta.tags.clone(),
        usage_count: 0,
        unit_price: meta.unit_price,
        input_schema: Some(to_struct(schema::request_schema(&method.input(), lists))),
        output_example: Some(to_struct(schema::example(&method.output()))),
        price_class: meta.price_class().spec_name().to_owned(),
        input_ui_schema: Some(ui::input_descriptor(&method.input(), lists)),
        output_ui_schema: Some(ui::output_descriptor(meta, &method.output())),
        execution: Some(execution(meta)),
        task_ui: meta.task_ui.clone(),
        match_score: None,
        match_reasons: Vec::new(),
        availability: meta.availability.as_ref().map(availability),
        data_sources: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Registry;

    fn catalog() -> Catalog {
        catalog_with_switches().0
    }

    /// A catalog and its maintenance switch, over a kept temporary data dir.
    fn catalog_with_switches() -> (Catalog, Arc<Maintenance>, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let ledger = crate::billing::embedded::EmbeddedLedger::open(dir.path()).unwrap();
        let pool = mediaops_proto::descriptor_pool();
        let registry = Registry::from_pool(pool).unwrap();
        let store = Arc::new(crate::maintenance::file::FileSwitchStore::new(dir.path()));
        let maintenance = Arc::new(Maintenance::new(&registry, store, mediaops_store::clock::Clock::System));
        (Catalog::build(pool, Arc::new(ledger), maintenance.clone()).unwrap(), maintenance, dir)
    }

    fn entry<'a>(apis: &'a ListApisResponse, key: &str) -> &'a ApiEntry {
        apis.items.iter().find(|e| e.operation_key == key).unwrap()
    }

    #[tokio::test]
    async fn maintenance_entries_have_no_target() {
        let apis = catalog().list_apis(&ListApisRequest::default()).await;
        let comments = entry(&apis, "lifestyle.comments");
        assert_eq!(comments.availability.as_ref().unwrap().status, "maintenance");
        let execution = comments.execution.as_ref().unwrap();
        assert_eq!((execution.mode.as_str(), execution.target.is_none()), ("unavailable", true));
        let search = entry(&apis, "lifestyle.search-note");
        assert_eq!(
            search.execution.as_ref().unwrap().target.as_ref().unwrap().path,
            "/api/apis/lifestyle/search-note/call"
        );
        assert!(search.availability.is_none());
    }

    #[tokio::test]
    async fn run_time_switches_show_in_both_catalogs() {
        use mediaops_proto::mediaops::admin::v1::SetMaintenanceRequest;
        let (catalog, maintenance, _dir) = catalog_with_switches();
        let set = |key: &str, on: bool, note: &str| SetMaintenanceRequest {
            operation_key: key.into(),
            maintenance: on,
            note: note.into(),
        };
        maintenance.set(set("lifestyle.search-note", true, "上游限流")).await.unwrap();
        maintenance.set(set("lifestyle.comments", false, "")).await.unwrap();
        maintenance.set(set("skills.content-safety-check", true, "词库更新中")).await.unwrap();

        let apis = catalog.list_apis(&ListApisRequest::default()).await;
        let search = entry(&apis, "lifestyle.search-note");
        assert_eq!(search.availability, Some(Availability { status: "maintenance".into(), note: "上游限流".into() }));
        let execution = search.execution.as_ref().unwrap();
        assert_eq!((execution.mode.as_str(), execution.target.is_none()), ("unavailable", true));
        let comments = entry(&apis, "lifestyle.comments");
        assert!(comments.availability.is_none());
        let execution = comments.execution.as_ref().unwrap();
        assert_eq!(execution.mode, "dedicated");
        assert_eq!(execution.target.as_ref().unwrap().path, "/api/apis/lifestyle/comments/call");

        let skills = catalog.list_skills(&ListSkillsRequest::default()).await.unwrap();
        let banned = skills.items.iter().find(|e| e.operation_key == "skills.content-safety-check").unwrap();
        assert_eq!(banned.availability.as_ref().unwrap().note, "词库更新中");
        assert_eq!(banned.execution.as_ref().unwrap().mode, "unavailable");
        let request = SearchSkillsRequest { q: "违禁词".into(), category: String::new() };
        let found = catalog.search_skills(&request).await.unwrap();
        let banned = found.items.iter().find(|e| e.operation_key == "skills.content-safety-check").unwrap();
        assert_eq!(banned.availability.as_ref().unwrap().status, "maintenance");

        maintenance.set(set("skills.content-safety-check", false, "")).await.unwrap();
        let skills = catalog.list_skills(&ListSkillsRequest::default()).await.unwrap();
        let banned = skills.items.iter().find(|e| e.operation_key == "skills.content-safety-check").unwrap();
        assert!(banned.availability.is_none());
        assert_eq!(banned.execution.as_ref().unwrap().mode, "generic");
    }

    #[tokio::test]
    async fn unknown_category_is_named() {
        let err = catalog().list_skills(&ListSkillsRequest { category: "别的".into() }).await.unwrap_err();
        assert_eq!(err.field.as_deref(), Some("category"));
        let all = catalog().list_skills(&ListSkillsRequest { category: ALL_CATEGORIES.into() }).await.unwrap();
        let safety = catalog().list_skills(&ListSkillsRequest { category: "内容安全".into() }).await.unwrap();
        assert!(safety.total > 0 && safety.total < all.total);
    }

    #[tokio::test]
    async fn search_ranks_and_explains() {
        let request = SearchSkillsRequest { q: "违禁词".into(), category: String::new() };
        let found = catalog().search_skills(&request).await.unwrap();
        assert!(found.total >= 1);
        assert!(found.items.windows(2).all(|w| w[0].match_score >= w[1].match_score));
        assert!(!found.items[0].match_reasons.is_empty());
        assert_eq!(found.category, ALL_CATEGORIES);
        assert_eq!(found.categories.len(), 5);
    }
}
