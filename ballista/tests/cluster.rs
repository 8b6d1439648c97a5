//! SQL with extype's UDFs on a Ballista cluster of separate processes on localhost — a scheduler
//! and two executors — against single-process DataFusion on the same Parquet dataset, and the
//! cluster's faults: a scheduler that is not running, an executor without extype's UDFs, an
//! executor killed during a query.
//!
//! The scheduler and the executors are this test binary itself, run again with a role in
//! `EXTYPE_BALLISTA_TEST_ROLE` (hence `harness = false`): so they link the test's derived user
//! type, the way a user's own scheduler and executor binaries link theirs. Every process started
//! is killed when its guard drops, on every path out of a test (a panic included), and every
//! wait has a deadline.
//!
//! `EXTYPE_BALLISTA_MEASURE=ROWS` runs the measurement of BENCHMARKS.md ("Ballista") instead of
//! the tests: one process, one executor and two executors over a dataset of `ROWS` rows.

use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ballista::prelude::SessionConfigExt;
use ballista_core::registry::BallistaFunctionRegistry;
use datafusion::arrow::compute::{concat_batches, sort_to_indices, take_record_batch};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::prelude::{SessionConfig, SessionContext};
use extype::types::{MaskedTensor, RaggedTensor};
use extype_arrow::{EXTENSION_NAME, to_record_batch};
use extype_ballista::{Client, ExecutorOptions, SchedulerOptions};
use extype_core::ops;
use extype_core::{Tensor, Value, batch};
use ndarray::{ArrayD, IxDyn};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// A test case: its temporary directory in, its outcome out.
type Test = fn(&Path) -> TestResult;

/// The variable that makes this binary a cluster process instead of the tests.
const ROLE: &str = "EXTYPE_BALLISTA_TEST_ROLE";

/// How long a process may take to listen on its port.
const START_TIMEOUT: Duration = Duration::from_secs(30);

#[path = "../../datafusion/tests/support/weighted.rs"]
mod weighted;
use weighted::Weighted;

/// A child process of the test, killed and reaped when dropped; its output goes to a log file
/// shown when it fails to start.
struct Proc {
    name: String,
    child: Child,
    log: PathBuf,
}

impl Proc {
    /// This binary again, in the role `role`, with the arguments `args`.
    fn start(name: &str, role: &str, args: &[String], logs: &Path) -> std::io::Result<Proc> {
        let log = logs.join(format!("{name}.log"));
        let out = std::fs::File::create(&log)?;
        let err = out.try_clone()?;
        let child = Command::new(std::env::current_exe()?)
            .env(ROLE, role)
            .args(args)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()?;
        Ok(Proc {
            name: name.to_string(),
            child,
            log,
        })
    }

    /// Waits until the process accepts connections on `port`; an error if it exits first or
    /// the deadline passes.
    fn wait_listening(&mut self, port: u16) -> Result<(), String> {
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Ok(());
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!(
                    "{} exited ({status}) before listening on port {port}:\n{}",
                    self.name,
                    self.output()
                ));
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "{} not listening on port {port} after {START_TIMEOUT:?}:\n{}",
                    self.name,
                    self.output()
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The process's output so far.
    fn output(&self) -> String {
        let mut s = String::new();
        if let Ok(mut f) = std::fs::File::open(&self.log) {
            let _ = f.read_to_string(&mut s);
        }
        s
    }

