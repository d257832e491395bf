import { useState } from "react";
import "./shell-notice.css";

/** A one-time confirmation at the top of the page ("Event … was deleted."), dismissable. */
export function ShellNotice({ text }: { text: string }) {
  const [open, setOpen] = useState(true);
  if (!open) return null;
  return (
    <div className="shell-notice" role="status" data-testid="shell-notice">
      <span className="shell-notice-mark" aria-hidden="true">
        ✓
      </span>
      <p>{text}</p>
      <button type="button" className="button ghost small" onClick={() => setOpen(false)} aria-label="Dismiss">
        ×
      </button>
    </div>
  );
}
