//! Gateway transcoding for one operation (`lifestyle.search-note`):
//! request JSON → validated request message → protobuf bytes, and response
//! protobuf bytes (20 items) → message → JSON text. Run: `cargo bench -p rest-gateway`.
#![allow(clippy::unwrap_used)] // a failed unwrap in a bench is a failed run
use criterion::{Criterion, Throughput, criterion_main};
use prost::Message;
use prost_reflect::DynamicMessage;
use rest_gateway::transcode::{decode, encode};
use serde_json::json;
use std::hint::black_box;

fn search_note_response() -> Vec<u8> {
    let items: Vec<_> = (0..20)
        .map(|i| {
            json!({
                "workId": format!("6650{i:04}a1b2c3"), "workTitle": format!("周末露营装备清单第{i}期：新手也能一次买对"),
                "workDesc": "从帐篷、睡袋到炉具，按预算分三档推荐，附避坑提醒。", "accountNickname": "山野小记",
                "accountUserid": "5f1e2d3c4b5a", "workLikedCount": 12034 + i, "workCollectedCount": 8421,
                "workCommentsCount": 356, "workSharedCount": 120, "workReadedCount": 230_000,
                "workPublishTime": "2024-06-18 20:31:05", "workUrl": "https://example.com/explore/6650a1b2c3",
                "coverUrl": "https://example.com/cover/6650a1b2c3.jpg", "workType": "normal"
            })
        })
        .collect();
    let body = json!({"source": "store", "keyword": "露营", "offset": 20, "total": 1345, "items": items, "raw": {"page": 2, "hasMore": true}});
    let desc =
        mediaops_proto::descriptor_pool().get_message_by_name("mediaops.lifestyle.v1.SearchNoteResponse").unwrap();
    DynamicMessage::deserialize(desc, body).unwrap().encode_to_vec()
}

fn transcode(c: &mut Criterion) {
    let pool = mediaops_proto::descriptor_pool();
    let required = mediaops_proto::options::FieldRules::from_pool(pool);
    let request_desc = pool.get_message_by_name("mediaops.lifestyle.v1.SearchNoteRequest").unwrap();
    let response_desc = pool.get_message_by_name("mediaops.lifestyle.v1.SearchNoteResponse").unwrap();
    let request_text = r#"{"keyword": "露营 装备", "page": 2}"#;
    let response_bytes = search_note_response();

    let mut group = c.benchmark_group("search-note");
    group.throughput(Throughput::Elements(1));
    group.bench_function("request json->proto", |b| {
        b.iter(|| {
            let json: serde_json::Value = serde_json::from_str(black_box(request_text)).unwrap();
            decode::decode(&request_desc, &json, &required).unwrap().encode_to_vec()
        })
    });
    group.bench_function("response proto->json (20 items)", |b| {
        b.iter(|| {
            let message = DynamicMessage::decode(response_desc.clone(), black_box(response_bytes.as_slice())).unwrap();
            serde_json::to_string(&encode::JsonMessage(&message)).unwrap()
        })
    });
    let decoded = DynamicMessage::decode(response_desc.clone(), response_bytes.as_slice()).unwrap();
    group.bench_function("response proto decode only", |b| {
        b.iter(|| DynamicMessage::decode(response_desc.clone(), black_box(response_bytes.as_slice())).unwrap())
    });
    group.bench_function("response json encode only", |b| {
        b.iter(|| serde_json::to_string(&encode::JsonMessage(black_box(&decoded))).unwrap())
    });
    group.bench_function("round trip", |b| {
        b.iter(|| {
            let json: serde_json::Value = serde_json::from_str(black_box(request_text)).unwrap();
            let request = decode::decode(&request_desc, &json, &required).unwrap().encode_to_vec();
            let message = DynamicMessage::decode(response_desc.clone(), black_box(response_bytes.as_slice())).unwrap();
            (request, serde_json::to_string(&encode::JsonMessage(&message)).unwrap())
        })
    });
    group.finish();
}

// `criterion_group!` writes a `pub fn`; inside a private module it is not
// part of the bench crate's public items, so it needs no doc comment.
mod group {
    criterion::criterion_group!(benches, super::transcode);
}
criterion_main!(group::benches);
