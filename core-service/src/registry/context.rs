//! What a handler knows about the call it serves.

use std::sync::Arc;

use super::OperationInfo;
use crate::auth::Principal;
use crate::billing::hold::HoldSlot;

/// The authenticated caller, the request id and the operation of one call.
#[derive(Debug, Clone)]
pub struct CallContext {
    /// Echoed from the client's `x-request-id`, or generated.
    pub request_id: String,
    pub principal: Principal,
    pub operation: Arc<OperationInfo>,
    /// The points reserved for this call; a handler whose work outlives the
    /// call takes them over (docs/tasks.md "Billing").
    pub hold: HoldSlot,
}

impl CallContext {
    /// The caller's account id.
    pub fn account_id(&self) -> &str {
        &self.principal.account_id
    }
}
