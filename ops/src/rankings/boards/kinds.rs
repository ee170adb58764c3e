//! The catalogue of stored boards (docs/rankings.md "Boards as data"):
//! each [`Kind`] names what is ranked (on one platform, from one snapshot
//! table), the categories it is built for (every value of its spec 4.2
//! list, plus `""` for the whole platform), the window spans it is built
//! for, and the rule that says when a window of that span can be asked
//! for — the same rule the operation applies, so a board is built exactly
//! for the windows an operation can read.

use chrono::{Datelike, Days, Months, NaiveDate, Weekday};

use mediaops_store::model::{Counter, Measure};
use mediaops_store::rankings::board_tables::{BoardKey, Entities, Naming};
use mediaops_store::rankings::rules::{self as rules, CategoryList, Checked, Period, PeriodRule, StartRule, Window};

/// What a board ranks; one per ranked answer of the operations in scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// `lifestyle-top-account`: accounts by followers level.
    LifestyleFans,
    /// `lifestyle-daily-top`, `lifestyle-weekly-top`: notes by likes gained.
    LifestyleNotes,
    /// `lifestyle-low-fans-top`: notes of authors below 10,000 followers by likes gained.
    LifestyleLowFansNotes,
    /// `douyin-rise-fans-rank`: accounts by followers gained.
    ShortvideoRiseFans,
    /// `shortvideo-top-account`: accounts by influence score.
    ShortvideoInfluence,
    /// `shortvideo-content-surge` (day and 7-day boards), `shortvideo-likes-rank`
    /// (a day, or 7 days): works by likes gained.
    ShortvideoLikes,
    /// `articles-index-rank`: authors by index score.
    ArticlesIndex,
    /// `articles-raise-rank`: authors by reads gained (no category).
    ArticlesRaise,
    /// `category-time-hot`, first board: articles published in the window
    /// with reads ≥ 100,000, by reads.
    ArticlesHundredK,
    /// `category-time-hot`, second board: original articles published in
    /// the window, by reads.
    ArticlesOriginal,
    /// Keyword values (docs/rankings.md "Keyword values"), `lifestyle-hit-data`'s
    /// 点赞TOP500: every note's likes on the newest day.
    LifestyleKeywordLikes,
    /// Keyword values, `lifestyle-hit-data`'s 低粉爆文: the likes on the
    /// newest day of every note whose stored author has fewer than 10,000
    /// followers (when built).
    LifestyleKeywordLowFansLikes,
    /// Keyword values, `lifestyle-hit-data`'s 单日互动: every note's
    /// interactions gained on the newest day.
    LifestyleKeywordInteractions,
    /// Keyword values, `lifestyle-hit-data`'s 七日增长: every note's likes
    /// gained over the 7 days ending on the newest day.
    LifestyleKeywordGrowth,
    /// Keyword values, `articles-hit-cover`'s 10万+ board over its default
    /// window (the 7 days ending on the newest day): every article's reads.
    ArticlesKeywordReads,
    /// Keyword values, `articles-hit-cover`'s reads-gained board over its
    /// default window: every article's reads gained.
    ArticlesKeywordReadsGained,
}

/// A window shape a board is built for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Span {
    /// One day.
    Day,
    /// Monday to Sunday.
    Week,
    /// A calendar month.
    Month,
    /// Seven days from any day (the surge board's week).
    Seven,
}

impl Span {
    /// The stored period name.
    pub fn as_str(self) -> &'static str {
        match self {
            Span::Day => "day",
            Span::Week => "week",
            Span::Month => "month",
            Span::Seven => "7days",
        }
    }

    /// The windows of this span whose board depends on the snapshots of
    /// `day`: those holding `day` or starting the day after (whose gains
    /// start from `day`'s last snapshot; docs/rankings.md "Levels and gains").
    pub fn affected(self, day: NaiveDate) -> Vec<Window> {
        let next = day + Days::new(1);
        let mut windows = match self {
            Span::Day => vec![Window::day(day), Window::day(next)],
            Span::Week => vec![week(rules::monday_of(day)), week(rules::monday_of(next))],
            Span::Month => vec![month(rules::first_of_month(day)), month(rules::first_of_month(next))],
            Span::Seven => (0..8).map(|back| seven(next - Days::new(back))).collect(),
        };
        windows.dedup();
        windows
    }
}

impl Span {
    /// Whether `window` is a window of this span.
    pub fn holds(self, window: Window) -> bool {
        match self {
            Span::Day => window.first == window.last,
            Span::Week => window.first.weekday() == Weekday::Mon && window == week(window.first),
            Span::Month => window.first.day() == 1 && window == month(window.first),
            Span::Seven => window == seven(window.first),
        }
    }
}

