//! The WeChat API client: one method per endpoint we call, each answering
//! WeChat's documented shape or a [`WechatError`]. The base URL comes from
//! `wechat.api_base`, so tests point it at a local fake. Access tokens travel
//! in the query string as WeChat requires; no URL is ever logged or put into
//! an error text.
//!
//! Timeouts and retries are the `[outbound]` connector's: idempotent calls
//! (token fetches, reads) are retried a bounded number of times with
//! backoff after transport failures and 5xx; calls that create something
//! (uploads, drafts, pre-auth codes, the single-use authorization code) are
//! sent once.

use reqwest::{Method, RequestBuilder};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::config::WechatSettings;
use super::errors::WechatError;
use crate::outbound::{ConnectorClient, OutboundSettings, Retry};

/// A token and its lifetime in seconds, as WeChat returns it.
#[derive(Debug, Clone)]
pub struct IssuedToken {
    /// The token (an access token, a component token or a pre-auth code);
    /// never logged.
    pub token: String,
    /// Its lifetime in seconds from issue (7200 for access tokens, 1800 for
    /// pre-auth codes).
    pub expires_in: u64,
}

/// `api_query_auth` → `authorization_info`.
#[derive(Debug, Clone, Deserialize)]
pub struct AuthorizationInfo {
    /// The AppID of the official account that authorized us.
    pub authorizer_appid: String,
    /// Its first access token (empty when absent); never logged.
    #[serde(default)]
    pub authorizer_access_token: String,
    /// That token's lifetime in seconds (0 when absent).
    #[serde(default)]
    pub expires_in: u64,
    /// The refresh token later access tokens are asked with (stored; empty
    /// when absent); never logged.
    #[serde(default)]
    pub authorizer_refresh_token: String,
}

/// `api_get_authorizer_info` → `authorizer_info` (the fields we show).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct AuthorizerInfo {
    /// The official account's name.
    #[serde(default)]
    pub nick_name: String,
    /// URL of its head image.
    #[serde(default)]
    pub head_img: String,
    /// Its type: id 0 and 1 subscription (订阅号), 2 service (服务号)
    /// ([`AuthorizerInfo::service_type`]).
    #[serde(default)]
    pub service_type_info: IdInfo,
    /// Its verification: id -1 unverified (未认证), any other verified
    /// ([`AuthorizerInfo::verified`]).
    #[serde(default)]
    pub verify_type_info: IdInfo,
}

/// `{id}` objects of the authorizer info.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct IdInfo {
    /// The id (0 when absent).
    #[serde(default)]
    pub id: i64,
}

impl AuthorizerInfo {
    /// `subscription` (订阅号, ids 0 and 1) or `service` (服务号, id 2).
    pub fn service_type(&self) -> &'static str {
        if self.service_type_info.id == 2 { "service" } else { "subscription" }
    }

    /// Verified: any `verify_type_info.id` other than -1 (未认证).
    pub fn verified(&self) -> bool {
        self.verify_type_info.id != -1
    }
}

/// One row of `api_get_authorizer_list`.
#[derive(Debug, Clone, Deserialize)]
pub struct ListedAuthorizer {
    /// The official account's AppID.
    pub authorizer_appid: String,
    /// Its current refresh token (empty when absent); never logged.
    #[serde(default)]
    pub refresh_token: String,
    /// Unix seconds.
    #[serde(default)]
    pub auth_time: i64,
}

/// An image to send to WeChat.
#[derive(Debug, Clone)]
pub struct ImageFile {
    /// The file name sent in the multipart part (`photo.png`).
    pub filename: String,
    /// `image/jpeg` or `image/png`.
    pub content_type: String,
    /// The image data.
    pub bytes: bytes::Bytes,
}

/// One article of `draft/add`.
#[derive(Debug, Clone)]
pub struct DraftArticle {
    /// The title, at most 64 characters (`publish::MAX_TITLE_CHARS`).
    pub title: String,
    /// The summary (`digest`), at most 120 characters; may be empty.
    pub digest: String,
    /// The article's HTML, images already on WeChat, under 1 MB of UTF-8.
    pub content: String,
    /// The permanent material id of the cover image (`add_material`).
    pub thumb_media_id: String,
}

/// The client. Cheap to clone.
#[derive(Clone)]
pub struct WechatApi {
    connector: ConnectorClient,
}

