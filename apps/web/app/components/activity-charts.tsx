import { Link } from "@remix-run/react";
import { useMemo } from "react";
import type uPlot from "uplot";
import type { RouterOutputs } from "@rehook/api";
import { ACTIVITY_RANGE_WORDS, ACTIVITY_RANGES, type ActivityRange } from "@rehook/core/browser";
import { Chart, withAlpha, type ChartColors, type ChartSpec } from "./chart";
// uPlot's own sheet first, ours on top of it (one module, so the order holds).
import "uplot/dist/uPlot.min.css";
import "./activity-charts.css";

export type ActivitySeries = RouterOutputs["endpoints"]["activity"];

const count = (n: number) => n.toLocaleString("en-US");

/** "250 ms", "1.5 s": the latency axis and labels. */
export function latencyText(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

/** What the events chart shows, with its figures: its accessible name. */
export function eventsLabel(series: ActivitySeries): string {
  const words = ACTIVITY_RANGE_WORDS[series.range];
  const { captured, delivered, failed } = series.totals;
  return `Events ${words.per} ${words.over} by status: ${count(captured)} captured, ${count(delivered)} delivered, ${count(failed)} failed`;
}

export function latencyLabel(series: ActivitySeries): string {
  const words = ACTIVITY_RANGE_WORDS[series.range];
  const { p50, p95 } = series.totals;
  return p50 === null || p95 === null
    ? `Delivery latency ${words.per} ${words.over}: no delivery attempts`
    : `Delivery latency ${words.per} ${words.over}: p50 ${latencyText(p50)}, p95 ${latencyText(p95)}`;
}

/** A bucket's start as the readout names it: "14:15" (the week's buckets: "Tue 14:00"), in the browser's time zone as the axis. */
export function bucketTime(at: number, range: ActivitySeries["range"]): string {
  const time = new Date(at).toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit" });
  return range === "week" ? `${new Date(at).toLocaleDateString("en-GB", { weekday: "short" })} ${time}` : time;
}

/** The hovered bucket of the events chart: "14:15 · 3 captured, 2 delivered, 1 failed". */
export function eventsReadout(series: ActivitySeries, index: number): string {
  const point = series.points[index];
  if (!point) return "";
  return `${bucketTime(point.at, series.range)} · ${count(point.captured)} captured, ${count(point.delivered)} delivered, ${count(point.failed)} failed`;
}

/** The hovered bucket of the latency chart: "14:15 · p50 120 ms, p95 300 ms". */
export function latencyReadout(series: ActivitySeries, index: number): string {
  const point = series.points[index];
  if (!point) return "";
  const figures = point.p50 === null || point.p95 === null ? "no delivery attempts" : `p50 ${latencyText(point.p50)}, p95 ${latencyText(point.p95)}`;
  return `${bucketTime(point.at, series.range)} · ${figures}`;
}

/** The hovered bar of the volume strip: "14:15 · 3 captured, 1 failed". */
export function stripReadout(series: ActivitySeries, index: number): string {
  const point = series.points[index];
  if (!point) return "";
  return `${bucketTime(point.at, series.range)} · ${count(point.captured)} captured, ${count(point.failed)} failed`;
}

/** uPlot takes times in seconds. */
const times = (series: ActivitySeries) => series.points.map((point) => point.at / 1000);

/** The window's time scale with half a bucket either side: the first and last bars and points are drawn whole. */
const timeScale = (series: ActivitySeries): uPlot.Scale => {
  const half = series.bucketMs / 2000;
  const first = series.points[0]!.at / 1000;
  const last = series.points.at(-1)!.at / 1000;
  return { time: true, range: () => [first - half, last + half] };
};

/** Counts start at 0 and end a little above the highest one (at least 1). */
const countScale = (_: uPlot, __: number, max: number): uPlot.Range.MinMax => [0, Math.max(1, Math.ceil(max * 1.15))];

function axes(colors: ChartColors, y: Partial<uPlot.Axis> = {}): uPlot.Axis[] {
  const common = { stroke: colors.muted, grid: { stroke: colors.grid, width: 1 }, ticks: { stroke: colors.grid, width: 1 }, font: "11px system-ui, sans-serif" };
  return [common, { ...common, size: 48, ...y }];
}

/** Whole numbers only on a count axis. */
const COUNT_INCREMENTS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 1_000_000];

function eventsSpec(series: ActivitySeries): ChartSpec {
  return (uplot, colors) => ({
    options: {
      legend: { show: false },
      cursor: { show: false },
      scales: { x: timeScale(series), y: { range: countScale } },
      axes: axes(colors, { incrs: COUNT_INCREMENTS }),
      series: [
        {},
        { label: "Captured", stroke: colors.accent, fill: withAlpha(colors.accent, 0.35), width: 1, paths: uplot.paths.bars!({ size: [0.8, 24] }), points: { show: false } },
        { label: "Delivered", stroke: colors.green, width: 2, points: { show: false } },
        { label: "Failed", stroke: colors.red, width: 2, points: { show: false } },
      ],
    },
    data: [times(series), series.points.map((p) => p.captured), series.points.map((p) => p.delivered), series.points.map((p) => p.failed)],
    readout: (index) => eventsReadout(series, index),
  });
}

