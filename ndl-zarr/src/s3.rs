//! Stores in S3-compatible object storage: `s3://bucket/prefix`, through
//! object_store and zarrs' adapter for it.
//!
//! Configuration comes from the standard AWS variables, as every S3 tool
//! reads them: `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` (required:
//! no instance metadata is asked for), `AWS_SESSION_TOKEN`, `AWS_REGION`
//! (default `us-east-1`), `AWS_ENDPOINT_URL` (another S3 server, such as
//! MinIO or moto) and `AWS_ALLOW_HTTP` (`true` for a plain-HTTP endpoint).
//!
//! Transient failures (5xx answers, timeouts, resets) are retried with
//! exponential backoff, a few times within seconds; then the operation
//! fails with the server's answer. An object is never visible half
//! written: a PUT replaces an object whole.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::prefix::PrefixStore;
use object_store::{ClientOptions, ObjectStore, RetryConfig};
use zarrs::storage::storage_adapter::async_to_sync::{
    AsyncToSyncBlockOn, AsyncToSyncStorageAdapter,
};
use zarrs_object_store::AsyncObjectStore;

use zarrs::storage::ReadableWritableListableStorageTraits;

use crate::error::{Error, Result};

/// The runtime every S3 request runs on: its own threads, so that callers
/// (rayon's threads included) just block on their requests.
fn runtime() -> Result<&'static tokio::runtime::Runtime> {
    static RUNTIME: OnceLock<std::result::Result<tokio::runtime::Runtime, String>> =
        OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .thread_name("ndl-zarr-s3")
                .enable_all()
                .build()
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| Error::Store {
            store: "s3".into(),
            key: String::new(),
            message: format!("cannot start the I/O runtime: {e}"),
        })
}

struct BlockOn(tokio::runtime::Handle);

impl AsyncToSyncBlockOn for BlockOn {
    fn block_on<F: core::future::Future>(&self, future: F) -> F::Output {
        self.0.block_on(future)
    }
}

/// What a configuration mistake says: the variable to set.
fn config_error(location: &str, message: impl Into<String>) -> Error {
    Error::Store {
        store: location.to_string(),
        key: String::new(),
        message: message.into(),
    }
}

/// The objects of the store at `s3://bucket/prefix` (`rest` is
/// `bucket/prefix`), as zarrs reads and writes them, and as object storage
/// offers them.
pub(crate) fn open(
    location: &str,
    rest: &str,
) -> Result<(Arc<dyn ReadableWritableListableStorageTraits>, Remote)> {
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    if bucket.is_empty() {
        return Err(config_error(
            location,
            "no bucket: write s3://BUCKET/PREFIX",
        ));
    }
    let s3 = client(location, bucket)?;
    let prefix = prefix.trim_matches('/');
    let objects: Arc<dyn ObjectStore> = if prefix.is_empty() {
        Arc::new(s3)
    } else {
        Arc::new(PrefixStore::new(s3, prefix))
    };
    let handle = runtime()?.handle().clone();
    let adapter = AsyncToSyncStorageAdapter::new(
        Arc::new(AsyncObjectStore::new(objects.clone())),
        BlockOn(handle.clone()),
    );
    Ok((Arc::new(adapter), Remote { objects, handle }))
}

/// An object's bytes and its ETag.
pub(crate) type Tagged = (Vec<u8>, Option<String>);

/// The object store behind a remote store, for what zarrs' adapter does
/// not offer (conditional writes).
#[derive(Clone)]
pub(crate) struct Remote {
    pub objects: Arc<dyn ObjectStore>,
    pub handle: tokio::runtime::Handle,
}

impl Remote {
    /// Writes `key` only if no object is there: `false` when one is.
    pub fn create_new(&self, key: &str, value: Vec<u8>) -> std::result::Result<bool, String> {
        let path = object_store::path::Path::from(key);
        let options = object_store::PutOptions::from(object_store::PutMode::Create);
        let put = self.objects.put_opts(&path, value.into(), options);
        match self.handle.block_on(put) {
            Ok(_) => Ok(true),
            Err(object_store::Error::AlreadyExists { .. })
            | Err(object_store::Error::Precondition { .. }) => Ok(false),
            Err(e) => Err(e.to_string()),
        }
    }

