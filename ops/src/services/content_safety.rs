//! `mediaops.safety.v1.ContentSafetyService`: the account's own banned-word
//! lists ([`crate::banned_words`]).

use std::sync::Arc;

use mediaops_proto::mediaops::safety::v1::content_safety_service::ContentSafetyService;
use mediaops_proto::mediaops::safety::v1::{
    CustomWordList, CustomWordLists, GetCustomWordsRequest, PutCustomWordsRequest,
};

use crate::banned_words::BannedWordChecker;
use mediaops_platform::registry::{CallContext, Registry};
use mediaops_proto::error::ServiceError;

/// The word-list RPCs over the banned-word checks.
pub struct ContentSafety(pub Arc<BannedWordChecker>);

impl ContentSafetyService<Registry> for ContentSafety {
    async fn get_custom_words(
        &self,
        ctx: CallContext,
        request: GetCustomWordsRequest,
    ) -> Result<CustomWordLists, ServiceError> {
        self.0.get_custom(ctx.account_id(), &request.platform).await
    }

    async fn put_custom_words(
        &self,
        ctx: CallContext,
        request: PutCustomWordsRequest,
    ) -> Result<CustomWordList, ServiceError> {
        self.0.put_custom(ctx.account_id(), request).await
    }
}
