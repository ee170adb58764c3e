//! `mediaops.tool.v1.ToolService`: the banned-word check
//! ([`crate::banned_words`]) and the link parser
//! ([`crate::data_api::parse_link`]; answered through its source chain).

use std::sync::Arc;

use mediaops_proto::mediaops::common::v1::BannedWordResult;
use mediaops_proto::mediaops::tool::v1::tool_service::ToolService;
use mediaops_proto::mediaops::tool::v1::{
    CheckBannedWordsRequest, ParseContentDetailRequest, ParseContentDetailResponse,
};

use crate::banned_words::BannedWordChecker;
use crate::banned_words::platform::Platform;
use crate::data_api::parse_link::LinkParser;
use mediaops_platform::registry::{CallContext, Registry};
use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;

/// The tool RPCs.
pub struct Tool {
    /// The banned-word checks.
    pub banned_words: Arc<BannedWordChecker>,
    /// The share-link parser over the store.
    pub links: Arc<LinkParser>,
}

impl ToolService<Registry> for Tool {
    async fn check_banned_words(
        &self,
        ctx: CallContext,
        request: CheckBannedWordsRequest,
    ) -> Result<BannedWordResult, ServiceError> {
        let platform = Platform::parse(&request.platform, "platform")?;
        self.banned_words.check(ctx.account_id(), platform, &request.content).await
    }

    async fn parse_content_detail(
        &self,
        _: CallContext,
        request: ParseContentDetailRequest,
    ) -> Result<Answer<ParseContentDetailResponse>, ServiceError> {
        self.links.parse(&request.url).await
    }
}
