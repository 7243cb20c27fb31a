//! What the user is editing: the scenario as TEXT, cell by cell, so that nothing typed is lost
//! (an invalid cell keeps its text, moves with its row and survives a reload), and the scenario
//! parsed from it, with every problem located by the same paths the engine uses.

use crate::paste::parse_number;
use fairground_core::{
    CoLocated, Entity, GpuType, Normalization, Problem, Scenario, Tenant, Within,
};

/// One co-located pair (gavel-las-packed), as text: the two tenants' names and, per GPU type,
/// their two throughputs while sharing. Lists, as the scenario's: a pasted file of another shape
/// keeps its shape, and the engine says what is wrong with it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DraftPair {
    pub tenants: Vec<String>,
    pub throughput: Vec<Vec<String>>,
}
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DraftType {
    pub name: String,
    pub count: String,
    /// A new type's throughputs are copies (each tenant's slowest type's) until one of its
    /// cells is typed: the editor marks the column meanwhile. (Drafts saved before it existed
    /// read as typed.)
    #[serde(default)]
    pub copied: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DraftTenant {
    pub name: String,
    pub weight: String,
    /// Empty means no cap.
    pub max_gpus: String,
    pub throughput: Vec<String>,
    /// Work left (steps), for min-makespan; empty means none given. (Drafts saved before it
    /// existed read as empty.)
    #[serde(default)]
    pub work: String,
    /// The entity it belongs to, by name; empty means the top level.
    #[serde(default)]
    pub entity: String,
}

/// One entity (a group of tenants, for gavel-hierarchical), as text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DraftEntity {
    pub name: String,
    pub weight: String,
    /// `fairness` or `fifo`.
    pub within: String,
    /// Empty means the top level.
    pub parent: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Draft {
    pub types: Vec<DraftType>,
    pub tenants: Vec<DraftTenant>,
    pub normalization: String,
    /// (Drafts saved before entities existed read as none.)
    #[serde(default)]
    pub entities: Vec<DraftEntity>,
    /// Pairs that can share GPUs (gavel-las-packed), cell by cell, kept in step with the
    /// table (a tenant renamed or removed, a type added, moved or removed). (Drafts saved
    /// before they existed read as none.)
    #[serde(default)]
    pub co_located: Vec<DraftPair>,
}

/// One editable cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cell {
    TypeName(usize),
    TypeCount(usize),
    TenantName(usize),
    Weight(usize),
    MaxGpus(usize),
    Work(usize),
    Throughput(usize, usize),
    /// A tenant's entity.
    Entity(usize),
    EntityName(usize),
    EntityWeight(usize),
    EntityParent(usize),
    /// Pair p's k-th tenant (0 or 1).
    PairTenant(usize, usize),
    /// Pair p's k-th tenant's throughput on type j: (p, j, k).
    PairThroughput(usize, usize, usize),
}

impl Cell {
    /// The engine's path for this cell, e.g. `tenants[2].throughput[1]`.
    pub fn path(self) -> String {
        match self {
            Cell::TypeName(j) => format!("gpu_types[{j}].name"),
            Cell::TypeCount(j) => format!("gpu_types[{j}].count"),
            Cell::TenantName(i) => format!("tenants[{i}].name"),
            Cell::Weight(i) => format!("tenants[{i}].weight"),
            Cell::MaxGpus(i) => format!("tenants[{i}].max_gpus"),
            Cell::Work(i) => format!("tenants[{i}].work"),
            Cell::Throughput(i, j) => format!("tenants[{i}].throughput[{j}]"),
            Cell::Entity(i) => format!("tenants[{i}].entity"),
            Cell::EntityName(e) => format!("entities[{e}].name"),
            Cell::EntityWeight(e) => format!("entities[{e}].weight"),
            Cell::EntityParent(e) => format!("entities[{e}].parent"),
            Cell::PairTenant(p, k) => format!("co_located[{p}].tenants[{k}]"),
            Cell::PairThroughput(p, j, k) => format!("co_located[{p}].throughput[{j}][{k}]"),
        }
    }
}

fn number_text(x: f64) -> String {
    format!("{x}")
}

