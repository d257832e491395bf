/** What a notification can be sent for, as the form offers it. */
export const TRIGGERS = [
  { value: "failed", label: "Failed", hint: "Recommended: a delivery your app did not accept." },
  { value: "delivered", label: "Delivered", hint: "Can be noisy at volume." },
  { value: "captured", label: "Captured", hint: "For endpoints without a destination URL." },
] as const;
type Trigger = (typeof TRIGGERS)[number]["value"];
export const isTrigger = (value: unknown): value is Trigger => TRIGGERS.some((trigger) => trigger.value === value);
