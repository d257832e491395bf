#!/usr/bin/env node
// Checks the dependency direction between workspace packages (see docs/architecture.md):
// every @rehook/* import in a package's source must be one its layer may use, and declared
// in its package.json. Usage: check-dependencies.mjs [--package <dir>] (default: all).
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Which workspace packages each one may import. Nothing imports an app (APPS): apps compose packages. */
const ALLOWED = {
  "@rehook/core": [],
  "@rehook/db": ["@rehook/core"],
  "@rehook/auth": ["@rehook/core", "@rehook/db"],
  "@rehook/delivery": ["@rehook/core", "@rehook/db"],
  "@rehook/services": ["@rehook/core", "@rehook/db", "@rehook/auth", "@rehook/delivery"],
  "@rehook/api": ["@rehook/core", "@rehook/services", "@rehook/auth"],
  "@rehook/http": ["@rehook/core", "@rehook/services", "@rehook/auth"],
  "@rehook/server": ["@rehook/core", "@rehook/db", "@rehook/auth", "@rehook/delivery", "@rehook/services", "@rehook/api", "@rehook/http"],
  // The dashboard's pages use the API's types and core's browser-safe helpers; its wiring
  // tests start the composed server.
  "@rehook/web": ["@rehook/core", "@rehook/api", "@rehook/server", "@rehook/db", "@rehook/auth", "@rehook/services", "@rehook/http", "@rehook/delivery"],
  "@rehook/cli": ["@rehook/core", "@rehook/db", "@rehook/services", "@rehook/http", "@rehook/server"],
};
/** Apps compose packages; no package, app or test imports one (the CLI finds the dashboard's build files by path). */
const APPS = ["@rehook/web", "@rehook/cli"];
/** Test files may also use the shared test fixtures. */
const TEST_ONLY = ["@rehook/vitest-config"];
const SOURCE_DIRS = ["src", "app", "server", "test", "e2e"];
const IMPORT = /(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function listFiles(dir) {
  let files = [];
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "dist" || name === "build") continue;
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) files = files.concat(listFiles(full));
    else if (/\.(ts|tsx|mts|js|mjs)$/.test(name)) files.push(full);
  }
  return files;
}

function packageDirs() {
  return ["apps", "packages"].flatMap((group) =>
    readdirSync(path.join(root, group)).map((name) => path.join(root, group, name)),
  );
}

function check(dir) {
  const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
  const name = manifest.name;
  const allowed = ALLOWED[name];
  if (!allowed) return [`${name}: not in the layer table of tooling/lint/check-dependencies.mjs`];
  const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.devDependencies ?? {})]);
  const problems = [];
  for (const sub of SOURCE_DIRS) {
    const base = path.join(dir, sub);
    if (!statSync(base, { throwIfNoEntry: false })?.isDirectory()) continue;
    for (const file of listFiles(base)) {
      const isTest = sub === "test" || sub === "e2e" || /\.test\.tsx?$/.test(file);
      const text = readFileSync(file, "utf8");
      for (const match of text.matchAll(IMPORT)) {
        const specifier = match[1] ?? match[2];
        if (!specifier.startsWith("@rehook/")) continue;
        const target = specifier.split("/").slice(0, 2).join("/");
        const where = path.relative(root, file);
        if (target === name) {
          if (isTest) continue; // tests may use their package's public entry
          problems.push(`${where}: imports its own package ${specifier}; use a relative path`);
        } else if (APPS.includes(target)) {
          problems.push(`${where}: imports the app ${target}; apps are composed from packages and never imported`);
        } else if (isTest && TEST_ONLY.includes(target)) {
          continue;
        } else if (!allowed.includes(target)) {
          problems.push(`${where}: ${name} may not import ${target} (allowed: ${allowed.join(", ") || "none"})`);
        } else if (!declared.has(target) && !isTest) {
          problems.push(`${where}: imports ${target} but ${name}'s package.json does not declare it`);
        }
      }
    }
  }
  return problems;
}

const only = process.argv.indexOf("--package");
const dirs = only === -1 ? packageDirs() : [path.resolve(process.argv[only + 1])];
const problems = dirs.flatMap(check);
if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  console.error(`dependency direction: ${problems.length} problem(s)`);
  process.exit(1);
}
console.log(`dependency direction: ${dirs.length} package(s) ok`);
