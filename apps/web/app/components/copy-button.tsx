import { useEffect, useRef, useState } from "react";

/** Copies text, with a fallback for browsers without the async clipboard (plain http). */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Permission refused: try the old way below.
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.append(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand("copy");
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}

type CopyState = "idle" | "copied" | "failed";

/** A "Copy" button that says "Copied" for a moment (announced to screen readers too). */
export function CopyButton({
  text,
  label = "Copy",
  className = "button secondary small",
  describedBy,
  accessibleLabel,
}: {
  text: string | (() => string);
  label?: string;
  className?: string;
  describedBy?: string;
  accessibleLabel?: string;
}) {
  const [state, setState] = useState<CopyState>("idle");
  const timer = useRef<ReturnType<typeof setTimeout>>();
  useEffect(() => () => clearTimeout(timer.current), []);

  async function copy() {
    const ok = await copyText(typeof text === "function" ? text() : text);
    setState(ok ? "copied" : "failed");
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setState("idle"), 2000);
  }

  const shown = state === "copied" ? "Copied" : state === "failed" ? "Copy failed" : label;
  return (
    <>
      <button
        type="button"
        className={`${className} copy-button${state === "copied" ? " is-copied" : ""}`}
        onClick={copy}
        aria-describedby={describedBy}
        aria-label={state === "idle" ? accessibleLabel : undefined}
      >
        <CopyIcon done={state === "copied"} />
        <span>{shown}</span>
      </button>
      <span className="sr-only" aria-live="polite">
        {state === "copied" ? "Copied to the clipboard" : state === "failed" ? "Could not copy: select the text and copy it by hand" : ""}
      </span>
    </>
  );
}

function CopyIcon({ done }: { done: boolean }) {
  return (
    <svg className="icon" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">
      {done ? (
        <path d="M3 8.5l3 3 7-7" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round" />
      ) : (
        <>
          <rect x="5.5" y="5.5" width="8" height="8" rx="1.5" fill="none" stroke="currentColor" strokeWidth="1.4" />
          <path d="M10.5 5.5V3.5a1 1 0 0 0-1-1h-6a1 1 0 0 0-1 1v6a1 1 0 0 0 1 1h2" fill="none" stroke="currentColor" strokeWidth="1.4" />
        </>
      )}
    </svg>
  );
}
