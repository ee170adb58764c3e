//! docs/architecture.md "How to add an operation", followed on a sample
//! proto (`tests/fixtures/add_an_operation/mediaops/sample/v1/sample.proto`:
//! one service, one RPC carrying its operation option) compiled by the code
//! generation of `proto/build.rs` (`build/services.rs`, [`services::config`]):
//!
//! 1. **Proto**: the RPC's option gives the operation its identity
//!    ([`step_1_the_option_names_the_operation`]);
//! 2. **Build**: the generator writes, for the service, a trait with one
//!    required method per RPC, `register` and a constant naming each RPC in
//!    full ([`step_2_the_generator_writes_the_checked_in_code`],
//!    [`step_2_every_rpc_is_a_required_trait_method`]);
//! 3. **Work** ([`count_words`]) and 4. **Trait method** ([`Sample`]): the
//!    implementation's `register` puts the RPC in the pipeline, answered by
//!    the method ([`steps_3_and_4_the_generated_register_puts_the_rpc_in_the_pipeline`]);
//! 5. **Tests and docs**: this file.
//!
//! The generated code is checked in (`fixtures/add_an_operation/generated/`)
//! so that this test compiles an implementation against it; step 2's test
//! fails when the generator writes anything else. To rewrite it:
//! `MEDIAOPS_UPDATE_GOLDEN=1 cargo test -p mediaops-proto --test add_an_operation`.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use mediaops_proto::service::{Pipeline, Reply};
use prost::Message;

#[path = "../build/services.rs"]
mod services;

/// What the generated code calls `crate::service`.
pub use mediaops_proto::service;

/// The code `build/services.rs` writes for the sample proto (step 2).
// This allow covers generated code only (the checked-in fixture of `build/services.rs`'s output).
#[allow(missing_docs, clippy::doc_lazy_continuation)]
pub mod sample {
    include!("fixtures/add_an_operation/generated/mediaops.sample.v1.rs");
}

use sample::sample_service::{self, SampleService};
use sample::{CountWordsRequest, CountWordsResponse};

const UPDATE_ENV: &str = "MEDIAOPS_UPDATE_GOLDEN";

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/add_an_operation")
}

/// The sample proto compiled with protox as `build.rs` compiles `proto/`
/// (its imports resolved from `proto/`), imports included or not.
fn compiler(include_imports: bool) -> protox::Compiler {
    let proto_root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut compiler = protox::Compiler::new([fixture(), proto_root.to_path_buf()]).expect("include paths");
    compiler
        .include_imports(include_imports)
        .include_source_info(true)
        .open_files([fixture().join("mediaops/sample/v1/sample.proto")])
        .expect("the sample proto compiles");
    compiler
}

#[test]
fn step_1_the_option_names_the_operation() {
    let pool = prost_reflect::DescriptorPool::decode(compiler(true).encode_file_descriptor_set().as_slice()).unwrap();
    let service = pool.get_service_by_name("mediaops.sample.v1.SampleService").unwrap();
    let method = service.methods().next().unwrap();
    let operation = mediaops_proto::options::operation(&method).expect("the RPC carries its operation option");
    // The catalogs, the REST route and the MCP tool are derived from this.
    assert_eq!(operation.operation_key, "sample.count-words");
    let http = operation.http.unwrap();
    assert_eq!((http.method.as_str(), http.path.as_str()), ("POST", "/api/apis/sample/count-words/call"));
    assert_eq!(method.full_name(), sample_service::COUNT_WORDS);
}

#[test]
fn step_2_the_generator_writes_the_checked_in_code() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("add_an_operation-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    services::config(&out).compile_fds(compiler(false).file_descriptor_set()).unwrap();
    let name = "mediaops.sample.v1.rs";
    let written = std::fs::read_to_string(out.join(name)).unwrap();
    let _ = std::fs::remove_dir_all(&out);
    let checked_in = fixture().join("generated").join(name);
    if std::env::var_os(UPDATE_ENV).is_some() {
        std::fs::write(&checked_in, &written).unwrap();
    }
    let expected = std::fs::read_to_string(&checked_in).unwrap();
    assert!(
        written == expected,
        "the generator writes other code than {}; rewrite it with {UPDATE_ENV}=1 and review the diff",
        checked_in.display()
    );
}

#[test]
fn step_2_every_rpc_is_a_required_trait_method() {
    let code = std::fs::read_to_string(fixture().join("generated/mediaops.sample.v1.rs")).unwrap();
    let start = code.find("pub trait SampleService<P: crate::service::Pipeline>").expect("the trait");
    let end = start + code[start..].find("\n    }\n").expect("the trait's end");
    let (_, items) = code[start..end].split_once('{').expect("the trait's body");
    assert_eq!(items.matches("fn ").count(), 1, "one method per RPC");
    assert!(items.contains("fn count_words("));
    // No default body (no block in the trait, the method ends with `;`): an
    // implementation without the method is E0046 ("not all trait items
    // implemented"), so a new RPC fails the build until its service type
    // implements it.
    assert!(!items.contains('{') && items.trim_end().ends_with(';'), "{items}");
    assert_eq!(sample_service::COUNT_WORDS, "mediaops.sample.v1.SampleService.CountWords");
}

