//! The chat channels of watch lists (`mediaops_connectors::notify`;
//! docs/watchlists.md "Channels") against one local fake server that checks each target's
//! request shape, limit and signature with its documented algorithm
//! (coded here again from the vendors' samples): WeCom markdown split
//! under 4096 bytes, Feishu's signed interactive card, DingTalk's signed
//! markdown, Telegram's HTML `sendMessage` under 4096 characters; robot
//! error codes are failures; the Telegram token never reaches the log.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::{Path, Query};
use base64::Engine;
use chrono::{DateTime, Utc};
use hmac::{Hmac, Mac};
use mediaops_connectors::notify::{self as channel, Digest, DigestItem, Envelope, RetryPolicy};
use mediaops_connectors::outbound::{GuardedFetcher, OutboundSettings};
use mediaops_ops::watch::settings::WatchSettings;
use mediaops_proto::mediaops::watch::v1::Channel;
use serde_json::{Value, json};
use sha2::Sha256;

const TOKEN: &str = "123456:AAbot-token-secret";

type Log = Arc<Mutex<Vec<(String, HashMap<String, String>, Value)>>>;

/// One fake for every target: records `(path, query, body)` and answers
/// as the target does (`/bad-wecom` with an error code).
async fn fake() -> (String, Log) {
    let log: Log = Arc::default();
    let seen = log.clone();
    let app = axum::Router::new().route(
        "/{*path}",
        axum::routing::post(
            move |Path(path): Path<String>, Query(query): Query<HashMap<String, String>>, body: axum::Json<Value>| {
                let seen = seen.clone();
                async move {
                    seen.lock().unwrap().push((path.clone(), query, body.0));
                    axum::Json(match path.as_str() {
                        "wecom" | "dingtalk" => json!({"errcode": 0, "errmsg": "ok"}),
                        "bad-wecom" => json!({"errcode": 93000, "errmsg": "invalid webhook url"}),
                        "feishu" => json!({"code": 0, "msg": "success", "data": {}}),
                        _ => json!({"ok": true, "result": {"message_id": 1}}),
                    })
                }
            },
        ),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, log)
}

/// A digest of `n` items with long titles, so chat messages split.
fn digest(n: usize) -> Digest {
    let items = (0..n)
        .map(|i| DigestItem {
            source: "weibo".into(),
            title: format!("第{i}条 高考作文题目公布 <全国卷> & 新课标 {}", "很长的标题".repeat(12)),
            url: Some(format!("https://s.weibo.com/weibo?q=%23{i}%23&t=1")),
            rank: i as i64 + 1,
            best_rank: 1,
            hot_value: Some(1_000_000 - i as i64),
            first_seen_at: "2024-06-07T00:00:00Z".into(),
            trajectory: vec![3, 2, 1],
            also_on: vec!["douyin".into(), "baidu".into()],
            score: 5000 - i as i64,
            group_line: 1,
        })
        .collect();
    Digest { items, matched: n, deduplicated: 0, seen_keys: Vec::new() }
}

fn hmac_b64(key: &[u8], message: &[u8]) -> String {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).unwrap();
    mac.update(message);
    base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
}

#[tokio::test]
async fn each_chat_channel_sends_its_documented_shape_and_signature() {
    let (base, log) = fake().await;
    let settings = OutboundSettings { allow: vec!["127.0.0.1".into()], ..OutboundSettings::default() };
    let fetcher = GuardedFetcher::new(&settings).unwrap();
    let limits = fetcher.limits();
    let retry = RetryPolicy { retries: 0, backoff: std::time::Duration::from_millis(1) };
    let digest = digest(60);
    let now: DateTime<Utc> = "2024-06-07T04:00:00Z".parse().unwrap();
    let envelope =
        Envelope {
            watchlist_id: "exams", watchlist_name: "高考", digest_id: "exams:1", run_at: now, digest: &digest
        };
    let channel = |kind: &str, url: String, secret: &str| Channel {
        r#type: kind.into(),
        url,
        secret: secret.into(),
        chat_id: "-100200300".into(),
        ..Channel::default()
    };
    let settings = WatchSettings::default();
    let transport = channel::Transport { fetcher: &fetcher, limits, retry, smtp: settings.smtp() };
    let send = async |c: Channel| channel::send(&transport, &c, &envelope, now).await;

    for (kind, url, secret) in [
        ("wecom", format!("{base}/wecom?key=abc"), ""),
        ("feishu", format!("{base}/feishu"), "feishu-secret"),
        ("dingtalk", format!("{base}/dingtalk?access_token=t"), "SECdingtalk"),
        ("telegram", base.clone(), TOKEN),
    ] {
        let sent = send(channel(kind, url, secret)).await;
        assert!(sent.delivered, "{kind}: {sent:?}");
        assert!(sent.attempts > 1, "{kind}: a 60-item digest is split ({} requests)", sent.attempts);
    }
    let log = log.lock().unwrap().clone();
    let of = |path: &str| log.iter().filter(|(p, ..)| p == path).collect::<Vec<_>>();

    // WeCom: markdown, each content under 4096 UTF-8 bytes, every item sent once.
    let wecom = of("wecom");
    let mut lines = 0;
    for (_, query, body) in &wecom {
        assert_eq!(query["key"], "abc");
        assert_eq!(body["msgtype"], "markdown");
        let content = body["markdown"]["content"].as_str().unwrap();
        assert!(content.len() <= 4096, "{} bytes", content.len());
        assert!(content.starts_with("**高考** · 60 条新热点 ("), "{content}");
        lines += content.lines().count() - 1;
    }
    assert_eq!(lines, 60);

    // Feishu: interactive card, sign = base64(HMAC-SHA256(key = "<ts>\n<secret>", "")).
    for (_, _, body) in of("feishu") {
        assert_eq!(body["msg_type"], "interactive");
        assert_eq!(body["card"]["elements"][0]["text"]["tag"], "lark_md");
        let ts = body["timestamp"].as_str().unwrap();
        assert_eq!(ts, now.timestamp().to_string());
        assert_eq!(body["sign"], hmac_b64(format!("{ts}\nfeishu-secret").as_bytes(), b""));
    }

    // DingTalk: markdown; timestamp in ms and sign = base64(HMAC-SHA256(secret, "<ts>\n<secret>")) in the query.
    for (_, query, body) in of("dingtalk") {
        assert_eq!(query["access_token"], "t");
        let ts = &query["timestamp"];
        assert_eq!(*ts, now.timestamp_millis().to_string());
        assert_eq!(query["sign"], hmac_b64(b"SECdingtalk", format!("{ts}\nSECdingtalk").as_bytes()));
        assert_eq!(body["msgtype"], "markdown");
        assert_eq!(body["markdown"]["title"], "高考");
    }

    // Telegram: /bot<token>/sendMessage, HTML parse mode, escaped, under 4096 characters.
    let telegram = of(&format!("bot{TOKEN}/sendMessage"));
    assert!(telegram.len() > 1);
    for (_, _, body) in telegram {
        assert_eq!(body["chat_id"], "-100200300");
        assert_eq!(body["parse_mode"], "HTML");
        let text = body["text"].as_str().unwrap();
        assert!(text.chars().count() <= 4096);
        assert!(
            text.contains("&lt;全国卷&gt; &amp; 新课标") && text.contains("<a href=\"https://s.weibo.com/"),
            "{text}"
        );
    }

    // A robot's error code is a failure; a Telegram token never reaches the log.
    let bad = send(channel("wecom", format!("{base}/bad-wecom"), "")).await;
    assert!(!bad.delivered && bad.last_error.contains("93000"), "{bad:?}");
    let refused = send(channel("telegram", "http://10.9.8.7".into(), TOKEN)).await;
    assert!(!refused.delivered);
    assert!(!refused.last_error.contains(TOKEN) && refused.last_error.contains("***"), "{}", refused.last_error);
}

