//! The positioning-charter rules of spec 2.5.
//!
//! - `version` is 1.
//! - Every string field is required (the gateway and the validator check
//!   presence) and may be empty; at most [`MAX_TEXT_CHARS`] characters (ours).
//! - `monetization.path`, `monetization.stage` and `northStar.metric` are in
//!   their closed whitelists (value lists `CHARTER_*` in charter.proto; the
//!   empty string means undecided); every `practicalPaths` entry is in the
//!   path whitelist.
//! - `practicalPaths` loses duplicates, keeping first-appearance order.
//! - `review.lastReviewedAt` is empty or an ISO 8601 date-time: RFC 3339 with
//!   an offset, or a local `YYYY-MM-DDTHH:mm:ss` taken as Asia/Shanghai.

use mediaops_proto::mediaops::charter::v1::{Audience, Charter, Monetization, NorthStar, Positioning, Review};

use mediaops_proto::error::ServiceError;
use mediaops_proto::excerpt::excerpt;
use mediaops_proto::value_lists::ValueLists;

/// Longest accepted text field, in characters (ours; the spec sets none).
pub const MAX_TEXT_CHARS: usize = 4000;

/// The charter version of spec 2.5 / 9.
pub const CHARTER_VERSION: i32 = 1;

/// Profile id of the default profile (`GET /api/ip-profile/charter`).
pub const DEFAULT_PROFILE: &str = "default";

/// Checks a profile id: 1 to 64 characters of `[A-Za-z0-9_-]`.
pub fn check_profile_id(id: &str) -> Result<(), ServiceError> {
    if mediaops_platform::validate::is_record_id(id) {
        Ok(())
    } else {
        Err(ServiceError::invalid_field("id", "profile id must be 1-64 characters of A-Z, a-z, 0-9, _ and -"))
    }
}

/// A charter with every field present and empty, `version` 1: what a
/// profile that was never stored reads as.
pub fn empty_charter() -> Charter {
    let s = || Some(String::new());
    Charter {
        version: Some(CHARTER_VERSION),
        positioning: Some(Positioning { one_liner: s(), domain: s(), niche: s(), tag: s() }),
        audience: Some(Audience { persona: s(), decision_scene: s(), payer_note: s() }),
        monetization: Some(Monetization { path: s(), practical_paths: Vec::new(), stage: s(), gap_note: s() }),
        north_star: Some(NorthStar { metric: s(), rationale: s() }),
        review: Some(Review { last_reviewed_at: s(), next_trigger: s() }),
    }
}

/// Validates `charter` and returns it normalized (deduplicated
/// `practicalPaths`). Errors name the field by its path inside the charter.
pub fn normalize(mut charter: Charter, lists: &ValueLists) -> Result<Charter, ServiceError> {
    match charter.version {
        Some(CHARTER_VERSION) => {}
        Some(other) => {
            return Err(ServiceError::invalid_field("version", format!("version must be 1, not {other}")));
        }
        None => return Err(missing("version")),
    }
    let positioning = charter.positioning.as_ref().ok_or_else(|| missing("positioning"))?;
    text("positioning.oneLiner", &positioning.one_liner)?;
    text("positioning.domain", &positioning.domain)?;
    text("positioning.niche", &positioning.niche)?;
    text("positioning.tag", &positioning.tag)?;
    let audience = charter.audience.as_ref().ok_or_else(|| missing("audience"))?;
    text("audience.persona", &audience.persona)?;
    text("audience.decisionScene", &audience.decision_scene)?;
    text("audience.payerNote", &audience.payer_note)?;
    let north_star = charter.north_star.as_ref().ok_or_else(|| missing("northStar"))?;
    whitelisted("northStar.metric", text("northStar.metric", &north_star.metric)?, "CHARTER_NORTH_STAR_METRIC", lists)?;
    text("northStar.rationale", &north_star.rationale)?;
    let review = charter.review.as_ref().ok_or_else(|| missing("review"))?;
    check_review_time(text("review.lastReviewedAt", &review.last_reviewed_at)?)?;
    text("review.nextTrigger", &review.next_trigger)?;

    let monetization = charter.monetization.as_mut().ok_or_else(|| missing("monetization"))?;
    whitelisted(
        "monetization.path",
        text("monetization.path", &monetization.path)?,
        "CHARTER_MONETIZATION_PATH",
        lists,
    )?;
    whitelisted("monetization.stage", text("monetization.stage", &monetization.stage)?, "CHARTER_STAGE", lists)?;
    text("monetization.gapNote", &monetization.gap_note)?;
    let mut seen = Vec::with_capacity(monetization.practical_paths.len());
    for (i, path) in monetization.practical_paths.iter().enumerate() {
        whitelisted(&format!("monetization.practicalPaths[{i}]"), path, "CHARTER_MONETIZATION_PATH", lists)?;
        if !seen.contains(path) {
            seen.push(path.clone());
        }
    }
    monetization.practical_paths = seen;
    Ok(charter)
}

