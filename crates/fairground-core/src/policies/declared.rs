//! What a policy declares about itself beyond its summary and guarantees, so no consumer infers it
//! from the policy's name: its family (colour, legend, the Simulation tab's groups), what it reads
//! from a scenario, and how the simulator's rounds run it. Each policy's file sets these in its
//! [`super::PolicyInfo`]; the consumers (the simulator, the playground, the CLI) read them.
//! Plain data: no solver is reached from here, so the page's light engine can carry it.

/// The family a policy or a simulator scheduler belongs to: drawn in the family's colour on every
/// chart, and grouped so in the Simulation tab. The simulator's own schedulers (Synergy's, Hadar's,
/// the GPU-sharing ones) are families too, declared beside them in the simulator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// The efficiency-optimal fair allocation (Mo, Xu and Lau, Middleware 2024).
    Oef,
    /// Gavel's policies (Narayanan et al., OSDI 2020).
    Gavel,
    /// Markets and trading from equal incomes or shares.
    Market,
    Synergy,
    Hadar,
    /// Two jobs on one GPU.
    Sharing,
    /// Reference points: the equal split, the isolated share, the queues.
    Baseline,
}

impl Family {
    /// Its name in legends, the Simulation tab and `fairground policies`.
    pub const fn name(self) -> &'static str {
        match self {
            Family::Oef => "OEF",
            Family::Gavel => "Gavel",
            Family::Market => "market",
            Family::Synergy => "Synergy",
            Family::Hadar => "Hadar",
            Family::Sharing => "GPU sharing",
            Family::Baseline => "baselines",
        }
    }
}

/// What a policy reads from a scenario beyond the throughputs, weights and caps every policy
/// reads: the playground shows those columns while the policy is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reads {
    /// Each tenant's work left (`work`: gavel-min-makespan's R_i).
    pub work: bool,
    /// The entities tenants belong to (gavel-hierarchical).
    pub entities: bool,
    /// Co-located throughputs of pairs sharing a GPU (gavel-las-packed).
    pub co_location: bool,
}

impl Reads {
    /// Throughputs, weights and caps only.
    pub const BASE: Reads = Reads {
        work: false,
        entities: false,
        co_location: false,
    };
}

/// How the simulator's rounds run a policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InRounds {
    /// Solved every recomputation over parties, as Gavel's simulator does.
    Solved(Rounds),
    /// By a scheduler of its own that places jobs two to a GPU by co-located throughputs
    /// (gavel-las-packed), since a round's shares are then per pair of jobs.
    Packed,
}

/// A solved policy's round settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rounds {
    /// Who its parties are.
    pub parties: PartyRule,
    /// Which answer of its program the rounds take.
    pub answer: RoundAnswer,
    /// The order its jobs walk the GPU types.
    pub walk: Walk,
    /// What the last recomputation leaves for the next one to start from.
    pub warm: Warm,
}

/// Who a policy shares among in the simulator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartyRule {
    /// Tenants when `--share-among tenants` asks for them; with jobs asked, this grouping of them.
    /// Only a policy that treats identical jobs alike may group them into classes.
    AsAsked(JobGrouping),
    /// Always this, whatever is asked: its targets are per job, per tenant or a queue.
    Always(Grouping),
}

/// How jobs are grouped when they are the parties.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobGrouping {
    /// Each job its own party (the policy's per-job answer depends on how many jobs there are,
    /// or the rounds take an answer that differs job by job).
    Jobs,
    /// Classes of identical jobs, weighted by their size: the same optimum as per job when the
    /// objective treats identical jobs alike, with fewer rows.
    Classes,
}

/// The parties a policy always has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grouping {
    /// Each job (its own steps, times or work left).
    Jobs,
    /// The jobs' tenants (Gandiva_fair's users).
    Tenants,
    /// Tenants as entities, each over classes of its identical jobs, in one program
    /// (gavel-hierarchical).
    TenantsThenJobs,
    /// Jobs in arrival order, served first come first served.
    Queue,
}

/// Which answer the rounds take when jobs are the parties.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoundAnswer {
    /// The policy's own solve (simplex, checked).
    Solve,
    /// Gavel's interior-point answer, crumbs and all, as its simulator runs the policy.
    GavelInterior(Interior),
    /// Finish-time fairness against each job's time on its isolated share, from the rounds'
    /// history (gavel-ftf).
    FinishTimeFair,
}

/// The interior-point program whose answer Gavel's simulator takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interior {
    /// gavel-max-sum's.
    MaxSum,
    /// The heterogeneity-agnostic max-min's.
    MaxMinAgnostic,
    /// The makespan bound its bisection settles on.
    MinMakespan,
}

/// The order in which a round's jobs walk the GPU types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Walk {
    /// Fixed (v100, p100, k80): Gavel's heterogeneity-aware policies.
    Fixed,
    /// Shuffled every round by Gavel's seeded generator: its agnostic policies.
    Shuffled,
}

/// What the next recomputation starts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Warm {
    /// Nothing: solved afresh.
    Cold,
    /// The max-min's answer updated incrementally over job classes (gavel-las).
    MaxMinClasses,
    /// The last program's envy-freeness rows (oef-coop).
    EnvyRows,
}

impl Rounds {
    /// An allocation solved afresh over tenants or classes of identical jobs, walking the types
    /// in a fixed order: most policies.
    pub const CLASSES: Rounds = Rounds {
        parties: PartyRule::AsAsked(JobGrouping::Classes),
        answer: RoundAnswer::Solve,
        walk: Walk::Fixed,
        warm: Warm::Cold,
    };
}
