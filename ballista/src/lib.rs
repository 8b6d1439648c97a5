//! extype's SQL UDFs and extension types on an [Apache Ballista](https://datafusion.apache.org/ballista/)
//! cluster: a scheduler and executors that carry the UDFs of [`extype_datafusion::udfs`], and a
//! client that sends them queries.
//!
//! Plans travel between client, scheduler and executors with Ballista's own codecs: a UDF by its
//! name (each process resolves `extype_reduce_sum` in its own function registry), the extension
//! metadata of a field (`ARROW:extension:name`) in the plan's Arrow schemas. So every process
//! needs the UDFs registered, and every process that plans or runs a query over a column of a
//! type needs that type registered:
//!
//! - the scheduler plans (the UDFs' return fields come from running the op on an empty batch of
//!   the column's type): [`run_scheduler`] gives it [`session_state`];
//! - the executors run the plans' fragments: [`run_executor`] gives them [`function_registry`];
//! - the client plans the logical plan: [`Client`] registers the UDFs with its context.
//!
//! extype's own types (`extype.MaskedTensor`, `extype.RaggedTensor`, ...) are registered in
//! every program that links `extype`. A user's derived type is registered in a program that
//! links the crate defining it: the cluster's scheduler and executors are then the user's own
//! binaries, one line each (the `extype-scheduler` and `extype-executor` binaries of this crate
//! know extype's types only):
//!
//! ```no_run
//! // src/bin/my-executor.rs of a crate whose library derives its extension types.
//! use my_types as _; // Links the derived types, which registers them.
//! # mod my_types {}
//! fn main() -> std::process::ExitCode {
//!     extype_ballista::executor_main()
//! }
//! ```
//!
//! The dataset must be at a path every process sees (the client reads its schema, the
//! executors scan its files): a shared file system, or the same copy on every machine.
//!
//! ```no_run
//! use extype_ballista::Client;
//! // A scheduler (`extype-scheduler --port 50050`) and executors
//! // (`extype-executor --scheduler localhost:50050 --port 50051 --grpc-port 50052`) running.
//! let client = Client::connect("localhost:50050")?;
//! client.register_parquet("ds", "/data/ds")?;
//! let batches = client.sql("SELECT id, extype_reduce_mean(m) AS mean FROM ds ORDER BY id")?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

use std::fmt;
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// The Ballista client crate this crate builds on (55, on the DataFusion extype-datafusion
/// uses).
pub use ballista;
/// Ballista's executor library, for configuring an executor beyond [`ExecutorOptions`].
pub use ballista_executor;
/// Ballista's scheduler library, for configuring a scheduler beyond [`SchedulerOptions`].
pub use ballista_scheduler;

use ballista::prelude::{SessionConfigExt, SessionContextExt};
use ballista_core::error::BallistaError;
use ballista_core::registry::BallistaFunctionRegistry;
use ballista_core::utils::default_session_builder;
use ballista_executor::executor_process::{ExecutorProcessConfig, start_executor_process};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::{create_scheduler, start_grpc_service_with_listener};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::{DataFusionError, Result};
use datafusion::execution::FunctionRegistry;
use datafusion::execution::SessionStateBuilder;
use datafusion::execution::context::SessionState;
use datafusion::prelude::{SessionConfig, SessionContext};
use datafusion_proto::protobuf::{LogicalPlanNode, PhysicalPlanNode};

/// How long [`Client::connect`] and each query wait for the scheduler to accept a connection:
/// a scheduler that is not running refuses at once; one that does not answer (a wrong host, a
/// firewall) is reported after this long.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// How long [`Client::sql`] waits for a query by default ([`Client::with_query_timeout`]): a
/// query on a cluster that lost its executors would otherwise wait for them forever.
pub const DEFAULT_QUERY_TIMEOUT: Duration = Duration::from_secs(300);

/// Ballista's default function registry (DataFusion's built-in functions) with every UDF of
/// [`extype_datafusion::udfs`] added: the registry an executor decodes plan fragments with.
pub fn function_registry() -> BallistaFunctionRegistry {
    let mut registry = BallistaFunctionRegistry::default();
    for udf in extype_datafusion::udfs() {
        registry
            .scalar_functions
            .insert(udf.name().to_string(), Arc::new(udf));
    }
    registry
}

