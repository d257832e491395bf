import { chmod, cp, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const FILES = fileURLToPath(new URL("../files/", import.meta.url));

/**
 * The bundle's own top level around the deployed CLI in app/: the `rehook` entry, the
 * systemd unit, an example environment file and a package.json naming the release.
 * @param {string} top the bundle's top folder (rehook-<version>)
 * @param {string} version
 */
export async function writeLayout(top, version) {
  await mkdir(path.join(top, "bin"), { recursive: true });
  await cp(path.join(FILES, "bin", "rehook.js"), path.join(top, "bin", "rehook.js"));
  await chmod(path.join(top, "bin", "rehook.js"), 0o755);
  await cp(path.join(FILES, "rehook.service"), path.join(top, "rehook.service"));
  await cp(path.join(FILES, "rehook.env.example"), path.join(top, "rehook.env.example"));
  // No "type": bin/rehook.js is CommonJS (see its header). The app keeps its own package.json.
  const manifest = {
    name: "rehook",
    version,
    private: true,
    description: "Rehook, a self-hostable webhook capture and replay service: release bundle",
    engines: { node: ">=20.19" },
    bin: { rehook: "bin/rehook.js" },
  };
  await writeFile(path.join(top, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
}
