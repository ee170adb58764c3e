//! The route table, derived at start-up from the `http` option of every RPC
//! in the descriptor pool (primary path and alias paths). Adding an
//! operation touches only the proto and the core.

use prost_reflect::{DescriptorPool, FieldDescriptor, Kind, MessageDescriptor};

/// One REST path bound to one RPC.
#[derive(Debug, Clone)]
pub struct Route {
    /// HTTP method.
    pub method: axum::http::Method,
    /// axum path syntax, e.g. `/api/ip-profile/{id}/charter`.
    pub path: String,
    /// `/package.Service/Method`.
    pub grpc_path: String,
    /// `operationKey` of the RPC (spec 2.2).
    pub operation_key: String,
    /// The request message.
    pub input: MessageDescriptor,
    /// The response message.
    pub output: MessageDescriptor,
    /// The request field the JSON body fills, when it is not the whole request.
    pub body_field: Option<FieldDescriptor>,
    /// Set when the route also takes `multipart/form-data` (an upload).
    pub upload: Option<mediaops_proto::mediaops::options::v1::Upload>,
}

/// Every route of the pool.
///
/// # Errors
/// An RPC whose `http` option names an unknown method or body field.
pub fn routes(pool: &DescriptorPool) -> anyhow::Result<Vec<Route>> {
    let mut routes = Vec::new();
    for (method, meta) in mediaops_proto::options::operations(pool) {
        let Some(http) = meta.http else { continue };
        let verb: axum::http::Method = http.method.parse()?;
        let body_field = match http.body.as_str() {
            "" | "*" => None,
            name => {
                let field = method
                    .input()
                    .get_field_by_name(name)
                    .ok_or_else(|| anyhow::anyhow!("{}: body field {name} does not exist", method.full_name()))?;
                anyhow::ensure!(
                    matches!(field.kind(), Kind::Message(_)),
                    "{}: body field {name} is not a message",
                    method.full_name()
                );
                Some(field)
            }
        };
        if let Some(upload) = &http.upload {
            for name in [&upload.data_field, &upload.filename_field, &upload.content_type_field] {
                let field = method
                    .input()
                    .get_field_by_name(name)
                    .ok_or_else(|| anyhow::anyhow!("{}: upload field {name} does not exist", method.full_name()))?;
                let want = if name == &upload.data_field { Kind::Bytes } else { Kind::String };
                anyhow::ensure!(field.kind() == want, "{}: upload field {name} is not {want:?}", method.full_name());
            }
        }
        for path in std::iter::once(http.path).chain(http.alias_paths) {
            routes.push(Route {
                method: verb.clone(),
                path,
                grpc_path: format!("/{}/{}", method.parent_service().full_name(), method.name()),
                operation_key: meta.operation_key.clone(),
                input: method.input(),
                output: method.output(),
                body_field: body_field.clone(),
                upload: http.upload.clone(),
            });
        }
    }
    Ok(routes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alias_and_body_routes() {
        let routes = routes(mediaops_proto::descriptor_pool()).unwrap();
        let rise: Vec<_> = routes
            .iter()
            .filter(|r| r.operation_key == "shortvideo.douyin-rise-fans-rank")
            .map(|r| r.path.as_str())
            .collect();
        assert_eq!(
            rise,
            ["/api/apis/shortvideo/douyin-rise-fans-rank/call", "/api/apis/shortvideo/shortvideo-rise-fans-rank/call"]
        );
        let put = routes.iter().find(|r| r.operation_key == "ip-profile.charter.put").unwrap();
        assert_eq!((put.method.as_str(), put.path.as_str()), ("PUT", "/api/ip-profile/{id}/charter"));
        assert_eq!(put.body_field.as_ref().unwrap().name(), "charter");
        let upload = routes.iter().find(|r| r.operation_key == "articles.media-upload").unwrap();
        assert_eq!(upload.upload.as_ref().unwrap().data_field, "data");
        assert!(put.upload.is_none());
    }
}
