//! `multipart/form-data` → the JSON object a client could have sent, for
//! routes whose `http` option has an `upload` (docs/wechat.md "Multipart"):
//! the one part with a file name fills the upload's `bytes` field (as
//! base64, which the JSON decoding reads back), its file name and
//! Content-Type fill the two fields the upload names, and every other part
//! fills the field of its name as a string. The object then goes through
//! the same decoding, required-field and unknown-field checks as JSON.

use axum::extract::{FromRequest, Multipart};
use axum::http::{HeaderMap, header};
use base64::Engine;
use bytes::Bytes;
use mediaops_proto::mediaops::options::v1::Upload;
use prost_reflect::MessageDescriptor;
use serde_json::{Map, Value as Json};

use super::FieldError;

/// Whether the request says it carries `multipart/form-data`.
pub fn is_multipart(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("multipart/form-data"))
}

/// The JSON name of the field `name` of `input` (as the upload option
/// gives proto names), or `name` itself when there is no such field.
fn json_name(input: &MessageDescriptor, name: &str) -> String {
    input.get_field_by_name(name).map_or_else(|| name.to_owned(), |f| f.json_name().to_owned())
}

/// Reads the multipart `body` into a request object.
///
/// # Errors
/// A body that is not valid multipart, two file parts, or a text part that
/// is not UTF-8: a [`FieldError`] naming the part (or the body).
pub async fn to_object(
    upload: &Upload,
    input: &MessageDescriptor,
    headers: &HeaderMap,
    body: Bytes,
) -> Result<Map<String, Json>, FieldError> {
    let mut request = axum::http::Request::new(axum::body::Body::from(body));
    if let Some(content_type) = headers.get(header::CONTENT_TYPE) {
        request.headers_mut().insert(header::CONTENT_TYPE, content_type.clone());
    }
    let unreadable = |e: &dyn std::fmt::Display| FieldError::new("", format!("the multipart body cannot be read: {e}"));
    let mut multipart = Multipart::from_request(request, &()).await.map_err(|e| unreadable(&e.body_text()))?;
    let data_field = json_name(input, &upload.data_field);
    let mut object = Map::new();
    let mut has_file = false;
    while let Some(part) = multipart.next_field().await.map_err(|e| unreadable(&e))? {
        let name = part.name().unwrap_or_default().to_owned();
        if let Some(file_name) = part.file_name().map(str::to_owned) {
            if has_file {
                return Err(FieldError::new(&data_field, "send one file per upload"));
            }
            has_file = true;
            let content_type = part.content_type().unwrap_or("application/octet-stream").to_owned();
            let bytes = part.bytes().await.map_err(|e| unreadable(&e))?;
            object.insert(data_field.clone(), Json::String(base64::engine::general_purpose::STANDARD.encode(&bytes)));
            object.insert(json_name(input, &upload.filename_field), Json::String(file_name));
            object.insert(json_name(input, &upload.content_type_field), Json::String(content_type));
        } else {
            let text =
                part.text().await.map_err(|_| FieldError::new(&name, format!("part `{name}` is not UTF-8 text")))?;
            object.insert(name, Json::String(text));
        }
    }
    Ok(object)
}