    /// Kills the process now (SIGKILL: no clean shutdown) and reaps it.
    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A free port on localhost (bound, then released for the process that will listen on it).
fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// A fresh directory under the system's temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> std::io::Result<TempDir> {
        let dir =
            std::env::temp_dir().join(format!("extype-ballista-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        Ok(TempDir(dir))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A scheduler and its executors, every process killed when dropped.
struct Cluster {
    scheduler_port: u16,
    // Dropped (killed) in order: the executors, then the scheduler.
    executors: Vec<Proc>,
    _scheduler: Proc,
}

impl Cluster {
    /// A scheduler on a free port and one executor per role of `executor_roles` (`executor`:
    /// extype's UDFs; `plain-executor`: Ballista's default functions only), each listening.
    fn start(name: &str, executor_roles: &[&str], logs: &Path) -> Result<Cluster, String> {
        let io = |e: std::io::Error| format!("starting cluster {name}: {e}");
        let scheduler_port = free_port().map_err(io)?;
        // Dead executors are noticed after 3 s without a heartbeat (one a second).
        let args = [
            "--port".to_string(),
            scheduler_port.to_string(),
            "--executor-timeout".to_string(),
            "3".to_string(),
        ];
        let mut scheduler =
            Proc::start(&format!("{name}-scheduler"), "scheduler", &args, logs).map_err(io)?;
        scheduler.wait_listening(scheduler_port)?;
        let mut executors = Vec::new();
        for (i, role) in executor_roles.iter().enumerate() {
            let (port, grpc_port) = (free_port().map_err(io)?, free_port().map_err(io)?);
            let work = logs.join(format!("{name}-executor{i}-work"));
            std::fs::create_dir_all(&work).map_err(io)?;
            let args = [
                "--port",
                &port.to_string(),
                "--grpc-port",
                &grpc_port.to_string(),
                "--scheduler",
                &format!("127.0.0.1:{scheduler_port}"),
                "--vcores",
                "2",
                "--heartbeat",
                "1",
                "--work-dir",
                &work.to_string_lossy(),
            ]
            .map(String::from);
            let mut e =
                Proc::start(&format!("{name}-executor{i}"), role, &args, logs).map_err(io)?;
            e.wait_listening(port)?;
            e.wait_listening(grpc_port)?;
            executors.push(e);
        }
        Ok(Cluster {
            scheduler_port,
            executors,
            _scheduler: scheduler,
        })
    }

    fn client(&self, timeout: Duration) -> Result<Client, datafusion::error::DataFusionError> {
        Ok(
            Client::connect(&format!("127.0.0.1:{}", self.scheduler_port))?
                .with_query_timeout(timeout),
        )
    }
}

/// `n` MaskedTensor items of shape [2, 3], each with at least one valid element.
fn masked(n: usize) -> MaskedTensor {
    let items: Vec<MaskedTensor> = (0..n)
        .map(|i| {
            let values = ArrayD::from_shape_fn(IxDyn(&[2, 3]), |ix| {
                ((i * 7 + ix[0] * 3 + ix[1]) % 11) as f32 - 4.0
            });
            let mask = ArrayD::from_shape_fn(IxDyn(&[2, 3]), |ix| (i + ix[0] + 2 * ix[1]) % 3 != 0);
            MaskedTensor::new(values, mask).unwrap()
        })
        .collect();
    batch::stack(&items).unwrap()
}

/// `n` RaggedTensor items: item `i` has 1 + i % 3 rows of (i + row) % 3 values each.
fn ragged(n: usize) -> RaggedTensor {
    let items: Vec<RaggedTensor> = (0..n)
        .map(|i| {
            let mut splits = vec![0i64];
            for row in 0..1 + i % 3 {
                splits.push(splits[row] + ((i + row) % 3) as i64);
            }
            let len = *splits.last().unwrap() as usize;
            let values: Vec<f32> = (0..len).map(|j| (i * 5 + j) as f32 - 7.0).collect();
            RaggedTensor::from_row_splits(
                Tensor::from(ArrayD::from_shape_vec(IxDyn(&[len]), values).unwrap()),
                Tensor::from(ArrayD::from_shape_vec(IxDyn(&[splits.len()]), splits).unwrap()),
            )
            .unwrap()
        })
        .collect();
    batch::stack(&items).unwrap()
}

/// `n` Weighted items of shape [2].
fn weighted(n: usize) -> Weighted {
    let values = Tensor::from(ArrayD::from_shape_fn(IxDyn(&[n, 2]), |ix| {
        (ix[0] * 3 + ix[1]) as f32 - 10.0
    }));
    let weights = Tensor::from(ArrayD::from_shape_fn(IxDyn(&[n, 2]), |ix| {
        ((ix[0] + ix[1]) % 4) as f32 * 0.5
    }));
    Weighted::try_new(values, weights).unwrap()
}

/// A Hive-partitioned Parquet dataset of `n` rows under `dir` (`files` files, `part=0/…` and
/// `part=1/…` in turn): `id`, a MaskedTensor column `m`, a RaggedTensor column `r` and a
/// Weighted column `w`.
fn write_dataset(dir: &Path, n: usize, files: usize) -> TestResult {
    let id = Tensor::from(ArrayD::from_shape_fn(IxDyn(&[n]), |ix| ix[0] as i64));
    let rb = to_record_batch(&[
        ("id", &Value::Tensor(id)),
        ("m", &Value::from_extension(masked(n))),
        ("r", &Value::from_extension(ragged(n))),
        ("w", &Value::from_extension(weighted(n))),
    ])?;
    let per = n.div_ceil(files);
    for f in 0..files {
        let part = dir.join(format!("part={}", f % 2));
        std::fs::create_dir_all(&part)?;
        let slice = rb.slice(f * per, per.min(n - f * per));
        extype_arrow::write_parquet(part.join(format!("f{f}.parquet")), &[slice])?;
    }
    Ok(())
}

/// The queries compared between the cluster and one process, each with the column its rows
/// are sorted by (the cluster returns partitions in any order): extype's UDFs on every column
/// type, an aggregate over a UDF's results (a shuffle between stages), and extension columns
/// passed through a filter.
const QUERIES: [(&str, &str); 3] = [
    (
        "SELECT id, part, extype_reduce_sum(m) AS m_sum, extype_reduce_mean(m) AS m_mean, \
         extype_abs(r) AS r_abs, extype_reduce_sum(r) AS r_sum, extype_reduce_sum(w) AS w_sum, \
         extype_abs(w) AS w_abs FROM ds",
        "id",
    ),
    (
        "SELECT part, count(*) AS n, min(id) AS lo, sum(extype_reduce_sum(w)) AS w_total \
         FROM ds WHERE id % 3 <> 0 GROUP BY part",
        "part",
    ),
    ("SELECT id, m, w FROM ds WHERE part = '1'", "id"),
];

/// A sort across executors whose rows carry the RaggedTensor column (`LargeList`s through the
/// shuffle): with Ballista's static planner (see `Client::connect`).
const SORT: (&str, &str) = (
    "SELECT id, r, m, extype_reduce_sum(r) AS r_sum FROM ds ORDER BY id",
    "id",
);

/// The query's output as one batch, its rows sorted by the column `by`.
fn sorted(batches: &[RecordBatch], by: &str) -> Result<RecordBatch, Box<dyn std::error::Error>> {
    let all = one(batches)?;
    let Some(key) = all.column_by_name(by) else {
        return Err(format!("no column `{by}` in the output").into());
    };
    let order = sort_to_indices(key, None, None)?;
    Ok(take_record_batch(&all, &order)?)
}

/// The query's output as one batch.
fn one(batches: &[RecordBatch]) -> Result<RecordBatch, Box<dyn std::error::Error>> {
    let Some(first) = batches.first() else {
        return Err("no record batch in the output".into());
    };
    Ok(concat_batches(&first.schema(), batches)?)
}

/// The cluster's output equals the single process's: the schema (field metadata included) and
/// every column (Arrow's logical equality: the values under a null are not compared).
fn assert_same(
    (query, by): (&str, &str),
    cluster: &[RecordBatch],
    local: &[RecordBatch],
) -> TestResult {
    let (c, l) = (sorted(cluster, by)?, sorted(local, by)?);
    assert_eq!(c.schema(), l.schema(), "schema of `{query}`");
    assert_eq!(c.num_rows(), l.num_rows(), "rows of `{query}`");
    for (i, field) in l.schema().fields().iter().enumerate() {
        assert_eq!(
            c.column(i).to_data(),
            l.column(i).to_data(),
            "column `{}` of `{query}`",
            field.name()
        );
    }
    Ok(())
}

/// The dataset registered in a single-process DataFusion context with extype's UDFs.
fn local_context(dataset: &Path) -> Result<SessionContext, Box<dyn std::error::Error>> {
    let ctx = SessionContext::new();
    extype_datafusion::register_parquet(&ctx, "ds", dataset)?;
    extype_datafusion::register_udfs(&ctx);
    Ok(ctx)
}

fn queries_on_two_executors_match_one_process(tmp: &Path) -> TestResult {
    let dataset = tmp.join("ds");
    write_dataset(&dataset, 60, 4)?;
    let local = local_context(&dataset)?;
    let cluster = Cluster::start("two", &["executor", "executor"], tmp)?;
    let client = cluster.client(Duration::from_secs(60))?;
    client.register_parquet("ds", &dataset)?;
    for q in QUERIES {
        let started = Instant::now();
        let on_cluster = client.sql(q.0)?;
        let cluster_time = started.elapsed();
        let started = Instant::now();
        let in_process = extype_datafusion::sql(&local, q.0)?;
        println!(
            "  cluster {cluster_time:?}, one process {:?}: `{}…`",
            started.elapsed(),
            q.0.get(..40).unwrap_or(q.0)
        );
        assert_same(q, &on_cluster, &in_process)?;
    }
    let static_planner = Client::connect_with_config(
        &format!("127.0.0.1:{}", cluster.scheduler_port),
        SessionConfig::new_with_ballista().set_bool("ballista.planner.adaptive.enabled", false),
    )?
    .with_query_timeout(Duration::from_secs(60));
    static_planner.register_parquet("ds", &dataset)?;
    let sorted_on_cluster = static_planner.sql(SORT.0)?;
    assert_same(
        SORT,
        &sorted_on_cluster,
        &extype_datafusion::sql(&local, SORT.0)?,
    )?;
    // The extension metadata survived the trip: the result columns are extension columns.
    let out = sorted(&client.sql(QUERIES[0].0)?, "id")?;
    let schema = out.schema();
    let ext = |name: &str| schema.field_with_name(name).unwrap().metadata()[EXTENSION_NAME].clone();
    assert_eq!(ext("m_mean"), "extype.MaskedTensor");
    assert_eq!(ext("r_abs"), "extype.RaggedTensor");
    assert_eq!(ext("w_abs"), "test.Weighted");
    let w_abs: Weighted = extype_arrow::column_as(&out, "w_abs")?;
    assert_eq!(w_abs, ops::abs_as::<Weighted>(&weighted(60))?);

    // One executor killed during a query: the query completes on the other (its result the
    // single process's) or fails with an error within its timeout, and nothing hangs. Ballista
    // 55 does both here: it reruns the task on the other executor when the dead one's task
    // launch fails, and otherwise left the job (and the next query) waiting on the lost
    // executor until the client's timeout, in about half the runs on 2026-11-30. When it
    // completed, the cluster then still answers on the remaining executor.
    let bounded = cluster.client(Duration::from_secs(20))?;
    bounded.register_parquet("ds", &dataset)?;
    let mut cluster = cluster;
    let q = QUERIES[1];
    let expected = extype_datafusion::sql(&local, q.0)?;
    let started = Instant::now();
    let outcome = std::thread::scope(|s| {
        let query = s.spawn(|| bounded.sql(q.0));
        std::thread::sleep(Duration::from_millis(100));
        cluster.executors[1].kill();
        query.join()
    });
    let outcome = outcome.map_err(|_| "the query thread panicked")?;
    let took = started.elapsed();
    println!(
        "  executor killed during a query: {} after {took:?}",
        match &outcome {
            Ok(_) => "completed".to_string(),
            Err(e) => format!("failed: {e}"),
        },
    );
    assert!(took < Duration::from_secs(30), "waited {took:?}");
    match &outcome {
        Ok(batches) => {
            assert_same(q, batches, &expected)?;
            let started = Instant::now();
            let after = client.sql(q.0)?;
            println!(
                "  the next query on the remaining executor: {:?}",
                started.elapsed()
            );
            assert_same(q, &after, &expected)?;
        }
        Err(e) => assert!(
            e.to_string().contains("did not finish within 20s"),
            "an error other than the timeout: {e}"
        ),
    }
    Ok(())
}

fn a_scheduler_not_running_is_an_error_at_once(tmp: &Path) -> TestResult {
    let port = free_port()?;
    let started = Instant::now();
    let e = Client::connect(&format!("127.0.0.1:{port}"))
        .unwrap_err()
        .to_string();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(
        e.contains(&format!("no Ballista scheduler at 127.0.0.1:{port}")),
        "{e}"
    );
    let e = Client::connect("localhost").unwrap_err().to_string();
    assert!(e.contains("expected host:port, found `localhost`"), "{e}");

    // An executor gives up after its wait for the scheduler, naming it.
    let args = [
        "--port",
        &free_port()?.to_string(),
        "--grpc-port",
        &free_port()?.to_string(),
        "--scheduler",
        &format!("127.0.0.1:{port}"),
        "--scheduler-wait",
        "1",
    ]
    .map(String::from);
    let started = Instant::now();
    let mut executor = Proc::start("lonely-executor", "executor", &args, tmp)?;
    let status = loop {
        if let Some(status) = executor.child.try_wait()? {
            break status;
        }
        if started.elapsed() > START_TIMEOUT {
            return Err(format!("the executor still waits after {START_TIMEOUT:?}").into());
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    println!(
        "  executor without a scheduler: {status} after {:?}",
        started.elapsed()
    );
    assert!(!status.success());
    let out = executor.output();
    assert!(
        out.contains(&format!("no Ballista scheduler at 127.0.0.1:{port}")),
        "{out}"
    );
    Ok(())
}

fn an_executor_without_the_udfs_names_the_missing_function(tmp: &Path) -> TestResult {
    let dataset = tmp.join("ds-plain");
    write_dataset(&dataset, 8, 2)?;
    let cluster = Cluster::start("plain", &["plain-executor"], tmp)?;
    let client = cluster.client(Duration::from_secs(60))?;
    client.register_parquet("ds", &dataset)?;
    let started = Instant::now();
    let e = client
        .sql("SELECT extype_reduce_sum(m) AS s FROM ds")
        .unwrap_err()
        .to_string();
    println!("  failed after {:?}: {e}", started.elapsed());
    assert!(e.contains("the query uses extype_reduce_sum"), "{e}");
    // The executor's log names the function it lacks.
    let log = cluster.executors[0].output();
    assert!(
        log.contains("scalar function extype_reduce_sum"),
        "executor log:\n{log}"
    );
    Ok(())
}

/// An executor with Ballista's default functions only (no extype UDFs).
fn plain_executor_main() -> ExitCode {
    let options = match ExecutorOptions::from_args(std::env::args().skip(1)) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("plain executor: {e}");
            return ExitCode::from(2);
        }
    };
    extype_ballista::init_log();
    let mut config = options.config();
    config.override_function_registry = Some(Arc::new(BallistaFunctionRegistry::default()));
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("plain executor: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(extype_ballista::run_executor(config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("plain executor: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The queries timed by [`measure`].
const TIMED: [&str; 2] = [
    "SELECT part, count(*) AS n, sum(extype_reduce_sum(w)) AS w_total, \
     sum(extype_reduce_mean(m)['values']) AS m_total FROM ds GROUP BY part",
    "SELECT id, extype_reduce_mean(m) AS m_mean FROM ds",
];

/// The median of `runs` timings of `f`.
fn median(
    runs: usize,
    mut f: impl FnMut() -> TestResult,
) -> Result<Duration, Box<dyn std::error::Error>> {
    let mut times = Vec::new();
    for _ in 0..runs {
        let started = Instant::now();
        f()?;
        times.push(started.elapsed());
    }
    times.sort();
    Ok(times[runs / 2])
}

/// With `EXTYPE_BALLISTA_MEASURE` set: the [`TIMED`] queries over a larger dataset in one
/// process, on a cluster of one executor and on one of two, in the same run (medians of 5).
fn measure(tmp: &Path) -> TestResult {
    let dataset = tmp.join("ds-measure");
    let rows: usize = std::env::var("EXTYPE_BALLISTA_MEASURE")?
        .parse()
        .unwrap_or(40_000);
    write_dataset(&dataset, rows, 8)?;
    let local = local_context(&dataset)?;
    let one = Cluster::start("m1", &["executor"], tmp)?;
    let two = Cluster::start("m2", &["executor", "executor"], tmp)?;
    let c1 = one.client(Duration::from_secs(600))?;
    let c2 = two.client(Duration::from_secs(600))?;
    c1.register_parquet("ds", &dataset)?;
    c2.register_parquet("ds", &dataset)?;
    for q in TIMED {
        // One run each first: the executors' and the client's first query pays for connections.
        c1.sql(q)?;
        c2.sql(q)?;
        let t_local = median(5, || Ok(extype_datafusion::sql(&local, q).map(drop)?))?;
        let t1 = median(5, || Ok(c1.sql(q).map(drop)?))?;
        let t2 = median(5, || Ok(c2.sql(q).map(drop)?))?;
        println!(
            "  {rows} rows: one process {t_local:?}, one executor {t1:?}, two executors {t2:?}: `{}…`",
            &q[..50]
        );
    }
    let trivial = "SELECT count(*) FROM ds WHERE id < 0";
    let t_local = median(5, || Ok(extype_datafusion::sql(&local, trivial).map(drop)?))?;
    let t2 = median(5, || Ok(c2.sql(trivial).map(drop)?))?;
    println!("  fixed cost (`{trivial}`): one process {t_local:?}, two executors {t2:?}");
    Ok(())
}

fn main() -> ExitCode {
    match std::env::var(ROLE).as_deref() {
        Ok("scheduler") => return extype_ballista::scheduler_main(),
        Ok("executor") => return extype_ballista::executor_main(),
        Ok("plain-executor") => return plain_executor_main(),
        Ok(other) => {
            eprintln!("{ROLE}: unknown role `{other}`");
            return ExitCode::from(2);
        }
        Err(_) => {}
    }
    // The scheduler's options parse as the binaries' do (checked here: no other test binary).
    assert_eq!(
        SchedulerOptions::from_args(["--port", "7", "--executor-timeout", "3"].map(String::from))
            .unwrap()
            .port,
        7
    );
    let tests: [(&str, Test); 3] = [
        (
            "a_scheduler_not_running_is_an_error_at_once",
            a_scheduler_not_running_is_an_error_at_once,
        ),
        (
            "queries_on_two_executors_match_one_process",
            queries_on_two_executors_match_one_process,
        ),
        (
            "an_executor_without_the_udfs_names_the_missing_function",
            an_executor_without_the_udfs_names_the_missing_function,
        ),
    ];
    if std::env::var("EXTYPE_BALLISTA_MEASURE").is_ok() {
        let outcome = TempDir::new("measure")
            .map_err(|e| e.into())
            .and_then(|tmp| measure(&tmp.0));
        return match outcome {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                println!("measure: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let mut failed = 0;
    for (name, test) in tests {
        if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        println!("test {name} ...");
        let started = Instant::now();
        let tmp = match TempDir::new(name) {
            Ok(t) => t,
            Err(e) => {
                println!("test {name} ... FAILED: temporary directory: {e}");
                failed += 1;
                continue;
            }
        };
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| test(&tmp.0)));
        match outcome {
            Ok(Ok(())) => println!("test {name} ... ok ({:?})", started.elapsed()),
            Ok(Err(e)) => {
                println!("test {name} ... FAILED ({:?}): {e}", started.elapsed());
                failed += 1;
            }
            Err(_) => {
                println!("test {name} ... FAILED ({:?}): panicked", started.elapsed());
                failed += 1;
            }
        }
    }
    if failed > 0 {
        println!("{failed} test(s) failed");
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