impl Draft {
    pub fn from_scenario(s: &Scenario) -> Draft {
        Draft {
            types: s
                .gpu_types
                .iter()
                .map(|t| DraftType {
                    name: t.name.clone(),
                    count: t.count.to_string(),
                    copied: false,
                })
                .collect(),
            tenants: s
                .tenants
                .iter()
                .map(|t| DraftTenant {
                    name: t.name.clone(),
                    weight: number_text(t.weight),
                    max_gpus: t.max_gpus.map(number_text).unwrap_or_default(),
                    throughput: t.throughput.iter().map(|&x| number_text(x)).collect(),
                    work: t.work.map(number_text).unwrap_or_default(),
                    entity: t.entity.clone().unwrap_or_default(),
                })
                .collect(),
            normalization: String::from(s.normalization.clone()),
            entities: s
                .entities
                .iter()
                .map(|e| DraftEntity {
                    name: e.name.clone(),
                    weight: number_text(e.weight),
                    within: e.within.as_str().to_string(),
                    parent: e.parent.clone().unwrap_or_default(),
                })
                .collect(),
            co_located: s
                .co_located
                .iter()
                .map(|p| DraftPair {
                    tenants: p.tenants.clone(),
                    throughput: p
                        .throughput
                        .iter()
                        .map(|row| row.iter().map(|&x| number_text(x)).collect())
                        .collect(),
                })
                .collect(),
        }
    }

    /// Parses every cell; a cell that is not a number is a located problem. A parsed scenario
    /// may still be invalid: `Scenario::instance` says why.
    pub fn to_scenario(&self) -> Result<Scenario, Vec<Problem>> {
        let mut read = CellReader::default();
        let gpu_types = self.read_types(&mut read);
        let tenants = self.read_tenants(&mut read);
        let entities = self.read_entities(&mut read);
        let co_located = self.read_pairs(&mut read);
        let mut problems = read.problems;
        // Whole-number counts: checked here because the engine's count is an integer.
        for (j, t) in self.types.iter().enumerate() {
            if let Some(c) = parse_number(&t.count) {
                if !(c.fract() == 0.0 && c >= 0.0 && c <= u32::MAX as f64) {
                    problems.push(Problem {
                        path: Cell::TypeCount(j).path(),
                        message: format!("must be a whole number >= 0 (got {c})"),
                    });
                }
            }
        }
        if problems.is_empty() {
            Ok(Scenario {
                version: fairground_core::scenario::SCHEMA_VERSION,
                gpu_types,
                tenants,
                normalization: Normalization::from(self.normalization.clone()),
                entities,
                co_located,
            })
        } else {
            Err(problems)
        }
    }

    fn read_types(&self, read: &mut CellReader) -> Vec<GpuType> {
        self.types
            .iter()
            .enumerate()
            .map(|(j, t)| {
                let count = read.number(&t.count, Cell::TypeCount(j), "a whole number of GPUs");
                GpuType {
                    name: t.name.trim().to_string(),
                    count: if count.fract() == 0.0 && (0.0..=u32::MAX as f64).contains(&count) {
                        count as u32
                    } else {
                        0
                    },
                }
            })
            .collect()
    }

    fn read_tenants(&self, read: &mut CellReader) -> Vec<Tenant> {
        self.tenants
            .iter()
            .enumerate()
            .map(|(i, t)| Tenant {
                name: t.name.trim().to_string(),
                weight: if t.weight.trim().is_empty() {
                    1.0
                } else {
                    read.number(&t.weight, Cell::Weight(i), "a weight > 0")
                },
                max_gpus: (!t.max_gpus.trim().is_empty()).then(|| {
                    read.number(
                        &t.max_gpus,
                        Cell::MaxGpus(i),
                        "a GPU cap, or empty for none",
                    )
                }),
                work: (!t.work.trim().is_empty()).then(|| {
                    read.number(
                        &t.work,
                        Cell::Work(i),
                        "work left (steps), or empty for none",
                    )
                }),
                throughput: t
                    .throughput
                    .iter()
                    .enumerate()
                    .map(|(j, x)| read.number(x, Cell::Throughput(i, j), "throughput per GPU"))
                    .collect(),
                entity: optional_text(&t.entity),
            })
            .collect()
    }

    fn read_entities(&self, read: &mut CellReader) -> Vec<Entity> {
        self.entities
            .iter()
            .enumerate()
            .map(|(e, entity)| Entity {
                name: entity.name.trim().to_string(),
                weight: if entity.weight.trim().is_empty() {
                    1.0
                } else {
                    read.number(&entity.weight, Cell::EntityWeight(e), "a weight > 0")
                },
                within: match entity.within.trim() {
                    "fifo" => Within::Fifo,
                    _ => Within::Fairness,
                },
                parent: optional_text(&entity.parent),
            })
            .collect()
    }

