import { useEffect, useRef } from "react";
import type uPlot from "uplot";

/** The theme's colours a chart draws with, read from the CSS tokens (light or dark, whichever applies now). */
export interface ChartColors {
  text: string;
  muted: string;
  grid: string;
  accent: string;
  green: string;
  red: string;
  blue: string;
  amber: string;
}

function themeColors(): ChartColors {
  const style = getComputedStyle(document.documentElement);
  const token = (name: string) => style.getPropertyValue(name).trim();
  return {
    text: token("--text-2"),
    muted: token("--muted"),
    grid: token("--border"),
    accent: token("--accent"),
    green: token("--green-dot"),
    red: token("--red-dot"),
    blue: token("--blue-dot"),
    amber: token("--amber-dot"),
  };
}

/** A token colour (#rrggbb) with this opacity; other notations as they are. */
export function withAlpha(color: string, alpha: number): string {
  return /^#[0-9a-f]{6}$/i.test(color)
    ? `${color}${Math.round(alpha * 255)
        .toString(16)
        .padStart(2, "0")}`
    : color;
}

export type ChartSpec = (
  uplot: typeof uPlot,
  colors: ChartColors,
) => {
  options: Omit<uPlot.Options, "width" | "height">;
  data: uPlot.AlignedData;
  /** The hovered bucket's values as a line of text ("14:15 · 3 captured, 1 failed"); no readout without it. */
  readout?: (index: number) => string;
};

/** Where the pointer is, as uPlot reports it: the cursor follows it, and the readout names its bucket. */
const HOVER_CURSOR: uPlot.Cursor = { show: true, x: true, y: false, points: { show: false }, drag: { x: false, y: false, setScale: false } };

const DARK = "(prefers-color-scheme: dark)";

/**
 * A uPlot chart, drawn only in the browser (uPlot needs the DOM): the server renders the
 * box with its label and height, so nothing moves when the canvas arrives. The element is
 * an image to assistive technology, named by `label` (which should carry the figures); it
 * follows its container's width and redraws in the other theme's colours when the system
 * switches between light and dark. `data-drawn` is set once the canvas is painted. With a
 * readout in the spec, hovering shows the bucket under the pointer and its values (as text,
 * never markup: the figures may come from anywhere).
 */
export function Chart({
  label,
  height,
  spec,
  empty,
  emptyText = "No events in this window.",
  className,
  testId,
}: {
  label: string;
  height: number;
  spec: ChartSpec;
  /** Nothing to draw: the box shows emptyText instead. */
  empty: boolean;
  emptyText?: string;
  className?: string;
  testId?: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const readoutRef = useRef<HTMLDivElement>(null);
  // The latest spec, so a redraw for a theme switch or a new series uses current data.
  const specRef = useRef(spec);
  specRef.current = spec;

  useEffect(() => {
    const element = box.current;
    if (!element || empty) return;
    let chart: uPlot | undefined;
    let cancelled = false;
    let observer: ResizeObserver | undefined;
    const scheme = window.matchMedia(DARK);

    const draw = (uplot: typeof uPlot) => {
      chart?.destroy();
      element.removeAttribute("data-drawn");
      const { options, data, readout } = specRef.current(uplot, themeColors());
      const width = Math.max(element.clientWidth, 120);
      const showReadout = (u: uPlot) => {
        const label = readoutRef.current;
        if (!label || !readout) return;
        const index = u.cursor.idx;
        if (index === null || index === undefined) {
          label.hidden = true;
          return;
        }
        label.textContent = readout(index);
        label.hidden = false;
        // Beside the pointer, on whichever side has room.
        const left = (u.cursor.left ?? 0) + u.over.offsetLeft;
        const flip = left > element.clientWidth / 2;
        label.style.left = flip ? "" : `${left + 8}px`;
        label.style.right = flip ? `${element.clientWidth - left + 8}px` : "";
      };
      chart = new uplot(
        {
          ...options,
          ...(readout ? { cursor: HOVER_CURSOR } : {}),
          width,
          height,
          hooks: {
            ...options.hooks,
            draw: [...(options.hooks?.draw ?? []), () => element.setAttribute("data-drawn", scheme.matches ? "dark" : "light")],
            setCursor: [...(options.hooks?.setCursor ?? []), showReadout],
          },
        },
        data,
        element,
      );
    };

    let redraw: (() => void) | undefined;
    void import("uplot").then(({ default: uplot }) => {
      if (cancelled) return;
      draw(uplot);
      observer = new ResizeObserver(() => {
        const width = Math.max(element.clientWidth, 120);
        if (chart && Math.abs(chart.width - width) >= 1) chart.setSize({ width, height });
      });
      observer.observe(element);
      redraw = () => draw(uplot);
      scheme.addEventListener("change", redraw);
    });

    return () => {
      cancelled = true;
      observer?.disconnect();
      if (redraw) scheme.removeEventListener("change", redraw);
      chart?.destroy();
    };
  }, [spec, empty, height]);

  return (
    <div
      ref={box}
      role="img"
      aria-label={label}
      className={`chart${empty ? " chart-empty" : ""}${className ? ` ${className}` : ""}`}
      data-testid={testId}
      style={{ height }}
    >
      {empty ? (
        <span className="muted small" aria-hidden="true">
          {emptyText}
        </span>
      ) : (
        <div ref={readoutRef} className="chart-readout" aria-hidden="true" data-testid={testId ? `${testId}-readout` : undefined} hidden />
      )}
    </div>
  );
}
