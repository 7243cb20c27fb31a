use super::shorten;
use crate::palette::type_colour;
use crate::scale::{nice_ticks, tick_label, LinearScale};
use fairground_core::{Allocation, Instance};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct AllocationChartProps {
    pub instance: Rc<Instance>,
    pub allocation: Rc<Allocation>,
}

const WIDTH: f64 = 720.0;
const LABEL_WIDTH: f64 = 210.0;
const RIGHT_PAD: f64 = 24.0;
const TOP: f64 = 34.0;
const BAR: f64 = 22.0;
const GAP: f64 = 10.0;
const AXIS: f64 = 46.0;
const NAME_CHARS: usize = 27;

/// Per-tenant horizontal bars of GPUs held, stacked by GPU type, with a legend and an x axis.
#[component]
pub fn AllocationChart(props: &AllocationChartProps) -> Html {
    let inst = &props.instance;
    let gpus = &props.allocation.gpus;
    let held: Vec<f64> = gpus.iter().map(|row| row.iter().sum()).collect();
    let ticks = nice_ticks(held.iter().copied().fold(0.0, f64::max), 6);
    let x_max = ticks.last().copied().unwrap_or(1.0);
    let x = LinearScale::new((0.0, x_max), (LABEL_WIDTH, WIDTH - RIGHT_PAD));
    let plot_bottom = TOP + inst.tenants() as f64 * (BAR + GAP);
    let height = plot_bottom + AXIS;

    let legend = inst.type_names.iter().enumerate().map(|(j, name)| {
        let left = LABEL_WIDTH + j as f64 * 110.0;
        html! {
            <g class="legend-item">
                <rect x={left.to_string()} y="6" width="14" height="14" fill={type_colour(j)} />
                <text x={(left + 20.0).to_string()} y="18" class="legend-label">{ shorten(name, 12) }</text>
            </g>
        }
    });

    let grid = ticks.iter().map(|&t| {
        let px = x.map(t).to_string();
        html! {
            <g class="tick">
                <line x1={px.clone()} x2={px.clone()} y1={TOP.to_string()} y2={plot_bottom.to_string()} class="grid" />
                <text x={px} y={(plot_bottom + 16.0).to_string()} text-anchor="middle">{ tick_label(t) }</text>
            </g>
        }
    });

    let bars = gpus.iter().enumerate().map(|(i, row)| {
        let name = &inst.tenant_names[i];
        let y = TOP + i as f64 * (BAR + GAP);
        let mut left = 0.0;
        let segments = row.iter().enumerate().filter(|(_, &g)| g > 1e-9).map(|(j, &g)| {
            let (x0, x1) = (x.map(left), x.map(left + g));
            left += g;
            html! {
                <rect class="segment" x={x0.to_string()} y={y.to_string()}
                      width={(x1 - x0).max(0.0).to_string()} height={BAR.to_string()}
                      fill={type_colour(j)}>
                    <title>{ format!("{name} on {}: {g:.4} GPUs", inst.type_names[j]) }</title>
                </rect>
            }
        }).collect::<Html>();
        html! {
            <g class="bar" data-tenant={name.clone()}>
                <text class="tenant-label" x={(LABEL_WIDTH - 8.0).to_string()} y={(y + BAR * 0.7).to_string()} text-anchor="end">
                    { shorten(name, NAME_CHARS) }
                    <title>{ format!("{name}: {:.4} GPUs in all", held[i]) }</title>
                </text>
                { segments }
            </g>
        }
    });

    html! {
            <svg viewBox={format!("0 0 {WIDTH} {height}")} role="img" data-testid="allocation-chart"
                 aria-label="GPUs held by each tenant, stacked by GPU type">
                { for legend }
                { for grid }
                { for bars }
                <text class="axis-label" x={((LABEL_WIDTH + WIDTH - RIGHT_PAD) / 2.0).to_string()}
                      y={(height - 8.0).to_string()} text-anchor="middle">
                    { "GPUs held (time-averaged)" }
                </text>
            </svg>
    }
}