/// Ballista's default session state for `config` with every UDF of
/// [`extype_datafusion::udfs`] registered: the state a scheduler decodes and plans queries
/// with (its `override_session_builder`).
pub fn session_state(config: SessionConfig) -> Result<SessionState> {
    let mut state = default_session_builder(config)?;
    for udf in extype_datafusion::udfs() {
        state.register_udf(Arc::new(udf))?;
    }
    Ok(state)
}

/// `host:port` (or `df://host:port`, Ballista's URL form) as a host and a port.
fn parse_host_port(what: &str, s: &str) -> std::result::Result<(String, u16), String> {
    let rest = s.strip_prefix("df://").unwrap_or(s).trim_end_matches('/');
    let Some((host, port)) = rest.rsplit_once(':') else {
        return Err(format!("{what}: expected host:port, found `{s}`"));
    };
    if host.is_empty() {
        return Err(format!(
            "{what}: expected host:port, found no host in `{s}`"
        ));
    }
    let port = port.parse::<u16>().map_err(|e| {
        format!("{what}: expected host:port with a port number 0-65535, found `{s}` ({e})")
    })?;
    Ok((host.to_string(), port))
}

/// Checks that something accepts TCP connections at `host:port` within [`CONNECT_TIMEOUT`]
/// (per address the name resolves to): Ballista's client only connects once a query runs, and
/// then with no bound of its own.
fn probe_scheduler(host: &str, port: u16) -> Result<()> {
    let fail = |e: &dyn fmt::Display| {
        DataFusionError::Execution(format!("no Ballista scheduler at {host}:{port}: {e}"))
    };
    let addrs: Vec<SocketAddr> = (host, port)
        .to_socket_addrs()
        .map_err(|e| fail(&format!("resolving the host: {e}")))?
        .collect();
    let mut last = None;
    for addr in &addrs {
        match TcpStream::connect_timeout(addr, CONNECT_TIMEOUT) {
            Ok(_) => return Ok(()),
            Err(e) => last = Some(e),
        }
    }
    match last {
        Some(e) => Err(fail(&e)),
        None => Err(fail(&"the host resolves to no address")),
    }
}

/// A connection to a Ballista cluster's scheduler, with extype's UDFs registered in its context
/// and a runtime of its own: [`Client::sql`] runs a query on the cluster from synchronous code,
/// bounded by a timeout.
pub struct Client {
    ctx: SessionContext,
    runtime: tokio::runtime::Runtime,
    host: String,
    port: u16,
    query_timeout: Duration,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("scheduler", &format_args!("{}:{}", self.host, self.port))
            .field("query_timeout", &self.query_timeout)
            .finish()
    }
}

impl Client {
    /// Connects to the scheduler at `scheduler` (`host:port` or `df://host:port`) with a
    /// default Ballista session ([`Client::connect_with_config`]).
    ///
    /// Ballista's adaptive planner (on by default) sorts across executors through a range
    /// shuffle read over Arrow Flight, whose encoder (arrow-flight 59) declares a `LargeList`
    /// column (a RaggedTensor's) as a `List` that the reading executor refuses: an `ORDER BY`
    /// whose rows carry a RaggedTensor column fails on more than one executor. A session with
    /// `ballista.planner.adaptive.enabled` set to false runs it (the static planner's shuffle
    /// ships the files' IPC blocks as written).
    ///
    /// A scheduler that is not running is an error at once, `no Ballista scheduler at
    /// host:port: ...` (within [`CONNECT_TIMEOUT`] if the host does not answer).
    pub fn connect(scheduler: &str) -> Result<Self> {
        Self::connect_with_config(scheduler, SessionConfig::new_with_ballista())
    }

    /// [`Client::connect`] with the session configuration `config` (target partitions, batch
    /// size, Ballista's settings: `SessionConfig::new_with_ballista()` and its `with_*`
    /// methods).
    pub fn connect_with_config(scheduler: &str, config: SessionConfig) -> Result<Self> {
        let (host, port) = parse_host_port("Client::connect", scheduler)
            .map_err(DataFusionError::Configuration)?;
        probe_scheduler(&host, port)?;
        // Ballista's client talks gRPC (network and timers), which a runtime without its
        // drivers cannot run: a runtime of its own, whatever the caller has.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| DataFusionError::External(Box::new(e)))?;
        let state = SessionStateBuilder::new()
            .with_default_features()
            .with_config(config)
            .build();
        let url = format!("df://{host}:{port}");
        let ctx = runtime.block_on(SessionContext::remote_with_state(&url, state))?;
        extype_datafusion::register_udfs(&ctx);
        Ok(Self {
            ctx,
            runtime,
            host,
            port,
            query_timeout: DEFAULT_QUERY_TIMEOUT,
        })
    }

