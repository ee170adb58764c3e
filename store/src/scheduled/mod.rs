//! The record the schedulers of watch lists (docs/watchlists.md
//! "Scheduling") and tracking lists (docs/tracking.md "Scheduling") keep
//! beside their owner's spec: state, next and last run, and the outcome a
//! run writes back. Both tables carry the same columns and row lease
//! (`crate::scheduled` reads and leases them for both backends).

pub(crate) mod sql_store;

/// One stored list: the owner's spec `S` (a proto message, stored as proto
/// JSON) and what the scheduler keeps beside it.
#[derive(Debug, Clone, PartialEq)]
pub struct Scheduled<S> {
    /// 1-64 characters of `[A-Za-z0-9_-]`, unique per account.
    pub id: String,
    /// The owner's spec as saved (the watch list's or tracking list's
    /// message); the scheduler never changes it.
    pub spec: S,
    /// RFC 3339 UTC with milliseconds, from the service clock.
    pub created_at: String,
    /// When the owner last saved the list: RFC 3339 UTC with milliseconds,
    /// from the service clock (`updatedAt` of the answers).
    pub updated_at: String,
    /// `active`, `paused` or `paused_insufficient_points`.
    pub state: String,
    /// Why the list is in its state, for the owner (`stateReason`; e.g. the
    /// points a run lacked); empty when active.
    pub state_reason: String,
    /// When the scheduler runs it next (Unix ms); `None`: not scheduled.
    pub next_run_ms: Option<i64>,
    /// When it last ran (watch lists: the end of the last window looked at) (Unix ms).
    pub last_run_ms: Option<i64>,
}

/// What one run leaves behind (`finish` of the list's store).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOutcome {
    /// The list's state after the run ([`Scheduled::state`]): a run short
    /// of points pauses it as `paused_insufficient_points`.
    pub state: String,
    /// The reason written with it ([`Scheduled::state_reason`]).
    pub state_reason: String,
    /// When the scheduler runs it next (Unix ms); `None` unschedules it.
    pub next_run_ms: Option<i64>,
    /// When it last ran, as [`Scheduled::last_run_ms`] (Unix ms).
    pub last_run_ms: Option<i64>,
}

impl<S> Scheduled<S> {
    /// The record of a list its owner saves at `stamp` (RFC 3339 UTC):
    /// `state` and `next_run_ms` as the save decided, no state reason, and
    /// the creation time and last run of the `previous` record of the same
    /// id, if there was one.
    pub fn saved(
        id: String,
        spec: S,
        (state, next_run_ms): (&str, Option<i64>),
        stamp: String,
        previous: Option<&Scheduled<S>>,
    ) -> Scheduled<S> {
        Scheduled {
            id,
            spec,
            created_at: previous.map_or_else(|| stamp.clone(), |p| p.created_at.clone()),
            updated_at: stamp,
            state: state.to_owned(),
            state_reason: String::new(),
            next_run_ms,
            last_run_ms: previous.and_then(|p| p.last_run_ms),
        }
    }

    /// The outcome that leaves the record as it is: its state, reason,
    /// next and last run (a run that failed writes it back, so the same
    /// firing is tried again; a run starts from it and changes what it did).
    pub fn unchanged(&self) -> RunOutcome {
        RunOutcome {
            state: self.state.clone(),
            state_reason: self.state_reason.clone(),
            next_run_ms: self.next_run_ms,
            last_run_ms: self.last_run_ms,
        }
    }
}

/// A generated message as proto JSON.
///
/// # Errors
/// 500 when the message does not serialize (a bug).
pub fn to_json<T: prost::Message + prost::Name>(message: &T) -> Result<String, mediaops_proto::error::ServiceError> {
    serde_json::to_string(&mediaops_proto::to_dynamic(message))
        .map_err(|e| mediaops_proto::error::ServiceError::internal(e.to_string()))
}

/// [`to_json`]'s form back; a stored document that does not read is a 500.
pub fn from_json<T: prost::Message + prost::Name + Default>(
    json: &str,
) -> Result<T, mediaops_proto::error::ServiceError> {
    let read = || -> Result<T, String> {
        let mut de = serde_json::Deserializer::from_str(json);
        let message = prost_reflect::DynamicMessage::deserialize(mediaops_proto::descriptor_of::<T>(), &mut de)
            .map_err(|e| e.to_string())?;
        message.transcode_to::<T>().map_err(|e| e.to_string())
    };
    read()
        .map_err(|e| mediaops_proto::error::ServiceError::internal(format!("a stored {} does not read: {e}", T::NAME)))
}
