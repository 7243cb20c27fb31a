//! SenseTime's Helios traces (Hu et al., SC '21): one `cluster_log.csv` per cluster.
//!
//! Schema, as the HeliosData repository's README gives it (S-Lab-System-Group/HeliosData):
//! `job_id, user, vc, gpu_num, cpu_num, node_num, state, submit_time, start_time, end_time,
//! duration, queue` — `user` and `vc` hashed ids, `state` one of COMPLETED, CANCELLED, FAILED,
//! TIMEOUT, NODE_FAIL, times as "YYYY-MM-DD HH:MM:SS", `duration` = end - start in seconds.
//!
//! Read here: `job_id` (the model draw), `user` or `vc` (the tenant), `gpu_num` (the job's GPUs),
//! `state` (counted), `submit_time` (arrival) and `duration` (the work, by the rules in
//! [`super`]). Columns may come in any order; others are ignored.

use super::{fnv1a, into_jobs, seconds_of, TenantField, TraceJob, TraceOptions, TraceRead};
use crate::error::SimError;
use crate::throughputs::ThroughputTable;

/// Whether a CSV header is Helios's (so `--trace-format` can be left out).
pub fn recognises(header: &str) -> bool {
    let names: Vec<&str> = header.split(',').map(str::trim).collect();
    ["job_id", "gpu_num", "submit_time", "duration", "vc"]
        .iter()
        .all(|c| names.contains(c))
}

