//! Assembles the core: state, registry with every built handler, and the
//! tonic server with reflection (v1 and v1alpha), `grpc.health.v1` and the
//! operation service.

use std::future::Future;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio_stream::wrappers::TcpListenerStream;

use crate::auth::KeyStore;
use crate::auth::embedded::EmbeddedKeyStore;
use crate::bootstrap::{Bootstrap, ensure_bootstrap_key};
use crate::catalog::Catalog;
use crate::catalog::value_lists::ValueLists;
use crate::charter::CharterService;
use crate::charter::store::FileCharterStore;
use crate::dispatch::{OperationService, Pipeline};
use crate::registry::Registry;
use crate::settings::CoreSettings;
use crate::usage::UsageCounters;
use crate::validate::RequiredFields;

/// A core ready to serve.
pub struct Core {
    pipeline: Arc<Pipeline>,
    /// What the bootstrap step did; the binary prints it.
    pub bootstrap: Bootstrap,
}

impl Core {
    /// Opens the embedded state in `settings.data_dir`, runs the bootstrap
    /// key rule and registers every built operation.
    pub async fn open(settings: &CoreSettings) -> anyhow::Result<Core> {
        settings.check()?;
        std::fs::create_dir_all(&settings.data_dir)
            .map_err(|e| anyhow::anyhow!("cannot create data dir {}: {e}", settings.data_dir.display()))?;
        let pool = mediaops_proto::descriptor_pool();
        let keys: Arc<dyn KeyStore> = Arc::new(EmbeddedKeyStore::open(&settings.data_dir)?);
        let bootstrap =
            ensure_bootstrap_key(keys.as_ref(), settings.bootstrap_key.as_deref(), settings.bootstrap_points).await?;
        let usage = Arc::new(UsageCounters::default());

        tokio::task::spawn_blocking(crate::catalog::search::warm_up);
        let mut registry = Registry::from_pool(pool)?;
        Arc::new(Catalog::build(pool, usage.clone())?).register(&mut registry)?;
        let charters = Arc::new(FileCharterStore::new(&settings.data_dir));
        Arc::new(CharterService::new(charters, ValueLists::from_pool(pool))).register(&mut registry)?;

        let pipeline = Arc::new(Pipeline { registry, keys, required: RequiredFields::from_pool(pool), usage });
        Ok(Core { pipeline, bootstrap })
    }

    /// The registry, for status listings.
    pub fn registry(&self) -> &Registry {
        &self.pipeline.registry
    }

    /// Serves gRPC on `listener` until `shutdown` resolves.
    pub async fn serve(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> anyhow::Result<()> {
        let reflection_v1 = reflection().build_v1()?;
        let reflection_v1alpha = reflection().build_v1alpha()?;
        let (health_reporter, health) = tonic_health::server::health_reporter();
        for service in mediaops_proto::descriptor_pool().services() {
            health_reporter.set_service_status(service.full_name(), tonic_health::ServingStatus::Serving).await;
        }

        let mut routes = tonic::service::Routes::builder();
        routes.add_service(reflection_v1).add_service(reflection_v1alpha).add_service(health);
        let router = routes.routes().into_axum_router().fallback_service(OperationService::new(self.pipeline));
        tonic::transport::Server::builder()
            .add_routes(tonic::service::Routes::from(router))
            .serve_with_incoming_shutdown(TcpListenerStream::new(listener), shutdown)
            .await?;
        Ok(())
    }
}

/// A reflection builder that knows our files and the standard services we
/// serve, so `grpcurl list` shows health and both reflection versions too.
fn reflection() -> tonic_reflection::server::Builder<'static> {
    tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(mediaops_proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_reflection::pb::v1::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_reflection::pb::v1alpha::FILE_DESCRIPTOR_SET)
}
