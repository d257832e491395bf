import pg from "pg";
import { postmasterPid } from "./cpu.js";

let made = 0;

/**
 * A new, empty database on an external server (`serverUrl`: a superuser's URL), dropped again
 * by stop(). Each call makes another (several Rehooks of one bench side by side).
 */
export async function freshExternalDatabase(serverUrl: string): Promise<{ url: string; stop(): Promise<void> }> {
  made += 1;
  const name = `rehook_bench_${process.pid}_${made}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${name}`);
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async stop() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

/** The postmaster's pid of the server behind a URL (it must run on this machine: CPU is read from /proc). */
export async function postmasterOf(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const dataDirectory = (await client.query<{ data_directory: string }>("show data_directory")).rows[0]!.data_directory;
  await client.end();
  const pid = postmasterPid(dataDirectory);
  if (pid === undefined) throw new Error(`cannot read ${dataDirectory}/postmaster.pid: CPU per event needs the database on this machine`);
  return pid;
}
