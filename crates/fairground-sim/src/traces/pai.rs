//! Alibaba's PAI GPU trace 2020 (Weng et al., NSDI '22): two tables joined on `job_name`.
//!
//! Schema, as the alibaba/clusterdata repository gives it (`cluster-trace-gpu-v2020/README.md`
//! and the `data/*.header` files; the CSVs themselves have no header line):
//! - `pai_job_table.csv`: `job_name, inst_id, user, status, start_time, end_time` — `status` one
//!   of Running, Terminated, Failed, Waiting (only Terminated succeeded); `start_time` is the
//!   submission, `end_time` the completion, both in seconds from a hidden origin.
//! - `pai_task_table.csv`: `job_name, task_name, inst_num, status, start_time, end_time,
//!   plan_cpu, plan_mem, plan_gpu, gpu_type` — a job's roles (ps, worker, ...), each with
//!   `inst_num` instances asking `plan_gpu` percent of a GPU each (50.0 is half a GPU) of type
//!   `gpu_type` (V100, V100M32, P100, T4, MISC = older generations such as K80).
//!
//! Rules, beside the common ones in [`super`]:
//! - *Arrival*: the job's `start_time` (its submission). *Tenant*: `user` (the job table has no
//!   virtual cluster).
//! - *GPUs*: the sum over the job's tasks of `inst_num x plan_gpu / 100`, rounded up to whole
//!   GPUs (the simulator gives whole GPUs); jobs rounded up are counted in the report. A job
//!   whose tasks ask for no GPU is a CPU job (skipped, counted).
//! - *Duration*: from its first task's launch to the job's `end_time` (the latest task end when
//!   the job has none): the time it held GPUs, not the wait before launch, which the simulator
//!   produces itself.
//! - *GPU type*: the type the tasks ran on when the throughput table has it (V100 and V100M32
//!   as v100, P100 as p100, MISC as k80); otherwise (T4, mixed types, none) `--trace-gpu-type`,
//!   counted in the report.
//! - *Skipped and counted*: jobs Running or Waiting when the trace was taken, jobs with no
//!   task in the task table, and jobs with no recorded launch or end.
//! - A header line, if the file has one, is recognised and passed over. The model draw hashes
//!   `job_name`.

use super::{fnv1a, into_jobs, TenantField, TraceJob, TraceOptions, TraceRead};
use crate::error::SimError;
use crate::throughputs::ThroughputTable;
use std::collections::HashMap;

/// The job table's columns, in the published order.
pub const JOB_COLUMNS: [&str; 6] = [
    "job_name",
    "inst_id",
    "user",
    "status",
    "start_time",
    "end_time",
];

/// The task table's columns, in the published order.
pub const TASK_COLUMNS: [&str; 10] = [
    "job_name",
    "task_name",
    "inst_num",
    "status",
    "start_time",
    "end_time",
    "plan_cpu",
    "plan_mem",
    "plan_gpu",
    "gpu_type",
];

/// Whether a file is one of PAI's two tables, by its name (the published files are headerless,
/// so the name is what tells) or by a header line of the published columns.
pub fn recognises(name: &str, text: &str) -> bool {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let header = text.lines().next().unwrap_or("");
    base.starts_with("pai_job_table")
        || base.starts_with("pai_task_table")
        || is_header(header, &JOB_COLUMNS)
        || is_header(header, &TASK_COLUMNS)
}

/// Whether `text` is the task table rather than the job table: by name, then by header, then
/// by the number of fields on its first line (10 against 6).
pub fn is_task_table(name: &str, text: &str) -> bool {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let first = text.lines().next().unwrap_or("");
    base.starts_with("pai_task_table")
        || (!base.starts_with("pai_job_table") && first.split(',').count() == TASK_COLUMNS.len())
}

fn is_header(line: &str, columns: &[&str]) -> bool {
    let names: Vec<&str> = line.split(',').map(str::trim).collect();
    names == columns
}

/// What the task table says of one job.
#[derive(Debug, Default)]
struct Tasks {
    /// Sum of inst_num x plan_gpu / 100.
    gpus: f64,
    first_start: Option<f64>,
    last_end: Option<f64>,
    /// The GPU types its GPU tasks ran on (distinct, in order met).
    gpu_types: Vec<String>,
}

