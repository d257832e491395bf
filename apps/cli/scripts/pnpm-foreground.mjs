// `pnpm start` and `pnpm rehook …` run the CLI through this file (see the root package.json).
//
// pnpm runs a script under `sh -c` and passes a Ctrl-C on to that shell, which dies of it at
// once (dash does not wait for its child): pnpm then reports "ELIFECYCLE Command failed" even
// though rehook went on to stop cleanly. The scripts `exec` this file in place of the shell, so
// pnpm's child is a process that
// - passes SIGINT and SIGTERM on to rehook, but only when rehook did not get the signal itself.
//   A signal to the process group (Ctrl-C at a terminal, systemd's KillMode=control-group)
//   reaches rehook, this process and pnpm, and pnpm forwards its copy here: passed on, those
//   copies would count as a second signal, which cuts the stop short. rehook says over the IPC
//   channel which signals it received; one it did not report within FORWARD_AFTER_MS came to
//   pnpm or this process alone (`kill <pid of pnpm>`), and is passed on.
// - exits as rehook did: 0 after a clean stop.
import { spawn } from "node:child_process";
import { constants } from "node:os";

/** How long a signal waits for rehook to report that it received the same one. */
const FORWARD_AFTER_MS = 1_000;

const child = spawn(process.execPath, process.argv.slice(2), { stdio: ["inherit", "inherit", "inherit", "ipc"] });
/** Set once rehook reports a stop signal: from then on every signal for it reaches it directly or not at all. */
let childStopping = false;
let pending;
child.on("message", (message) => {
  if (message?.type !== "rehook:stop-signal") return;
  childStopping = true;
  if (pending) clearTimeout(pending);
  pending = undefined;
});
// The channel only carries reports: it must not hold this process open once rehook is gone.
child.on("disconnect", () => undefined);

function onSignal(signal) {
  if (childStopping || pending) return; // rehook has it, or a copy of this signal is already waiting
  pending = setTimeout(() => {
    pending = undefined;
    if (!childStopping) child.kill(signal);
  }, FORWARD_AFTER_MS);
}
process.on("SIGINT", onSignal);
process.on("SIGTERM", onSignal);
child.once("error", (error) => {
  process.stderr.write(`rehook: could not start: ${error.message}\n`);
  process.exit(1);
});
child.once("exit", (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
