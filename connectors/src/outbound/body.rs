//! Reading a reply body with a size cap: a declared `Content-Length` over
//! the cap is refused before reading, and the stream is cut as soon as it
//! passes the cap (a missing or lying length cannot exhaust memory).

use bytes::{Bytes, BytesMut};

use super::error::{OutboundError, display_url};

/// The body of `response`, at most `limit` bytes.
///
/// # Errors
/// [`OutboundError::TooLarge`] past `limit`; a transport failure or
/// timeout while reading.
pub async fn read_capped(mut response: reqwest::Response, limit: usize) -> Result<Bytes, OutboundError> {
    let url = response.url().clone();
    let too_large = || OutboundError::TooLarge { url: display_url(&url), limit };
    if response.content_length().is_some_and(|length| length > limit as u64) {
        return Err(too_large());
    }
    let mut body = BytesMut::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| OutboundError::from_reqwest(&url, &e))? {
        if body.len() + chunk.len() > limit {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}