    fn read_pairs(&self, read: &mut CellReader) -> Vec<CoLocated> {
        self.co_located
            .iter()
            .enumerate()
            .map(|(p, pair)| CoLocated {
                tenants: pair.tenants.iter().map(|t| t.trim().to_string()).collect(),
                throughput: pair
                    .throughput
                    .iter()
                    .enumerate()
                    .map(|(j, row)| {
                        row.iter()
                            .enumerate()
                            .map(|(k, x)| {
                                read.number(x, Cell::PairThroughput(p, j, k), "throughput per GPU")
                            })
                            .collect()
                    })
                    .collect(),
            })
            .collect()
    }

    pub fn text(&self, cell: Cell) -> &str {
        let empty = "";
        match cell {
            Cell::TypeName(j) => self.types.get(j).map_or(empty, |t| &t.name),
            Cell::TypeCount(j) => self.types.get(j).map_or(empty, |t| &t.count),
            Cell::TenantName(i) => self.tenants.get(i).map_or(empty, |t| &t.name),
            Cell::Weight(i) => self.tenants.get(i).map_or(empty, |t| &t.weight),
            Cell::MaxGpus(i) => self.tenants.get(i).map_or(empty, |t| &t.max_gpus),
            Cell::Work(i) => self.tenants.get(i).map_or(empty, |t| &t.work),
            Cell::Throughput(i, j) => self
                .tenants
                .get(i)
                .and_then(|t| t.throughput.get(j))
                .map_or(empty, |s| s),
            Cell::Entity(i) => self.tenants.get(i).map_or(empty, |t| &t.entity),
            Cell::EntityName(e) => self.entities.get(e).map_or(empty, |x| &x.name),
            Cell::EntityWeight(e) => self.entities.get(e).map_or(empty, |x| &x.weight),
            Cell::EntityParent(e) => self.entities.get(e).map_or(empty, |x| &x.parent),
            Cell::PairTenant(p, k) => self
                .co_located
                .get(p)
                .and_then(|x| x.tenants.get(k))
                .map_or(empty, |s| s),
            Cell::PairThroughput(p, j, k) => self
                .co_located
                .get(p)
                .and_then(|x| x.throughput.get(j))
                .and_then(|row| row.get(k))
                .map_or(empty, |s| s),
        }
    }

    /// Sets one cell's text; a cell outside the table is ignored.
    pub fn set(&mut self, cell: Cell, text: &str) {
        if let Cell::TenantName(i) = cell {
            // The pairs follow a renamed tenant.
            if let Some(old) = self.tenants.get(i).map(|t| t.name.trim().to_string()) {
                let new = text.trim();
                for name in self
                    .co_located
                    .iter_mut()
                    .flat_map(|p| p.tenants.iter_mut())
                {
                    if name.trim() == old {
                        *name = new.to_string();
                    }
                }
            }
        }
        let slot = match cell {
            Cell::TypeName(j) => self.types.get_mut(j).map(|t| &mut t.name),
            Cell::TypeCount(j) => self.types.get_mut(j).map(|t| &mut t.count),
            Cell::TenantName(i) => self.tenants.get_mut(i).map(|t| &mut t.name),
            Cell::Weight(i) => self.tenants.get_mut(i).map(|t| &mut t.weight),
            Cell::MaxGpus(i) => self.tenants.get_mut(i).map(|t| &mut t.max_gpus),
            Cell::Work(i) => self.tenants.get_mut(i).map(|t| &mut t.work),
            Cell::Throughput(i, j) => self
                .tenants
                .get_mut(i)
                .and_then(|t| t.throughput.get_mut(j)),
            Cell::Entity(i) => self.tenants.get_mut(i).map(|t| &mut t.entity),
            Cell::EntityName(e) => self.entities.get_mut(e).map(|x| &mut x.name),
            Cell::EntityWeight(e) => self.entities.get_mut(e).map(|x| &mut x.weight),
            Cell::EntityParent(e) => self.entities.get_mut(e).map(|x| &mut x.parent),
            Cell::PairTenant(p, k) => self
                .co_located
                .get_mut(p)
                .and_then(|x| x.tenants.get_mut(k)),
            Cell::PairThroughput(p, j, k) => self
                .co_located
                .get_mut(p)
                .and_then(|x| x.throughput.get_mut(j))
                .and_then(|row| row.get_mut(k)),
        };
        if let Some(slot) = slot {
            *slot = text.to_string();
        }
        if let Cell::Throughput(_, j) = cell {
            if let Some(t) = self.types.get_mut(j) {
                t.copied = false; // the column has a measured figure now
            }
        }
    }

