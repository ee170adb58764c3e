//! Where charters live: the [`CharterStore`] trait, implemented for both
//! databases of the content store (`crate::charter`: SQLite in the
//! data dir, or PostgreSQL shared by every core; docs/state.md), and the
//! stored document's JSON form ([`to_json`], [`from_json`]): a
//! `StoredCharter` in proto JSON, as the file-backed store of earlier
//! releases wrote it.

mod sql_store;

use mediaops_proto::mediaops::charter::v1::StoredCharter;
use prost_reflect::DynamicMessage;

use mediaops_proto::error::ServiceError;

/// Charters by (account, profile). An account only ever reaches its own.
#[async_trait::async_trait]
pub trait CharterStore: Send + Sync + 'static {
    /// The stored charter of `profile`, `None` when it was never stored.
    async fn get(&self, account_id: &str, profile_id: &str) -> Result<Option<StoredCharter>, ServiceError>;

    /// Replaces the whole charter of the profile `stored.profile_id`
    /// (creating the profile), as given: the caller stamps
    /// `charterUpdatedAt` (`mediaops_ops::charter::Charters::put`).
    async fn put(&self, account_id: &str, stored: &StoredCharter) -> Result<(), ServiceError>;
}

/// A stored charter as proto JSON (`{"profileId", "charter", "charterUpdatedAt"}`).
///
/// # Errors
/// 500 when the message does not serialize (a bug).
pub fn to_json(stored: &StoredCharter) -> Result<String, ServiceError> {
    serde_json::to_string(&mediaops_proto::to_dynamic(stored)).map_err(|e| ServiceError::internal(e.to_string()))
}

/// Reads [`to_json`]'s form back; the error says what is wrong with it.
pub fn from_json(json: &[u8]) -> Result<StoredCharter, String> {
    let desc = mediaops_proto::descriptor_of::<StoredCharter>();
    let mut de = serde_json::Deserializer::from_slice(json);
    let message = DynamicMessage::deserialize(desc, &mut de).map_err(|e| e.to_string())?;
    message.transcode_to::<StoredCharter>().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use mediaops_proto::mediaops::charter::v1::{Charter, Positioning};

    /// A charter with an empty positioning (`mediaops_ops::charter::rules::empty_charter`
    /// fills every section; the JSON form is what is under test here).
    fn empty_charter() -> Charter {
        let s = || Some(String::new());
        Charter {
            version: Some(1),
            positioning: Some(Positioning { one_liner: s(), domain: s(), niche: s(), tag: s() }),
            ..Default::default()
        }
    }

    #[test]
    fn the_json_form_keeps_empty_strings_and_the_stamp() {
        let mut charter = empty_charter();
        charter.positioning.as_mut().unwrap().one_liner = Some("帮小团队做增长".into());
        let stored = StoredCharter {
            profile_id: "brand".into(),
            charter: Some(charter),
            charter_updated_at: Some("2026-01-01T00:00:00.000Z".into()),
        };
        let json = to_json(&stored).unwrap();
        assert!(json.contains(r#""charterUpdatedAt":"2026-01-01T00:00:00.000Z""#), "{json}");
        assert_eq!(from_json(json.as_bytes()).unwrap(), stored);
        assert!(from_json(b"{\"charter\": 1}").is_err());
    }
}