    /// This client with every query of [`Client::sql`] bounded by `timeout` instead of
    /// [`DEFAULT_QUERY_TIMEOUT`].
    pub fn with_query_timeout(mut self, timeout: Duration) -> Self {
        self.query_timeout = timeout;
        self
    }

    /// The DataFusion context whose queries run on the cluster (to register tables, or run
    /// queries on a runtime of the caller's).
    pub fn context(&self) -> &SessionContext {
        &self.ctx
    }

    /// Registers the Parquet file or dataset directory at `path` as the table `name`, keeping
    /// its fields' extension metadata: the dataset [`extype_datafusion::register_parquet`]
    /// checks (whose errors these are), as DataFusion's own Parquet table
    /// ([`ParquetDataset::register_listing`](extype_datafusion::ParquetDataset::register_listing)),
    /// which the cluster's plan codecs carry to the scheduler and executors. The path is read
    /// here (the schema) and on every executor (the files): a path every machine of the cluster
    /// sees.
    pub fn register_parquet(&self, name: &str, path: impl AsRef<Path>) -> Result<()> {
        extype_datafusion::ParquetDataset::open(name, path)?.register_listing(&self.ctx, name)
    }

    /// Runs the SQL query `query` on the cluster and collects its record batches, waiting at
    /// most the query timeout ([`DEFAULT_QUERY_TIMEOUT`], [`Client::with_query_timeout`]).
    ///
    /// The batches have the schema the client planned, field metadata included: the results
    /// reach the client over Arrow Flight, whose encoder (arrow-flight 59) sends a `LargeList`
    /// column (a RaggedTensor's levels) as a `List`, and a UDF's result field crosses the plan
    /// codec without its extension metadata; each column is cast back to the planned type and
    /// the planned fields restored.
    ///
    /// Errors: the scheduler no longer running (`no Ballista scheduler at host:port`), the
    /// timeout (`did not finish within`), planning errors (the extype UDFs' among them), and
    /// the job's failure as the scheduler reports it (a task's error on an executor). An
    /// executor that cannot decode a task (one without extype's UDFs) makes the scheduler fail
    /// the job with no reason given: the error then names the extype functions the query
    /// uses, which every executor must have (the executor's log names the one it lacks).
    pub fn sql(&self, query: &str) -> Result<Vec<RecordBatch>> {
        probe_scheduler(&self.host, self.port)?;
        let ctx = self.ctx.clone();
        let run = async move {
            let df = ctx.sql(query).await?;
            let planned: SchemaRef = Arc::new(df.schema().as_arrow().clone());
            let batches = df.collect().await?;
            batches
                .iter()
                .map(|b| restore_schema(b, &planned))
                .collect::<Result<Vec<_>>>()
        };
        let outcome = self
            .runtime
            .block_on(async { tokio::time::timeout(self.query_timeout, run).await });
        match outcome {
            Ok(Err(e)) if e.to_string().contains(REJECTED) => {
                let used: Vec<String> = extype_datafusion::udfs()
                    .iter()
                    .map(|u| u.name().to_string())
                    .filter(|name| mentions(query, name))
                    .collect();
                let reason = match &e {
                    DataFusionError::Execution(message) => message.clone(),
                    other => other.to_string(),
                };
                if used.is_empty() {
                    Err(e)
                } else {
                    Err(DataFusionError::Execution(format!(
                        "{reason}: an executor could not decode a task; the query uses {}, which \
                         every executor must have registered (an executor started by \
                         extype-executor or extype_ballista::executor_main has them; the \
                         executor's log names the function it lacks)",
                        used.join(", ")
                    )))
                }
            }
            Ok(result) => result,
            Err(_) => Err(DataFusionError::Execution(format!(
                "query on the Ballista cluster at {}:{} did not finish within {:?}: `{query}`",
                self.host, self.port, self.query_timeout
            ))),
        }
    }
}

