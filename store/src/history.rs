//! The statements of the history reads (docs/history.md): one work's
//! snapshots in a window, and the captures of one hot-list title in a
//! window. An account's snapshots are [`super::ContentStore::account_series`]
//! with its `account_id`. Written once with `$n` placeholders for both
//! backends, as [`super::listing`].

use chrono::{DateTime, Utc};

use super::listing::{Conditions, Dialect, Param};
use super::sql;

impl Dialect {
    /// The statement of [`super::ContentStore::work_snapshots`]: the
    /// snapshots (columns `s_*`, as [`sql::WORK_SNAPSHOT_COLUMNS`]; no
    /// `extra`) of the work `(platform, platform_id)` captured in
    /// `[from, to]`, oldest first.
    pub fn work_snapshots(
        self,
        platform: &str,
        platform_id: &str,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> (String, Vec<Param>) {
        let mut c = Conditions::default();
        c.compare("w.platform =", Param::Text(platform.to_owned()));
        c.compare("w.platform_id =", Param::Text(platform_id.to_owned()));
        c.compare("s.captured_at >=", Param::Time(from));
        c.compare("s.captured_at <=", Param::Time(to));
        let statement = format!(
            "SELECT {}, CAST(NULL AS TEXT) AS s_extra FROM works w JOIN work_snapshots s ON s.work = w.id{} \
             ORDER BY s.captured_at",
            sql::WORK_SNAPSHOT_COLUMNS,
            c.where_sql()
        );
        (self.placeholders(statement), c.params)
    }

    /// The statement of [`super::ContentStore::hot_title_entries`]: every
    /// hot-list entry whose title is exactly `title`, of the lists
    /// `sources` (every list when empty), captured in `[from, to]`, by
    /// capture time, list and rank (no `extra`).
    pub fn hot_title_entries(
        self,
        title: &str,
        sources: &[String],
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> (String, Vec<Param>) {
        let mut c = Conditions::default();
        c.compare("h.title =", Param::Text(title.to_owned()));
        if !sources.is_empty() {
            let phs: Vec<String> = sources.iter().map(|s| c.bind(Param::Text(s.clone()))).collect();
            c.push(format!("h.source IN ({})", phs.join(", ")));
        }
        c.compare("h.captured_at >=", Param::Time(from));
        c.compare("h.captured_at <=", Param::Time(to));
        let statement = format!(
            "SELECT h.source, h.captured_at, h.rank, h.title, h.hot_value, h.url, CAST(NULL AS TEXT) AS extra \
             FROM hot_list_entries h{} ORDER BY h.captured_at, h.source, h.rank",
            c.where_sql()
        );
        (self.placeholders(statement), c.params)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_bind_in_order_for_both_backends() {
        let at = DateTime::<Utc>::from_timestamp(1_700_000_000, 0).unwrap();
        let (pg, params) = Dialect::Postgres.hot_title_entries("标题", &["weibo".into(), "zhihu".into()], at, at);
        assert!(pg.contains("h.title = $1 AND h.source IN ($2, $3) AND h.captured_at >= $4"), "{pg}");
        assert_eq!(params.len(), 5);
        let (lite, _) = Dialect::Sqlite.work_snapshots("lifestyle", "n1", at, at);
        assert!(!lite.contains('$'), "{lite}");
    }
}