/// Reads the job table `jobs` and the task table `tasks` (`jobs_name` and `tasks_name` locate
/// errors).
pub fn read(
    jobs_name: &str,
    jobs: &str,
    tasks_name: &str,
    tasks: &str,
    table: &ThroughputTable,
    types: &[String],
    opts: &TraceOptions,
) -> Result<TraceRead, SimError> {
    if opts.tenant == TenantField::VirtualCluster {
        return Err(SimError::Input(
            "PAI's job table has no virtual cluster: its tenants are users (--trace-tenant user)"
                .into(),
        ));
    }
    let mut read = TraceRead::default();
    let by_job = task_table(tasks_name, tasks, &mut read)?;
    let mut parsed = Vec::new();
    for (line, record) in records(jobs, &JOB_COLUMNS) {
        read.lines += 1;
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                read.malformed(format!("{jobs_name}: line {line}: {e}"));
                continue;
            }
        };
        match job(&record, line, &by_job, table, &mut read) {
            Ok(Some(job)) => parsed.push(job),
            Ok(None) => {}
            Err(message) => read.malformed(format!("{jobs_name}: {message}")),
        }
    }
    into_jobs(parsed, table, types, opts, &mut read)?;
    read.finish()
}

/// The task table summed per job. Malformed task lines are counted among the malformed lines
/// (their job then has fewer tasks); a task table of which no line parses is an error.
fn task_table(
    name: &str,
    text: &str,
    read: &mut TraceRead,
) -> Result<HashMap<String, Tasks>, SimError> {
    let mut by_job: HashMap<String, Tasks> = HashMap::new();
    let mut lines = 0;
    for (line, record) in records(text, &TASK_COLUMNS) {
        lines += 1;
        let parsed = record.map_err(|e| e.to_string()).and_then(|r| {
            let bad = |k: usize, what: &str| {
                format!(
                    "line {line}, field '{}': '{}' is not {what}",
                    TASK_COLUMNS[k],
                    r.get(k).unwrap_or("")
                )
            };
            let number = |k: usize| -> Result<Option<f64>, String> {
                match r.get(k).unwrap_or("").trim() {
                    "" => Ok(None),
                    t => t
                        .parse::<f64>()
                        .ok()
                        .filter(|v| v.is_finite() && *v >= 0.0)
                        .map(Some)
                        .ok_or_else(|| bad(k, "a number")),
                }
            };
            let job_name = r.get(0).unwrap_or("").trim();
            if job_name.is_empty() {
                return Err(bad(0, "a job name"));
            }
            let inst = number(2)?.unwrap_or(0.0);
            let plan_gpu = number(8)?.unwrap_or(0.0);
            Ok((
                job_name.to_string(),
                inst * plan_gpu / 100.0,
                number(4)?,
                number(5)?,
                r.get(9).unwrap_or("").trim().to_string(),
            ))
        });
        match parsed {
            Ok((job_name, gpus, start, end, gpu_type)) => {
                let tasks = by_job.entry(job_name).or_default();
                tasks.gpus += gpus;
                tasks.first_start = min_some(tasks.first_start, start);
                tasks.last_end = max_some(tasks.last_end, end);
                if gpus > 0.0 && !gpu_type.is_empty() && !tasks.gpu_types.contains(&gpu_type) {
                    tasks.gpu_types.push(gpu_type);
                }
            }
            Err(message) => read.malformed(format!("{name}: {message}")),
        }
    }
    if by_job.is_empty() {
        return Err(SimError::Input(format!(
            "{name}: no task could be read from PAI's task table ({lines} lines){}",
            read.examples
                .first()
                .map(|e| format!("; {e}"))
                .unwrap_or_default()
        )));
    }
    Ok(by_job)
}

/// One line of the job table joined with its tasks: `Ok(None)` when skipped (counted in
/// `read`), `Err` when malformed.
fn job(
    r: &csv::StringRecord,
    line: usize,
    by_job: &HashMap<String, Tasks>,
    table: &ThroughputTable,
    read: &mut TraceRead,
) -> Result<Option<TraceJob>, String> {
    let field = |k: usize| r.get(k).unwrap_or("").trim();
    let bad = |k: usize, what: &str| {
        format!(
            "line {line}, field '{}': '{}' is not {what}",
            JOB_COLUMNS[k],
            field(k)
        )
    };
    let time = |k: usize| -> Result<Option<f64>, String> {
        match field(k) {
            "" => Ok(None),
            t => t
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .map(Some)
                .ok_or_else(|| bad(k, "a number of seconds")),
        }
    };
    let name = Some(field(0))
        .filter(|n| !n.is_empty())
        .ok_or_else(|| bad(0, "a job name"))?;
    let user = Some(field(2))
        .filter(|n| !n.is_empty())
        .ok_or_else(|| bad(2, "a user"))?;
    let status = field(3);
    let submit_s = time(4)?.ok_or_else(|| bad(4, "a number of seconds"))?;
    let end = time(5)?;
    match status {
        "Terminated" | "Failed" => {}
        "Running" | "Waiting" => {
            read.skip("Running or Waiting when the trace was taken");
            return Ok(None);
        }
        _ => return Err(bad(3, "a status (Running, Terminated, Failed, Waiting)")),
    }
    let Some(tasks) = by_job.get(name) else {
        read.skip("no task in the task table");
        return Ok(None);
    };
    let (Some(start), Some(end)) = (tasks.first_start, end.or(tasks.last_end)) else {
        read.skip("no recorded launch or end");
        return Ok(None);
    };
    if end < start {
        return Err(format!(
            "line {line}, field 'end_time': {end} is before the job's first task launched \
             ({start})"
        ));
    }
    let mut adjusted = Vec::new();
    // Sums of percentages are not exact in binary (3 x 33.33): within 1e-6 of a whole number
    // counts as whole.
    let gpus = if (tasks.gpus - tasks.gpus.round()).abs() < 1e-6 {
        tasks.gpus.round()
    } else {
        adjusted.push("a fraction of a GPU rounded up to whole GPUs");
        tasks.gpus.ceil()
    };
    let gpu_type = match tasks.gpu_types.as_slice() {
        [one] => table_type(one, table),
        _ => None,
    };
    if gpu_type.is_none() {
        adjusted.push("a GPU type the throughput table lacks (timed as on --trace-gpu-type)");
    }
    Ok(Some(TraceJob {
        id: fnv1a(name),
        tenant: user.to_string(),
        gpus: gpus as u32,
        submit_s,
        duration_s: end - start,
        state: status.to_string(),
        gpu_type,
        adjusted,
    }))
}

