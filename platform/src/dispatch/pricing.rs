//! What a call costs, read from the operation's catalog metadata (spec 8),
//! never from a second table:
//!
//! - `unitPrice` per call;
//! - multi-platform operations (`billing.platforms_field`, spec 8: `hot-topics`,
//!   `cn-last30days`, `trend-radar`): `billing.price_per_platform` per
//!   *distinct* requested platform; none requested means every allowed one;
//!   a platform outside the field's choices is a 400 naming the field;
//! - sync operations (`billing.listed_not_charged`): 0 although listed at 6;
//! - free operations have `unitPrice` 0.
//!
//! Draft publish (`billing.charge_on_success_only`) needs no rule of its
//! own: every price is reserved before the call and kept only on success.

// Keys from a fixed set (operations, fields): foldhash, not SipHash
// (docs/performance.md "Fixed-key maps with foldhash").
use foldhash::HashMap;

use mediaops_proto::mediaops::options::v1::Operation;
use mediaops_proto::wire::{Records, Scalar, for_each_value};
use prost_reflect::FieldDescriptor;

use crate::registry::Registry;
use mediaops_proto::error::ServiceError;
use mediaops_proto::excerpt::excerpt;

/// How one operation is priced.
#[derive(Debug, Clone)]
pub enum PriceRule {
    /// Always this many points (0 = free).
    Fixed(i64),
    /// `each` points per distinct value of the list field `field`.
    PerPlatform {
        /// The request's repeated platforms field (`billing.platforms_field`).
        field: FieldDescriptor,
        /// The field's choices; none requested means every one of them.
        allowed: Vec<String>,
        /// Points per platform (`billing.price_per_platform`).
        each: i64,
    },
}

impl PriceRule {
    /// The rule an operation's metadata gives.
    pub fn of(meta: &Operation, input: &prost_reflect::MessageDescriptor) -> PriceRule {
        let billing = meta.billing.clone().unwrap_or_default();
        if billing.listed_not_charged {
            return PriceRule::Fixed(0);
        }
        let field =
            (!billing.platforms_field.is_empty()).then(|| input.get_field_by_name(&billing.platforms_field)).flatten();
        match field {
            Some(field) => {
                let allowed = mediaops_proto::options::field(&field)
                    .map(|o| o.choices.into_iter().map(|c| c.value).collect())
                    .unwrap_or_default();
                PriceRule::PerPlatform { field, allowed, each: i64::from(billing.price_per_platform) }
            }
            None => PriceRule::Fixed(i64::from(meta.unit_price)),
        }
    }

    /// The price of one call with `request`, the top-level records of the
    /// request as [`crate::validate::FieldChecks::check`] read them.
    ///
    /// # Errors
    /// 400 naming the platforms field for a value outside its choices.
    pub fn price(&self, request: &Records<'_>) -> Result<i64, ServiceError> {
        match self {
            PriceRule::Fixed(points) => Ok(*points),
            PriceRule::PerPlatform { field, allowed, each } => {
                let mut distinct: Vec<&str> = Vec::new();
                let mut i = 0;
                for record in request.of(field.number()) {
                    for_each_value(&field.kind(), record, |value| {
                        let Scalar::Str(platform) = value else { return Ok(()) };
                        if !allowed.iter().any(|a| a == platform) {
                            let path = format!("{}[{i}]", field.json_name());
                            return Err(PriceError(ServiceError::invalid_field(
                                path.clone(),
                                format!("`{path}` is {}; allowed: {}", excerpt(platform), allowed.join(", ")),
                            )));
                        }
                        if !distinct.contains(&platform) {
                            distinct.push(platform);
                        }
                        i += 1;
                        Ok(())
                    })
                    .map_err(|e: PriceError| e.0)?;
                }
                let count = if distinct.is_empty() { allowed.len() } else { distinct.len() };
                Ok(count as i64 * each)
            }
        }
    }
}

/// An error of [`PriceRule::price`] while reading the platforms field.
struct PriceError(ServiceError);

impl From<mediaops_proto::wire::WireError> for PriceError {
    fn from(error: mediaops_proto::wire::WireError) -> Self {
        PriceError(ServiceError::new(
            mediaops_proto::error_code::ErrorCode::InvalidInput,
            format!("the request's platforms are not readable: {error}"),
        ))
    }
}

/// The price rule of every operation, by gRPC path.
#[derive(Debug, Default)]
pub struct Pricing {
    rules: HashMap<String, PriceRule>,
}

impl Pricing {
    /// The rule of every operation of `registry`, from its metadata.
    pub fn from_registry(registry: &Registry) -> Pricing {
        Pricing {
            rules: registry
                .operations()
                .map(|op| (op.grpc_path.clone(), PriceRule::of(&op.meta, &op.method.input())))
                .collect(),
        }
    }

    /// The rule of the operation at `grpc_path` (free when unknown).
    pub fn rule(&self, grpc_path: &str) -> &PriceRule {
        static FREE: PriceRule = PriceRule::Fixed(0);
        self.rules.get(grpc_path).unwrap_or(&FREE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;
    use serde_json::json;

    fn price_of(service: &str, method: &str, request: serde_json::Value) -> Result<i64, ServiceError> {
        let pool = mediaops_proto::descriptor_pool();
        let method = pool.get_service_by_name(service).unwrap().methods().find(|m| m.name() == method).unwrap();
        let meta = mediaops_proto::options::operation(&method).unwrap();
        let bytes = prost_reflect::DynamicMessage::deserialize(method.input(), request).unwrap().encode_to_vec();
        PriceRule::of(&meta, &method.input()).price(&Records::parse(&bytes).unwrap())
    }

    #[test]
    fn spec_8_prices() {
        let trend = "mediaops.trend.v1.TrendService";
        assert_eq!(price_of(trend, "HotTopics", json!({})).unwrap(), 12, "default: all three platforms");
        assert_eq!(price_of(trend, "HotTopics", json!({"platforms": ["articles"]})).unwrap(), 4);
        assert_eq!(
            price_of(trend, "HotTopics", json!({"platforms": ["articles", "lifestyle", "articles"]})).unwrap(),
            8
        );
        let err = price_of(trend, "HotTopics", json!({"platforms": ["weibo"]})).unwrap_err();
        assert_eq!(err.field.as_deref(), Some("platforms[0]"));
        let skills = "mediaops.skills.v1.SkillsService";
        assert_eq!(price_of(skills, "TrendRadar", json!({"platforms": ["shortvideo"]})).unwrap(), 4);
        assert_eq!(price_of(skills, "CnLast30days", json!({})).unwrap(), 12);
        assert_eq!(price_of(skills, "ImageGen", json!({"prompt": "x"})).unwrap(), 10);
        let lifestyle = "mediaops.lifestyle.v1.LifestyleService";
        assert_eq!(price_of(lifestyle, "LifestyleSyncNotes", json!({"redId": "r"})).unwrap(), 0, "sync is not charged");
        assert_eq!(price_of(lifestyle, "SearchNote", json!({})).unwrap(), 4);
        assert_eq!(price_of("mediaops.studio.v1.ArticleStudioService", "Render", json!({})).unwrap(), 0);
        assert_eq!(price_of("mediaops.studio.v1.ArticleStudioService", "Publish", json!({})).unwrap(), 1);
        assert_eq!(price_of("mediaops.charter.v1.CharterService", "PutCharter", json!({})).unwrap(), 0);
    }
}