    fn fresh_name(taken: impl Fn(&str) -> bool, stem: &str) -> String {
        (1..)
            .map(|k| format!("{stem}{k}"))
            .find(|name| !taken(name))
            .unwrap_or_else(|| stem.to_string())
    }

    /// A new GPU type from the "+ GPU type" button: its cells start as copies (below).
    pub fn add_type(&mut self) {
        self.push_type(true);
    }

    /// A new GPU type; with `copies`, each tenant's cell starts as its slowest type's figure,
    /// else empty (a pasted block extending the grid: its own rows carry figures, and the rows
    /// above stay empty and located until typed).
    fn push_type(&mut self, copies: bool) {
        let name = Self::fresh_name(|n| self.types.iter().any(|t| t.name == n), "gpu");
        self.types.push(DraftType {
            name,
            count: "1".into(),
            copied: copies,
        });
        // Nobody's throughput on the new type is known yet. Each tenant starts with its own
        // slowest type's figure, so results keep coming and no tenant's speedup reference (its
        // slowest type's throughput) or efficiency moves until real figures are typed; the
        // column is marked as copied meanwhile. A row with no valid figure starts empty.
        for t in &mut self.tenants {
            let slowest = t
                .throughput
                .iter()
                .filter_map(|x| x.trim().parse::<f64>().ok())
                .filter(|x| x.is_finite() && *x > 0.0)
                .min_by(f64::total_cmp)
                .filter(|_| copies);
            t.throughput
                .push(slowest.map(number_text).unwrap_or_default());
        }
        // No pair shares the new type until someone measures it.
        for p in &mut self.co_located {
            p.throughput.push(vec!["0".into(), "0".into()]);
        }
    }

    pub fn remove_type(&mut self, j: usize) {
        if j < self.types.len() {
            self.types.remove(j);
            for t in &mut self.tenants {
                if j < t.throughput.len() {
                    t.throughput.remove(j);
                }
            }
            for p in &mut self.co_located {
                if j < p.throughput.len() {
                    p.throughput.remove(j);
                }
            }
        }
    }

    /// Moves type j one place left (`-1`) or right (`+1`), with its column of throughputs.
    pub fn move_type(&mut self, j: usize, by: isize) {
        let Some(k) = j.checked_add_signed(by).filter(|&k| k < self.types.len()) else {
            return;
        };
        if j < self.types.len() {
            self.types.swap(j, k);
            for t in &mut self.tenants {
                if j < t.throughput.len() && k < t.throughput.len() {
                    t.throughput.swap(j, k);
                }
            }
            for p in &mut self.co_located {
                if j < p.throughput.len() && k < p.throughput.len() {
                    p.throughput.swap(j, k);
                }
            }
        }
    }

    pub fn add_tenant(&mut self) {
        let name = Self::fresh_name(|n| self.tenants.iter().any(|t| t.name == n), "tenant");
        self.tenants.push(DraftTenant {
            name,
            weight: "1".into(),
            max_gpus: String::new(),
            work: String::new(),
            throughput: vec!["1".into(); self.types.len()],
            entity: String::new(),
        });
    }

    /// A new top-level entity with a fresh name, weight 1, sharing by fairness.
    pub fn add_entity(&mut self) {
        let name = Self::fresh_name(|n| self.entities.iter().any(|e| e.name == n), "group");
        self.entities.push(DraftEntity {
            name,
            weight: "1".into(),
            within: Within::Fairness.as_str().into(),
            parent: String::new(),
        });
    }

    /// Removes entity e; tenants and entities that named it keep the name (and are then
    /// marked as naming no entity), so nothing typed is lost.
    pub fn remove_entity(&mut self, e: usize) {
        if e < self.entities.len() {
            self.entities.remove(e);
        }
    }

    /// A new pair of the first two tenants, sharing no type until throughputs are typed in.
    pub fn add_pair(&mut self) {
        let name = |i: usize| {
            self.tenants
                .get(i)
                .map_or(String::new(), |t| t.name.clone())
        };
        self.co_located.push(DraftPair {
            tenants: vec![name(0), name(1)],
            throughput: vec![vec!["0".into(), "0".into()]; self.types.len()],
        });
    }

    pub fn remove_pair(&mut self, p: usize) {
        if p < self.co_located.len() {
            self.co_located.remove(p);
        }
    }