/// A PAI GPU type as the throughput table names it, if the table has it.
fn table_type(pai: &str, table: &ThroughputTable) -> Option<String> {
    let name = match pai {
        "V100" | "V100M32" => "v100",
        "P100" => "p100",
        "MISC" => "k80",
        other => return Some(other.to_lowercase()).filter(|t| table.has_type(t)),
    };
    Some(name.to_string()).filter(|t| table.has_type(t))
}

/// The records of a headerless CSV with their line numbers, a header line of `columns` passed
/// over.
fn records<'a>(
    text: &'a str,
    columns: &'a [&'a str],
) -> impl Iterator<Item = (usize, Result<csv::StringRecord, csv::Error>)> + 'a {
    let skip_header = is_header(text.lines().next().unwrap_or(""), columns);
    csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes())
        .into_records()
        .enumerate()
        .map(|(n, r)| (n + 1, r))
        .skip(usize::from(skip_header))
}

fn min_some(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn max_some(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn types() -> Vec<String> {
        ["k80", "p100", "v100"].map(String::from).to_vec()
    }

    /// A job table in the published (headerless) layout: job_name, inst_id, user, status,
    /// start_time (submission), end_time.
    const JOBS: &str = "\
j1,i1,alice,Terminated,100.0,1960.0
j2,i2,bob,Failed,200.0,900.0
j3,i3,alice,Terminated,300.0,
j4,i4,carol,Running,400.0,
j5,i5,carol,Terminated,500.0,600.0
j6,i6,dave,Terminated,550.0,700.0
j7,i7,dave,Waiting,560.0,
j8,i8,erin,Terminated,soon,700.0
j9,i9,erin,Terminated,700.0,4300.0
";

    /// Its tasks: job_name, task_name, inst_num, status, start_time, end_time, plan_cpu,
    /// plan_mem, plan_gpu, gpu_type.
    const TASKS: &str = "\
j1,worker,1.0,Terminated,160.0,1960.0,600.0,29.3,100.0,V100
j2,ps,1.0,Failed,250.0,850.0,400.0,10.0,,
j2,worker,2.0,Failed,260.0,850.0,400.0,10.0,50.0,P100
j3,worker,1.0,Terminated,300.0,1500.0,600.0,10.0,25.0,T4
j4,worker,1.0,Running,410.0,,600.0,10.0,100.0,V100
j5,evaluator,1.0,Terminated,510.0,600.0,600.0,10.0,,
j8,worker,1.0,Terminated,650.0,700.0,600.0,10.0,100.0,V100
j9,worker,4.0,Terminated,700.0,4300.0,600.0,10.0,100.0,MISC
";

    #[test]
    fn joins_the_tables_by_the_stated_rules() {
        let table = ThroughputTable::builtin();
        let opts = TraceOptions::default();
        let read = read(
            "pai_job_table.csv",
            JOBS,
            "pai_task_table.csv",
            TASKS,
            &table,
            &types(),
            &opts,
        )
        .unwrap();
        // Worked by hand from the tables above: (tenant, GPUs, arrival after j1's submission,
        // duration from the first task's launch to the job's end, index of the type it ran on).
        // j2: 2 instances x 50% = 1 GPU; j3: 25% rounded up to 1, T4 timed as v100 (the
        // default --trace-gpu-type), no job end so the task's end; j9: 4 x 100% on MISC = k80.
        let expected = [
            ("alice", 1, 0.0, 1800.0, 2),
            ("bob", 1, 100.0, 650.0, 1),
            ("alice", 1, 200.0, 1200.0, 2),
            ("erin", 4, 600.0, 3600.0, 0),
        ];
        assert_eq!(read.jobs.len(), expected.len());
        for (job, (tenant, gpus, arrival, duration, on)) in read.jobs.iter().zip(expected) {
            assert_eq!((job.tenant.as_str(), job.scale_factor), (tenant, gpus));
            assert_eq!(job.arrival, arrival);
            // The job lasts its recorded duration on the GPU type it ran on.
            let lasts = job.total_steps / job.rate[on];
            assert!(
                (lasts - duration).abs() < 1e-9 * duration,
                "{lasts} != {duration}"
            );
        }
        let count = |map: &std::collections::BTreeMap<String, usize>| -> Vec<(String, usize)> {
            map.iter().map(|(k, n)| (k.clone(), *n)).collect()
        };
        assert_eq!(
            count(&read.kept_by_state),
            [("Failed".into(), 1), ("Terminated".into(), 3)]
        );
        assert_eq!(
            count(&read.skipped),
            [
                ("Running or Waiting when the trace was taken".into(), 2),
                ("malformed line".into(), 1),
                ("no GPUs (a CPU job)".into(), 1),
                ("no task in the task table".into(), 1),
            ]
        );
        assert_eq!(
            count(&read.adjusted),
            [
                (
                    "a GPU type the throughput table lacks (timed as on --trace-gpu-type)".into(),
                    1
                ),
                ("a fraction of a GPU rounded up to whole GPUs".into(), 1),
            ]
        );
        assert_eq!(
            read.examples,
            ["pai_job_table.csv: line 8, field 'start_time': 'soon' is not a number of seconds"]
        );
        assert_eq!(
            read.summary()[0],
            "9 job lines: 4 kept (1 Failed, 3 Terminated)"
        );
    }

    #[test]
    fn header_lines_either_order_and_recognition() {
        let table = ThroughputTable::builtin();
        let opts = TraceOptions::default();
        let jobs = format!("{}\n{JOBS}", JOB_COLUMNS.join(","));
        let tasks = format!("{}\n{TASKS}", TASK_COLUMNS.join(","));
        // Headed copies under other names: told apart by their headers, given in either order.
        let format = crate::traces::TraceFormat::recognise("a.csv", &jobs);
        assert_eq!(format, crate::traces::TraceFormat::Pai);
        let read = format
            .read_public(
                ("t.csv", &tasks),
                Some(("j.csv", &jobs)),
                &table,
                &types(),
                &opts,
            )
            .unwrap()
            .unwrap();
        assert_eq!(read.jobs.len(), 4);
        assert_eq!(read.lines, 9);
        // Headerless files are recognised by their published names.
        assert!(recognises("data/pai_task_table.csv", TASKS));
        assert!(!recognises("cluster_log.csv", "job_id,user,vc\n"));
        // One table alone, two job tables, or tenants by virtual cluster: refused with a message.
        let alone = format.read_public(("pai_job_table.csv", JOBS), None, &table, &types(), &opts);
        assert!(alone
            .unwrap()
            .unwrap_err()
            .to_string()
            .contains("give both"));
        let twice = format.read_public(
            ("pai_job_table.csv", JOBS),
            Some(("pai_job_table_2.csv", JOBS)),
            &table,
            &types(),
            &opts,
        );
        assert!(twice
            .unwrap()
            .unwrap_err()
            .to_string()
            .contains("one PAI job table and one task table"));
        let by_vc = TraceOptions {
            tenant: TenantField::VirtualCluster,
            ..TraceOptions::default()
        };
        let err = read_tables(JOBS, TASKS, &by_vc).unwrap_err().to_string();
        assert!(err.contains("no virtual cluster"), "{err}");
    }

    fn read_tables(jobs: &str, tasks: &str, opts: &TraceOptions) -> Result<TraceRead, SimError> {
        read(
            "pai_job_table.csv",
            jobs,
            "pai_task_table.csv",
            tasks,
            &ThroughputTable::builtin(),
            &types(),
            opts,
        )
    }

    #[test]
    fn tables_with_nothing_readable_are_errors() {
        let opts = TraceOptions::default();
        let err = read_tables(JOBS, "j1,worker,one,Terminated,1,2,3,4,5,V100\n", &opts)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "pai_task_table.csv: no task could be read from PAI's task table (1 lines); \
             pai_task_table.csv: line 1, field 'inst_num': 'one' is not a number"
        );
        let err = read_tables("j4,i4,carol,Running,400.0,\n", TASKS, &opts)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("no job could be read from the trace: 1 job lines: 0 kept ()"),
            "{err}"
        );
        assert!(err.contains("Running or Waiting"), "{err}");
    }
}
