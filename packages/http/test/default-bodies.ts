import { loadConfig } from "@rehook/core";
import { RequestBodies } from "../src/index.js";

/** Request bodies with every limit at its default, for routes mounted on their own (a server makes its own from its configuration). */
export function defaultBodies(): RequestBodies {
  return RequestBodies.fromConfig(loadConfig({}, ""));
}
