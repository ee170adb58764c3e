//! Protobuf types of mediaops, generated from `proto/` at build time, plus the
//! embedded file descriptor set and the small wire helpers both the core and
//! the gateway need.
//!
//! The generated code lives in `OUT_DIR`; nothing generated is checked in.

#![allow(clippy::doc_lazy_continuation, clippy::large_enum_variant)]

pub mod bearer;
pub mod codec;
pub mod delivery;
pub mod error;
pub mod error_code;
pub mod excerpt;
pub mod grpc_error;
pub mod idempotency;
pub mod json_schema;
pub mod logging;
pub mod options;
pub mod rate_limit;
pub mod readiness;
pub mod request_id;
pub mod service;
pub mod spec_names;
pub mod task_id;
pub mod traceparent;
pub mod value_lists;
pub mod warnings;

/// The prost and tonic code generated from `proto/` (re-exported at the
/// crate root: `mediaops_proto::mediaops::…`). Its docs are the protos'
/// comments; fields without one are not flagged (`missing_docs`).
#[allow(missing_docs)]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/_includes.rs"));
}
pub use generated::*;

/// The encoded `FileDescriptorSet` of every file under `proto/`, imports
/// included (google/protobuf/*). Used for reflection, the catalogs and the
/// gateway's route table.
pub const FILE_DESCRIPTOR_SET: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/descriptor.bin"));

/// The descriptor pool decoded from [`FILE_DESCRIPTOR_SET`], built once.
pub fn descriptor_pool() -> &'static prost_reflect::DescriptorPool {
    static POOL: std::sync::OnceLock<prost_reflect::DescriptorPool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        prost_reflect::DescriptorPool::decode(FILE_DESCRIPTOR_SET)
            .expect("the descriptor set embedded at build time decodes")
    })
}

/// The descriptor of a generated message type.
///
/// # Panics
/// Never for types generated from `proto/`: they are all in the pool.
pub fn descriptor_of<T: prost::Name>() -> prost_reflect::MessageDescriptor {
    descriptor_pool()
        .get_message_by_name(&T::full_name())
        .expect("every generated message is in the embedded descriptor pool")
}

/// A generated message as a dynamic one (for proto JSON and reflection).
pub fn to_dynamic<T: prost::Message + prost::Name>(message: &T) -> prost_reflect::DynamicMessage {
    let mut dynamic = prost_reflect::DynamicMessage::new(descriptor_of::<T>());
    dynamic.transcode_from(message).expect("a generated message transcodes to its own descriptor");
    dynamic
}
