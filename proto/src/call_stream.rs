//! The call stream between a gateway and a core (docs/performance.md "Calls
//! as messages on a stream"): one bidirectional gRPC stream carries many
//! calls, each as messages, instead of one HTTP/2 stream (with its headers
//! and trailers) per call. A split gateway uses it unless
//! `MEDIAOPS_CORE_TRANSPORT=unary`; every gRPC client keeps calling the
//! operations' unary RPCs.
//!
//! The RPC is [`PATH`], `stream CallFrame` in, `stream AnswerFrame` out.
//! Its messages are written here with prost's derive (no `.proto` file:
//! the gateway and the core of one build are its only two ends, and the
//! operations' descriptor set, which reflection and the REST routes read,
//! stays the operations' own). As a `.proto`:
//!
//! ```text
//! message CallFrame {            // gateway → core
//!   uint64 id = 1;               // the call, unique on its stream
//!   oneof frame {
//!     Call call = 2;             // run this call
//!     bool delivered = 3;        // the answer reached the client (true: commit)
//!                                // or not, or the caller left (false: release,
//!                                // or stop the call if it still runs)
//!   }
//! }
//! message Call { string path = 1; repeated Entry metadata = 2; bytes message = 3; }
//! message AnswerFrame {          // core → gateway
//!   uint64 id = 1;               // the call answered; 0 with `goaway`
//!   oneof frame {
//!     Answer answer = 2;
//!     bool goaway = 3;           // the core stops: no new calls on this stream
//!   }
//! }
//! message Answer {
//!   int32 code = 1;              // gRPC status code; 0 = the call succeeded
//!   string message = 2;          // the status message of a failure
//!   bytes details = 3;           // the status details of a failure
//!   repeated Entry metadata = 4; // the answer's metadata, as headers
//!   bytes message_bytes = 5;     // a success's output message, encoded
//! }
//! message Entry { string key = 1; bytes value = 2; }
//! ```
//!
//! The rules both ends keep:
//! - A call answered with code 0 owes the core one `delivered`. The core
//!   holds its charge until then, as over a unary call's acknowledgement
//!   (docs/billing.md "When a call is charged"), and releases it after
//!   `ACK_WAIT` without one.
//! - `delivered: false` for a call still running stops it (as a unary
//!   call's reset does); any hold it made is released.
//! - The stream's end, or its break, releases every call of it not yet
//!   told `delivered: true`.
//! - After `goaway` the gateway sends no new call on the stream, ends its
//!   side once every call on it is settled, and the core ends its side once
//!   every call is answered.

use bytes::Bytes;

/// The RPC's path.
pub const PATH: &str = "/mediaops.transport.v1.CallStream/Calls";

/// The largest request or answer message one call carries: tonic's limit
/// for a unary call's message (4 MiB). A call over it fails alone; the
/// stream goes on.
pub const MESSAGE_LIMIT: usize = 4 * 1024 * 1024;

/// The largest frame either end decodes: a message at [`MESSAGE_LIMIT`]
/// with its metadata.
pub const FRAME_LIMIT: usize = MESSAGE_LIMIT + 1024 * 1024;

/// One message from the gateway.
#[derive(Clone, PartialEq, prost::Message)]
pub struct CallFrame {
    /// The call, unique on its stream.
    #[prost(uint64, tag = "1")]
    pub id: u64,
    /// What the gateway says of it.
    #[prost(oneof = "call_frame::Frame", tags = "2, 3")]
    pub frame: Option<call_frame::Frame>,
}

/// The parts of [`CallFrame`].
pub mod call_frame {
    /// What a [`super::CallFrame`] says.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Frame {
        /// Run this call.
        #[prost(message, tag = "2")]
        Call(super::Call),
        /// The answer reached the client (commit) or not (release, or stop
        /// the call).
        #[prost(bool, tag = "3")]
        Delivered(bool),
    }
}

/// A call: the unary RPC's path, its metadata and its request message.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Call {
    /// `/mediaops.videosite.v1.VideositeService/QueryWork`.
    #[prost(string, tag = "1")]
    pub path: String,
    /// The call's metadata as gRPC headers (`authorization`, `x-request-id`, …).
    #[prost(message, repeated, tag = "2")]
    pub metadata: Vec<Entry>,
    /// The request message, encoded.
    #[prost(bytes = "bytes", tag = "3")]
    pub message: Bytes,
}

/// One header of a call's or an answer's metadata.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Entry {
    /// The header name, lower case.
    #[prost(string, tag = "1")]
    pub key: String,
    /// Its value as it would be sent in an HTTP/2 header (a `-bin` key's
    /// value in base64).
    #[prost(bytes = "bytes", tag = "2")]
    pub value: Bytes,
}

/// One message from the core.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AnswerFrame {
    /// The call answered; 0 with `goaway`.
    #[prost(uint64, tag = "1")]
    pub id: u64,
    /// What the core says.
    #[prost(oneof = "answer_frame::Frame", tags = "2, 3")]
    pub frame: Option<answer_frame::Frame>,
}