fn week(monday: NaiveDate) -> Window {
    Window { first: monday, last: monday + Days::new(6) }
}

fn seven(first: NaiveDate) -> Window {
    Window { first, last: first + Days::new(6) }
}

fn month(first: NaiveDate) -> Window {
    Window { first, last: first + Months::new(1) - Days::new(1) }
}

/// The rule an operation applies to a window of a span (spec 4.1, 8).
#[derive(Debug, Clone, Copy)]
enum Rule {
    /// `period` + `rankDate` rankings.
    Period(PeriodRule, Period),
    /// Rankings asked by a start (and end) date.
    Start(StartRule),
    /// The keyword boards: always the window ending on the newest day
    /// (spec 4.1: today − 2).
    Newest,
}

impl Rule {
    /// Whether an operation asked on `today` ranks exactly `window`.
    fn ranks(self, today: NaiveDate, window: Window) -> bool {
        let checked = match self {
            Rule::Period(rule, period) => rule.check(today, period, Some(window.first), "rankDate"),
            Rule::Start(rule) => rule.check(today, window.first, Some(window.last), "startTime"),
            Rule::Newest => return window.last == rules::newest_day(today),
        };
        matches!(checked, Ok(Checked::Rank(w)) if w == window)
    }
}

/// Every kind, in build order.
pub const ALL: [Kind; 16] = [
    Kind::LifestyleFans,
    Kind::LifestyleNotes,
    Kind::LifestyleLowFansNotes,
    Kind::ShortvideoRiseFans,
    Kind::ShortvideoInfluence,
    Kind::ShortvideoLikes,
    Kind::ArticlesIndex,
    Kind::ArticlesRaise,
    Kind::ArticlesHundredK,
    Kind::ArticlesOriginal,
    Kind::LifestyleKeywordLikes,
    Kind::LifestyleKeywordLowFansLikes,
    Kind::LifestyleKeywordInteractions,
    Kind::LifestyleKeywordGrowth,
    Kind::ArticlesKeywordReads,
    Kind::ArticlesKeywordReadsGained,
];

/// How a kind's rows are read back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Works with their authors (`BoardWork`).
    Works,
    /// Named accounts or authors (`NamedRow`).
    Named(Naming),
    /// Every work's value of a counter and measure, read per keyword match
    /// (`BoardTables::put_values`).
    Values(Counter, Measure),
}

