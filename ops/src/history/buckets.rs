//! Day buckets (Asia/Shanghai) of snapshots and hot-list captures.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, Utc};

use mediaops_store::clock::shanghai;
use mediaops_store::model::HotListEntry;

/// The Asia/Shanghai day of `at`.
fn day_of(at: DateTime<Utc>) -> NaiveDate {
    at.with_timezone(&shanghai()).date_naive()
}

/// Per day that has one, the last of `items` captured that day (by
/// `captured_at`; the later in `items` on a tie), oldest day first.
pub fn last_per_day<T>(items: Vec<T>, captured_at: impl Fn(&T) -> DateTime<Utc>) -> Vec<(NaiveDate, T)> {
    let mut days: BTreeMap<NaiveDate, (DateTime<Utc>, T)> = BTreeMap::new();
    for item in items {
        let at = captured_at(&item);
        match days.get(&day_of(at)) {
            Some((kept, _)) if *kept > at => {}
            _ => {
                days.insert(day_of(at), (at, item));
            }
        }
    }
    days.into_iter().map(|(day, (_, item))| (day, item)).collect()
}

/// One day of a hot-list title.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TitleDay {
    /// The Asia/Shanghai day.
    pub day: NaiveDate,
    /// The smallest rank of the day.
    pub best_rank: i64,
    /// The list of that rank (the first by name on a tie).
    pub best_source: String,
    /// The smallest rank at the day's last capture that lists the title.
    pub last_rank: i64,
    /// Distinct `(list, capture time)` pairs of the day.
    pub captures: usize,
    /// The highest hot value of the day, if any list gave one.
    pub hot_value: Option<i64>,
}

/// The entries of one title grouped by day, oldest day first.
pub fn title_days(entries: &[HotListEntry]) -> Vec<TitleDay> {
    let mut by_day: BTreeMap<NaiveDate, Vec<&HotListEntry>> = BTreeMap::new();
    for entry in entries {
        by_day.entry(day_of(entry.captured_at)).or_default().push(entry);
    }
    by_day
        .into_iter()
        .filter_map(|(day, list)| {
            let best = list.iter().min_by(|a, b| a.rank.cmp(&b.rank).then(a.source.cmp(&b.source)))?;
            let last_at = list.iter().map(|e| e.captured_at).max()?;
            let last_rank = list.iter().filter(|e| e.captured_at == last_at).map(|e| e.rank).min()?;
            let mut captures: Vec<(&str, DateTime<Utc>)> =
                list.iter().map(|e| (e.source.as_str(), e.captured_at)).collect();
            captures.sort();
            captures.dedup();
            Some(TitleDay {
                day,
                best_rank: best.rank,
                best_source: best.source.clone(),
                last_rank,
                captures: captures.len(),
                hot_value: list.iter().filter_map(|e| e.hot_value).max(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(day: u32, hour: u32) -> DateTime<Utc> {
        // Asia/Shanghai `2026-11-<day> <hour>:00`.
        DateTime::parse_from_rfc3339(&format!("2026-11-{day:02}T{hour:02}:00:00+08:00")).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn the_last_snapshot_of_each_shanghai_day_is_kept() {
        // 00:30 Shanghai is the previous day in UTC: it still counts for its own day.
        let items = vec![(at(1, 9), 1), (at(1, 23), 2), (at(2, 0), 3), (at(2, 7), 4), (at(4, 12), 5)];
        let days = last_per_day(items, |i| i.0);
        let got: Vec<_> = days.iter().map(|(d, i)| (d.format("%d").to_string(), i.1)).collect();
        assert_eq!(got, [("01".into(), 2), ("02".into(), 4), ("04".into(), 5)]);
    }

    #[test]
    fn a_title_day_has_its_best_and_last_rank() {
        let entry = |source: &str, day, hour, rank, hot| HotListEntry {
            source: source.into(),
            captured_at: at(day, hour),
            rank,
            title: "t".into(),
            hot_value: hot,
            url: None,
            extra: None,
        };
        let entries = vec![
            entry("weibo", 1, 8, 5, Some(10)),
            entry("zhihu", 1, 9, 2, None),
            entry("weibo", 1, 20, 7, Some(30)),
            entry("baidu", 1, 20, 6, None),
            entry("weibo", 3, 10, 1, None),
        ];
        let days = title_days(&entries);
        assert_eq!(days.len(), 2);
        assert_eq!((days[0].best_rank, days[0].best_source.as_str(), days[0].last_rank), (2, "zhihu", 6));
        assert_eq!((days[0].captures, days[0].hot_value), (4, Some(30)));
        assert_eq!((days[1].best_rank, days[1].captures, days[1].hot_value), (1, 1, None));
    }
}
