//! `multipart/form-data` → the JSON object a client could have sent, for
//! routes whose `http` option has an `upload` (docs/wechat.md "Multipart"):
//! the one part with a file name fills the upload's `bytes` field (as
//! base64, which the JSON decoding reads back), its file name and
//! Content-Type fill the two fields the upload names, and every other part
//! fills the field of its name as a string. The object then goes through
//! the same decoding, required-field and unknown-field checks as JSON.

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
    let unreadable = |e: &dyn std::fmt::Display| FieldError::new("", format!("the multipart body cannot be read: {e}"));
    let content_type = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or_default();
    let boundary = multer::parse_boundary(content_type).map_err(|e| unreadable(&e))?;
    // The body was read within the gateway's limit already; multer adds none.
    let stream = futures_util::stream::once(async move { Ok::<Bytes, std::convert::Infallible>(body) });
    let mut multipart = multer::Multipart::new(stream, boundary);
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
            let content_type =
                part.content_type().map_or_else(|| "application/octet-stream".to_owned(), ToString::to_string);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn upload_route() -> (Upload, MessageDescriptor) {
        let pool = mediaops_proto::descriptor_pool();
        let route =
            crate::routes::routes(pool).unwrap().into_iter().find(|r| r.operation_key == "articles.media-upload");
        let route = route.unwrap();
        (route.upload.unwrap(), route.input)
    }

    /// `(name, (file name, content type) for a file part, bytes)`.
    type TestPart<'a> = (&'a str, Option<(&'a str, &'a str)>, &'a [u8]);

    fn body(parts: &[TestPart<'_>]) -> (HeaderMap, Bytes) {
        let mut out = Vec::new();
        for (name, file, bytes) in parts {
            out.extend_from_slice(b"--XyZ\r\n");
            match file {
                Some((file_name, mime)) => out.extend_from_slice(
                    format!("Content-Disposition: form-data; name=\"{name}\"; filename=\"{file_name}\"\r\nContent-Type: {mime}\r\n\r\n").as_bytes(),
                ),
                None => out.extend_from_slice(format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n").as_bytes()),
            }
            out.extend_from_slice(bytes);
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(b"--XyZ--\r\n");
        let mut headers = HeaderMap::new();
        headers.insert(header::CONTENT_TYPE, "multipart/form-data; boundary=XyZ".parse().unwrap());
        (headers, Bytes::from(out))
    }

    #[tokio::test]
    async fn a_file_part_fills_the_upload_fields_and_text_parts_their_own() {
        let (upload, input) = upload_route();
        let big = vec![7u8; 3 * 1024 * 1024];
        let (headers, bytes) = body(&[("authorizerAppid", None, b"wx1"), ("file", Some(("a.png", "image/png")), &big)]);
        assert!(is_multipart(&headers));
        let object = to_object(&upload, &input, &headers, bytes).await.unwrap();
        assert_eq!(object["authorizerAppid"], "wx1");
        assert_eq!(object["filename"], "a.png");
        assert_eq!(object["contentType"], "image/png");
        let data = base64::engine::general_purpose::STANDARD.decode(object["data"].as_str().unwrap()).unwrap();
        assert_eq!(data, big, "no limit below the gateway's own body limit");

        let (headers, bytes) =
            body(&[("a", Some(("a.png", "image/png")), b"1"), ("b", Some(("b.png", "image/png")), b"2")]);
        let error = to_object(&upload, &input, &headers, bytes).await.unwrap_err();
        assert_eq!(error.field, "data");
        let mut headers = HeaderMap::new();
        headers.insert(header::CONTENT_TYPE, "multipart/form-data".parse().unwrap());
        assert!(to_object(&upload, &input, &headers, Bytes::new()).await.unwrap_err().message.contains("multipart"));
    }
}