fn missing(field: &str) -> ServiceError {
    ServiceError::invalid_field(field, format!("`{field}` is required"))
}

fn text<'a>(field: &str, value: &'a Option<String>) -> Result<&'a str, ServiceError> {
    let value = value.as_deref().ok_or_else(|| missing(field))?;
    if value.chars().count() > MAX_TEXT_CHARS {
        return Err(ServiceError::invalid_field(
            field,
            format!("`{field}` is longer than {MAX_TEXT_CHARS} characters"),
        ));
    }
    Ok(value)
}

fn whitelisted(field: &str, value: &str, list: &str, lists: &ValueLists) -> Result<(), ServiceError> {
    let allowed = lists.get(list).map(|l| l.values.as_slice()).unwrap_or_default();
    if allowed.iter().any(|v| v == value) {
        return Ok(());
    }
    let shown: Vec<_> =
        allowed.iter().map(|v| if v.is_empty() { "\"\" (undecided)".to_owned() } else { v.clone() }).collect();
    Err(ServiceError::invalid_field(field, format!("`{field}` is {}; allowed: {}", excerpt(value), shown.join(", "))))
}

fn check_review_time(value: &str) -> Result<(), ServiceError> {
    if value.is_empty()
        || chrono::DateTime::parse_from_rfc3339(value).is_ok()
        || chrono::NaiveDateTime::parse_from_str(value, "%Y-%m-%dT%H:%M:%S%.f").is_ok()
    {
        return Ok(());
    }
    Err(ServiceError::invalid_field(
        "review.lastReviewedAt",
        format!(
            "`review.lastReviewedAt` is {value:?}: use an ISO time such as 2026-11-01T10:00:00+08:00, or \"\" when never reviewed"
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lists() -> ValueLists {
        ValueLists::from_pool(mediaops_proto::descriptor_pool())
    }

    #[test]
    fn empty_charter_is_valid() {
        assert_eq!(normalize(empty_charter(), &lists()).unwrap(), empty_charter());
    }

    #[test]
    fn practical_paths_are_deduplicated_in_first_order() {
        let mut charter = empty_charter();
        charter.monetization.as_mut().unwrap().practical_paths =
            ["consulting", "membership", "consulting", "paid_knowledge", "membership"].map(String::from).to_vec();
        let normalized = normalize(charter, &lists()).unwrap();
        assert_eq!(normalized.monetization.unwrap().practical_paths, ["consulting", "membership", "paid_knowledge"]);
    }

    #[test]
    fn spec_values_pass_and_others_are_named() {
        let mut charter = empty_charter();
        let m = charter.monetization.as_mut().unwrap();
        m.path = Some("membership".into());
        m.stage = Some("accumulation".into());
        charter.north_star.as_mut().unwrap().metric = Some("private_leads".into());
        charter.review.as_mut().unwrap().last_reviewed_at = Some("2026-11-01T10:00:00+08:00".into());
        assert!(normalize(charter.clone(), &lists()).is_ok());

        let mut bad = charter.clone();
        bad.monetization.as_mut().unwrap().stage = Some("later".into());
        assert_eq!(normalize(bad, &lists()).unwrap_err().field.as_deref(), Some("monetization.stage"));
        let mut bad = charter.clone();
        bad.monetization.as_mut().unwrap().practical_paths = vec!["membership".into(), "mlm".into()];
        assert_eq!(normalize(bad, &lists()).unwrap_err().field.as_deref(), Some("monetization.practicalPaths[1]"));
        let mut bad = charter.clone();
        bad.review.as_mut().unwrap().last_reviewed_at = Some("yesterday".into());
        assert_eq!(normalize(bad, &lists()).unwrap_err().field.as_deref(), Some("review.lastReviewedAt"));
        let mut bad = charter.clone();
        bad.version = Some(2);
        assert_eq!(normalize(bad, &lists()).unwrap_err().field.as_deref(), Some("version"));
        let mut bad = charter;
        bad.audience.as_mut().unwrap().payer_note = None;
        assert_eq!(normalize(bad, &lists()).unwrap_err().field.as_deref(), Some("audience.payerNote"));
    }

    #[test]
    fn profile_ids() {
        assert!(check_profile_id("default").is_ok());
        assert!(check_profile_id("brand-2_a").is_ok());
        for bad in ["", "../x", "a b", &"x".repeat(65), "中文"] {
            assert!(check_profile_id(bad).is_err(), "{bad}");
        }
    }
}
