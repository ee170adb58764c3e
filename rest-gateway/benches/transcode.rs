//! Gateway transcoding for one operation (`lifestyle.search-note`):
//! request JSON → protobuf bytes (checked as the gateway checks it), and
//! response protobuf bytes (20 items) → JSON text, each two ways in the same
//! run: through a `DynamicMessage` (`descriptor path`, the gateway before
//! the wire path) and straight between JSON and the wire (`wire path`, what
//! the gateway runs). Prints, after criterion's figures, the wire path's
//! time over the descriptor path's measured alternately in the same run.
//! Run: `cargo bench -p rest-gateway --bench transcode`.
#![allow(clippy::unwrap_used)] // a failed unwrap in a bench is a failed run
use criterion::{Criterion, Throughput, criterion_main};
use prost::Message;
use prost_reflect::DynamicMessage;
use rest_gateway::transcode::wire_to_json::WireJson;
use rest_gateway::transcode::{decode, encode, json_to_wire};
use serde_json::json;
use std::hint::black_box;
use std::time::{Duration, Instant};

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

    let request = |wire: bool| {
        let json: serde_json::Value = serde_json::from_str(black_box(request_text)).unwrap();
        if wire {
            json_to_wire::encode(&request_desc, &json, &required).unwrap()
        } else {
            decode::decode(&request_desc, &json, &required).unwrap().encode_to_vec()
        }
    };
    let response = |wire: bool| {
        let bytes = black_box(response_bytes.as_slice());
        if wire {
            serde_json::to_string(&WireJson { desc: &response_desc, bytes }).unwrap()
        } else {
            let message = DynamicMessage::decode(response_desc.clone(), bytes).unwrap();
            serde_json::to_string(&encode::JsonMessage(&message)).unwrap()
        }
    };
    assert_eq!(request(true), request(false), "both paths write the same request bytes");
    let (ours, theirs): (serde_json::Value, serde_json::Value) =
        (serde_json::from_str(&response(true)).unwrap(), serde_json::from_str(&response(false)).unwrap());
    assert_eq!(ours, theirs, "both paths write the same answer");

    let mut group = c.benchmark_group("search-note");
    group.throughput(Throughput::Elements(1));
    for (path, wire) in [("descriptor path", false), ("wire path", true)] {
        group.bench_function(format!("request json->proto, {path}"), |b| b.iter(|| request(wire)));
        group.bench_function(format!("response proto->json (20 items), {path}"), |b| b.iter(|| response(wire)));
        group.bench_function(format!("round trip, {path}"), |b| b.iter(|| (request(wire), response(wire))));
    }
    group.finish();

    println!("\nwire path / descriptor path, time per call, alternating 20 × 50 ms each (lower is faster):");
    for (name, run) in [
        ("request json->proto", &request as &dyn Fn(bool) -> Vec<u8>),
        ("response proto->json", &|wire| response(wire).into_bytes()),
        ("round trip", &|wire| [request(wire), response(wire).into_bytes()].concat()),
    ] {
        let (mut old, mut new) = (Vec::new(), Vec::new());
        for _ in 0..20 {
            old.push(per_call(|| run(false)));
            new.push(per_call(|| run(true)));
        }
        let (old, new) = (median(old), median(new));
        println!(
            "  {name:<22} descriptor path {:>8.2} µs, wire path {:>8.2} µs: {:.2}×",
            old * 1e6,
            new * 1e6,
            new / old
        );
    }
}

/// Seconds per call of `f`, over about 50 ms.
fn per_call<T>(f: impl Fn() -> T) -> f64 {
    let started = Instant::now();
    let mut calls = 0u32;
    while started.elapsed() < Duration::from_millis(50) {
        black_box(f());
        calls += 1;
    }
    started.elapsed().as_secs_f64() / f64::from(calls)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

// `criterion_group!` writes a `pub fn`; inside a private module it is not
// part of the bench crate's public items, so it needs no doc comment.
mod group {
    criterion::criterion_group!(benches, super::transcode);
}
criterion_main!(group::benches);