impl Kind {
    /// The stored `kind`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::LifestyleFans => "lifestyle-fans",
            Kind::LifestyleNotes => "lifestyle-notes-likes",
            Kind::LifestyleLowFansNotes => "lifestyle-low-fans-notes-likes",
            Kind::ShortvideoRiseFans => "shortvideo-fans-gained",
            Kind::ShortvideoInfluence => "shortvideo-influence",
            Kind::ShortvideoLikes => "shortvideo-likes-gained",
            Kind::ArticlesIndex => "articles-index",
            Kind::ArticlesRaise => "articles-reads-gained",
            Kind::ArticlesHundredK => "articles-hot-100k",
            Kind::ArticlesOriginal => "articles-hot-original",
            Kind::LifestyleKeywordLikes => "lifestyle-keyword-likes",
            Kind::LifestyleKeywordLowFansLikes => "lifestyle-keyword-low-fans-likes",
            Kind::LifestyleKeywordInteractions => "lifestyle-keyword-interactions-gained",
            Kind::LifestyleKeywordGrowth => "lifestyle-keyword-likes-gained",
            Kind::ArticlesKeywordReads => "articles-keyword-reads",
            Kind::ArticlesKeywordReadsGained => "articles-keyword-reads-gained",
        }
    }

    /// The kind stored as `name`.
    pub fn from_name(name: &str) -> Option<Kind> {
        ALL.into_iter().find(|k| k.name() == name)
    }

    /// The platform token.
    pub fn platform(self) -> &'static str {
        match self {
            Kind::LifestyleFans
            | Kind::LifestyleNotes
            | Kind::LifestyleLowFansNotes
            | Kind::LifestyleKeywordLikes
            | Kind::LifestyleKeywordLowFansLikes
            | Kind::LifestyleKeywordInteractions
            | Kind::LifestyleKeywordGrowth => "lifestyle",
            Kind::ShortvideoRiseFans | Kind::ShortvideoInfluence | Kind::ShortvideoLikes => "shortvideo",
            Kind::ArticlesIndex
            | Kind::ArticlesRaise
            | Kind::ArticlesHundredK
            | Kind::ArticlesOriginal
            | Kind::ArticlesKeywordReads
            | Kind::ArticlesKeywordReadsGained => "articles",
        }
    }

    /// The snapshot table whose writes change the board.
    pub fn entities(self) -> Entities {
        match self {
            Kind::LifestyleFans | Kind::ShortvideoRiseFans | Kind::ShortvideoInfluence => Entities::Accounts,
            _ => Entities::Works,
        }
    }

    /// How its rows are read back.
    pub fn shape(self) -> Shape {
        match self {
            Kind::LifestyleFans | Kind::ShortvideoRiseFans | Kind::ShortvideoInfluence => {
                Shape::Named(Naming::Accounts)
            }
            Kind::ArticlesIndex | Kind::ArticlesRaise => Shape::Named(Naming::Authors),
            Kind::LifestyleKeywordLikes | Kind::LifestyleKeywordLowFansLikes => {
                Shape::Values(Counter::Likes, Measure::Level)
            }
            Kind::LifestyleKeywordInteractions => Shape::Values(Counter::Interactions, Measure::Gain),
            Kind::LifestyleKeywordGrowth => Shape::Values(Counter::Likes, Measure::Gain),
            Kind::ArticlesKeywordReads => Shape::Values(Counter::Views, Measure::Level),
            Kind::ArticlesKeywordReadsGained => Shape::Values(Counter::Views, Measure::Gain),
            _ => Shape::Works,
        }
    }

    /// The category list it is built for (`None`: the whole platform only).
    fn list(self) -> Option<CategoryList> {
        match self.platform() {
            _ if self == Kind::ArticlesRaise || matches!(self.shape(), Shape::Values(..)) => None,
            "lifestyle" => Some(CategoryList::Lifestyle),
            "shortvideo" => Some(CategoryList::Shortvideo),
            _ => Some(CategoryList::Articles),
        }
    }

    /// `""` (the whole platform) and every value of its list but the
    /// list's "all" value (全部, 综合全部).
    pub fn categories(self) -> Vec<String> {
        let mut out = vec![String::new()];
        if let Some(list) = self.list() {
            out.extend(list.values().into_iter().filter(|v| Some(v.as_str()) != list.all_value()));
        }
        out
    }

    /// The spans it is built for, each with the rule of the operation
    /// that reads it.
    fn spans(self) -> Vec<(Span, Rule)> {
        let periods = |rule: PeriodRule, periods: &[Period]| -> Vec<(Span, Rule)> {
            periods
                .iter()
                .map(|p| {
                    let span = match p {
                        Period::Day => Span::Day,
                        Period::Week => Span::Week,
                        Period::Month => Span::Month,
                    };
                    (span, Rule::Period(rule, *p))
                })
                .collect()
        };
        let all = [Period::Day, Period::Week, Period::Month];
        match self {
            Kind::LifestyleFans => periods(rules::LIFESTYLE_TOP_ACCOUNT, &all),
            Kind::LifestyleNotes => periods(rules::PLAIN, &[Period::Day, Period::Week]),
            Kind::LifestyleLowFansNotes => periods(rules::PLAIN, &[Period::Day]),
            Kind::ShortvideoRiseFans => periods(rules::SHORTVIDEO_RISE_FANS, &all),
            Kind::ShortvideoInfluence => periods(rules::PLAIN, &all),
            // The day board serves `likes-rank` (lag only) and the surge's
            // day board; the 7-day board the surge's week (100 days).
            Kind::ShortvideoLikes => {
                vec![(Span::Day, Rule::Start(rules::LAG_ONLY)), (Span::Seven, Rule::Start(rules::SURGE))]
            }
            Kind::ArticlesIndex => periods(rules::ARTICLES_INDEX, &all),
            Kind::ArticlesRaise => periods(rules::ARTICLES_RAISE, &[Period::Day]),
            Kind::ArticlesHundredK | Kind::ArticlesOriginal => {
                vec![(Span::Week, Rule::Start(rules::ARTICLE_HOT)), (Span::Month, Rule::Start(rules::ARTICLE_HOT))]
            }
            Kind::LifestyleKeywordLikes | Kind::LifestyleKeywordLowFansLikes | Kind::LifestyleKeywordInteractions => {
                vec![(Span::Day, Rule::Newest)]
            }
            Kind::LifestyleKeywordGrowth | Kind::ArticlesKeywordReads | Kind::ArticlesKeywordReadsGained => {
                vec![(Span::Seven, Rule::Newest)]
            }
        }
    }

    /// The key of its board of `window` and `category` (`None` = all).
    pub fn key(self, span: Span, window: Window, category: Option<&str>) -> BoardKey {
        BoardKey {
            platform: self.platform().to_owned(),
            kind: self.name().to_owned(),
            category: category.unwrap_or_default().to_owned(),
            first: window.first,
            last: window.last,
            period: span.as_str().to_owned(),
        }
    }

    /// The span of `window` among this kind's, if it is one of them.
    pub fn span_of(self, window: Window) -> Option<Span> {
        self.spans().into_iter().map(|(s, _)| s).find(|s| s.holds(window))
    }

    /// Whether `window` is a window of one of its spans that its operation
    /// ranks as asked on `today` (complete, within the look-back): such a
    /// board is built, and read.
    pub fn readable(self, window: Window, today: NaiveDate) -> bool {
        self.spans().into_iter().any(|(span, rule)| span.holds(window) && rule.ranks(today, window))
    }

    /// Whether `window` is worth waiting for: readable on the first day its
    /// days are all final (today − 2, spec 4.1), or today when that is later.
    pub fn wanted(self, window: Window, today: NaiveDate) -> bool {
        let complete_on = window.last + Days::new(rules::DAILY_LAG_DAYS);
        self.readable(window, today.max(complete_on))
    }

    /// The keys of every board of this kind that the snapshots of `day`
    /// change and that are wanted on `today`, over every category.
    pub fn affected(self, day: NaiveDate, today: NaiveDate) -> Vec<BoardKey> {
        let categories = self.categories();
        let mut out = Vec::new();
        for (span, _) in self.spans() {
            for window in span.affected(day) {
                if self.wanted(window, today) {
                    out.extend(categories.iter().map(|c| self.key(span, window, Some(c))));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nov(day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, day).unwrap_or_default()
    }

    #[test]
    fn a_day_changes_its_windows_and_those_starting_the_day_after() {
        // Sunday 11-15: the days 15 and 16, the weeks of 9 and 16, November.
        assert_eq!(Span::Day.affected(nov(15)), [Window::day(nov(15)), Window::day(nov(16))]);
        let weeks: Vec<NaiveDate> = Span::Week.affected(nov(15)).iter().map(|w| w.first).collect();
        assert_eq!(weeks, [nov(9), nov(16)]);
        assert!(Span::Week.affected(nov(15)).iter().all(|w| Span::Week.holds(*w)));
        assert!(!Span::Week.holds(Window { first: nov(10), last: nov(16) }));
        assert_eq!(Span::Month.affected(nov(15)), [Window { first: nov(1), last: nov(30) }]);
        let oct31 = NaiveDate::from_ymd_opt(2026, 10, 31).unwrap_or_default();
        assert_eq!(Span::Month.affected(oct31).len(), 2);
        let sevens = Span::Seven.affected(nov(15));
        assert_eq!((sevens.len(), sevens[0].first, sevens[7].first), (8, nov(16), nov(9)));
    }

    #[test]
    fn boards_are_wanted_as_their_operations_read_them() {
        let today = nov(20);
        let week = Window { first: nov(9), last: nov(15) };
        assert!(Kind::LifestyleNotes.readable(week, today));
        assert!(!Kind::LifestyleLowFansNotes.readable(week, today), "low-fans is a day board");
        // The running week is not readable yet, but wanted: it will be.
        let running = Window { first: nov(16), last: nov(22) };
        assert!(!Kind::LifestyleNotes.readable(running, today) && Kind::LifestyleNotes.wanted(running, today));
        // Rise-fans days look back 7 days; index days T-2..T-7.
        assert!(!Kind::ShortvideoRiseFans.wanted(Window::day(nov(12)), today));
        assert!(Kind::ShortvideoRiseFans.readable(Window::day(nov(13)), today));
        assert!(!Kind::ArticlesIndex.wanted(Window::day(nov(12)), today));
        // A 7-day board cut at the newest day is not canonical.
        assert!(Kind::ShortvideoLikes.readable(Window { first: nov(12), last: nov(18) }, today));
        assert!(!Kind::ShortvideoLikes.readable(Window { first: nov(13), last: nov(19) }, today));
        assert_eq!(Kind::ShortvideoLikes.span_of(Window { first: nov(12), last: nov(18) }), Some(Span::Seven));
        assert_eq!(Kind::ArticlesRaise.categories(), [""]);
        assert!(Kind::ShortvideoLikes.categories().len() > 20);
        assert!(!Kind::ShortvideoLikes.categories().iter().any(|c| c == "全部"));
        assert_eq!(Kind::from_name("articles-index"), Some(Kind::ArticlesIndex));
    }
}
