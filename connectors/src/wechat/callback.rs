//! The WeChat-facing HTTP listener (`wechat.callback_addr`), served by the
//! core beside gRPC because its callers are WeChat and a browser, not API
//! clients: XML in, plain text or HTML out, no API key.
//!
//! - `POST /wechat/component/event` — the platform's 授权事件接收 URL.
//!   Query `timestamp`, `nonce`, `msg_signature` (and `encrypt_type=aes`);
//!   body `<xml><AppId/><Encrypt/></xml>`. The signature is checked and the
//!   message decrypted ([`super::crypto`]); the answer is `success`, as
//!   WeChat requires. A bad signature is a 403; a failure while acting on
//!   the event is a 500, so WeChat pushes it again.
//! - `GET /wechat/component/authorized?state=…&auth_code=…` — where the
//!   browser lands after authorization (the link's `redirect_uri`): the
//!   code is redeemed for the account that asked for the link.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};

use super::Wechat;
use super::component::{AUTHORIZED_PATH, ComponentEvent, EVENT_PATH};
use super::crypto::MessageCrypto;

/// Largest event body read (WeChat's are well under 4 KiB).
const MAX_EVENT_BYTES: usize = 64 * 1024;

/// The listener's routes.
pub fn router(wechat: Arc<Wechat>) -> Router {
    Router::new()
        .route(EVENT_PATH, post(event))
        .route(AUTHORIZED_PATH, get(authorized))
        .layer(DefaultBodyLimit::max(MAX_EVENT_BYTES))
        .with_state(wechat)
}

fn text(status: StatusCode, body: &'static str) -> Response {
    (status, [("content-type", "text/plain; charset=utf-8")], body).into_response()
}

async fn event(
    State(wechat): State<Arc<Wechat>>,
    Query(query): Query<HashMap<String, String>>,
    body: String,
) -> Response {
    let Some(component) = &wechat.settings().component else {
        return text(StatusCode::NOT_FOUND, "third-party platform mode is not configured");
    };
    let crypto = match MessageCrypto::new(&component.token, &component.encoding_aes_key, &component.appid) {
        Ok(crypto) => crypto,
        Err(_) => return text(StatusCode::INTERNAL_SERVER_ERROR, "bad EncodingAESKey"),
    };
    let param = |name: &str| query.get(name).map(String::as_str).unwrap_or_default();
    let encrypted = match roxmltree::Document::parse(&body) {
        Ok(doc) => {
            doc.root_element().children().find(|n| n.has_tag_name("Encrypt")).and_then(|n| n.text()).map(str::to_owned)
        }
        Err(_) => None,
    };
    let Some(encrypted) = encrypted else {
        return text(StatusCode::BAD_REQUEST, "the body is not an encrypted WeChat message");
    };
    let xml = match crypto.open(param("msg_signature"), param("timestamp"), param("nonce"), &encrypted) {
        Ok(xml) => xml,
        Err(e) => {
            tracing::warn!(error = %e, "component event refused");
            return text(StatusCode::FORBIDDEN, "invalid signature or message");
        }
    };
    let event = match ComponentEvent::parse(&xml) {
        Ok(event) => event,
        Err(e) => {
            tracing::warn!(error = e, "component event not understood");
            return text(StatusCode::BAD_REQUEST, "the event is not understood");
        }
    };
    match wechat.on_event(event).await {
        Ok(()) => text(StatusCode::OK, "success"),
        Err(e) => {
            tracing::warn!(error = %e, "component event failed; WeChat will push it again");
            text(StatusCode::INTERNAL_SERVER_ERROR, "failed")
        }
    }
}

async fn authorized(State(wechat): State<Arc<Wechat>>, Query(query): Query<HashMap<String, String>>) -> Response {
    let (Some(state), Some(code)) = (query.get("state"), query.get("auth_code")) else {
        return (StatusCode::BAD_REQUEST, Html(page("授权失败", "链接缺少 state 或 auth_code。"))).into_response();
    };
    match wechat.complete_redirect(state, code).await {
        Ok(Some(authorizer)) => {
            let body = format!("公众号「{}」已授权，可以关闭此页面。", html_escape::encode_text(&authorizer.nickname));
            Html(page("授权成功", &body)).into_response()
        }
        Ok(None) => Html(page("授权已处理", "此授权已记录或已过期；用 GET /api/articles/status 查看已授权公众号。"))
            .into_response(),
        Err(e) => {
            tracing::warn!(error = %e, "authorization redirect failed");
            let body = format!("授权未完成：{}", html_escape::encode_text(&e.message));
            (StatusCode::BAD_GATEWAY, Html(page("授权失败", &body))).into_response()
        }
    }
}

fn page(title: &str, body: &str) -> String {
    format!("<!doctype html><meta charset=\"utf-8\"><title>{title}</title><h1>{title}</h1><p>{body}</p>")
}

/// The bound listener, ready to serve.
pub struct CallbackListener {
    listener: tokio::net::TcpListener,
    router: Router,
}

impl CallbackListener {
    /// Binds `wechat.callback_addr`; `None` when it is not set.
    ///
    /// # Errors
    /// The address cannot be bound.
    pub async fn bind(wechat: &Arc<Wechat>) -> anyhow::Result<Option<CallbackListener>> {
        let Some(addr) = &wechat.settings().callback_addr else { return Ok(None) };
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| anyhow::anyhow!("cannot listen on MEDIAOPS_WECHAT__CALLBACK_ADDR {addr}: {e}"))?;
        Ok(Some(CallbackListener { listener, router: router(wechat.clone()) }))
    }

    /// The address actually bound (port 0 picks one).
    pub fn local_addr(&self) -> std::io::Result<std::net::SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves until `shutdown` resolves.
    pub async fn serve(self, shutdown: impl std::future::Future<Output = ()> + Send + 'static) -> anyhow::Result<()> {
        axum::serve(self.listener, self.router).with_graceful_shutdown(shutdown).await?;
        Ok(())
    }
}
