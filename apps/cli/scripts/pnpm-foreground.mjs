// `pnpm start` and `pnpm rehook …` run the CLI through this file (see the root package.json).
//
// pnpm runs a script under `sh -c` and passes a Ctrl-C on to that shell, which dies of it at
// once (dash does not wait for its child): pnpm then reports "ELIFECYCLE Command failed" even
// though rehook went on to stop cleanly. The scripts `exec` this file in place of the shell, so
// pnpm's child is a process that
// - ignores SIGINT: Ctrl-C reaches rehook straight from the terminal (same process group), and
//   pnpm's copy of it must not count as a second Ctrl-C (which cuts the stop short);
// - passes SIGTERM on: pnpm forwards it here when it alone was asked to stop;
// - exits as rehook did: 0 after a clean stop.
import { spawn } from "node:child_process";
import { constants } from "node:os";

const child = spawn(process.execPath, process.argv.slice(2), { stdio: "inherit" });
process.on("SIGINT", () => undefined);
process.on("SIGTERM", () => child.kill("SIGTERM"));
child.once("error", (error) => {
  process.stderr.write(`rehook: could not start: ${error.message}\n`);
  process.exit(1);
});
child.once("exit", (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
