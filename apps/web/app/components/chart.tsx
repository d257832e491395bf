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

export type ChartSpec = (uplot: typeof uPlot, colors: ChartColors) => { options: Omit<uPlot.Options, "width" | "height">; data: uPlot.AlignedData };

const DARK = "(prefers-color-scheme: dark)";

/**
 * A uPlot chart, drawn only in the browser (uPlot needs the DOM): the server renders the
 * box with its label and height, so nothing moves when the canvas arrives. The element is
 * an image to assistive technology, named by `label` (which should carry the figures); it
 * follows its container's width and redraws in the other theme's colours when the system
 * switches between light and dark. `data-drawn` is set once the canvas is painted.
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
      const { options, data } = specRef.current(uplot, themeColors());
      const width = Math.max(element.clientWidth, 120);
      chart = new uplot(
        {
          ...options,
          width,
          height,
          hooks: {
            ...options.hooks,
            draw: [...(options.hooks?.draw ?? []), () => element.setAttribute("data-drawn", scheme.matches ? "dark" : "light")],
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
      ) : null}
    </div>
  );
}
