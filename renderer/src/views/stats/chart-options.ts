import uPlot from 'uplot';
import type { StatsRange, StatsReport, TimeBucket } from '../../lib/types';
import { axisTime, bucketSpan } from './format';
import { withAlpha, type Palette } from './palette.svelte';

/** uPlot options without a size: a chart takes its container's width and the height it is given. */
export type ChartOptions = Omit<uPlot.Options, 'width' | 'height'>;

/** One series in a chart's key: its name and the CSS variable it is drawn in (`--fail`). */
export interface KeyEntry {
  label: string;
  colour: string;
}

/** A value axis or category axis in the palette's colours. */
export function axis(p: Palette, extra: uPlot.Axis = {}): uPlot.Axis {
  return {
    stroke: p.muted,
    font: p.font,
    grid: { stroke: withAlpha(p.border, 0.7), width: 1 },
    ticks: { stroke: p.border, width: 1, size: 4 },
    ...extra,
  };
}

/** The dashboard shows figures, it does not explore them: no drag-to-zoom, no selection box. */
export const STILL_CURSOR: uPlot.Cursor = {
  y: false,
  drag: { x: false, y: false, setScale: false },
  points: { show: false },
};

/** Steps for counting axes, so an axis of calls never shows 2.5 calls. */
export const WHOLE_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 1_000_000];

/** A bar series: fills the given share of its slot, never wider than `max` pixels, without point markers. */
export function barSeries(label: string, colour: string, share: number, max: number, align: -1 | 0 | 1 = 0): uPlot.Series {
  return {
    label,
    fill: colour,
    stroke: colour,
    width: 0,
    points: { show: false },
    paths: uPlot.paths.bars!({ size: [share, max, 1], align, gap: align === 0 ? 0 : 1 }),
  };
}

/** Room around the plot: the last time label is centred on the right edge and must not be cut. */
export const PADDING: uPlot.Padding = [10, 36, 0, 0];

/** Grid lines of a log axis at powers of ten only; uPlot's default adds 2×, 3×… lines that read as noise. */
export function powersOfTen(_u: uPlot, _axis: number, min: number, max: number): number[] {
  const splits: number[] = [];
  for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) {
    const v = 10 ** e;
    if (v >= min * 0.999 && v <= max * 1.001) splits.push(v);
  }
  return splits;
}

/** Bucket mid-points in epoch seconds: each bar sits over the span it counts, between the tick marks. */
export function bucketMids(overTime: StatsReport['over_time']): number[] {
  return overTime.buckets.map((b) => Date.parse(b.at) / 1000 + overTime.bucket_s / 2);
}

/** The x scale of a time chart: exactly the buckets, half a bucket either side of the first and last mid-point. */
function timeScale(bucketS: number): uPlot.Scale {
  return {
    time: true,
    range: (u) => {
      const xs = u.data[0];
      const first = xs[0] ?? 0;
      const last = xs[xs.length - 1] ?? first;
      return [first - bucketS / 2, last + bucketS / 2];
    },
  };
}

/** The x axis of a time chart: clock times within a day, days across a week. */
function timeAxis(p: Palette, range: StatsRange): uPlot.Axis {
  return axis(p, { space: 70, size: 30, values: (_u, splits) => splits.map((s) => axisTime(range, s)), grid: { show: false } });
}

/** What sets one time chart apart from the others; the time scale and axis, the padding and the cursor are shared. */
export interface TimeChartParts {
  /** The value scale. */
  y: uPlot.Scale;
  /** The value axis, beside the time axis. */
  valueAxis: uPlot.Axis;
  /** The series after the time values. */
  series: uPlot.Series[];
  /** Set over the still cursor. */
  cursor?: uPlot.Cursor;
}

/**
 * The options of a chart over time: buckets of `bucketS` seconds across `range`, with the parts the chart adds.
 * Takes plain values, not the report: the chart is drawn anew only when the range or the bucket size changes.
 */
export function timeChartOptions(range: StatsRange, bucketS: number, parts: (p: Palette) => TimeChartParts): (p: Palette) => ChartOptions {
  const x = timeScale(bucketS);
  return (p) => {
    const { y, valueAxis, series, cursor } = parts(p);
    return {
      cursor: cursor ? { ...STILL_CURSOR, ...cursor } : STILL_CURSOR,
      padding: PADDING,
      scales: { x, y },
      axes: [timeAxis(p, range), valueAxis],
      series: [{}, ...series],
    };
  };
}

/**
 * The hover readout for bucket `i` of a chart over time: its span, then "no calls" for an empty bucket or what
 * `figures` says of it ('' when there is no such bucket).
 */
export function describeBucket(overTime: StatsReport['over_time'], i: number, figures: (bucket: TimeBucket) => string): string {
  const b = overTime.buckets[i];
  if (!b) return '';
  const span = bucketSpan(overTime.range, Date.parse(b.at), overTime.bucket_s);
  return b.calls === 0 ? `${span}: no calls` : `${span}: ${figures(b)}`;
}
