//! Protobuf types of mediaops, generated from `proto/` at build time, plus the
//! embedded file descriptor set and the small wire helpers both the core and
//! the gateway need.
//!
//! The generated code lives in `OUT_DIR`; nothing generated is checked in.

#![allow(clippy::doc_lazy_continuation, clippy::large_enum_variant)]

pub mod bearer;
pub mod codec;
pub mod error_code;
pub mod options;

include!(concat!(env!("OUT_DIR"), "/_includes.rs"));

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
