//! Table-driven tests of every rule with the clock fixed at Friday
//! 2026-11-20 (Asia/Shanghai): the newest day is Wednesday 11-18, the last
//! finished week starts Monday 11-09, the last finished month is October.

use super::*;
use crate::clock::Clock;

fn today() -> NaiveDate {
    Clock::from_setting(Some("2026-11-20")).unwrap().today()
}

fn d(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
}

/// What a case expects: a window, an empty ranking whose warning contains
/// the text, or an error whose upstream message is the text.
#[derive(Debug)]
enum Want {
    Rank(&'static str, &'static str),
    Empty(&'static str),
    Upstream(&'static str),
}

fn run(rule: &PeriodRule, period: Period, date: Option<&str>) -> Result<Checked<Window>, ServiceError> {
    rule.check(today(), period, date.map(d), "rankDate")
}

fn assert_case(name: &str, got: Result<Checked<Window>, ServiceError>, want: &Want) {
    match (got, want) {
        (Ok(Checked::Rank(w)), Want::Rank(first, last)) => {
            assert_eq!((w.first, w.last), (d(first), d(last)), "{name}")
        }
        (Ok(Checked::Empty(why)), Want::Empty(text)) => assert!(why.contains(text), "{name}: {why:?} lacks {text:?}"),
        (Err(e), Want::Upstream(message)) => {
            assert_eq!(e.field.as_deref(), Some("rankDate"), "{name}");
            assert_eq!(e.upstream.as_ref().map(|u| u.message.as_str()), Some(*message), "{name}: {e:?}");
        }
        (got, want) => panic!("{name}: got {got:?}, want {want:?}"),
    }
}

#[test]
fn period_boundaries_lag_and_lookbacks_per_endpoint() {
    use Period::*;
    use Want::*;
    let cases: &[(&str, &PeriodRule, Period, Option<&str>, Want)] = &[
        // spec 4.1: daily lag of two days (every endpoint)
        ("top-account day newest", &LIFESTYLE_TOP_ACCOUNT, Day, Some("2026-11-18"), Rank("2026-11-18", "2026-11-18")),
        ("top-account yesterday", &LIFESTYLE_TOP_ACCOUNT, Day, Some("2026-11-19"), Empty("two-day lag")),
        ("top-account today", &LIFESTYLE_TOP_ACCOUNT, Day, Some("2026-11-20"), Empty("two-day lag")),
        ("top-account no date", &LIFESTYLE_TOP_ACCOUNT, Day, None, Rank("2026-11-18", "2026-11-18")),
        // spec 8: lifestyle daily account look-back 85 days
        ("top-account 85 days", &LIFESTYLE_TOP_ACCOUNT, Day, Some("2026-08-27"), Rank("2026-08-27", "2026-08-27")),
        ("top-account 86 days", &LIFESTYLE_TOP_ACCOUNT, Day, Some("2026-08-26"), Empty("85-day look-back")),
        // spec 8: shortvideo daily look-back 7 days
        ("rise-fans 7 days", &SHORTVIDEO_RISE_FANS, Day, Some("2026-11-13"), Rank("2026-11-13", "2026-11-13")),
        ("rise-fans 8 days", &SHORTVIDEO_RISE_FANS, Day, Some("2026-11-12"), Empty("7-day look-back")),
        ("rise-fans yesterday", &SHORTVIDEO_RISE_FANS, Day, Some("2026-11-19"), Empty("two-day lag")),
        // spec 4.1: week = Monday of a finished week
        ("week finished", &PLAIN, Week, Some("2026-11-09"), Rank("2026-11-09", "2026-11-15")),
        ("week wednesday", &PLAIN, Week, Some("2026-11-18"), Empty("is a Wednesday; week rankings need the Monday")),
        ("week running", &PLAIN, Week, Some("2026-11-16"), Empty("has not finished")),
        ("week default", &PLAIN, Week, None, Rank("2026-11-09", "2026-11-15")),
        ("week old, no limit", &PLAIN, Week, Some("2025-01-06"), Rank("2025-01-06", "2025-01-12")),
        // spec 4.1: month = 1st of a finished month
        ("month finished", &PLAIN, Month, Some("2026-10-01"), Rank("2026-10-01", "2026-10-31")),
        ("month mid", &PLAIN, Month, Some("2026-10-15"), Empty("not the 1st")),
        ("month running", &PLAIN, Month, Some("2026-11-01"), Empty("has not finished")),
        ("month default", &PLAIN, Month, None, Rank("2026-10-01", "2026-10-31")),
        ("month february", &PLAIN, Month, Some("2024-02-01"), Rank("2024-02-01", "2024-02-29")),
        // spec 4.5 / 8: articles-index-rank day T-2..T-7, week/month last 3, else 接口执行异常
        ("index T-2", &ARTICLES_INDEX, Day, Some("2026-11-18"), Rank("2026-11-18", "2026-11-18")),
        ("index T-7", &ARTICLES_INDEX, Day, Some("2026-11-13"), Rank("2026-11-13", "2026-11-13")),
        ("index T-8", &ARTICLES_INDEX, Day, Some("2026-11-12"), Upstream(EXECUTION_FAILED)),
        ("index T-1", &ARTICLES_INDEX, Day, Some("2026-11-19"), Empty("two-day lag")),
        ("index no date", &ARTICLES_INDEX, Day, None, Upstream(EXECUTION_FAILED)),
        ("index week 3rd", &ARTICLES_INDEX, Week, Some("2026-10-26"), Rank("2026-10-26", "2026-11-01")),
        ("index week 4th", &ARTICLES_INDEX, Week, Some("2026-10-19"), Upstream(EXECUTION_FAILED)),
        ("index week mid", &ARTICLES_INDEX, Week, Some("2026-10-28"), Empty("is a Wednesday")),
        ("index week running", &ARTICLES_INDEX, Week, Some("2026-11-16"), Empty("has not finished")),
        ("index month 3rd", &ARTICLES_INDEX, Month, Some("2026-08-01"), Rank("2026-08-01", "2026-08-31")),
        ("index month 4th", &ARTICLES_INDEX, Month, Some("2026-07-01"), Upstream(EXECUTION_FAILED)),
        ("index month running", &ARTICLES_INDEX, Month, Some("2026-11-01"), Empty("has not finished")),
        // spec 4.5 / 8: articles-raise-rank 29 days, lag two days, else 接口执行异常
        ("raise 29 days", &ARTICLES_RAISE, Day, Some("2026-10-22"), Rank("2026-10-22", "2026-10-22")),
        ("raise 30 days", &ARTICLES_RAISE, Day, Some("2026-10-21"), Upstream(EXECUTION_FAILED)),
        ("raise yesterday", &ARTICLES_RAISE, Day, Some("2026-11-19"), Empty("two-day lag")),
        ("raise no date", &ARTICLES_RAISE, Day, None, Upstream(EXECUTION_FAILED)),
    ];
    for (name, rule, period, date, want) in cases {
        assert_case(name, run(rule, *period, *date), want);
    }
}

#[test]
fn start_windows_of_the_boards() {
    let t = today();
    let rank = |rule: &StartRule, start: &str, end: Option<&str>| rule.check(t, d(start), end.map(d), "startDate");
    // spec 4.1 / 8: article 10万+ boards ~60 days, older is 日期格式错误
    assert_eq!(
        rank(&ARTICLE_HOT, "2026-09-21", Some("2026-11-20")).unwrap(),
        Checked::Rank(Window { first: d("2026-09-21"), last: d("2026-11-18") })
    );
    let e = rank(&ARTICLE_HOT, "2026-09-20", None).unwrap_err();
    assert_eq!(e.upstream.unwrap().message, BAD_DATE_FORMAT);
    assert_eq!(e.field.as_deref(), Some("startDate"));
    assert!(matches!(rank(&ARTICLE_HOT, "2026-11-19", None).unwrap(), Checked::Empty(w) if w.contains("lag")));
    assert!(matches!(rank(&ARTICLE_HOT, "2026-11-10", Some("2026-11-09")).unwrap(), Checked::Empty(_)));
    // spec 4.4 / 8: surge retention ~100 days, older is an empty board
    assert!(matches!(rank(&SURGE, "2026-08-12", None).unwrap(), Checked::Rank(_)));
    assert!(matches!(rank(&SURGE, "2026-08-11", None).unwrap(), Checked::Empty(w) if w.contains("100-day")));
    assert!(matches!(rank(&SURGE, "2026-11-20", None).unwrap(), Checked::Empty(_)));
}

#[test]
fn category_lists_per_endpoint_behaviour() {
    use CategoryList::*;
    type Case = (CategoryList, &'static str, bool, OutOfList, Result<Category, &'static str>, bool);
    let named = |s: &str| Category::Named(s.to_owned());
    let cases: Vec<Case> = vec![
        // LIST_LIFESTYLE: 综合全部 / empty = no filter; 综合 = 3203; out-of-list = all instead (top-account)
        (Lifestyle, "综合全部", true, OutOfList::AllInstead, Ok(Category::All), false),
        (Lifestyle, "", true, OutOfList::AllInstead, Ok(Category::All), false),
        (Lifestyle, "美味佳肴", true, OutOfList::AllInstead, Ok(named("美味佳肴")), false),
        (Lifestyle, "综合", true, OutOfList::AllInstead, Err(INVALID_CATEGORY_CODE), false),
        (Lifestyle, "综合", true, OutOfList::Empty, Err(INVALID_CATEGORY_CODE), false),
        (Lifestyle, "美食", true, OutOfList::AllInstead, Ok(Category::All), true),
        (Lifestyle, "美食", true, OutOfList::Empty, Ok(Category::OutOfList("美食".into())), true),
        // LIST_SHORTVIDEO: 全部 = all; out-of-list 3203 (rise-fans) or empty (top-account)
        (Shortvideo, "全部", true, OutOfList::Error, Ok(Category::All), false),
        (Shortvideo, "美食", true, OutOfList::Error, Ok(named("美食")), false),
        (Shortvideo, "美食餐饮", true, OutOfList::Error, Err(INVALID_CATEGORY_CODE), false),
        (Shortvideo, "美食餐饮", true, OutOfList::Empty, Ok(Category::OutOfList("美食餐饮".into())), true),
        // surge: the list without 全部
        (Shortvideo, "全部", false, OutOfList::Empty, Ok(Category::OutOfList("全部".into())), true),
        // LIST_ARTICLES: full names only; 科技 is out of list
        (Articles, "科技数码", true, OutOfList::Empty, Ok(named("科技数码")), false),
        (Articles, "民生资讯", true, OutOfList::Empty, Ok(named("民生资讯")), false),
        (Articles, "科技", true, OutOfList::Empty, Ok(Category::OutOfList("科技".into())), true),
    ];
    for (list, value, all_allowed, out, want, warns) in cases {
        let got = category(list, value, "category", all_allowed, out);
        match (got, want) {
            (Ok((c, warning)), Ok(w)) => {
                assert_eq!(c, w, "{value}");
                assert_eq!(warning.is_some(), warns, "{value}: {warning:?}");
            }
            (Err(e), Err(code)) => {
                assert_eq!(e.upstream.unwrap().code.as_deref(), Some(code), "{value}");
                assert_eq!(e.field.as_deref(), Some("category"));
            }
            (got, want) => panic!("{value}: got {got:?}, want {want:?}"),
        }
    }
    assert_eq!(Articles.note("民生资讯").as_deref(), Some("upstream currently has no data"));
    assert_eq!(Shortvideo.values().len(), 28);
}

#[test]
fn periods_are_singular() {
    assert_eq!(Period::parse("", "period").unwrap(), Period::Day);
    assert_eq!(Period::parse("week", "period").unwrap(), Period::Week);
    assert_eq!(Period::parse("weeks", "rankType").unwrap_err().field.as_deref(), Some("rankType"));
}