/// The parts of [`AnswerFrame`].
pub mod answer_frame {
    /// What an [`super::AnswerFrame`] says.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Frame {
        /// A call's answer.
        #[prost(message, tag = "2")]
        Answer(super::Answer),
        /// The core stops: no new calls on this stream.
        #[prost(bool, tag = "3")]
        Goaway(bool),
    }
}

/// A call's answer: a success's message, or a failure's status.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Answer {
    /// The gRPC status code; 0 when the call succeeded.
    #[prost(int32, tag = "1")]
    pub code: i32,
    /// A failure's status message.
    #[prost(string, tag = "2")]
    pub message: String,
    /// A failure's status details (`google.rpc.Status`, encoded).
    #[prost(bytes = "bytes", tag = "3")]
    pub details: Bytes,
    /// The answer's metadata (a success's headers, a failure's status
    /// metadata).
    #[prost(message, repeated, tag = "4")]
    pub metadata: Vec<Entry>,
    /// A success's output message, encoded.
    #[prost(bytes = "bytes", tag = "5")]
    pub message_bytes: Bytes,
}

/// `metadata` as [`Entry`]s.
pub fn entries(metadata: tonic::metadata::MetadataMap) -> Vec<Entry> {
    let headers = metadata.into_headers();
    let mut out = Vec::with_capacity(headers.len());
    let mut last = None;
    for (name, value) in headers {
        // `into_iter` names a header only at its first value.
        if let Some(name) = name {
            last = Some(name);
        }
        if let Some(name) = &last {
            out.push(Entry { key: name.as_str().to_owned(), value: Bytes::copy_from_slice(value.as_bytes()) });
        }
    }
    out
}

/// [`Entry`]s as metadata.
///
/// # Errors
/// An entry that is not a valid header name or value: a status naming it.
pub fn metadata(entries: Vec<Entry>) -> Result<tonic::metadata::MetadataMap, tonic::Status> {
    let mut headers = http::HeaderMap::with_capacity(entries.len());
    for entry in entries {
        let name = http::HeaderName::from_bytes(entry.key.as_bytes()).map_err(|_| {
            tonic::Status::invalid_argument(format!("metadata key {:?} is not a header name", entry.key))
        })?;
        let value = http::HeaderValue::from_maybe_shared(entry.value).map_err(|_| {
            tonic::Status::invalid_argument(format!("metadata {:?} has a value no header can hold", entry.key))
        })?;
        headers.append(name, value);
    }
    Ok(tonic::metadata::MetadataMap::from_headers(headers))
}

/// The answer of a failed call.
pub fn failure(status: &tonic::Status) -> Answer {
    Answer {
        code: status.code() as i32,
        message: status.message().to_owned(),
        details: status.details().to_vec().into(),
        metadata: entries(status.metadata().clone()),
        message_bytes: Bytes::new(),
    }
}

/// What an [`Answer`] says: the response, or the failure's status.
///
/// # Errors
/// The failure's status (or a status saying the answer's metadata could
/// not be read).
pub fn read_answer(answer: Answer) -> Result<tonic::Response<Bytes>, tonic::Status> {
    let metadata = metadata(answer.metadata)?;
    if answer.code == 0 {
        return Ok(tonic::Response::from_parts(metadata, answer.message_bytes, http::Extensions::new()));
    }
    Err(tonic::Status::with_details_and_metadata(
        tonic::Code::from_i32(answer.code),
        answer.message,
        answer.details,
        metadata,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_goes_through_entries_unchanged() {
        let mut map = tonic::metadata::MetadataMap::new();
        map.insert("x-request-id", "req-1".parse().unwrap());
        map.append("warning", "a".parse().unwrap());
        map.append("warning", "b".parse().unwrap());
        map.insert_bin("trace-bin", tonic::metadata::MetadataValue::from_bytes(&[0, 159, 1]));
        let back = metadata(entries(map.clone())).unwrap();
        assert_eq!(back.into_headers(), map.into_headers());
    }

    #[test]
    fn a_failure_reads_back_as_its_status() {
        let mut status =
            tonic::Status::with_details(tonic::Code::ResourceExhausted, "slow down", Bytes::from_static(b"\x08\x08"));
        status.metadata_mut().insert("retry-after", "3".parse().unwrap());
        let back = read_answer(failure(&status)).unwrap_err();
        assert_eq!(back.code(), tonic::Code::ResourceExhausted);
        assert_eq!(back.message(), "slow down");
        assert_eq!(back.details(), b"\x08\x08");
        assert_eq!(back.metadata().get("retry-after").unwrap(), "3");
    }

    #[test]
    fn a_bad_key_is_refused_with_its_name() {
        let bad = vec![Entry { key: "no spaces".into(), value: Bytes::from_static(b"x") }];
        let error = metadata(bad).unwrap_err();
        assert_eq!(error.code(), tonic::Code::InvalidArgument);
        assert!(error.message().contains("no spaces"), "{}", error.message());
    }
}
