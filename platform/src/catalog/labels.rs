//! Chinese labels of response fields for the output descriptors (spec 2.4
//! `sections[].fields[].label`): the workbench's table headers and field
//! names. A response field may declare its own `label` option; the others
//! are named here by JSON name, once for every message that uses the name.
//! A unit test keeps every field of every output descriptor labelled.

/// The label of a response field called `json_name`, when it is known.
pub fn label(json_name: &str) -> Option<&'static str> {
    Some(match json_name {
        // Titles and text.
        "title" | "workTitle" => "标题",
        "description" | "workDesc" => "描述",
        "caption" => "文案",
        "content" => "内容",
        "originalContent" => "原文",
        "text" => "文本",
        "intro" => "简介",
        "signature" => "签名",
        "keyword" => "关键词",
        "query" => "查询",
        "topic" => "话题",
        "topics" => "话题列表",
        // Lists of one platform's hits (`multi.cn30-multi-search`).
        "lifestyleResult" => "笔记结果",
        "shortvideoResult" => "短视频结果",
        "articlesResult" => "公众号结果",
        "tags" => "标签",
        "mentions" => "提及",
        "category" | "categoryName" => "分类",
        "suggestions" => "建议",
        "prohibitedWordsType" => "违禁词类型",
        // Accounts.
        "name" | "nickname" | "accountName" | "accountNickname" => "名称",
        "authorName" | "authorNickname" => "作者",
        "accountId" | "accountUserid" | "userId" | "uid" | "mid" | "uniqueId" | "kwaiId" => "账号 ID",
        "authorId" => "作者 ID",
        "certification" => "认证",
        "region" => "地区",
        "fans" | "fansCount" | "fansNum" | "follower" | "followerCount" | "accountFans" => "粉丝数",
        "authorFans" | "authorFansCount" => "作者粉丝数",
        "followingCount" => "关注数",
        "riseFans" => "涨粉数",
        "accountTotalWorks" | "articleCount" => "作品数",
        // Works.
        "workId" | "workUuid" | "videoId" | "photoId" | "postId" | "bvId" | "mediaId" => "作品 ID",
        "workType" => "作品类型",
        "url" | "workUrl" | "opusUrl" | "share_url" => "链接",
        "videoUrl" => "视频链接",
        "coverUrl" | "coverImgUrl" => "封面",
        "headUrl" => "头像",
        "videoDuration" => "时长（秒）",
        "publishTime" | "publicTime" | "workPublishTime" => "发布时间",
        "commentTime" => "评论时间",
        // Counts.
        "likeCount" | "likeNum" | "likedCount" | "workLikedCount" | "useLikeCount" => "点赞数",
        "totalLikeCount" => "总点赞数",
        "commentCount" | "workCommentsCount" => "评论数",
        "collectCount" | "collectedCount" | "favCount" | "favoriteCount" | "workCollectedCount" => "收藏数",
        "shareCount" | "forwardCount" | "repostCount" | "workSharedCount" => "转发数",
        "playCount" | "viewCount" | "watchCount" | "clicksCount" => "播放数",
        "totalPlayCount" => "总播放数",
        "readCount" | "workReadedCount" => "阅读数",
        "avgReadCount" => "平均阅读数",
        "readRaise" => "阅读增量",
        "readGrowthRate" => "阅读增长率",
        "hotCount" | "heat" => "热度",
        // Scores and ranks.
        "rank" => "排名",
        "index" | "indexScore" => "指数",
        "influenceScore" => "影响力",
        "healthScore" => "健康分",
        "totalScore" => "总分",
        "matchScore" => "匹配度",
        "similarity" => "相似度",
        "sentiment" => "情感倾向",
        "sentimentScore" => "情感分",
        "tier" => "层级",
        // Results and bookkeeping.
        "total" => "总数",
        "offset" => "偏移",
        "found" => "是否找到",
        "accepted" => "已受理",
        "status" => "状态",
        "taskId" => "任务 ID",
        "retryAfterMinutes" => "重试间隔（分钟）",
        "source" => "来源",
        "platform" => "平台",
        "platforms" | "plats" => "平台",
        "profileId" => "档案 ID",
        "version" => "版本",
        "charterUpdatedAt" => "定位更新时间",
        _ => return None,
    })
}
