//! Positioning-charter storage (spec 2.5, 4.15): `GET /api/ip-profile/charter`
//! (default profile), `GET /api/ip-profile/:id/charter`,
//! `PUT /api/ip-profile/:id/charter`. Free; no language model is called.
//!
//! Every account has the profile `default`, which reads as an empty charter
//! with `charterUpdatedAt: null` until stored. Any other profile exists once
//! a charter was PUT to it; reading it before is 404. A key sees only its
//! own account's profiles: another account's profile id is simply unknown.

pub mod rules;

use std::sync::Arc;

use mediaops_proto::mediaops::charter::v1::{PutCharterRequest, StoredCharter};

use mediaops_proto::error::ServiceError;
use mediaops_proto::excerpt::excerpt;
use mediaops_proto::value_lists::ValueLists;
use mediaops_store::charter::CharterStore;
use mediaops_store::clock::Clock;
use rules::DEFAULT_PROFILE;

/// The positioning charters of every account (spec 2.5, docs/charter.md): get
/// and put over a [`CharterStore`], checking values against the closed lists.
/// (The proto service is the generated `charter_service::CharterService`
/// trait, implemented by `services::charter::Charter` over this.)
pub struct Charters {
    store: Arc<dyn CharterStore>,
    lists: ValueLists,
    /// Stamps `charterUpdatedAt` (the service clock, `MEDIAOPS_NOW`).
    clock: Clock,
}

impl Charters {
    /// The charters over `store`, checking values against `lists` (spec 4.2), stamping changes with `clock`.
    pub fn new(store: Arc<dyn CharterStore>, lists: ValueLists, clock: Clock) -> Self {
        Charters { store, lists, clock }
    }

    /// Reads a profile's charter; 404 for an unknown profile other than `default`.
    pub async fn get(&self, account_id: &str, profile_id: &str) -> Result<StoredCharter, ServiceError> {
        rules::check_profile_id(profile_id)?;
        match self.store.get(account_id, profile_id).await? {
            Some(stored) => Ok(stored),
            None if profile_id == DEFAULT_PROFILE => Ok(StoredCharter {
                profile_id: DEFAULT_PROFILE.to_owned(),
                charter: Some(rules::empty_charter()),
                charter_updated_at: None,
            }),
            None => Err(ServiceError::not_found(format!("no profile {} in this account", excerpt(profile_id)))),
        }
    }

    /// Validates, normalizes and stores the whole charter; answers it with
    /// its new `charterUpdatedAt` (RFC 3339 UTC from the service clock).
    pub async fn put(&self, account_id: &str, request: PutCharterRequest) -> Result<StoredCharter, ServiceError> {
        rules::check_profile_id(&request.id)?;
        let charter =
            request.charter.ok_or_else(|| ServiceError::invalid_field("charter", "the charter is required"))?;
        let charter = rules::normalize(charter, &self.lists)?;
        let stored = StoredCharter {
            profile_id: request.id,
            charter: Some(charter),
            charter_updated_at: Some(self.clock.stamp()),
        };
        self.store.put(account_id, &stored).await?;
        Ok(stored)
    }
}