/// A one-connection SMTP server (no TLS, no auth): answers the commands a
/// client sends and records the transcript (commands and DATA).
async fn fake_smtp() -> (u16, Arc<Mutex<String>>) {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let transcript: Arc<Mutex<String>> = Arc::default();
    let log = transcript.clone();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        let (socket, _) = listener.accept().await.unwrap();
        let (read, mut write) = socket.into_split();
        let mut lines = BufReader::new(read).lines();
        write.write_all(b"220 fake ESMTP\r\n").await.unwrap();
        let mut in_data = false;
        while let Ok(Some(line)) = lines.next_line().await {
            log.lock().unwrap().push_str(&format!("{line}\n"));
            let answer: &[u8] = if in_data {
                if line != "." {
                    continue;
                }
                in_data = false;
                b"250 queued\r\n"
            } else {
                match line.get(..4).unwrap_or_default().to_ascii_uppercase().as_str() {
                    "EHLO" => b"250-fake\r\n250 8BITMIME\r\n",
                    "DATA" => {
                        in_data = true;
                        b"354 go on\r\n"
                    }
                    "QUIT" => {
                        write.write_all(b"221 bye\r\n").await.unwrap();
                        break;
                    }
                    _ => b"250 ok\r\n",
                }
            };
            write.write_all(answer).await.unwrap();
        }
    });
    (port, transcript)
}

#[tokio::test]
async fn an_email_digest_goes_over_smtp_with_both_parts() {
    let (port, transcript) = fake_smtp().await;
    let settings = WatchSettings {
        smtp_url: Some(format!("smtp://127.0.0.1:{port}")),
        smtp_from: "mediaops <watch@example.com>".into(),
        ..WatchSettings::default()
    };
    let fetcher = GuardedFetcher::new(&OutboundSettings::default()).unwrap();
    let retry = RetryPolicy { retries: 0, backoff: std::time::Duration::from_millis(1) };
    let transport = channel::Transport { fetcher: &fetcher, limits: fetcher.limits(), retry, smtp: settings.smtp() };
    let digest = digest(3);
    let now: DateTime<Utc> = "2024-06-07T04:00:00Z".parse().unwrap();
    let envelope =
        Envelope {
            watchlist_id: "exams", watchlist_name: "高考", digest_id: "exams:1", run_at: now, digest: &digest
        };
    let mail = Channel { r#type: "email".into(), to: vec!["ops@example.com".into()], ..Channel::default() };
    let sent = channel::send(&transport, &mail, &envelope, now).await;
    assert!(sent.delivered, "{sent:?}");
    let transcript = transcript.lock().unwrap().clone();
    assert!(transcript.contains("MAIL FROM:<watch@example.com>"), "{transcript}");
    assert!(transcript.contains("RCPT TO:<ops@example.com>"), "{transcript}");
    assert!(transcript.contains("Message-ID: <exams.1@mediaops>"), "{transcript}");
    assert!(transcript.contains("multipart/alternative"), "{transcript}");
    assert!(transcript.contains("text/plain") && transcript.contains("text/html"), "{transcript}");

    // Without an SMTP server the channel is not configured.
    let none = WatchSettings::default();
    let error = none.channel_available("email", "channels[0].type").unwrap_err();
    assert_eq!(error.code.as_str(), "not_configured");
}