pub fn read(
    text: &str,
    table: &ThroughputTable,
    types: &[String],
    opts: &TraceOptions,
) -> Result<TraceRead, SimError> {
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .flexible(true)
        .from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| SimError::Input(format!("Helios header: {e}")))?
        .clone();
    let tenant_column = match opts.tenant {
        TenantField::User => "user",
        TenantField::VirtualCluster => "vc",
    };
    let needed = [
        "job_id",
        tenant_column,
        "gpu_num",
        "state",
        "submit_time",
        "duration",
    ];
    let mut col = [0usize; 6];
    for (slot, name) in col.iter_mut().zip(needed) {
        *slot = headers.iter().position(|h| h == name).ok_or_else(|| {
            SimError::Input(format!(
                "Helios header: no '{name}' column (needed: {})",
                needed.join(", ")
            ))
        })?;
    }
    let mut read = TraceRead::default();
    let mut parsed = Vec::new();
    for (n, record) in reader.records().enumerate() {
        let line = n + 2;
        read.lines += 1;
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                read.malformed(format!("line {line}: {e}"));
                continue;
            }
        };
        let field = |k: usize| record.get(col[k]).unwrap_or("");
        let bad = |k: usize, what: &str| {
            format!(
                "line {line}, field '{}': '{}' is not {what}",
                needed[k],
                field(k)
            )
        };
        let job = (|| {
            Ok(TraceJob {
                // A number is its own id; other text (hashed ids) is hashed.
                id: match field(0) {
                    "" => return Err(bad(0, "an id")),
                    id => id.parse().unwrap_or_else(|_| fnv1a(id)),
                },
                tenant: Some(field(1))
                    .filter(|t| !t.is_empty())
                    .ok_or_else(|| bad(1, "a name"))?
                    .to_string(),
                gpus: field(2).parse().map_err(|_| bad(2, "a whole number"))?,
                state: Some(field(3))
                    .filter(|s| !s.is_empty())
                    .ok_or_else(|| bad(3, "a state"))?
                    .to_string(),
                submit_s: seconds_of(field(4))
                    .ok_or_else(|| bad(4, "a time (YYYY-MM-DD HH:MM:SS)"))?,
                duration_s: field(5)
                    .parse::<f64>()
                    .ok()
                    .filter(|d| d.is_finite() && *d >= 0.0)
                    .ok_or_else(|| bad(5, "a number of seconds"))?,
                gpu_type: None,
                adjusted: Vec::new(),
            })
        })();
        match job {
            Ok(job) => parsed.push(job),
            Err(message) => read.malformed(message),
        }
    }
    into_jobs(parsed, table, types, opts, &mut read)?;
    read.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn types() -> Vec<String> {
        ["k80", "p100", "v100"].map(String::from).to_vec()
    }

    // Written for this test from the README's schema and its example rows' shape.
    const TRACE: &str = "\
job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue
1425511,uXBbc,vcJkd,1,1,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,2020-06-10 04:55:09,36848,0
1425512,uVMrF,vchbv,4,16,1,FAILED,2020-06-09 18:41:27,2020-06-09 18:41:27,2020-06-09 18:45:36,249,0
1425513,uzqls,vcpDC,1,1,1,CANCELLED,2020-06-09 18:41:28,2020-06-09 18:41:28,2020-06-17 14:15:21,675233,0
1425514,uXBbc,vcJkd,0,8,1,COMPLETED,2020-06-09 18:42:00,2020-06-09 18:42:00,2020-06-09 19:42:00,3600,0
1425515,uXBbc,vcJkd,2,2,1,COMPLETED,2020-06-09 18:43:00,2020-06-09 18:43:00,2020-06-09 18:43:00,0,0
1425516,uXBbc,vcJkd,3,3,1,COMPLETED,2020-06-09 18:44:00,2020-06-09 18:44:00,2020-06-09 18:54:00,600,0
1425517,uXBbc,vcJkd,two,3,1,COMPLETED,2020-06-09 18:45:00,2020-06-09 18:45:00,2020-06-09 18:55:00,600,0
1425518,uVMrF,vchbv,8,64,1,COMPLETED,2020-06-31 18:46:00,2020-06-09 18:46:00,2020-06-09 18:56:00,600,0
1425519,uVMrF,vchbv,8,64,1,TIMEOUT,2020-06-09 19:41:01,2020-06-09 19:41:01,2020-06-09 20:41:01,3600,0
";

    #[test]
    fn reads_the_schema_by_the_stated_rules() {
        let table = ThroughputTable::builtin();
        let opts = TraceOptions::default();
        let read = read(TRACE, &table, &types(), &opts).unwrap();
        assert_eq!(read.lines, 9);
        // Kept: ...511 (1 GPU), ...512 (4), ...513 (1), ...519 (8).
        let ids: Vec<(String, u32, f64)> = read
            .jobs
            .iter()
            .map(|j| (j.tenant.clone(), j.scale_factor, j.arrival))
            .collect();
        assert_eq!(
            ids,
            vec![
                ("uXBbc".into(), 1, 0.0),
                ("uVMrF".into(), 4, 26.0),
                ("uzqls".into(), 1, 27.0),
                ("uVMrF".into(), 8, 3600.0),
            ]
        );
        // Work: the recorded duration at the model's v100 rate (the built-in table scales the
        // single-GPU figure by the GPU count).
        for (job, duration) in read.jobs.iter().zip([36848.0, 249.0, 675233.0, 3600.0]) {
            let v100 = table
                .rate_on(&job.job_type, job.scale_factor, "v100")
                .unwrap();
            assert!((job.total_steps - duration * v100).abs() < 1e-6 * job.total_steps);
            assert!((job.total_steps / job.rate[2] - duration).abs() < 1e-6 * duration);
        }
        let states: Vec<(&str, usize)> = read
            .kept_by_state
            .iter()
            .map(|(s, n)| (s.as_str(), *n))
            .collect();
        assert_eq!(
            states,
            vec![
                ("CANCELLED", 1),
                ("COMPLETED", 1),
                ("FAILED", 1),
                ("TIMEOUT", 1)
            ]
        );
        let skipped: Vec<(&str, usize)> =
            read.skipped.iter().map(|(s, n)| (s.as_str(), *n)).collect();
        assert_eq!(
            skipped,
            vec![
                ("malformed line", 2),
                ("no GPUs (a CPU job)", 1),
                (
                    "no model in the throughput table was measured on this many GPUs",
                    1
                ),
                ("no recorded duration", 1),
            ]
        );
        assert_eq!(
            read.examples,
            vec![
                "line 8, field 'gpu_num': 'two' is not a whole number".to_string(),
                "line 9, field 'submit_time': '2020-06-31 18:46:00' is not a time (YYYY-MM-DD HH:MM:SS)"
                    .to_string(),
            ]
        );
        assert!(read.summary()[0].starts_with("9 job lines: 4 kept"));
    }

    #[test]
    fn a_time_window_and_a_sample_cut_the_trace() {
        let table = ThroughputTable::builtin();
        let window = TraceOptions {
            from: seconds_of("2020-06-09 18:41:20"),
            until: seconds_of("2020-06-09 19:00:00"),
            ..TraceOptions::default()
        };
        let read_window = read(TRACE, &table, &types(), &window).unwrap();
        // Inside [18:41:20, 19:00): ...512 and ...513 kept; ...511 and ...519 outside.
        let kept: Vec<(u32, f64)> = read_window
            .jobs
            .iter()
            .map(|j| (j.scale_factor, j.arrival))
            .collect();
        assert_eq!(kept, vec![(4, 0.0), (1, 1.0)]);
        assert_eq!(read_window.skipped["submitted outside --from/--until"], 2);

        let sample = |seed| TraceOptions {
            sample: Some(2),
            seed,
            ..TraceOptions::default()
        };
        let drawn = |seed| -> Vec<u32> {
            let r = read(TRACE, &table, &types(), &sample(seed)).unwrap();
            assert_eq!(r.jobs.len(), 2);
            assert_eq!(r.skipped["not drawn by --sample"], 2);
            assert!(
                r.jobs[0].arrival == 0.0 && r.jobs[1].arrival > 0.0,
                "file order kept"
            );
            r.jobs.iter().map(|j| j.scale_factor).collect()
        };
        assert_eq!(drawn(5), drawn(5));
        let draws: std::collections::BTreeSet<Vec<u32>> = (0..12).map(drawn).collect();
        assert!(draws.len() > 1, "the seed changes the draw");
        // A sample at least as large as the trace keeps everything.
        let all = TraceOptions {
            sample: Some(10),
            ..TraceOptions::default()
        };
        assert_eq!(read(TRACE, &table, &types(), &all).unwrap().jobs.len(), 4);
    }

    #[test]
    fn tenants_by_virtual_cluster_and_another_seed() {
        let table = ThroughputTable::builtin();
        let by_vc = TraceOptions {
            tenant: TenantField::VirtualCluster,
            ..TraceOptions::default()
        };
        let read_vc = read(TRACE, &table, &types(), &by_vc).unwrap();
        assert_eq!(read_vc.jobs[0].tenant, "vcJkd");
        let models = |seed| -> Vec<String> {
            let opts = TraceOptions {
                seed,
                ..TraceOptions::default()
            };
            read(TRACE, &table, &types(), &opts)
                .unwrap()
                .jobs
                .into_iter()
                .map(|j| j.job_type)
                .collect()
        };
        assert_eq!(models(3), models(3));
        assert!((0..20).any(|s| models(s) != models(3)));
    }

    #[test]
    fn a_trace_with_no_usable_job_is_an_error_that_says_why() {
        let table = ThroughputTable::builtin();
        let only_cpu = "job_id,user,vc,gpu_num,state,submit_time,duration\n\
                        1,u1,vc1,0,COMPLETED,2020-06-09 18:41:01,100\n\
                        2,u1,vc1,1,COMPLETED,not a time,100\n";
        let err = read(only_cpu, &table, &types(), &TraceOptions::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("no job could be read"), "{err}");
        assert!(err.contains("1 skipped: no GPUs"), "{err}");
        assert!(err.contains("line 3, field 'submit_time'"), "{err}");
        let no_column = read(
            "job_id,user,gpu_num,state,submit_time\n",
            &table,
            &types(),
            &TraceOptions::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(no_column.contains("no 'duration' column"), "{no_column}");
    }

    #[test]
    fn recognises_its_header_and_not_ours() {
        assert!(recognises(TRACE.lines().next().unwrap()));
        assert!(!recognises(
            "tenant,job_type,arrival_s,total_steps,scale_factor"
        ));
    }
}