    pub fn set_within(&mut self, e: usize, within: &str) {
        if let Some(entity) = self.entities.get_mut(e) {
            entity.within = within.to_string();
        }
    }

    /// Removes tenant i, and the pairs it was in (they cannot share without it).
    pub fn remove_tenant(&mut self, i: usize) {
        if i < self.tenants.len() {
            let gone = self.tenants.remove(i).name.trim().to_string();
            self.co_located
                .retain(|p| p.tenants.iter().all(|name| name.trim() != gone));
        }
    }

    pub fn move_tenant(&mut self, i: usize, by: isize) {
        if let Some(k) = i.checked_add_signed(by).filter(|&k| k < self.tenants.len()) {
            if i < self.tenants.len() {
                self.tenants.swap(i, k);
            }
        }
    }

    /// Pastes a block of cells into the throughput grid with its top-left at (tenant, type),
    /// adding tenants and GPU types where the block reaches past the table.
    /// Pastes `block` with its top-left at `tenant` and `columns[from]`, a row of the block per
    /// tenant (added as needed) and a cell per column from there on. Pasted from a throughput
    /// column, cells past the last type fill new types; otherwise cells past the last column are
    /// left out, and counted in the answer. A first row naming columns ("tenant", "name") is a
    /// header, and skipped.
    pub fn paste(
        &mut self,
        tenant: usize,
        columns: &[Column],
        from: usize,
        block: &[Vec<String>],
    ) -> usize {
        let header = block.first().and_then(|row| row.first()).is_some_and(|c| {
            matches!(
                c.trim().to_lowercase().as_str(),
                "tenant" | "name" | "tenants"
            )
        });
        let rows = &block[usize::from(header)..];
        let mut left_out = 0;
        for (r, row) in rows.iter().enumerate() {
            while self.tenants.len() <= tenant + r {
                self.add_tenant();
            }
            for (c, text) in row.iter().enumerate() {
                let column = match (columns.get(from), columns.get(from + c)) {
                    // From a throughput column, the block stays in throughput columns.
                    (Some(Column::Throughput(first)), _) => Column::Throughput(first + c),
                    (_, Some(&column)) => column,
                    _ => {
                        left_out += 1;
                        continue;
                    }
                };
                if let Column::Throughput(j) = column {
                    while self.types.len() <= j {
                        self.push_type(false);
                    }
                }
                self.set(column.cell(tenant + r), text);
            }
        }
        left_out
    }
}

/// A column of the tenant grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    Name,
    Weight,
    MaxGpus,
    Throughput(usize),
    Work,
    Entity,
}

impl Column {
    /// This column's cell in tenant i's row.
    pub fn cell(self, i: usize) -> Cell {
        match self {
            Column::Name => Cell::TenantName(i),
            Column::Weight => Cell::Weight(i),
            Column::MaxGpus => Cell::MaxGpus(i),
            Column::Throughput(j) => Cell::Throughput(i, j),
            Column::Work => Cell::Work(i),
            Column::Entity => Cell::Entity(i),
        }
    }

    /// The tenant and column of a cell of the tenant grid.
    pub fn of(cell: Cell) -> Option<(usize, Column)> {
        Some(match cell {
            Cell::TenantName(i) => (i, Column::Name),
            Cell::Weight(i) => (i, Column::Weight),
            Cell::MaxGpus(i) => (i, Column::MaxGpus),
            Cell::Throughput(i, j) => (i, Column::Throughput(j)),
            Cell::Work(i) => (i, Column::Work),
            Cell::Entity(i) => (i, Column::Entity),
            _ => return None,
        })
    }
}

/// The tenant grid's columns, left to right; work and entity only when shown.
pub fn grid_columns(types: usize, work: bool, entity: bool) -> Vec<Column> {
    let mut columns = vec![Column::Name, Column::Weight, Column::MaxGpus];
    columns.extend((0..types).map(Column::Throughput));
    columns.extend(work.then_some(Column::Work));
    columns.extend(entity.then_some(Column::Entity));
    columns
}

/// The cell `rows` down and `cols` right of `cell` in a grid of `tenants` rows and `columns`,
/// as the arrow keys, Enter and Tab move; None at an edge.
pub fn neighbour(
    cell: Cell,
    rows: isize,
    cols: isize,
    tenants: usize,
    columns: &[Column],
) -> Option<Cell> {
    let (i, column) = Column::of(cell)?;
    let c = columns.iter().position(|&k| k == column)?;
    let i = i.checked_add_signed(rows).filter(|&i| i < tenants)?;
    let c = c.checked_add_signed(cols).filter(|&c| c < columns.len())?;
    Some(columns[c].cell(i))
}