impl WechatApi {
    /// A client on `wechat.api_base` with the `[outbound]` timeouts and retries.
    ///
    /// # Errors
    /// A base URL that is not http(s), or a TLS set-up failure.
    pub fn new(settings: &WechatSettings, outbound: &OutboundSettings) -> anyhow::Result<WechatApi> {
        Ok(WechatApi { connector: ConnectorClient::builder("WeChat", &settings.api_base, outbound).build()? })
    }

    /// `POST /cgi-bin/stable_token` (direct mode): the stable access token
    /// of an account, shared with other callers of the same appid.
    pub async fn stable_token(&self, appid: &str, secret: &str) -> Result<IssuedToken, WechatError> {
        #[derive(Deserialize)]
        struct Answer {
            access_token: String,
            expires_in: u64,
        }
        let body = json!({"grant_type": "client_credential", "appid": appid, "secret": secret, "force_refresh": false});
        let a: Answer = self.post_json("/cgi-bin/stable_token", &[], &body, true).await?;
        Ok(IssuedToken { token: a.access_token, expires_in: a.expires_in })
    }

    /// `POST /cgi-bin/component/api_component_token`.
    pub async fn component_token(&self, appid: &str, secret: &str, ticket: &str) -> Result<IssuedToken, WechatError> {
        #[derive(Deserialize)]
        struct Answer {
            component_access_token: String,
            expires_in: u64,
        }
        let body = json!({"component_appid": appid, "component_appsecret": secret, "component_verify_ticket": ticket});
        let a: Answer = self.post_json("/cgi-bin/component/api_component_token", &[], &body, true).await?;
        Ok(IssuedToken { token: a.component_access_token, expires_in: a.expires_in })
    }

    /// `POST /cgi-bin/component/api_create_preauthcode`.
    pub async fn create_preauthcode(&self, component_token: &str, appid: &str) -> Result<IssuedToken, WechatError> {
        #[derive(Deserialize)]
        struct Answer {
            pre_auth_code: String,
            expires_in: u64,
        }
        let query = [("component_access_token", component_token)];
        let body = json!({"component_appid": appid});
        let a: Answer = self.post_json("/cgi-bin/component/api_create_preauthcode", &query, &body, false).await?;
        Ok(IssuedToken { token: a.pre_auth_code, expires_in: a.expires_in })
    }

    /// `POST /cgi-bin/component/api_query_auth`: redeems an authorization
    /// code (single use, so never retried).
    pub async fn query_auth(
        &self,
        component_token: &str,
        appid: &str,
        authorization_code: &str,
    ) -> Result<AuthorizationInfo, WechatError> {
        #[derive(Deserialize)]
        struct Answer {
            authorization_info: AuthorizationInfo,
        }
        let query = [("component_access_token", component_token)];
        let body = json!({"component_appid": appid, "authorization_code": authorization_code});
        let a: Answer = self.post_json("/cgi-bin/component/api_query_auth", &query, &body, false).await?;
        Ok(a.authorization_info)
    }

    /// `POST /cgi-bin/component/api_authorizer_token`: a fresh authorizer
    /// access token, and the refresh token to keep (WeChat may rotate it).
    pub async fn authorizer_token(
        &self,
        component_token: &str,
        appid: &str,
        authorizer_appid: &str,
        refresh_token: &str,
    ) -> Result<(IssuedToken, String), WechatError> {
        #[derive(Deserialize)]
        struct Answer {
            authorizer_access_token: String,
            expires_in: u64,
            #[serde(default)]
            authorizer_refresh_token: String,
        }
        let query = [("component_access_token", component_token)];
        let body = json!({"component_appid": appid, "authorizer_appid": authorizer_appid, "authorizer_refresh_token": refresh_token});
        let a: Answer = self.post_json("/cgi-bin/component/api_authorizer_token", &query, &body, true).await?;
        let refresh =
            if a.authorizer_refresh_token.is_empty() { refresh_token.to_owned() } else { a.authorizer_refresh_token };
        Ok((IssuedToken { token: a.authorizer_access_token, expires_in: a.expires_in }, refresh))
    }

    /// `POST /cgi-bin/component/api_get_authorizer_info`.
    pub async fn authorizer_info(
        &self,
        component_token: &str,
        appid: &str,
        authorizer_appid: &str,
    ) -> Result<AuthorizerInfo, WechatError> {
        #[derive(Deserialize)]
        struct Answer {
            authorizer_info: AuthorizerInfo,
        }
        let query = [("component_access_token", component_token)];
        let body = json!({"component_appid": appid, "authorizer_appid": authorizer_appid});
        let a: Answer = self.post_json("/cgi-bin/component/api_get_authorizer_info", &query, &body, true).await?;
        Ok(a.authorizer_info)
    }