    /// The object at `key` and its ETag, `None` when there is none.
    pub fn get_versioned(&self, key: &str) -> std::result::Result<Option<Tagged>, String> {
        let path = object_store::path::Path::from(key);
        let get = async {
            let object = object_store::ObjectStoreExt::get(&self.objects, &path).await?;
            let etag = object.meta.e_tag.clone();
            Ok::<_, object_store::Error>((object.bytes().await?.to_vec(), etag))
        };
        match self.handle.block_on(get) {
            Ok(found) => Ok(Some(found)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(e.to_string()),
        }
    }

    /// Replaces the object at `key` only if its ETag is still `etag`
    /// (`If-Match`): the new object's ETag, `None` when it changed or is
    /// gone.
    pub fn replace_if(
        &self,
        key: &str,
        value: Vec<u8>,
        etag: &str,
    ) -> std::result::Result<Option<Option<String>>, String> {
        let path = object_store::path::Path::from(key);
        let version = object_store::UpdateVersion {
            e_tag: Some(etag.to_string()),
            version: None,
        };
        let options = object_store::PutOptions::from(object_store::PutMode::Update(version));
        let put = self.objects.put_opts(&path, value.into(), options);
        match self.handle.block_on(put) {
            Ok(put) => Ok(Some(put.e_tag)),
            Err(object_store::Error::Precondition { .. })
            | Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(e.to_string()),
        }
    }
}

fn client(location: &str, bucket: &str) -> Result<AmazonS3> {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let key = var("AWS_ACCESS_KEY_ID").ok_or_else(|| {
        config_error(
            location,
            "no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
        )
    })?;
    let secret = var("AWS_SECRET_ACCESS_KEY").ok_or_else(|| {
        config_error(
            location,
            "no credentials: AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not",
        )
    })?;
    let mut builder = AmazonS3Builder::new()
        .with_bucket_name(bucket)
        .with_access_key_id(key)
        .with_secret_access_key(secret)
        .with_region(
            var("AWS_REGION")
                .or_else(|| var("AWS_DEFAULT_REGION"))
                .unwrap_or_else(|| "us-east-1".into()),
        )
        .with_retry(RetryConfig {
            max_retries: 4,
            retry_timeout: Duration::from_secs(15),
            backoff: object_store::BackoffConfig {
                init_backoff: Duration::from_millis(100),
                max_backoff: Duration::from_secs(2),
                base: 2.0,
            },
        })
        .with_client_options(
            ClientOptions::new()
                .with_connect_timeout(Duration::from_secs(5))
                .with_timeout(Duration::from_secs(60)),
        );
    if let Some(token) = var("AWS_SESSION_TOKEN") {
        builder = builder.with_token(token);
    }
    if let Some(endpoint) = var("AWS_ENDPOINT_URL") {
        let host = endpoint
            .strip_prefix("http://")
            .or_else(|| endpoint.strip_prefix("https://"))
            .unwrap_or_default();
        if host.is_empty() || host.starts_with('/') {
            return Err(config_error(
                location,
                format!("AWS_ENDPOINT_URL `{endpoint}` is not an http:// or https:// URL"),
            ));
        }
        let http = endpoint.starts_with("http://");
        let allowed =
            var("AWS_ALLOW_HTTP").is_some_and(|v| v.eq_ignore_ascii_case("true") || v == "1");
        if http && !allowed {
            return Err(config_error(
                location,
                format!(
                    "AWS_ENDPOINT_URL `{endpoint}` is plain HTTP: set AWS_ALLOW_HTTP=true to allow it"
                ),
            ));
        }
        builder = builder
            .with_endpoint(endpoint)
            .with_allow_http(http)
            .with_virtual_hosted_style_request(false);
    }
    builder
        .build()
        .map_err(|e| config_error(location, format!("cannot configure S3: {e}")))
}