/// The reason a Ballista scheduler gives for a job whose task an executor could not decode.
const REJECTED: &str = "task could not be prepared or was rejected by executor";

/// `query` mentions the function `name` (a whole word, any case).
fn mentions(query: &str, name: &str) -> bool {
    let q = query.to_ascii_lowercase();
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    q.match_indices(name).any(|(at, _)| {
        let before = q[..at].chars().next_back();
        let after = q[at + name.len()..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

/// `batch` with the schema `planned`: each column cast to its planned type where the transport
/// changed it (`List` for `LargeList`), the planned fields and their metadata restored.
fn restore_schema(batch: &RecordBatch, planned: &SchemaRef) -> Result<RecordBatch> {
    if batch.schema() == *planned {
        return Ok(batch.clone());
    }
    if batch.num_columns() != planned.fields().len() {
        return Err(DataFusionError::Execution(format!(
            "Ballista result: expected {} columns as planned, found {}",
            planned.fields().len(),
            batch.num_columns()
        )));
    }
    let columns = batch
        .columns()
        .iter()
        .zip(planned.fields())
        .map(|(column, field)| {
            if column.data_type() == field.data_type() {
                Ok(column.clone())
            } else {
                cast(column, field.data_type()).map_err(|e| {
                    DataFusionError::Execution(format!(
                        "Ballista result: column `{}`: expected {} as planned, found {} that \
                         does not cast: {e}",
                        field.name(),
                        field.data_type(),
                        column.data_type()
                    ))
                })
            }
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(RecordBatch::try_new(planned.clone(), columns)?)
}

/// A command line that could not be read: what was wrong, and the usage.
#[derive(Debug)]
pub struct UsageError {
    message: String,
    usage: &'static str,
}

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}\n\n{}", self.message, self.usage)
    }
}

impl std::error::Error for UsageError {}

/// The value after the flag `flag`, parsed.
fn flag_value<T: std::str::FromStr>(
    flag: &str,
    value: Option<String>,
    usage: &'static str,
) -> std::result::Result<T, UsageError>
where
    T::Err: fmt::Display,
{
    let err = |message| UsageError { message, usage };
    let Some(value) = value else {
        return Err(err(format!("{flag}: expected a value, found none")));
    };
    value.parse().map_err(|e| {
        err(format!(
            "{flag}: expected a {}, found `{value}` ({e})",
            std::any::type_name::<T>()
        ))
    })
}

const SCHEDULER_USAGE: &str = "usage: extype-scheduler [--bind HOST] [--port PORT] \
[--executor-timeout SECONDS]
  --bind HOST                 address to listen on (default 127.0.0.1; 0.0.0.0 for other machines)
  --port PORT                 gRPC port executors and clients connect to (default 50050)
  --executor-timeout SECONDS  an executor without a heartbeat this long is lost and its tasks
                              run elsewhere (default 180; above the executors' --heartbeat)";

const EXECUTOR_USAGE: &str = "usage: extype-executor [--bind HOST] [--external-host HOST] \
[--port PORT] [--grpc-port PORT] [--scheduler HOST:PORT] [--vcores N] [--work-dir DIR] \
[--heartbeat SECONDS] [--scheduler-wait SECONDS]
  --bind HOST            address to listen on (default 127.0.0.1; 0.0.0.0 for other machines)
  --external-host HOST   the name other machines reach this one by (default: --bind's)
  --port PORT            Arrow Flight port, shuffle data (default 50051)
  --grpc-port PORT       gRPC port, tasks from the scheduler (default 50052)
  --scheduler HOST:PORT  the scheduler (default localhost:50050)
  --vcores N             tasks run at once (default: the machine's cores)
  --work-dir DIR         shuffle files (default: a temporary directory)
  --heartbeat SECONDS    heartbeat interval to the scheduler (default 60)
  --scheduler-wait SECONDS  how long to wait at start for the scheduler, then fail (default 10)";

/// A scheduler's settings from its command line ([`SchedulerOptions::from_args`]), made into
/// Ballista's configuration with extype's UDFs by [`SchedulerOptions::config`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchedulerOptions {
    /// The address to listen on.
    pub bind_host: String,
    /// The gRPC port executors and clients connect to.
    pub port: u16,
    /// Seconds without a heartbeat after which an executor is lost (its tasks run elsewhere).
    pub executor_timeout_seconds: u64,
}

impl Default for SchedulerOptions {
    fn default() -> Self {
        Self {
            bind_host: "127.0.0.1".into(),
            port: 50050,
            executor_timeout_seconds: 180,
        }
    }
}

impl SchedulerOptions {
    /// The options of the command line `args` (without the program name): `--bind HOST`,
    /// `--port PORT`, `--executor-timeout SECONDS`; the others default.
    pub fn from_args(
        args: impl IntoIterator<Item = String>,
    ) -> std::result::Result<Self, UsageError> {
        let mut o = Self::default();
        let mut args = args.into_iter();
        while let Some(flag) = args.next() {
            match flag.as_str() {
                "--bind" => o.bind_host = flag_value(&flag, args.next(), SCHEDULER_USAGE)?,
                "--port" => o.port = flag_value(&flag, args.next(), SCHEDULER_USAGE)?,
                "--executor-timeout" => {
                    o.executor_timeout_seconds = flag_value(&flag, args.next(), SCHEDULER_USAGE)?
                }
                _ => {
                    return Err(UsageError {
                        message: format!("unknown argument `{flag}`"),
                        usage: SCHEDULER_USAGE,
                    });
                }
            }
        }
        Ok(o)
    }

    /// Ballista's scheduler configuration of these options, with extype's UDFs
    /// ([`session_state`] as the session builder). Dead executors are looked for every second
    /// (Ballista's default: 15), so a lost one's tasks move soon after its timeout.
    pub fn config(&self) -> SchedulerConfig {
        SchedulerConfig {
            bind_host: self.bind_host.clone(),
            external_host: self.bind_host.clone(),
            bind_port: self.port,
            executor_timeout_seconds: self.executor_timeout_seconds,
            no_executors_grace_period_seconds: self.executor_timeout_seconds,
            expire_dead_executor_interval_seconds: 1,
            override_session_builder: Some(Arc::new(session_state)),
            ..SchedulerConfig::default()
        }
    }
}

/// Runs a Ballista scheduler with the configuration `config` until the process ends; a
/// configuration without a session builder gets extype's ([`session_state`]). Listens on
/// `config.bind_host:config.bind_port` (port 0: a free port), and prints the address it
/// listens on to standard output once bound.
pub async fn run_scheduler(mut config: SchedulerConfig) -> ballista_core::error::Result<()> {
    if config.override_session_builder.is_none() {
        config.override_session_builder = Some(Arc::new(session_state));
    }
    config.validate()?;
    let addr = format!("{}:{}", config.bind_host, config.bind_port);
    let listener = tokio::net::TcpListener::bind(&addr).await.map_err(|e| {
        BallistaError::General(format!("extype scheduler: listening on {addr}: {e}"))
    })?;
    let cluster = BallistaCluster::new_from_config(&config).await?;
    let scheduler =
        create_scheduler::<LogicalPlanNode, PhysicalPlanNode>(cluster, Arc::new(config)).await?;
    let local = listener.local_addr().map_err(BallistaError::from)?;
    println!("extype scheduler listening on {local}");
    start_grpc_service_with_listener(listener, scheduler).await
}

/// An executor's settings from its command line ([`ExecutorOptions::from_args`]), made into
/// Ballista's configuration with extype's UDFs by [`ExecutorOptions::config`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecutorOptions {
    /// The address to listen on.
    pub bind_host: String,
    /// The name other machines reach this one by (`None`: `bind_host`).
    pub external_host: Option<String>,
    /// The Arrow Flight port (shuffle data).
    pub port: u16,
    /// The gRPC port (tasks from the scheduler).
    pub grpc_port: u16,
    /// The scheduler's host.
    pub scheduler_host: String,
    /// The scheduler's port.
    pub scheduler_port: u16,
    /// Tasks run at once (`None`: the machine's cores).
    pub vcores: Option<usize>,
    /// The directory of shuffle files (`None`: a temporary directory).
    pub work_dir: Option<String>,
    /// Seconds between heartbeats to the scheduler.
    pub heartbeat_seconds: u64,
    /// Seconds to wait at start for the scheduler to accept a connection.
    pub scheduler_wait_seconds: u16,
}

impl Default for ExecutorOptions {
    fn default() -> Self {
        Self {
            bind_host: "127.0.0.1".into(),
            external_host: None,
            port: 50051,
            grpc_port: 50052,
            scheduler_host: "localhost".into(),
            scheduler_port: 50050,
            vcores: None,
            work_dir: None,
            heartbeat_seconds: 60,
            scheduler_wait_seconds: 10,
        }
    }
}

impl ExecutorOptions {
    /// The options of the command line `args` (without the program name): `--bind HOST`,
    /// `--external-host HOST`, `--port PORT`, `--grpc-port PORT`, `--scheduler HOST:PORT`,
    /// `--vcores N`, `--work-dir DIR`, `--heartbeat SECONDS`, `--scheduler-wait SECONDS`; the
    /// others default.
    pub fn from_args(
        args: impl IntoIterator<Item = String>,
    ) -> std::result::Result<Self, UsageError> {
        let mut o = Self::default();
        let mut args = args.into_iter();
        let u = EXECUTOR_USAGE;
        while let Some(flag) = args.next() {
            match flag.as_str() {
                "--bind" => o.bind_host = flag_value(&flag, args.next(), u)?,
                "--external-host" => o.external_host = Some(flag_value(&flag, args.next(), u)?),
                "--port" => o.port = flag_value(&flag, args.next(), u)?,
                "--grpc-port" => o.grpc_port = flag_value(&flag, args.next(), u)?,
                "--scheduler" => {
                    let s: String = flag_value(&flag, args.next(), u)?;
                    let (host, port) = parse_host_port("--scheduler", &s)
                        .map_err(|message| UsageError { message, usage: u })?;
                    o.scheduler_host = host;
                    o.scheduler_port = port;
                }
                "--vcores" => o.vcores = Some(flag_value(&flag, args.next(), u)?),
                "--work-dir" => o.work_dir = Some(flag_value(&flag, args.next(), u)?),
                "--heartbeat" => o.heartbeat_seconds = flag_value(&flag, args.next(), u)?,
                "--scheduler-wait" => o.scheduler_wait_seconds = flag_value(&flag, args.next(), u)?,
                _ => {
                    return Err(UsageError {
                        message: format!("unknown argument `{flag}`"),
                        usage: u,
                    });
                }
            }
        }
        Ok(o)
    }

    /// Ballista's executor configuration of these options, with extype's UDFs
    /// ([`function_registry`]). The executor waits up to `scheduler_wait_seconds` for the
    /// scheduler to accept its connection, then fails.
    pub fn config(&self) -> ExecutorProcessConfig {
        let mut config = ExecutorProcessConfig {
            bind_host: self.bind_host.clone(),
            external_host: self.external_host.clone(),
            port: self.port,
            grpc_port: self.grpc_port,
            scheduler_host: self.scheduler_host.clone(),
            scheduler_port: self.scheduler_port,
            scheduler_connect_timeout_seconds: self.scheduler_wait_seconds,
            work_dir: self.work_dir.clone(),
            executor_heartbeat_interval_seconds: self.heartbeat_seconds,
            override_function_registry: Some(Arc::new(function_registry())),
            ..ExecutorProcessConfig::default()
        };
        if let Some(vcores) = self.vcores {
            config.vcores = vcores;
        }
        config
    }
}

/// Runs a Ballista executor with the configuration `config` until the process ends (or the
/// scheduler stops it); a configuration without a function registry gets extype's
/// ([`function_registry`]). A scheduler that does not accept a connection within
/// `config.scheduler_connect_timeout_seconds` is an error, `no Ballista scheduler at
/// host:port`.
pub async fn run_executor(mut config: ExecutorProcessConfig) -> ballista_core::error::Result<()> {
    if config.override_function_registry.is_none() {
        config.override_function_registry = Some(Arc::new(function_registry()));
    }
    // Ballista 55's own wait for the scheduler never ends (it measures the time elapsed since
    // a fresh instant): the wait is bounded here, and Ballista then connects once.
    wait_for_scheduler(&config).await?;
    config.scheduler_connect_timeout_seconds = 0;
    println!(
        "extype executor {} on {}:{} (flight), {} (grpc), scheduler {}:{}",
        config.executor_id,
        config.bind_host,
        config.port,
        config.grpc_port,
        config.scheduler_host,
        config.scheduler_port
    );
    start_executor_process(Arc::new(config)).await
}

/// Waits until the scheduler of `config` accepts a TCP connection, for at most
/// `scheduler_connect_timeout_seconds` (at least one attempt): an error naming it otherwise.
async fn wait_for_scheduler(config: &ExecutorProcessConfig) -> ballista_core::error::Result<()> {
    let (host, port) = (config.scheduler_host.as_str(), config.scheduler_port);
    let wait = Duration::from_secs(u64::from(config.scheduler_connect_timeout_seconds));
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        let attempt = tokio::time::timeout(
            CONNECT_TIMEOUT,
            tokio::net::TcpStream::connect((host, port)),
        )
        .await;
        let error = match attempt {
            Ok(Ok(_)) => return Ok(()),
            Ok(Err(e)) => e.to_string(),
            Err(_) => format!("no answer within {CONNECT_TIMEOUT:?}"),
        };
        if tokio::time::Instant::now() >= deadline {
            return Err(BallistaError::General(format!(
                "no Ballista scheduler at {host}:{port} after waiting {wait:?}: {error}"
            )));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The log of [`init_log`]: Ballista's records (an executor logs why it rejects a task, a
/// scheduler why a job failed) on standard error.
struct StderrLog(log::LevelFilter);

impl log::Log for StderrLog {
    fn enabled(&self, metadata: &log::Metadata) -> bool {
        metadata.level() <= self.0
    }

    fn log(&self, record: &log::Record) {
        if self.enabled(record.metadata()) {
            eprintln!("{} {}: {}", record.level(), record.target(), record.args());
        }
    }

    fn flush(&self) {}
}

/// Installs the log of [`scheduler_main`] and [`executor_main`] for a process that starts a
/// scheduler or an executor itself: Ballista's records on standard error, `LEVEL target:
/// message`, at the level named by the variable `EXTYPE_BALLISTA_LOG` (`error`, `warn`,
/// `info`, `debug`, `trace`; default `warn`). A logger already installed stays.
pub fn init_log() {
    let level = std::env::var("EXTYPE_BALLISTA_LOG")
        .ok()
        .and_then(|l| l.parse().ok())
        .unwrap_or(log::LevelFilter::Warn);
    if log::set_boxed_logger(Box::new(StderrLog(level))).is_ok() {
        log::set_max_level(level);
    }
}

/// A multi-threaded runtime for a scheduler or an executor process.
fn process_runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
}

/// Runs `f`'s future on a new runtime and turns its outcome into the process's exit code
/// (errors on standard error, prefixed with `program`).
fn process_main<F>(program: &str, f: F) -> ExitCode
where
    F: std::future::Future<Output = ballista_core::error::Result<()>>,
{
    init_log();
    let runtime = match process_runtime() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("{program}: starting the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(f) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{program}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `--help` or `-h` among the process's arguments.
fn wants_help() -> bool {
    std::env::args().skip(1).any(|a| a == "--help" || a == "-h")
}

/// The `main` of a scheduler binary: [`SchedulerOptions::from_args`] of the process's
/// arguments, then [`run_scheduler`]. A bad command line prints what is wrong and the usage
/// (exit code 2); `--help` the usage. A user's scheduler binary calls it so that the extension
/// types its program links are registered on the scheduler, which plans with them.
pub fn scheduler_main() -> ExitCode {
    if wants_help() {
        println!("{SCHEDULER_USAGE}");
        return ExitCode::SUCCESS;
    }
    match SchedulerOptions::from_args(std::env::args().skip(1)) {
        Ok(o) => process_main("extype-scheduler", run_scheduler(o.config())),
        Err(e) => {
            eprintln!("extype-scheduler: {e}");
            ExitCode::from(2)
        }
    }
}

/// The `main` of an executor binary: [`ExecutorOptions::from_args`] of the process's
/// arguments, then [`run_executor`]. A user's executor binary calls it so that the extension
/// types its program links are registered on the executor (see the [crate docs](crate)).
pub fn executor_main() -> ExitCode {
    if wants_help() {
        println!("{EXECUTOR_USAGE}");
        return ExitCode::SUCCESS;
    }
    match ExecutorOptions::from_args(std::env::args().skip(1)) {
        Ok(o) => process_main("extype-executor", run_executor(o.config())),
        Err(e) => {
            eprintln!("extype-executor: {e}");
            ExitCode::from(2)
        }
    }
}