/// Reads the draft's cells as numbers, keeping a located problem for each that is not one.
#[derive(Default)]
struct CellReader {
    problems: Vec<Problem>,
}

impl CellReader {
    /// The number in `text`, or NaN and a problem at `cell` saying it should be `what`.
    fn number(&mut self, text: &str, cell: Cell, what: &str) -> f64 {
        parse_number(text).unwrap_or_else(|| {
            let message = if text.trim().is_empty() {
                format!("empty: fill in {what}")
            } else {
                format!("'{}' is not a number ({what})", text.trim())
            };
            self.problems.push(Problem {
                path: cell.path(),
                message,
            });
            f64::NAN
        })
    }
}

/// Trimmed text, or None when empty.
fn optional_text(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairground_core::presets;

    #[test]
    fn round_trips_the_default_scenario() {
        let s = presets::default_scenario();
        assert_eq!(Draft::from_scenario(&s).to_scenario().unwrap(), s);
    }

    #[test]
    fn text_that_is_not_a_number_is_kept_and_located() {
        let mut d = Draft::from_scenario(&presets::default_scenario());
        d.set(Cell::Throughput(1, 2), "fast");
        d.set(Cell::TypeCount(0), "2.5");
        assert_eq!(d.text(Cell::Throughput(1, 2)), "fast");
        let problems = d.to_scenario().unwrap_err();
        let paths: Vec<&str> = problems.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(paths, ["tenants[1].throughput[2]", "gpu_types[0].count"]);
        assert!(problems[0].message.contains("'fast' is not a number"));
    }

    #[test]
    fn invalid_text_moves_with_its_row() {
        let mut d = Draft::from_scenario(&presets::default_scenario());
        d.set(Cell::Throughput(0, 0), "oops");
        d.move_tenant(0, 1);
        assert_eq!(d.text(Cell::Throughput(1, 0)), "oops");
        d.move_type(0, 1);
        assert_eq!(d.text(Cell::Throughput(1, 1)), "oops");
        d.move_type(0, -1); // off the edge: nothing happens
        assert_eq!(d.text(Cell::Throughput(1, 1)), "oops");
    }

    #[test]
    fn empty_weight_and_cap_mean_defaults() {
        let mut d = Draft::from_scenario(&presets::default_scenario());
        d.set(Cell::Weight(0), " ");
        d.set(Cell::MaxGpus(0), "");
        let s = d.to_scenario().unwrap();
        assert_eq!(s.tenants[0].weight, 1.0);
        assert_eq!(s.tenants[0].max_gpus, None);
    }

    #[test]
    fn adding_and_removing_keeps_the_grid_rectangular() {
        let mut d = Draft::from_scenario(&presets::default_scenario());
        d.add_type();
        d.add_tenant();
        assert_eq!(d.types[3].name, "gpu1");
        assert!(d.tenants.iter().all(|t| t.throughput.len() == 4));
        // The new type starts as a copy of each tenant's slowest type (presets.rs: ResNet-50
        // runs 0.619, 2.619 and 4.395 steps/s on k80, p100, v100; A3C 3.439, 5.681, 7.176),
        // marked as copied until one of its cells is typed; the new tenant's row is all 1s.
        assert_eq!(d.text(Cell::Throughput(0, 3)), "0.619");
        assert_eq!(d.text(Cell::Throughput(2, 3)), "3.439");
        assert_eq!(d.text(Cell::Throughput(6, 3)), "1");
        assert!(d.types[3].copied && !d.types[0].copied);
        // Results keep coming, and nobody's speedup reference (its slowest type) moved.
        let before = Draft::from_scenario(&presets::default_scenario());
        let slowest = |d: &Draft, i: usize| -> f64 {
            let row = &d.to_scenario().unwrap().tenants[i].throughput;
            row.iter().copied().fold(f64::INFINITY, f64::min)
        };
        for i in 0..6 {
            assert_eq!(slowest(&d, i), slowest(&before, i));
        }
        d.set(Cell::Throughput(1, 3), "9");
        assert!(!d.types[3].copied);
        for t in &mut d.tenants[..6] {
            t.throughput[3].clear();
        }
        d.remove_type(1);
        assert!(d.tenants.iter().all(|t| t.throughput.len() == 3));
        let problems = d.to_scenario().unwrap_err();
        assert_eq!(problems.len(), 6);
        assert_eq!(problems[0].path, "tenants[0].throughput[2]");
        assert_eq!(problems[0].message, "empty: fill in throughput per GPU");
        for i in 0..6 {
            d.set(Cell::Throughput(i, 2), "2");
        }
        assert!(d.to_scenario().unwrap().instance().is_ok());
    }

    #[test]
    fn pasting_a_block_fills_and_extends_the_grid() {
        let mut d = Draft::from_scenario(&presets::default_scenario());
        let block = crate::paste::parse_block("1\t2\t3\t4\n5\t6\t7\t8\n9\t10\t11\t12");
        let columns = grid_columns(3, false, false);
        assert_eq!(d.paste(5, &columns, 3, &block), 0);
        assert_eq!(d.tenants.len(), 8); // rows 5, 6, 7
        assert_eq!(d.types.len(), 4); // columns 0..=3
        assert_eq!(d.text(Cell::Throughput(7, 3)), "12");
        assert_eq!(d.text(Cell::Throughput(6, 0)), "5");
        // The rows above have no throughput on the new type yet: marked, not guessed.
        let problems = d.to_scenario().unwrap_err();
        let paths: Vec<&str> = problems.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(
            paths,
            (0..5)
                .map(|i| format!("tenants[{i}].throughput[3]"))
                .collect::<Vec<_>>()
        );
        for i in 0..5 {
            d.set(Cell::Throughput(i, 3), "1");
        }
        let s = d.to_scenario().unwrap();
        assert_eq!(s.tenants[6].throughput, vec![5.0, 6.0, 7.0, 8.0]);
        assert!(s.instance().is_ok());
    }

    #[test]
    fn a_pasted_row_carries_its_name_and_a_header_is_skipped() {
        let mut d = Draft::from_scenario(&presets::default_scenario());
        let block = crate::paste::parse_block(
            "tenant\tweight\tmax GPUs\tk80\tp100\tv100\nBERT\t2\t\t1.5\t3\t6\tspare",
        );
        let columns = grid_columns(3, false, false);
        // Pasted at the first row's name: the header is skipped, one cell is past the grid.
        assert_eq!(d.paste(0, &columns, 0, &block), 1);
        assert_eq!(d.text(Cell::TenantName(0)), "BERT");
        assert_eq!(d.text(Cell::Weight(0)), "2");
        assert_eq!(d.text(Cell::MaxGpus(0)), "");
        assert_eq!(d.text(Cell::Throughput(0, 2)), "6");
        assert_eq!(d.types.len(), 3);
        let s = d.to_scenario().unwrap();
        assert_eq!(
            (s.tenants[0].weight, s.tenants[0].throughput.clone()),
            (2.0, vec![1.5, 3.0, 6.0])
        );
    }

    #[test]
    fn keys_move_between_the_grid_s_cells_and_stop_at_its_edges() {
        let columns = grid_columns(2, false, true);
        let at = |cell, rows, cols| neighbour(cell, rows, cols, 3, &columns);
        assert_eq!(
            at(Cell::Throughput(0, 1), 1, 0),
            Some(Cell::Throughput(1, 1))
        );
        assert_eq!(at(Cell::Throughput(0, 1), 0, 1), Some(Cell::Entity(0)));
        assert_eq!(at(Cell::MaxGpus(1), 0, 1), Some(Cell::Throughput(1, 0)));
        assert_eq!(at(Cell::TenantName(2), 1, 0), None);
        assert_eq!(at(Cell::TenantName(0), 0, -1), None);
        assert_eq!(at(Cell::Entity(2), -2, 0), Some(Cell::Entity(0)));
        // The work column is hidden here: nothing moves into it or from it.
        assert_eq!(at(Cell::Work(0), 1, 0), None);
        assert_eq!(at(Cell::TypeName(0), 1, 0), None);
    }

    #[test]
    fn entities_round_trip_and_a_bad_one_is_located() {
        let s = Scenario::from_json(
            r#"{"gpu_types": [{"name": "v100", "count": 4}],
                "entities": [{"name": "lab", "weight": 2, "within": "fifo"},
                             {"name": "team", "parent": "lab"}],
                "tenants": [{"name": "a", "throughput": [1], "entity": "team"},
                            {"name": "b", "throughput": [2]}]}"#,
        )
        .unwrap();
        let mut d = Draft::from_scenario(&s);
        assert_eq!(d.text(Cell::EntityParent(1)), "lab");
        assert_eq!(d.to_scenario().unwrap(), s);
        d.set(Cell::EntityWeight(0), "heavy");
        d.set(Cell::Entity(1), "nowhere");
        let problems = d.to_scenario().unwrap_err();
        assert_eq!(problems[0].path, "entities[0].weight");
        d.set(Cell::EntityWeight(0), "2");
        let problems = d.to_scenario().unwrap().instance().unwrap_err();
        assert_eq!(problems[0].path, "tenants[1].entity");
        // A draft saved before entities existed still reads.
        let old = r#"{"types": [], "tenants": [], "normalization": "slowest"}"#;
        let d: Draft = serde_json::from_str(old).unwrap();
        assert!(d.entities.is_empty());
        assert!(d.co_located.is_empty());
    }

    /// Co-located pairs are not cells, but the table's edits carry them along: a rename, a
    /// type added, moved or removed, a tenant removed. The scenario stays valid throughout.
    #[test]
    fn co_located_pairs_follow_the_table() {
        let s = Scenario::from_json(
            r#"{"gpu_types": [{"name": "v100", "count": 1}, {"name": "k80", "count": 1}],
                "tenants": [{"name": "a", "throughput": [4, 1], "max_gpus": 1},
                            {"name": "b", "throughput": [2, 1], "max_gpus": 1},
                            {"name": "c", "throughput": [2, 2], "max_gpus": 1}],
                "co_located": [{"tenants": ["a", "b"], "throughput": [[3, 1.5], [0.5, 0.5]]},
                               {"tenants": ["c", "b"], "throughput": [[1, 1], [1, 1]]}]}"#,
        )
        .unwrap();
        let mut d = Draft::from_scenario(&s);
        assert_eq!(d.to_scenario().unwrap(), s);
        let valid = |d: &Draft| d.to_scenario().unwrap().instance().map(|_| ());
        d.set(Cell::TenantName(0), "alpha");
        assert_eq!(d.co_located[0].tenants, ["alpha".to_string(), "b".into()]);
        d.add_type();
        assert_eq!(d.co_located[0].throughput[2], ["0", "0"]);
        d.move_type(0, 1);
        assert_eq!(d.co_located[0].throughput[1], ["3", "1.5"]);
        d.remove_type(2);
        d.remove_type(1);
        assert_eq!(d.co_located[0].throughput, vec![vec!["0.5", "0.5"]]);
        assert_eq!(valid(&d), Ok(()));
        d.remove_tenant(2);
        assert_eq!(d.co_located.len(), 1);
        assert_eq!(valid(&d), Ok(()));
    }

    /// A pair typed in: added for the first two tenants, sharing nothing until throughputs
    /// are typed; a cell that is not a number is kept and located like any other.
    #[test]
    fn a_pair_is_typed_in_cell_by_cell() {
        let s = Scenario::from_json(
            r#"{"gpu_types": [{"name": "v100", "count": 1}, {"name": "k80", "count": 1}],
                "tenants": [{"name": "a", "throughput": [4, 1], "max_gpus": 1},
                            {"name": "b", "throughput": [2, 1], "max_gpus": 1}]}"#,
        )
        .unwrap();
        let mut d = Draft::from_scenario(&s);
        d.add_pair();
        assert_eq!(d.text(Cell::PairTenant(0, 1)), "b");
        let scenario = d.to_scenario().unwrap();
        assert_eq!(scenario.co_located[0].throughput, vec![vec![0.0, 0.0]; 2]);
        assert!(scenario.instance().is_ok());
        d.set(Cell::PairThroughput(0, 0, 0), "3");
        d.set(Cell::PairThroughput(0, 0, 1), "fast");
        let problems = d.to_scenario().unwrap_err();
        assert_eq!(problems[0].path, "co_located[0].throughput[0][1]");
        assert_eq!(d.text(Cell::PairThroughput(0, 0, 1)), "fast");
        d.set(Cell::PairThroughput(0, 0, 1), "1.5");
        d.set(Cell::PairTenant(0, 1), "nobody");
        let problems = d.to_scenario().unwrap().instance().unwrap_err();
        assert_eq!(problems[0].path, Cell::PairTenant(0, 1).path());
        d.set(Cell::PairTenant(0, 1), "b");
        let scenario = d.to_scenario().unwrap();
        assert_eq!(scenario.co_located[0].throughput[0], [3.0, 1.5]);
        assert_eq!(
            Draft::from_scenario(&scenario).to_scenario().unwrap(),
            scenario
        );
    }
}
