//! `mediaops.studio.v1.ArticleStudioService`: rendering and themes
//! ([`crate::articles`]) and the WeChat official accounts
//! ([`mediaops_connectors::wechat`]).

use std::sync::Arc;

use mediaops_proto::mediaops::studio::v1::article_studio_service::ArticleStudioService;
use mediaops_proto::mediaops::studio::v1::{
    AuthorizeLinkRequest, AuthorizeLinkResponse, CustomTheme, GetCustomThemeRequest, MediaUploadRequest,
    MediaUploadResponse, PublishRequest, PublishResponse, PutCustomThemeRequest, RenderRequest, RenderResponse,
    SetDefaultThemeRequest, StatusRequest, StatusResponse, ThemesRequest, ThemesResponse,
};

use crate::articles::ArticleStudio;
use mediaops_connectors::wechat::Wechat;
use mediaops_platform::registry::{CallContext, Registry};
use mediaops_proto::error::ServiceError;

/// The article studio RPCs.
pub struct Studio {
    /// Rendering and themes.
    pub articles: Arc<ArticleStudio>,
    /// The authorized official accounts: status, uploads, publishing.
    pub wechat: Arc<Wechat>,
}

impl ArticleStudioService<Registry> for Studio {
    async fn publish(&self, ctx: CallContext, request: PublishRequest) -> Result<PublishResponse, ServiceError> {
        self.wechat.publish(ctx.account_id(), request).await
    }

    async fn status(&self, ctx: CallContext, _: StatusRequest) -> Result<StatusResponse, ServiceError> {
        Ok(StatusResponse { accounts: self.wechat.accounts_of(ctx.account_id()).await? })
    }

    async fn media_upload(
        &self,
        ctx: CallContext,
        request: MediaUploadRequest,
    ) -> Result<MediaUploadResponse, ServiceError> {
        self.wechat.media_upload(ctx.account_id(), request).await
    }

    async fn authorize_link(
        &self,
        ctx: CallContext,
        _: AuthorizeLinkRequest,
    ) -> Result<AuthorizeLinkResponse, ServiceError> {
        self.wechat.authorize_link(ctx.account_id()).await
    }

    async fn render(&self, ctx: CallContext, request: RenderRequest) -> Result<RenderResponse, ServiceError> {
        self.articles.render(ctx.account_id(), request).await
    }

    async fn themes(&self, ctx: CallContext, _: ThemesRequest) -> Result<ThemesResponse, ServiceError> {
        self.articles.themes.list(ctx.account_id()).await
    }

    async fn set_default_theme(
        &self,
        ctx: CallContext,
        request: SetDefaultThemeRequest,
    ) -> Result<ThemesResponse, ServiceError> {
        self.articles.themes.set_default(ctx.account_id(), &request.theme_id).await
    }

    async fn put_custom_theme(
        &self,
        ctx: CallContext,
        request: PutCustomThemeRequest,
    ) -> Result<CustomTheme, ServiceError> {
        self.articles.themes.put_custom(ctx.account_id(), request).await
    }

    async fn get_custom_theme(
        &self,
        ctx: CallContext,
        request: GetCustomThemeRequest,
    ) -> Result<CustomTheme, ServiceError> {
        self.articles.themes.get_custom(ctx.account_id(), &request.id).await
    }
}