    /// `POST /cgi-bin/component/api_get_authorizer_list`: one page
    /// (`count` ≤ 500) and the total.
    pub async fn authorizer_list(
        &self,
        component_token: &str,
        appid: &str,
        offset: u32,
        count: u32,
    ) -> Result<(u64, Vec<ListedAuthorizer>), WechatError> {
        #[derive(Deserialize)]
        struct Answer {
            total_count: u64,
            #[serde(default)]
            list: Vec<ListedAuthorizer>,
        }
        let query = [("component_access_token", component_token)];
        let body = json!({"component_appid": appid, "offset": offset, "count": count});
        let a: Answer = self.post_json("/cgi-bin/component/api_get_authorizer_list", &query, &body, true).await?;
        Ok((a.total_count, a.list))
    }

    /// `POST /cgi-bin/media/uploadimg` (图文消息内的图片): the `url` to put
    /// into an article's `src`. jpg/png, at most 1 MB (checked by the caller).
    pub async fn upload_image(&self, access_token: &str, image: &ImageFile) -> Result<String, WechatError> {
        #[derive(Deserialize)]
        struct Answer {
            url: String,
        }
        let a: Answer =
            self.post_multipart("/cgi-bin/media/uploadimg", &[("access_token", access_token)], image).await?;
        Ok(a.url)
    }

    /// `POST /cgi-bin/material/add_material?type=image` (永久素材):
    /// `(media_id, url)`. Used for the cover (`thumb_media_id`).
    pub async fn add_image_material(
        &self,
        access_token: &str,
        image: &ImageFile,
    ) -> Result<(String, String), WechatError> {
        #[derive(Deserialize)]
        struct Answer {
            media_id: String,
            #[serde(default)]
            url: String,
        }
        let query = [("access_token", access_token), ("type", "image")];
        let a: Answer = self.post_multipart("/cgi-bin/material/add_material", &query, image).await?;
        Ok((a.media_id, a.url))
    }

    /// `POST /cgi-bin/draft/add` with one article: the draft's `media_id`.
    pub async fn add_draft(&self, access_token: &str, article: &DraftArticle) -> Result<String, WechatError> {
        #[derive(Deserialize)]
        struct Answer {
            media_id: String,
        }
        let body = json!({"articles": [{
            "title": article.title,
            "author": "",
            "digest": article.digest,
            "content": article.content,
            "content_source_url": "",
            "thumb_media_id": article.thumb_media_id,
            "need_open_comment": 0,
            "only_fans_can_comment": 0,
        }]});
        let a: Answer = self.post_json("/cgi-bin/draft/add", &[("access_token", access_token)], &body, false).await?;
        Ok(a.media_id)
    }

    async fn post_json<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, &str)],
        body: &Value,
        idempotent: bool,
    ) -> Result<T, WechatError> {
        let retry = if idempotent { Retry::Idempotent } else { Retry::Never };
        let request = self.connector.request(Method::POST, path).query(query).json(body);
        self.read_answer(request, retry).await
    }

    async fn post_multipart<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, &str)],
        image: &ImageFile,
    ) -> Result<T, WechatError> {
        let part = reqwest::multipart::Part::stream(image.bytes.clone())
            .file_name(image.filename.clone())
            .mime_str(&image.content_type)
            .map_err(|e| WechatError::Malformed(format!("content type: {}", e.without_url())))?;
        let form = reqwest::multipart::Form::new().part("media", part);
        let request = self.connector.request(Method::POST, path).query(query).multipart(form);
        self.read_answer(request, Retry::Never).await
    }

    /// Sends and reads one answer: HTTP status, then `errcode`, then the shape.
    async fn read_answer<T: DeserializeOwned>(&self, request: RequestBuilder, retry: Retry) -> Result<T, WechatError> {
        let response = self.connector.send(request, retry).await?;
        let value: Value = self.connector.json(response).await?;
        let code = value.get("errcode").and_then(Value::as_i64).unwrap_or(0);
        if code != 0 {
            let message = value.get("errmsg").and_then(Value::as_str).unwrap_or_default().to_owned();
            return Err(WechatError::Api { code, message });
        }
        serde_json::from_value(value).map_err(|e| WechatError::Malformed(e.to_string()))
    }
}
