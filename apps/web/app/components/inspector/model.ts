import type { RouterOutputs } from "@rehook/api";
import { hexDump, type TextBodyKind } from "@rehook/core/browser";

/** The payload inspector's data for a body, as events.get sends it. */
export type BodyData = RouterOutputs["events"]["get"]["body"];
export type BodyViewData = Omit<BodyData, "decoded">;
export type MultipartData = NonNullable<BodyViewData["multipart"]>;

/** The ways a body can be shown. */
export type ViewId = "tree" | "pretty" | "raw" | "table" | "parts" | "hex" | "received";

export const VIEW_LABELS: Record<ViewId, string> = {
  tree: "Tree",
  pretty: "Pretty",
  raw: "Raw",
  table: "Table",
  parts: "Parts",
  hex: "Hex",
  received: "As received",
};

/** What the inspector looks at: the body, or its decoded form when it was compressed. */
export interface Subject {
  view: BodyViewData;
  kind: TextBodyKind | { kind: "multipart"; parts: MultipartData } | { kind: "binary" };
  /** The text stops short of the whole (a cut preview, or decoding stopped at its cap). */
  partial: boolean;
}

/** The subject of a view whose text (if any) is already classified. */
export function subjectOf(view: BodyViewData, textKind: TextBodyKind | null, partial: boolean): Subject {
  if (view.multipart && (view.multipart.parts.length > 0 || view.multipart.omitted > 0)) return { view, kind: { kind: "multipart", parts: view.multipart }, partial };
  if (textKind) return { view, kind: textKind, partial };
  return { view, kind: { kind: "binary" }, partial };
}

/** The views a subject offers, the first being the default. */
export function viewsOf(subject: Subject, compressed: boolean): ViewId[] {
  const views: ViewId[] = (() => {
    switch (subject.kind.kind) {
      case "json":
        return ["tree", "pretty", "raw"];
      case "form":
        return ["table", "raw"];
      case "xml":
        return ["pretty", "raw"];
      case "multipart":
        return ["parts", subject.view.text !== null ? "raw" : "hex"];
      case "text":
        return ["raw"];
      case "binary":
        return ["hex"];
    }
  })();
  return compressed ? [...views, "received"] : views;
}

/** A short name for the subject's kind (the inspector's chip). */
export function kindLabel(subject: Subject): string {
  switch (subject.kind.kind) {
    case "json":
      return "JSON";
    case "form":
      return "Form";
    case "xml":
      return "XML";
    case "multipart":
      return "Multipart";
    case "text":
      return "Text";
    case "binary":
      return "Binary";
  }
}

export function base64Bytes(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** A binary view's hex dump (of the bytes sent: the first 64 KiB at most). */
export function hexOf(view: BodyViewData): string {
  return view.base64 === null ? "" : hexDump(base64Bytes(view.base64));
}

/** Roughly how many characters rendering the body adds to the page (decides whether the server renders it). */
export function bodyWeight(body: BodyData): number {
  const weigh = (view: BodyViewData) => (view.text?.length ?? 0) + 4 * (view.base64?.length ?? 0);
  return weigh(body) + (body.decoded?.ok ? weigh(body.decoded.view) : 0);
}
