import { useId, type ReactNode } from "react";
import { useModalDialog } from "./hooks";

/**
 * A modal confirmation on the native <dialog> (focus is kept inside, Escape closes it,
 * the page behind is inert). Its accessible name is the title.
 */
export function ConfirmDialog({
  open,
  onClose,
  title,
  description,
  children,
  tone = "danger",
}: {
  open: boolean;
  onClose: () => void;
  title: string;
  /** What happens if the user goes ahead (read out with the title). */
  description: ReactNode;
  /** The confirming button (usually in its form); a Cancel button that closes the dialog comes before it. */
  children: ReactNode;
  tone?: "danger" | "default";
}) {
  const ref = useModalDialog(open);
  const titleId = useId();
  const bodyId = useId();

  return (
    <dialog
      ref={ref}
      className={`dialog dialog-${tone}`}
      aria-labelledby={titleId}
      aria-describedby={bodyId}
      onClose={onClose}
      onCancel={onClose}
      onClick={(event) => {
        // A click on the backdrop (the dialog element itself, outside its content) closes it.
        if (event.target === ref.current) onClose();
      }}
    >
      <div className="dialog-content">
        <h2 id={titleId} className="dialog-title">
          {title}
        </h2>
        <div id={bodyId} className="dialog-body">
          {description}
        </div>
        <div className="dialog-actions">
          <button type="button" className="button secondary" onClick={onClose} autoFocus>
            Cancel
          </button>
          {children}
        </div>
      </div>
    </dialog>
  );
}
