import { spawn } from "node:child_process";

/** A failure the bundler explains in one line (no stack trace). */
export class BundleError extends Error {
  /** @override */
  name = "BundleError";
}

/**
 * Runs a command to completion with its output captured; a failure carries the command's
 * last lines of output, since that is where tools say what went wrong.
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd?: string; what?: string }} [options] `what` names the step in errors
 * @returns {Promise<string>} its stdout
 */
export function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let output = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      output += chunk;
    });
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", (error) => {
      const missing = /** @type {NodeJS.ErrnoException} */ (error).code === "ENOENT";
      reject(new BundleError(missing ? `${command} not found on PATH` : `${command}: ${error.message}`));
    });
    child.on("close", (code) => {
      if (code === 0) return resolve(stdout);
      const tail = output.trim().split("\n").slice(-3).join(" | ");
      reject(new BundleError(`${options.what ?? command} failed (exit ${code}): ${tail}`));
    });
  });
}
