//! One operation of the registry: its RPC and its metadata.

use mediaops_proto::mediaops::options::v1::{AvailabilityStatus, Operation};
use prost_reflect::MethodDescriptor;

/// One RPC's descriptor and metadata.
#[derive(Debug, Clone)]
pub struct OperationInfo {
    /// `/package.Service/Method`, as gRPC requests name it.
    pub grpc_path: String,
    /// The RPC.
    pub method: MethodDescriptor,
    /// Its `(mediaops.options.v1.operation)` option, identity derived.
    pub meta: Operation,
}

impl OperationInfo {
    /// `operationKey` (spec 2.2), e.g. `lifestyle.search-note`.
    pub fn key(&self) -> &str {
        &self.meta.operation_key
    }

    /// Whether the proto declares the operation under maintenance (spec 3);
    /// run-time switches are [`crate::maintenance`]'s.
    pub fn under_maintenance(&self) -> bool {
        self.meta.availability.as_ref().is_some_and(|a| a.status() == AvailabilityStatus::Maintenance)
    }
}