function latencySpec(series: ActivitySeries): ChartSpec {
  return (_, colors) => ({
    options: {
      legend: { show: false },
      cursor: { show: false },
      scales: { x: timeScale(series), y: { range: countScale } },
      axes: axes(colors, { size: 56, values: (_u, ticks) => ticks.map(latencyText) }),
      series: [
        {},
        { label: "p50", stroke: colors.blue, width: 2, points: { show: true, size: 4, fill: colors.blue } },
        { label: "p95", stroke: colors.amber, width: 2, points: { show: true, size: 4, fill: colors.amber } },
      ],
    },
    data: [times(series), series.points.map((p) => p.p50), series.points.map((p) => p.p95)],
    readout: (index) => latencyReadout(series, index),
  });
}

function LegendItem({ tone, label, value }: { tone: string; label: string; value: string }) {
  return (
    <li>
      <span className={`chart-swatch chart-swatch-${tone}`} aria-hidden="true" />
      {label} <strong>{value}</strong>
    </li>
  );
}

/** Hour / Day / Week as links (?range=…): the loader reads the choice, and it survives a reload. */
export function RangeControl({ current, hrefFor }: { current: ActivityRange; hrefFor: (range: ActivityRange) => string }) {
  return (
    <nav className="segmented" aria-label="Chart range">
      {ACTIVITY_RANGES.map((range) => (
        <Link key={range} to={hrefFor(range)} className="segmented-item" aria-current={range === current ? "true" : undefined} preventScrollReset replace>
          {ACTIVITY_RANGE_WORDS[range].label}
        </Link>
      ))}
    </nav>
  );
}

/** The endpoint page's charts: events by status, and delivery latency p50/p95. */
export function EndpointActivityCharts({ series, forwards }: { series: ActivitySeries; forwards: boolean }) {
  const events = useMemo(() => eventsSpec(series), [series]);
  const latency = useMemo(() => latencySpec(series), [series]);
  const { captured, delivered, failed, p50, p95 } = series.totals;
  return (
    <div className="activity-charts" data-range={series.range}>
      <figure className="chart-figure">
        <figcaption className="chart-caption">Events by status</figcaption>
        <Chart label={eventsLabel(series)} height={180} spec={events} empty={captured + delivered + failed === 0} testId="events-chart" />
        <ul className="chart-legend">
          <LegendItem tone="accent" label="Captured" value={count(captured)} />
          <LegendItem tone="green" label="Delivered" value={count(delivered)} />
          <LegendItem tone="red" label="Failed" value={count(failed)} />
        </ul>
      </figure>
      <figure className="chart-figure">
        <figcaption className="chart-caption">Delivery latency</figcaption>
        <Chart
          label={latencyLabel(series)}
          height={180}
          spec={latency}
          empty={p50 === null}
          emptyText={forwards ? "No delivery attempts in this window." : "Capture only: nothing is forwarded."}
          testId="latency-chart"
        />
        <ul className="chart-legend">
          <LegendItem tone="blue" label="p50" value={p50 === null ? "—" : latencyText(p50)} />
          <LegendItem tone="amber" label="p95" value={p95 === null ? "—" : latencyText(p95)} />
        </ul>
      </figure>
    </div>
  );
}

function stripSpec(series: ActivitySeries): ChartSpec {
  return (uplot, colors) => {
    const bars = uplot.paths.bars!({ size: [0.8, 12] });
    return {
      options: {
        legend: { show: false },
        cursor: { show: false },
        padding: [4, 0, 0, 0],
        scales: { x: timeScale(series), y: { range: countScale } },
        // A time axis under the bars (no grid: the strip is a glance, not a chart to read off).
        axes: [
          { stroke: colors.muted, size: 16, gap: 2, space: 64, font: "10px system-ui, sans-serif", grid: { show: false }, ticks: { show: false } },
          { show: false },
        ],
        // Failed drawn over captured: the red part of a bar is the share that failed.
        series: [
          {},
          { label: "Captured", stroke: withAlpha(colors.accent, 0.8), fill: withAlpha(colors.accent, 0.45), width: 0, paths: bars, points: { show: false } },
          { label: "Failed", stroke: colors.red, fill: colors.red, width: 0, paths: bars, points: { show: false } },
        ],
      },
      data: [times(series), series.points.map((p) => p.captured), series.points.map((p) => p.failed || null)],
      readout: (index) => stripReadout(series, index),
    };
  };
}

/**
 * The Activity page's volume strip: the last day in 15-minute bars, failures in red, over a
 * time axis; all endpoints, or the one the page is filtered to (`endpointName`).
 */
export function VolumeStrip({ series, endpointName = null }: { series: ActivitySeries; endpointName?: string | null }) {
  const spec = useMemo(() => stripSpec(series), [series]);
  const { captured, failed } = series.totals;
  const words = ACTIVITY_RANGE_WORDS[series.range];
  const label = `Events ${words.per} ${words.over}, ${endpointName ?? "all endpoints"}: ${count(captured)} captured, ${count(failed)} failed`;
  return (
    <section className="volume-strip" aria-label="Volume">
      <p className="volume-strip-caption small">
        <span className="muted">
          Last 24 hours{endpointName ? <> · </> : null}
          {endpointName ? <span className="volume-strip-endpoint">{endpointName}</span> : null}
        </span>
        <span>
          <strong>{count(captured)}</strong> <span className="muted">captured</span>
        </span>
        <span className={failed > 0 ? "volume-strip-failed" : "muted"}>
          <strong>{count(failed)}</strong> failed
        </span>
      </p>
      <Chart label={label} height={64} spec={spec} empty={captured + failed === 0} emptyText="No events in the last 24 hours." testId="volume-strip" />
    </section>
  );
}