/// Step 3, the work: a function of the typed request answering the
/// response.
fn count_words(request: &CountWordsRequest) -> CountWordsResponse {
    CountWordsResponse { words: i32::try_from(request.text.split_whitespace().count()).unwrap_or(i32::MAX) }
}

/// Step 4: the one type implementing the service's generated trait.
struct Sample;

#[allow(refining_impl_trait)]
impl SampleService<Recorder> for Sample {
    async fn count_words(&self, _: (), request: CountWordsRequest) -> Result<CountWordsResponse, String> {
        Ok(count_words(&request))
    }
}

type Handler = Box<dyn Fn(Vec<u8>) -> Pin<Box<dyn Future<Output = Result<Vec<u8>, String>> + Send>> + Send + Sync>;

/// A pipeline standing in for the core's registry: it keeps each RPC's
/// handler over encoded messages, as the registry does.
#[derive(Default)]
struct Recorder {
    rpcs: Vec<(&'static str, String, String, bool, Handler)>,
}

impl Pipeline for Recorder {
    type Context = ();
    type Error = String;
    type Failure = String;

    fn rpc<S, Req, Resp, R, F, Fut>(
        &mut self,
        full_method: &'static str,
        service: &Arc<S>,
        handler: F,
    ) -> Result<(), String>
    where
        S: Send + Sync + 'static,
        Req: prost::Message + prost::Name + Default + 'static,
        Resp: prost::Message + prost::Name + Default + 'static,
        R: Reply<Resp>,
        F: Fn(Arc<S>, (), Req) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, String>> + Send + 'static,
    {
        if self.rpcs.iter().any(|rpc| rpc.0 == full_method) {
            return Err(format!("{full_method} is registered twice"));
        }
        let service = service.clone();
        let handler = Arc::new(handler);
        let call: Handler = Box::new(move |bytes: Vec<u8>| {
            let (service, handler) = (service.clone(), handler.clone());
            Box::pin(async move {
                let request = Req::decode(bytes.as_slice()).map_err(|e| e.to_string())?;
                match handler(service, (), request).await?.into_answer() {
                    mediaops_proto::service::Answer::Found(response) => Ok(response.encode_to_vec()),
                    _ => Err("not found".to_owned()),
                }
            })
        });
        self.rpcs.push((full_method, Req::full_name(), Resp::full_name(), R::SOURCED, call));
        Ok(())
    }
}

/// The output of a future that is ready at once (the sample's work does not
/// wait).
fn ready<F: Future>(future: F) -> F::Output {
    match pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("the sample's future waits"),
    }
}

#[test]
fn steps_3_and_4_the_generated_register_puts_the_rpc_in_the_pipeline() {
    let mut pipeline = Recorder::default();
    sample_service::register(&mut pipeline, &Arc::new(Sample)).unwrap();
    let [(full_method, request, response, sourced, handler)] = pipeline.rpcs.as_slice() else {
        panic!("one RPC registered, got {}", pipeline.rpcs.len());
    };
    assert_eq!(*full_method, sample_service::COUNT_WORDS);
    assert_eq!(request, "mediaops.sample.v1.CountWordsRequest");
    assert_eq!(response, "mediaops.sample.v1.CountWordsResponse");
    assert!(!sourced, "a method answering the response itself is the handler, not a source chain's first source");
    let call = CountWordsRequest { text: "how to add an operation".into() };
    let answer = ready(handler(call.encode_to_vec())).unwrap();
    assert_eq!(CountWordsResponse::decode(answer.as_slice()).unwrap().words, 5);
    // A second registration of the same RPC is refused by the pipeline.
    assert!(sample_service::register(&mut pipeline, &Arc::new(Sample)).is_err());
}

#[test]
fn step_4_the_composition_root_fills_one_field_per_service() {
    // `build.rs` writes `Services` with one field per proto service; the
    // core's composition root must fill each one, so a service without an
    // implementation does not compile (E0063, missing field).
    let code = services::services_struct(&compiler(false).file_descriptor_set());
    let field = "pub sample: crate::service::Registration<P, crate::mediaops::sample::v1::sample_service::Tag>,";
    assert!(code.contains(field), "{code}");
    assert!(code.contains("self.sample.register(pipeline)?;"), "{code}");
    let mut pipeline = Recorder::default();
    sample_service::registration(Arc::new(Sample)).register(&mut pipeline).unwrap();
    assert_eq!(pipeline.rpcs.len(), 1, "the held registration registers the service's RPC");
}
