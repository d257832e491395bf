export { appRouter, createCaller, type AppRouter, type RouterInputs, type RouterOutputs } from "./root.js";
export type { ApiContext, RequestFacts } from "./trpc.js";
