//! Calls the core makes itself on an account's behalf (a tracking list's
//! run, docs/tracking.md "Pricing"): the same pipeline as a client's call
//! from step 2 on (maintenance, validation, pricing, reservation, the
//! operation with its source chain and timeout, settlement and usage), with
//! no key to authenticate and no rate limit (the account's schedule, not a
//! client, makes them). The answer is delivered at once, so a success is
//! committed as it returns and a failure is released.

use std::time::Instant;

use bytes::Bytes;

use super::{Call, Pipeline};
use crate::auth::Principal;
use mediaops_proto::error::ServiceError;

/// A successful inside call.
#[derive(Debug, Clone)]
pub struct InsideAnswer {
    /// The operation's answer, encoded (its RPC's output message).
    pub bytes: Bytes,
    /// Points charged for it (the operation's price, or 0 when free).
    pub points: i64,
}

impl Pipeline {
    /// Runs the operation `operation_key` (`shortvideo.query-account`) for
    /// `account_id` with the encoded request `body`, as `caller` (named in
    /// the principal's key id and the logs, e.g. `tracking:<list>`).
    ///
    /// # Errors
    /// An unknown operation key (500: a bug of the caller), then whatever
    /// the call meets as a client's would: 400 bad input, 402
    /// `insufficient_points` (nothing run), 502 upstream failures (the hold
    /// released), 503 maintenance or not implemented.
    pub async fn call_inside(
        &self,
        operation_key: &str,
        account_id: &str,
        caller: &str,
        body: Bytes,
    ) -> Result<InsideAnswer, ServiceError> {
        let op = self
            .registry
            .operations()
            .find(|op| op.key() == operation_key)
            .cloned()
            .ok_or_else(|| ServiceError::internal(format!("no operation {operation_key}")))?;
        let request_id = mediaops_proto::request_id::accept_or_new(None);
        let call = Call { request_id: &request_id, trace_id: None, started: Instant::now() };
        let principal =
            Principal { account_id: account_id.to_owned(), key_id: caller.to_owned(), key_prefix: caller.to_owned() };
        match self.run(&op, call, principal, tonic::Request::new(body)).await {
            Ok(answer) => {
                let points = answer.settlement.delivered(&answer.bytes).await;
                Ok(InsideAnswer { bytes: answer.bytes, points })
            }
            Err(error) => {
                self.metrics.observe_call(op.key(), error.code.as_str(), call.started.elapsed(), 0);
                tracing::info!(
                    request_id,
                    operation = op.key(),
                    account = account_id,
                    caller,
                    code = %error.code,
                    "failed"
                );
                Err(error)
            }
        }
    }
}
