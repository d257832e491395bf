// `pnpm start` and `pnpm rehook …` run the CLI through this file (see the root package.json).
//
// pnpm runs a script under `sh -c` and passes a Ctrl-C on to that shell, which dies of it at
// once (dash does not wait for its child): pnpm then reports "ELIFECYCLE Command failed" even
// though rehook went on to stop cleanly. The scripts `exec` this file in place of the shell, so
// pnpm's child is a process that
// - relays every SIGINT and SIGTERM it gets to rehook as a message over an IPC channel, never as
//   a signal. A signal to the process group (Ctrl-C at a terminal, systemd's
//   KillMode=control-group) reaches rehook, this process and pnpm, which forwards its copy here:
//   as signals, those copies would count as a second one, which cuts the stop short. This
//   process cannot tell a copy from a signal meant for pnpm alone; rehook can, as it knows which
//   signals reached it directly (see src/stop-signals.ts).
// - exits as rehook did: 0 after a clean stop.
import { spawn } from "node:child_process";
import { constants } from "node:os";

const child = spawn(process.execPath, process.argv.slice(2), { stdio: ["inherit", "inherit", "inherit", "ipc"] });

function relay(signal) {
  // Once rehook has closed the channel (it is exiting), a signal is all that can reach it.
  if (child.connected) child.send({ type: "rehook:stop", signal }, undefined, undefined, () => undefined);
  else if (child.exitCode === null && child.signalCode === null) child.kill(signal);
}
process.on("SIGINT", relay);
process.on("SIGTERM", relay);
// The channel carries these messages only: rehook going away must not be an error here.
child.on("disconnect", () => undefined);
child.once("error", (error) => {
  process.stderr.write(`rehook: could not start: ${error.message}\n`);
  process.exit(1);
});
child.once("exit", (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
